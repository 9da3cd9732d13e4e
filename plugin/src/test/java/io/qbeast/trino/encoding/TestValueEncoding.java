package io.qbeast.trino.encoding;

import io.airlift.slice.Slices;
import io.qbeast.index.ColumnProfile;
import io.qbeast.index.Revision;
import io.qbeast.index.RevisionPlanner;
import io.qbeast.index.transform.ValueDomain;
import io.qbeast.trino.read.QbeastFilePruner;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.predicate.Domain;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.Int128;
import io.trino.spi.type.LongTimestampWithTimeZone;
import io.trino.spi.type.TimeType;
import io.trino.spi.type.TimeZoneKey;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.TimestampWithTimeZoneType;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarcharType;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.BooleanType.BOOLEAN;
import static io.trino.spi.type.CharType.createCharType;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.SmallintType.SMALLINT;
import static io.trino.spi.type.TinyintType.TINYINT;
import static io.trino.spi.type.TypeUtils.writeNativeValue;
import static io.trino.spi.type.UuidType.UUID;
import static io.trino.spi.type.VarbinaryType.VARBINARY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The writer ({@link PointMapper}, values read from blocks) and the pruner
 * ({@link QbeastFilePruner}, native values of a predicate's domains) must encode every value the
 * same way, or a file is pruned at a coordinate its rows were not written at. Each supported type
 * is tried on its edge values (minimum, maximum, zero, ±0.0, NaN, infinities, long strings,
 * several time zones of one instant), each list in SQL order.
 */
class TestValueEncoding
{
    private static final Type SHORT_DECIMAL = DecimalType.createDecimalType(10, 2);
    private static final Type LONG_DECIMAL = DecimalType.createDecimalType(38, 4);
    private static final Type TIMESTAMP_TZ_MICROS = TimestampWithTimeZoneType.createTimestampWithTimeZoneType(6);
    private static final BigInteger MAX_DECIMAL = new BigInteger("9".repeat(38));

    /** Each type's values in SQL order (NaN last: it sorts above every other value in Trino). */
    private static final Map<Type, List<Object>> VALUES = Map.ofEntries(
            Map.entry(TINYINT, List.of(-128L, -1L, 0L, 1L, 127L)),
            Map.entry(SMALLINT, List.of(-32768L, 0L, 32767L)),
            Map.entry(INTEGER, List.of((long) Integer.MIN_VALUE, -1L, 0L, (long) Integer.MAX_VALUE)),
            Map.entry(BIGINT, List.of(Long.MIN_VALUE, -1L, 0L, 1L, Long.MAX_VALUE)),
            Map.entry(DATE, List.of(-719_162L, -1L, 0L, 20_000L, 2_932_896L)),
            Map.entry(TimeType.TIME_MILLIS, List.of(0L, 1_000_000_000L, 86_399_999_000_000_000L)),
            Map.entry(TimestampType.TIMESTAMP_MICROS, List.of(Long.MIN_VALUE, -1L, 0L, 1L, Long.MAX_VALUE)),
            Map.entry(TIMESTAMP_TZ_MICROS, List.of(
                    LongTimestampWithTimeZone.fromEpochMillisAndFraction(-1_000, 0, TimeZoneKey.UTC_KEY),
                    LongTimestampWithTimeZone.fromEpochMillisAndFraction(0, 0, TimeZoneKey.getTimeZoneKey("Asia/Kolkata")),
                    LongTimestampWithTimeZone.fromEpochMillisAndFraction(0, 1_000_000, TimeZoneKey.UTC_KEY),
                    LongTimestampWithTimeZone.fromEpochMillisAndFraction(1_700_000_000_000L, 999_000_000, TimeZoneKey.getTimeZoneKey("America/New_York")))),
            Map.entry(SHORT_DECIMAL, List.of(-9_999_999_999L, -1L, 0L, 9_999_999_999L)),
            Map.entry(LONG_DECIMAL, List.of(Int128.valueOf(MAX_DECIMAL.negate()), Int128.valueOf(-1), Int128.ZERO, Int128.valueOf(Long.MAX_VALUE), Int128.valueOf(MAX_DECIMAL))),
            Map.entry(REAL, floats(Float.NEGATIVE_INFINITY, -Float.MAX_VALUE, -1.5f, -0.0f, 0.0f, Float.MIN_VALUE, Float.MAX_VALUE, Float.POSITIVE_INFINITY, Float.NaN)),
            Map.entry(DOUBLE, List.of(Double.NEGATIVE_INFINITY, -Double.MAX_VALUE, -1.5, -0.0, 0.0, Double.MIN_VALUE, Double.MAX_VALUE, Double.POSITIVE_INFINITY, Double.NaN)),
            Map.entry(VarcharType.VARCHAR, slices("", "a", "a" + "z".repeat(10_000), "b", "é", "\uD83D\uDE00")),
            Map.entry(createCharType(5), slices("", "ab", "abc", "zz")),
            Map.entry(VARBINARY, List.of(Slices.EMPTY_SLICE, Slices.wrappedBuffer(new byte[] {0}), Slices.wrappedBuffer(new byte[] {0, 0}), Slices.wrappedBuffer(new byte[] {(byte) 0xff}))),
            Map.entry(UUID, List.of(Slices.wrappedBuffer(new byte[16]), Slices.wrappedBuffer(filled(16, (byte) 0x7f)), Slices.wrappedBuffer(filled(16, (byte) 0xff)))),
            Map.entry(BOOLEAN, List.of(false, true)));

    @Test
    void testBlockAndNativeFormsAgree()
    {
        VALUES.forEach((type, values) -> {
            Block block = block(type, values);
            for (int position = 0; position < values.size(); position++) {
                Object value = values.get(position);
                String what = type + " " + value;
                switch (ValueEncoding.domainOf(type)) {
                    case LONG -> assertThat(ValueEncoding.longValue(type, block, position)).as(what).isEqualTo(ValueEncoding.longValue(type, value));
                    case DOUBLE -> assertThat(Double.doubleToRawLongBits(ValueEncoding.doubleValue(type, block, position))).as(what)
                            .isEqualTo(Double.doubleToRawLongBits(ValueEncoding.doubleValue(type, value)));
                    case BYTES -> assertThat(ValueEncoding.bytesValue(type, block, position)).as(what).isEqualTo(ValueEncoding.bytesValue(type, value));
                    case BOOLEAN -> assertThat(BOOLEAN.getBoolean(block, position)).as(what).isEqualTo(value);
                }
            }
        });
    }

    /** The encoded values keep the SQL order of each type (so a range of values is a range of coordinates). */
    @Test
    void testEncodingKeepsSqlOrder()
    {
        VALUES.forEach((type, values) -> {
            for (int position = 1; position < values.size(); position++) {
                Object previous = values.get(position - 1);
                Object value = values.get(position);
                String what = type + " " + previous + " <= " + value;
                switch (ValueEncoding.domainOf(type)) {
                    case LONG -> assertThat(ValueEncoding.longValue(type, previous)).as(what).isLessThanOrEqualTo(ValueEncoding.longValue(type, value));
                    // -0.0 and 0.0 are equal in SQL; Double.compare orders them, which keeps the order
                    case DOUBLE -> assertThat(Double.compare(ValueEncoding.doubleValue(type, previous), ValueEncoding.doubleValue(type, value))).as(what).isLessThanOrEqualTo(0);
                    case BYTES -> assertThat(ValueEncoding.bytesValue(type, previous).compareTo(ValueEncoding.bytesValue(type, value))).as(what).isLessThanOrEqualTo(0);
                    case BOOLEAN -> assertThat(Boolean.compare((Boolean) previous, (Boolean) value)).as(what).isLessThanOrEqualTo(0);
                }
            }
        });
    }

    /**
     * The end-to-end rule: under a revision proposed from the values, the coordinate the writer
     * gives each row lies in the coordinates the pruner gives the predicate {@code column = value}
     * (and {@code column IS NULL} for a null row).
     */
    @Test
    void testPrunerRangeHoldsTheWritersCoordinate()
    {
        VALUES.forEach((type, values) -> {
            List<Object> withNull = new ArrayList<>(values);
            withNull.add(null);
            PointMapper mapper = new PointMapper(List.of("c"), List.of(0), List.of(type));
            Page page = new Page(block(type, withNull));
            List<ColumnProfile> profiles = mapper.newProfiles();
            mapper.profile(profiles, page);
            Revision revision = RevisionPlanner.defaults().propose(profiles, 1_000);
            double[] coordinates = new double[withNull.size()];
            mapper.coordinates(revision, page, coordinates, 0);
            for (int position = 0; position < withNull.size(); position++) {
                Object value = withNull.get(position);
                if (isNaN(type, value)) {
                    // a domain cannot hold NaN: no predicate prunes for it
                    continue;
                }
                Domain domain = value == null ? Domain.onlyNull(type) : Domain.singleValue(type, value);
                assertThat(QbeastFilePruner.ranges(revision.transformation(0), domain).contains(coordinates[position]))
                        .as("%s = %s: coordinate %s under %s", type, value, coordinates[position], revision.transformation(0))
                        .isTrue();
            }
        });
    }

    @Test
    void testValueOfAnotherDomainIsRefused()
    {
        assertThatThrownBy(() -> ValueEncoding.longValue(DOUBLE, 1.0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ValueEncoding.doubleValue(BIGINT, 1L)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ValueEncoding.bytesValue(BIGINT, 1L)).isInstanceOf(IllegalArgumentException.class);
        // timestamps with time zone of up to 3 digits are packed longs: not indexable, so not LONG values
        assertThat(ValueEncoding.isIndexable(TimestampWithTimeZoneType.TIMESTAMP_TZ_MILLIS)).isFalse();
        assertThatThrownBy(() -> ValueEncoding.longValue(TimestampWithTimeZoneType.TIMESTAMP_TZ_MILLIS, 0L)).isInstanceOf(IllegalArgumentException.class);
        assertThat(ValueEncoding.domainOf(SHORT_DECIMAL)).isEqualTo(ValueDomain.LONG);
        assertThat(ValueEncoding.domainOf(LONG_DECIMAL)).isEqualTo(ValueDomain.DOUBLE);
    }

    private static Block block(Type type, List<Object> values)
    {
        BlockBuilder builder = type.createBlockBuilder(null, values.size());
        for (Object value : values) {
            writeNativeValue(type, builder, value);
        }
        return builder.build();
    }

    private static boolean isNaN(Type type, Object value)
    {
        return value instanceof Double doubleValue && doubleValue.isNaN()
                || type == REAL && value instanceof Long bits && Float.isNaN(Float.intBitsToFloat((int) (long) bits));
    }

    private static List<Object> floats(float... values)
    {
        List<Object> bits = new ArrayList<>();
        for (float value : values) {
            bits.add((long) Float.floatToIntBits(value));
        }
        return bits;
    }

    private static List<Object> slices(String... values)
    {
        return Arrays.stream(values).map(value -> (Object) Slices.utf8Slice(value)).toList();
    }

    private static byte[] filled(int length, byte value)
    {
        byte[] bytes = new byte[length];
        Arrays.fill(bytes, value);
        return bytes;
    }
}

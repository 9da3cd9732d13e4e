package io.qbeast.trino.parquet;

import com.google.common.collect.ImmutableList;
import io.airlift.slice.Slices;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.type.ArrayType;
import io.trino.spi.type.CharType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.Int128;
import io.trino.spi.type.LongTimestampWithTimeZone;
import io.trino.spi.type.MapType;
import io.trino.spi.type.RowType;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarcharType;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

import static io.qbeast.trino.handle.QbeastColumnHandle.CUBE_COLUMN;
import static io.qbeast.trino.handle.QbeastColumnHandle.WEIGHT_COLUMN;
import static io.qbeast.trino.parquet.ParquetTesting.column;
import static io.qbeast.trino.parquet.ParquetTesting.mapType;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.BooleanType.BOOLEAN;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DecimalType.createDecimalType;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.RowType.field;
import static io.trino.spi.type.SmallintType.SMALLINT;
import static io.trino.spi.type.TimeType.TIME_MICROS;
import static io.trino.spi.type.TimeZoneKey.UTC_KEY;
import static io.trino.spi.type.TimestampType.TIMESTAMP_MICROS;
import static io.trino.spi.type.TimestampWithTimeZoneType.TIMESTAMP_TZ_MICROS;
import static io.trino.spi.type.TinyintType.TINYINT;
import static io.trino.spi.type.UuidType.UUID;
import static io.trino.spi.type.UuidType.javaUuidToTrinoUuid;
import static io.trino.spi.type.VarbinaryType.VARBINARY;
import static io.trino.spi.type.VarcharType.VARCHAR;

/**
 * A table with a column of every supported type and random rows full of edge cases: NULLs,
 * NaN and infinities, -0.0, empty and long strings, multi-byte and surrogate-pair characters,
 * extreme decimals, nested rows, arrays and maps with null elements and empty collections.
 */
final class AllTypesTable
{
    static final RowType INNER_ROW = RowType.rowType(field("d", DOUBLE), field("f", REAL));
    static final RowType ROW = RowType.rowType(field("a", INTEGER), field("b", VARCHAR), field("c", INNER_ROW));
    static final RowType ELEMENT_ROW = RowType.rowType(field("x", BIGINT), field("y", new ArrayType(INTEGER)));

    static final List<ColumnMetadata> COLUMNS = ImmutableList.of(
            column("c_boolean", BOOLEAN),
            column("c_tinyint", TINYINT),
            column("c_smallint", SMALLINT),
            column("c_integer", INTEGER),
            column("c_bigint", BIGINT),
            column("c_real", REAL),
            column("c_double", DOUBLE),
            column("c_decimal_5_3", createDecimalType(5, 3)),
            column("c_decimal_18_4", createDecimalType(18, 4)),
            column("c_decimal_38_10", createDecimalType(38, 10)),
            column("c_decimal_20_0", createDecimalType(20, 0)),
            column("c_date", DATE),
            column("c_time", TIME_MICROS),
            column("c_timestamp", TIMESTAMP_MICROS),
            column("c_timestamptz", TIMESTAMP_TZ_MICROS),
            column("c_varchar", VARCHAR),
            column("c_varbinary", VARBINARY),
            column("c_uuid", UUID),
            column("c_row", ROW),
            column("c_array", new ArrayType(VARCHAR)),
            column("c_map", mapType(VARCHAR, BIGINT)),
            column("c_array_of_rows", new ArrayType(ELEMENT_ROW)),
            column("c_map_of_arrays", mapType(BIGINT, new ArrayType(DOUBLE))),
            column(WEIGHT_COLUMN, INTEGER),
            column(CUBE_COLUMN, VARBINARY));

    static final List<Type> TYPES = COLUMNS.stream().map(ColumnMetadata::getType).collect(ImmutableList.toImmutableList());

    private static final String LONG_STRING = "long-" + "x".repeat(3000) + "-end";
    private static final List<String> SPECIAL_STRINGS = ImmutableList.of("", " ", "a", "ñandú", "日本語", "😀 emoji", "\u0000nul", LONG_STRING, "zzzz", "\uFFFF");
    private static final List<Float> SPECIAL_FLOATS = ImmutableList.of(Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, -0.0f, 0.0f, Float.MIN_VALUE, -Float.MAX_VALUE, Float.MAX_VALUE);
    private static final List<Double> SPECIAL_DOUBLES = ImmutableList.of(Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.0, 0.0, Double.MIN_VALUE, -Double.MAX_VALUE, Double.MAX_VALUE);

    private AllTypesTable() {}

    static List<List<Object>> rows(int count, long seed)
    {
        Random random = new Random(seed);
        List<List<Object>> rows = new ArrayList<>();
        for (int row = 0; row < count; row++) {
            List<Object> values = new ArrayList<>();
            for (ColumnMetadata column : COLUMNS) {
                if (column.getName().equals(WEIGHT_COLUMN)) {
                    values.add((long) random.nextInt());
                }
                else if (column.getName().equals(CUBE_COLUMN)) {
                    // 40-byte cube ids: longer than Iceberg's default 16-byte truncation
                    byte[] cube = new byte[40];
                    Arrays.fill(cube, (byte) 0x7A);
                    cube[39] = (byte) (row % 3);
                    values.add(Slices.wrappedBuffer(cube));
                }
                else {
                    values.add(value(column.getType(), random, true));
                }
            }
            rows.add(values);
        }
        return rows;
    }

    static Object value(Type type, Random random, boolean nullable)
    {
        if (nullable && random.nextInt(10) == 0) {
            return null;
        }
        boolean special = random.nextInt(6) == 0;
        return switch (type) {
            case RowType rowType -> {
                List<Object> fields = new ArrayList<>();
                for (RowType.Field field : rowType.getFields()) {
                    fields.add(value(field.getType(), random, true));
                }
                yield fields;
            }
            case ArrayType arrayType -> {
                List<Object> elements = new ArrayList<>();
                int size = random.nextInt(4);
                for (int i = 0; i < size; i++) {
                    elements.add(value(arrayType.getElementType(), random, true));
                }
                yield elements;
            }
            case MapType mapType -> {
                Map<Object, Object> entries = new LinkedHashMap<>();
                int size = random.nextInt(4);
                for (int i = 0; i < size; i++) {
                    entries.put(value(mapType.getKeyType(), random, false), value(mapType.getValueType(), random, true));
                }
                yield entries;
            }
            case DecimalType decimal when decimal.isShort() -> {
                long limit = BigInteger.TEN.pow(decimal.getPrecision()).longValueExact() - 1;
                yield special ? (random.nextBoolean() ? limit : -limit) : random.nextLong(-limit, limit + 1);
            }
            case DecimalType decimal -> {
                BigInteger limit = BigInteger.TEN.pow(decimal.getPrecision()).subtract(BigInteger.ONE);
                BigInteger unscaled = special ? limit : new BigInteger(limit.bitLength() + 8, random).mod(limit);
                yield Int128.valueOf(random.nextBoolean() ? unscaled : unscaled.negate());
            }
            case VarcharType _, CharType _ -> Slices.utf8Slice(special ? SPECIAL_STRINGS.get(random.nextInt(SPECIAL_STRINGS.size())) : randomString(random));
            default -> primitive(type, random, special);
        };
    }

    private static Object primitive(Type type, Random random, boolean special)
    {
        if (type.equals(BOOLEAN)) {
            return random.nextBoolean();
        }
        if (type.equals(TINYINT)) {
            return (long) (byte) random.nextInt();
        }
        if (type.equals(SMALLINT)) {
            return (long) (short) random.nextInt();
        }
        if (type.equals(INTEGER)) {
            return special ? (random.nextBoolean() ? (long) Integer.MIN_VALUE : (long) Integer.MAX_VALUE) : (long) random.nextInt();
        }
        if (type.equals(BIGINT)) {
            return special ? (random.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE) : random.nextLong();
        }
        if (type.equals(REAL)) {
            float value = special ? SPECIAL_FLOATS.get(random.nextInt(SPECIAL_FLOATS.size())) : (random.nextFloat() - 0.5f) * 1e6f;
            return (long) Float.floatToIntBits(value);
        }
        if (type.equals(DOUBLE)) {
            return special ? SPECIAL_DOUBLES.get(random.nextInt(SPECIAL_DOUBLES.size())) : (random.nextDouble() - 0.5) * 1e12;
        }
        if (type.equals(DATE)) {
            return (long) random.nextInt(-800_000, 800_000);
        }
        if (type.equals(TIME_MICROS)) {
            // picoseconds of the day, at microsecond precision
            return random.nextLong(0, 86_400_000_000L) * 1_000_000L;
        }
        if (type.equals(TIMESTAMP_MICROS)) {
            return random.nextLong(-60_000_000_000_000_000L / 1000, 60_000_000_000_000_000L / 1000);
        }
        if (type.equals(TIMESTAMP_TZ_MICROS)) {
            return LongTimestampWithTimeZone.fromEpochMillisAndFraction(random.nextLong(-10_000_000_000_000L, 10_000_000_000_000L), random.nextInt(1000) * 1_000_000, UTC_KEY);
        }
        if (type.equals(VARBINARY)) {
            byte[] bytes = new byte[special ? 0 : random.nextInt(1, 24)];
            random.nextBytes(bytes);
            return Slices.wrappedBuffer(bytes);
        }
        if (type.equals(UUID)) {
            return javaUuidToTrinoUuid(new UUID(random.nextLong(), random.nextLong()));
        }
        throw new IllegalArgumentException("No generator for " + type);
    }

    private static String randomString(Random random)
    {
        StringBuilder builder = new StringBuilder();
        int length = random.nextInt(1, 30);
        for (int i = 0; i < length; i++) {
            int kind = random.nextInt(10);
            if (kind < 7) {
                builder.append((char) random.nextInt('a', 'z' + 1));
            }
            else if (kind < 9) {
                builder.append((char) random.nextInt(0xA0, 0x3000));
            }
            else {
                builder.appendCodePoint(random.nextInt(0x1F600, 0x1F650));
            }
        }
        return builder.toString();
    }
}

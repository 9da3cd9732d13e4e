package io.qbeast.trino.parquet;

import io.airlift.slice.Slices;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.format.BoundaryOrder;
import org.apache.parquet.format.ColumnIndex;
import org.apache.parquet.format.OffsetIndex;
import org.apache.parquet.format.PageLocation;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.BooleanType.BOOLEAN;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.VarbinaryType.VARBINARY;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The column index PageBounds makes from runs of rows, against the values themselves: exact
 * bounds and null counts when pages are whole runs, bounds that still hold and no null counts
 * when a page ends inside a run, null pages, no index with a NaN, signed zeros, binary bounds in
 * unsigned order and cut, and which types get bounds at all.
 */
class TestPageBounds
{
    @Test
    void testPagesOfWholeRunsHaveExactBoundsAndNullCounts()
    {
        PageBounds bounds = new PageBounds(0, "x", BIGINT, PageBounds.Kind.INT64);
        // runs of 3 rows: [5, null, -2], [null, null, null], [7, 9, 8], [1, 2, 3]
        Block block = longs(5L, null, -2L, null, null, null, 7L, 9L, 8L, 1L, 2L, 3L);
        bounds.addRun(block, 0, 3);
        bounds.addRun(block, 3, 3);
        bounds.addRun(block, 6, 3);
        bounds.addRun(block, 9, 3);
        // pages: runs 1, 2, 3+4
        ColumnIndex index = bounds.columnIndex(pages(0, 3, 6), 12).orElseThrow();
        assertThat(index.getNull_pages()).containsExactly(false, true, false);
        assertThat(index.getNull_counts()).containsExactly(1L, 3L, 0L);
        assertThat(int64(index.getMin_values().get(0))).isEqualTo(-2);
        assertThat(int64(index.getMax_values().get(0))).isEqualTo(5);
        assertThat(int64(index.getMin_values().get(2))).isEqualTo(1);
        assertThat(int64(index.getMax_values().get(2))).isEqualTo(9);
        // [-2, 5] then [1, 9]: ascending (null pages have no place in the order)
        assertThat(index.getBoundary_order()).isEqualTo(BoundaryOrder.ASCENDING);
        bounds.clear();
        bounds.addRun(longs(5L, 1L, 3L), 0, 3);
        bounds.addRun(longs(0L, 9L, 4L), 0, 3);
        // [1, 5] then [0, 9]: neither
        assertThat(bounds.columnIndex(pages(0, 3), 6).orElseThrow().getBoundary_order()).isEqualTo(BoundaryOrder.UNORDERED);
    }

    @Test
    void testPageEndingInsideARunGetsTheBoundsOfEveryRunItOverlaps()
    {
        PageBounds bounds = new PageBounds(0, "x", INTEGER, PageBounds.Kind.INT32);
        Block block = ints(1, 2, 3, 10, 11, 12);
        bounds.addRun(block, 0, 3);
        bounds.addRun(block, 3, 3);
        // pages [0, 2) and [2, 6): the second starts inside the first run
        ColumnIndex index = bounds.columnIndex(pages(0, 2), 6).orElseThrow();
        assertThat(int32(index.getMin_values().get(0))).isEqualTo(1);
        assertThat(int32(index.getMax_values().get(0))).isEqualTo(3);
        assertThat(int32(index.getMin_values().get(1))).isEqualTo(1);
        assertThat(int32(index.getMax_values().get(1))).isEqualTo(12);
        // the true bounds lie within: rows 0-1 are 1..2, rows 2-5 are 3..12
        assertThat(index.isSetNull_counts()).isFalse();
        assertThat(index.getBoundary_order()).isEqualTo(BoundaryOrder.ASCENDING);
    }

    @Test
    void testRunsThatDoNotCoverTheRowGroupOrHoldNaNGiveNoIndex()
    {
        PageBounds bounds = new PageBounds(0, "x", DOUBLE, PageBounds.Kind.DOUBLE);
        bounds.addRun(doubles(1.0, 2.0), 0, 2);
        assertThat(bounds.columnIndex(pages(0), 3)).isEmpty();
        bounds.clear();
        bounds.addRun(doubles(1.0, Double.NaN, 2.0), 0, 3);
        assertThat(bounds.columnIndex(pages(0), 3)).isEmpty();
        // clear forgets the NaN with the runs
        bounds.clear();
        bounds.addRun(doubles(0.0, 0.0, -0.0), 0, 3);
        ColumnIndex zeros = bounds.columnIndex(pages(0), 3).orElseThrow();
        // a lower bound of zero is -0.0, an upper +0.0
        assertThat(Double.doubleToRawLongBits(float64(zeros.getMin_values().getFirst()))).isEqualTo(Double.doubleToRawLongBits(-0.0));
        assertThat(Double.doubleToRawLongBits(float64(zeros.getMax_values().getFirst()))).isEqualTo(Double.doubleToRawLongBits(0.0));
    }

    @Test
    void testBinaryBoundsAreUnsignedAndCut()
    {
        PageBounds bounds = new PageBounds(0, "s", VARCHAR, PageBounds.Kind.BINARY);
        String longLow = "a".repeat(100);
        // 'é' is 0xC3 0xA9: above 'z' unsigned, below it signed
        bounds.addRun(strings("m", longLow, "z", "é"), 0, 4);
        bounds.addRun(strings(null, null), 0, 2);
        ColumnIndex index = bounds.columnIndex(pages(0, 4), 6).orElseThrow();
        assertThat(new String(bytes(index.getMin_values().get(0)), UTF_8)).isEqualTo("a".repeat(PageBounds.MAX_BINARY_BOUND));
        assertThat(new String(bytes(index.getMax_values().get(0)), UTF_8)).isEqualTo("é");
        assertThat(index.getNull_pages()).containsExactly(false, true);
        assertThat(index.getNull_counts()).containsExactly(0L, 2L);

        // an upper bound past the cut: the last byte below 0xFF incremented, the rest dropped
        bounds.clear();
        byte[] high = new byte[80];
        Arrays.fill(high, (byte) 0xFF);
        high[10] = 0x41;
        bounds.addRun(binaries(new byte[] {0x01}, high), 0, 2);
        ColumnIndex cut = bounds.columnIndex(pages(0), 2).orElseThrow();
        byte[] expected = Arrays.copyOf(high, 11);
        expected[10] = 0x42;
        assertThat(bytes(cut.getMax_values().getFirst())).isEqualTo(expected);
        assertThat(Arrays.compareUnsigned(bytes(cut.getMax_values().getFirst()), high)).isPositive();

        // 0xFF bytes up to the cut: no upper bound, so no index
        bounds.clear();
        byte[] ones = new byte[80];
        Arrays.fill(ones, (byte) 0xFF);
        bounds.addRun(binaries(ones), 0, 1);
        assertThat(bounds.columnIndex(pages(0), 1)).isEmpty();
    }

    @Test
    void testKinds()
    {
        assertThat(PageBounds.Kind.of(INTEGER, Types.IntegerType.get())).contains(PageBounds.Kind.INT32);
        assertThat(PageBounds.Kind.of(DATE, Types.DateType.get())).contains(PageBounds.Kind.INT32);
        assertThat(PageBounds.Kind.of(BIGINT, Types.LongType.get())).contains(PageBounds.Kind.INT64);
        assertThat(PageBounds.Kind.of(DecimalType.createDecimalType(9, 2), Types.DecimalType.of(9, 2))).contains(PageBounds.Kind.INT32);
        assertThat(PageBounds.Kind.of(DecimalType.createDecimalType(18, 2), Types.DecimalType.of(18, 2))).contains(PageBounds.Kind.INT64);
        assertThat(PageBounds.Kind.of(DecimalType.createDecimalType(30, 2), Types.DecimalType.of(30, 2))).isEmpty();
        assertThat(PageBounds.Kind.of(REAL, Types.FloatType.get())).contains(PageBounds.Kind.FLOAT);
        assertThat(PageBounds.Kind.of(DOUBLE, Types.DoubleType.get())).contains(PageBounds.Kind.DOUBLE);
        assertThat(PageBounds.Kind.of(VARCHAR, Types.StringType.get())).contains(PageBounds.Kind.BINARY);
        assertThat(PageBounds.Kind.of(VARBINARY, Types.BinaryType.get())).contains(PageBounds.Kind.BINARY);
        assertThat(PageBounds.Kind.of(VARBINARY, Types.UUIDType.get())).isEmpty();
        assertThat(PageBounds.Kind.of(BOOLEAN, Types.BooleanType.get())).isEmpty();
    }

    private static OffsetIndex pages(long... firstRows)
    {
        List<PageLocation> locations = new ArrayList<>();
        for (int page = 0; page < firstRows.length; page++) {
            locations.add(new PageLocation(100L * page, 100, firstRows[page]));
        }
        return new OffsetIndex(locations);
    }

    private static Block longs(Long... values)
    {
        return block(BIGINT, (Object[]) values);
    }

    private static Block ints(Integer... values)
    {
        return block(INTEGER, (Object[]) values);
    }

    private static Block doubles(Double... values)
    {
        return block(DOUBLE, (Object[]) values);
    }

    private static Block strings(String... values)
    {
        BlockBuilder builder = VARCHAR.createBlockBuilder(null, values.length);
        for (String value : values) {
            if (value == null) {
                builder.appendNull();
            }
            else {
                VARCHAR.writeSlice(builder, Slices.utf8Slice(value));
            }
        }
        return builder.build();
    }

    private static Block binaries(byte[]... values)
    {
        BlockBuilder builder = VARBINARY.createBlockBuilder(null, values.length);
        for (byte[] value : values) {
            VARBINARY.writeSlice(builder, Slices.wrappedBuffer(value));
        }
        return builder.build();
    }

    private static byte[] bytes(ByteBuffer bound)
    {
        ByteBuffer copy = bound.duplicate();
        byte[] bytes = new byte[copy.remaining()];
        copy.get(bytes);
        return bytes;
    }

    private static Block block(Type type, Object... values)
    {
        BlockBuilder builder = type.createBlockBuilder(null, values.length);
        for (Object value : values) {
            if (value == null) {
                builder.appendNull();
            }
            else if (value instanceof Double doubleValue) {
                type.writeDouble(builder, doubleValue);
            }
            else {
                type.writeLong(builder, ((Number) value).longValue());
            }
        }
        return builder.build();
    }

    private static int int32(ByteBuffer bound)
    {
        return bound.duplicate().order(ByteOrder.LITTLE_ENDIAN).getInt(0);
    }

    private static long int64(ByteBuffer bound)
    {
        return bound.duplicate().order(ByteOrder.LITTLE_ENDIAN).getLong(0);
    }

    private static double float64(ByteBuffer bound)
    {
        return bound.duplicate().order(ByteOrder.LITTLE_ENDIAN).getDouble(0);
    }
}

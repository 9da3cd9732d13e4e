package io.qbeast.trino.parquet;

import io.trino.spi.block.Block;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.DoubleType;
import io.trino.spi.type.Type;
import org.apache.parquet.format.BoundaryOrder;
import org.apache.parquet.format.ColumnIndex;
import org.apache.parquet.format.OffsetIndex;
import org.apache.parquet.format.PageLocation;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.SmallintType.SMALLINT;
import static io.trino.spi.type.TimestampType.TIMESTAMP_MICROS;
import static io.trino.spi.type.TinyintType.TINYINT;
import static java.util.Objects.requireNonNull;

/**
 * The value bounds of one column of the open row group, per run of rows the Parquet writer
 * encodes at once, and the Parquet column index they make for the pages the writer cut
 * ({@link PageIndexWriter}). Holds two values and two counts per run, not the values.
 *
 * <p>Bounds follow Parquet's column-index rules for the column's physical type: signed order for
 * INT32 and INT64 (integers, dates, decimals of precision up to 18, timestamps in microseconds);
 * for FLOAT and DOUBLE, a row group with a NaN gets no index (parquet-java's rule: NaN has no place
 * in the order), a lower bound of zero is written as -0.0 and an upper bound of zero as +0.0.
 */
final class PageBounds
{
    enum Kind
    {
        INT32(Integer.BYTES), INT64(Long.BYTES), FLOAT(Float.BYTES), DOUBLE(Double.BYTES);

        private final int bytes;

        Kind(int bytes)
        {
            this.bytes = bytes;
        }

        /**
         * The physical type a top-level column of this Trino type is written as (see
         * {@link ParquetFileSchema}), when its bounds are kept: fixed-width types only. (Trino's
         * {@code DOUBLE} is spelled out below: this enum's constant shadows it.)
         */
        static Optional<Kind> of(Type type, org.apache.iceberg.types.Type icebergType)
        {
            if (!icebergType.isPrimitiveType()) {
                return Optional.empty();
            }
            if (type.equals(INTEGER) || type.equals(SMALLINT) || type.equals(TINYINT) || type.equals(DATE)) {
                return Optional.of(INT32);
            }
            if (type.equals(BIGINT) || type.equals(TIMESTAMP_MICROS)) {
                return Optional.of(INT64);
            }
            if (type instanceof DecimalType decimal && decimal.isShort()) {
                return Optional.of(decimal.getPrecision() <= 9 ? INT32 : INT64);
            }
            if (type.equals(REAL)) {
                return Optional.of(FLOAT);
            }
            if (type.equals(DoubleType.DOUBLE)) {
                return Optional.of(DOUBLE);
            }
            return Optional.empty();
        }

        boolean floating()
        {
            return this == FLOAT || this == DOUBLE;
        }
    }

    private final int channel;
    private final String name;
    private final Type type;
    private final Kind kind;

    // per run: rows, nulls, and the lowest and highest value (doubles as raw long bits for FLOAT
    // and DOUBLE; unset for a run of nulls)
    private int runs;
    private int[] rows = new int[16];
    private int[] nulls = new int[16];
    private long[] lows = new long[16];
    private long[] highs = new long[16];
    private boolean nan;

    PageBounds(int channel, String name, Type type, Kind kind)
    {
        this.channel = channel;
        this.name = requireNonNull(name, "name is null");
        this.type = requireNonNull(type, "type is null");
        this.kind = requireNonNull(kind, "kind is null");
    }

    int channel()
    {
        return channel;
    }

    String name()
    {
        return name;
    }

    void addRun(Block block, int start, int length)
    {
        if (runs == rows.length) {
            int capacity = runs * 2;
            rows = Arrays.copyOf(rows, capacity);
            nulls = Arrays.copyOf(nulls, capacity);
            lows = Arrays.copyOf(lows, capacity);
            highs = Arrays.copyOf(highs, capacity);
        }
        int nullCount = 0;
        if (kind.floating()) {
            double low = Double.POSITIVE_INFINITY;
            double high = Double.NEGATIVE_INFINITY;
            for (int position = start; position < start + length; position++) {
                if (block.isNull(position)) {
                    nullCount++;
                    continue;
                }
                double value = kind == Kind.FLOAT ? Float.intBitsToFloat((int) type.getLong(block, position)) : type.getDouble(block, position);
                if (Double.isNaN(value)) {
                    nan = true;
                }
                low = Math.min(low, value);
                high = Math.max(high, value);
            }
            lows[runs] = Double.doubleToRawLongBits(low);
            highs[runs] = Double.doubleToRawLongBits(high);
        }
        else {
            long low = Long.MAX_VALUE;
            long high = Long.MIN_VALUE;
            for (int position = start; position < start + length; position++) {
                if (block.isNull(position)) {
                    nullCount++;
                    continue;
                }
                long value = type.getLong(block, position);
                low = Math.min(low, value);
                high = Math.max(high, value);
            }
            lows[runs] = low;
            highs[runs] = high;
        }
        rows[runs] = length;
        nulls[runs] = nullCount;
        runs++;
    }

    void clear()
    {
        runs = 0;
        nan = false;
    }

    long retainedBytes()
    {
        return (long) rows.length * (2 * Integer.BYTES + 2 * Long.BYTES);
    }

    /**
     * The column index of the row group's pages, from the runs recorded since {@link #clear()};
     * empty when the runs do not cover its {@code rowGroupRows} rows, or a NaN was seen.
     */
    Optional<ColumnIndex> columnIndex(OffsetIndex pages, long rowGroupRows)
    {
        long recorded = 0;
        for (int run = 0; run < runs; run++) {
            recorded += rows[run];
        }
        if (nan || recorded != rowGroupRows) {
            return Optional.empty();
        }
        List<PageLocation> locations = pages.getPage_locations();
        List<Boolean> nullPages = new ArrayList<>(locations.size());
        List<ByteBuffer> lowBounds = new ArrayList<>(locations.size());
        List<ByteBuffer> highBounds = new ArrayList<>(locations.size());
        List<Long> nullCounts = new ArrayList<>(locations.size());
        boolean aligned = true;
        boolean ascending = true;
        boolean descending = true;
        long lastLow = 0;
        long lastHigh = 0;
        boolean any = false;
        int run = 0;
        long runStart = 0;
        for (int page = 0; page < locations.size(); page++) {
            long from = locations.get(page).getFirst_row_index();
            long to = page + 1 < locations.size() ? locations.get(page + 1).getFirst_row_index() : rowGroupRows;
            // the run holding the page's first row (pages ascend, so the search only moves on; a
            // page ending inside a run leaves that run to the next page too)
            while (runStart + rows[run] <= from) {
                runStart += rows[run];
                run++;
            }
            aligned &= runStart == from;
            long pageNulls = 0;
            boolean values = false;
            long low = 0;
            long high = 0;
            int current = run;
            long currentStart = runStart;
            while (current < runs && currentStart < to) {
                aligned &= currentStart + rows[current] <= to;
                pageNulls += nulls[current];
                if (nulls[current] < rows[current]) {
                    low = values ? min(low, lows[current]) : lows[current];
                    high = values ? max(high, highs[current]) : highs[current];
                    values = true;
                }
                currentStart += rows[current];
                current++;
            }
            nullCounts.add(pageNulls);
            if (!values) {
                nullPages.add(true);
                lowBounds.add(ByteBuffer.allocate(0));
                highBounds.add(ByteBuffer.allocate(0));
                continue;
            }
            nullPages.add(false);
            lowBounds.add(encode(low, true));
            highBounds.add(encode(high, false));
            if (any) {
                ascending &= compare(lastLow, low) <= 0 && compare(lastHigh, high) <= 0;
                descending &= compare(lastLow, low) >= 0 && compare(lastHigh, high) >= 0;
            }
            any = true;
            lastLow = low;
            lastHigh = high;
        }
        BoundaryOrder order = ascending ? BoundaryOrder.ASCENDING : descending ? BoundaryOrder.DESCENDING : BoundaryOrder.UNORDERED;
        ColumnIndex index = new ColumnIndex(nullPages, lowBounds, highBounds, order);
        if (aligned) {
            // exact only when every page is whole runs
            index.setNull_counts(nullCounts);
        }
        return Optional.of(index);
    }

    private int compare(long left, long right)
    {
        return kind.floating()
                ? Double.compare(Double.longBitsToDouble(left), Double.longBitsToDouble(right))
                : Long.compare(left, right);
    }

    private long min(long left, long right)
    {
        return compare(left, right) <= 0 ? left : right;
    }

    private long max(long left, long right)
    {
        return compare(left, right) >= 0 ? left : right;
    }

    // Parquet's plain encoding of a statistic of the physical type, little endian
    private ByteBuffer encode(long value, boolean lower)
    {
        ByteBuffer buffer = ByteBuffer.allocate(kind.bytes).order(ByteOrder.LITTLE_ENDIAN);
        switch (kind) {
            case INT32 -> buffer.putInt(0, (int) value);
            case INT64 -> buffer.putLong(0, value);
            case FLOAT -> buffer.putFloat(0, (float) signedZero(Double.longBitsToDouble(value), lower));
            case DOUBLE -> buffer.putDouble(0, signedZero(Double.longBitsToDouble(value), lower));
        }
        return buffer;
    }

    // a lower bound of zero is -0.0 and an upper bound +0.0, so that both zeros lie within
    private static double signedZero(double value, boolean lower)
    {
        if (value == 0.0) {
            return lower ? -0.0 : 0.0;
        }
        return value;
    }
}

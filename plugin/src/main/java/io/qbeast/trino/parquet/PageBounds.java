package io.qbeast.trino.parquet;

import io.airlift.slice.Slice;
import io.airlift.slice.Slices;
import io.trino.spi.block.Block;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.DoubleType;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarbinaryType;
import io.trino.spi.type.VarcharType;
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
 * in the order), a lower bound of zero is written as -0.0 and an upper bound of zero as +0.0; for
 * BINARY (varchar, varbinary), unsigned lexicographic order, and bounds cut to
 * {@value #MAX_BINARY_BOUND} bytes as parquet-java cuts them: a lower bound to its prefix, an upper
 * bound to its prefix with the last byte below 0xFF incremented (a value of only 0xFF bytes past
 * the cut has no upper bound: the row group gets no index of that column).
 */
final class PageBounds
{
    enum Kind
    {
        INT32(Integer.BYTES), INT64(Long.BYTES), FLOAT(Float.BYTES), DOUBLE(Double.BYTES), BINARY(0);

        private final int bytes;

        Kind(int bytes)
        {
            this.bytes = bytes;
        }

        /**
         * The physical type a top-level column of this Trino type is written as (see
         * {@link ParquetFileSchema}), when its bounds are kept: numbers, dates, timestamps in
         * microseconds, strings and binaries. (Trino's {@code DOUBLE} is spelled out below: this
         * enum's constant shadows it.)
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
            if ((type instanceof VarcharType || type instanceof VarbinaryType)
                    && (icebergType.typeId() == org.apache.iceberg.types.Type.TypeID.STRING || icebergType.typeId() == org.apache.iceberg.types.Type.TypeID.BINARY)) {
                return Optional.of(BINARY);
            }
            return Optional.empty();
        }

        boolean floating()
        {
            return this == FLOAT || this == DOUBLE;
        }
    }

    static final int MAX_BINARY_BOUND = 64;

    private final int channel;
    private final String name;
    private final Type type;
    private final Kind kind;

    // per run: rows, nulls, and the lowest and highest value (doubles as raw long bits for FLOAT
    // and DOUBLE, BINARY bounds as cut copies; unset for a run of nulls)
    private int runs;
    private int[] rows = new int[16];
    private int[] nulls = new int[16];
    private long[] lows = new long[16];
    private long[] highs = new long[16];
    private Slice[] lowSlices;
    private Slice[] highSlices;
    private long sliceBytes;
    // a NaN, or a binary value with no upper bound of at most MAX_BINARY_BOUND bytes: no index
    private boolean unbounded;

    PageBounds(int channel, String name, Type type, Kind kind)
    {
        this.channel = channel;
        this.name = requireNonNull(name, "name is null");
        this.type = requireNonNull(type, "type is null");
        this.kind = requireNonNull(kind, "kind is null");
        if (kind == Kind.BINARY) {
            lowSlices = new Slice[16];
            highSlices = new Slice[16];
        }
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
            if (kind == Kind.BINARY) {
                lowSlices = Arrays.copyOf(lowSlices, capacity);
                highSlices = Arrays.copyOf(highSlices, capacity);
            }
        }
        int nullCount = 0;
        if (kind == Kind.BINARY) {
            Slice low = null;
            Slice high = null;
            for (int position = start; position < start + length; position++) {
                if (block.isNull(position)) {
                    nullCount++;
                    continue;
                }
                Slice value = type.getSlice(block, position);
                if (low == null || value.compareTo(low) < 0) {
                    low = value;
                }
                if (high == null || value.compareTo(high) > 0) {
                    high = value;
                }
            }
            lowSlices[runs] = low == null ? null : lowerBound(low);
            highSlices[runs] = high == null ? null : upperBound(high);
            if (high != null && highSlices[runs] == null) {
                unbounded = true;
            }
            sliceBytes += (low == null ? 0 : lowSlices[runs].length()) + (highSlices[runs] == null ? 0 : highSlices[runs].length());
        }
        else if (kind.floating()) {
            double low = Double.POSITIVE_INFINITY;
            double high = Double.NEGATIVE_INFINITY;
            for (int position = start; position < start + length; position++) {
                if (block.isNull(position)) {
                    nullCount++;
                    continue;
                }
                double value = kind == Kind.FLOAT ? Float.intBitsToFloat((int) type.getLong(block, position)) : type.getDouble(block, position);
                if (Double.isNaN(value)) {
                    unbounded = true;
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

    // a copy of the value's first MAX_BINARY_BOUND bytes: not above the value
    private static Slice lowerBound(Slice value)
    {
        return Slices.wrappedBuffer(value.getBytes(0, Math.min(value.length(), MAX_BINARY_BOUND)));
    }

    // the value, or a cut of it with its last byte below 0xFF incremented: not below the value;
    // null when the cut is all 0xFF bytes
    private static Slice upperBound(Slice value)
    {
        if (value.length() <= MAX_BINARY_BOUND) {
            return Slices.wrappedBuffer(value.getBytes());
        }
        for (int last = MAX_BINARY_BOUND - 1; last >= 0; last--) {
            int octet = value.getUnsignedByte(last);
            if (octet != 0xFF) {
                Slice bound = Slices.wrappedBuffer(value.getBytes(0, last + 1));
                bound.setByte(last, octet + 1);
                return bound;
            }
        }
        return null;
    }

    void clear()
    {
        if (kind == Kind.BINARY) {
            Arrays.fill(lowSlices, 0, runs, null);
            Arrays.fill(highSlices, 0, runs, null);
        }
        runs = 0;
        sliceBytes = 0;
        unbounded = false;
    }

    long retainedBytes()
    {
        long perRun = 2 * Integer.BYTES + 2 * Long.BYTES + (kind == Kind.BINARY ? 2L * Long.BYTES : 0);
        return rows.length * perRun + sliceBytes;
    }

    /**
     * The column index of the row group's pages, from the runs recorded since {@link #clear()};
     * empty when the runs do not cover its {@code rowGroupRows} rows, a NaN was seen, or a binary
     * value has no upper bound.
     */
    Optional<ColumnIndex> columnIndex(OffsetIndex pages, long rowGroupRows)
    {
        long recorded = 0;
        for (int run = 0; run < runs; run++) {
            recorded += rows[run];
        }
        if (unbounded || recorded != rowGroupRows) {
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
        // bounds are named by the run that holds them
        int lastLow = -1;
        int lastHigh = -1;
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
            int low = -1;
            int high = -1;
            int current = run;
            long currentStart = runStart;
            while (current < runs && currentStart < to) {
                aligned &= currentStart + rows[current] <= to;
                pageNulls += nulls[current];
                if (nulls[current] < rows[current]) {
                    low = low < 0 || compareLows(current, low) < 0 ? current : low;
                    high = high < 0 || compareHighs(current, high) > 0 ? current : high;
                }
                currentStart += rows[current];
                current++;
            }
            nullCounts.add(pageNulls);
            if (low < 0) {
                nullPages.add(true);
                lowBounds.add(ByteBuffer.allocate(0));
                highBounds.add(ByteBuffer.allocate(0));
                continue;
            }
            nullPages.add(false);
            lowBounds.add(encode(low, true));
            highBounds.add(encode(high, false));
            if (lastLow >= 0) {
                ascending &= compareLows(lastLow, low) <= 0 && compareHighs(lastHigh, high) <= 0;
                descending &= compareLows(lastLow, low) >= 0 && compareHighs(lastHigh, high) >= 0;
            }
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

    private int compareLows(int left, int right)
    {
        return kind == Kind.BINARY ? lowSlices[left].compareTo(lowSlices[right]) : compare(lows[left], lows[right]);
    }

    private int compareHighs(int left, int right)
    {
        return kind == Kind.BINARY ? highSlices[left].compareTo(highSlices[right]) : compare(highs[left], highs[right]);
    }

    private int compare(long left, long right)
    {
        return kind.floating()
                ? Double.compare(Double.longBitsToDouble(left), Double.longBitsToDouble(right))
                : Long.compare(left, right);
    }

    // Parquet's plain encoding of the bound of a run: little endian numbers, a binary's bytes
    private ByteBuffer encode(int run, boolean lower)
    {
        if (kind == Kind.BINARY) {
            Slice bound = lower ? lowSlices[run] : highSlices[run];
            return ByteBuffer.wrap(bound.getBytes());
        }
        long value = lower ? lows[run] : highs[run];
        ByteBuffer buffer = ByteBuffer.allocate(kind.bytes).order(ByteOrder.LITTLE_ENDIAN);
        switch (kind) {
            case INT32 -> buffer.putInt(0, (int) value);
            case INT64 -> buffer.putLong(0, value);
            case FLOAT -> buffer.putFloat(0, (float) signedZero(Double.longBitsToDouble(value), lower));
            case DOUBLE -> buffer.putDouble(0, signedZero(Double.longBitsToDouble(value), lower));
            case BINARY -> throw new IllegalStateException("binary bounds are slices");
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

package io.qbeast.trino.parquet;

import io.airlift.slice.Slice;
import io.airlift.slice.XxHash64;
import io.trino.spi.block.Block;
import io.trino.spi.block.ByteArrayBlock;
import io.trino.spi.block.DictionaryBlock;
import io.trino.spi.block.IntArrayBlock;
import io.trino.spi.block.LongArrayBlock;
import io.trino.spi.block.RunLengthEncodedBlock;
import io.trino.spi.block.ShortArrayBlock;
import io.trino.spi.block.VariableWidthBlock;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.SortedRangeSet;
import io.trino.spi.predicate.ValueSet;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.TimeType;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarbinaryType;
import io.trino.spi.type.VarcharType;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.BooleanType.BOOLEAN;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.SmallintType.SMALLINT;
import static io.trino.spi.type.TinyintType.TINYINT;
import static io.trino.spi.type.TypeUtils.readNativeValue;
import static java.util.Objects.requireNonNull;

/**
 * A {@link Domain} compiled once per split into a row filter over blocks. The result for a row
 * is exactly {@code domain.includesNullableValue(readNativeValue(type, block, position))}, but the
 * common cases (integer-like, floating point, varchar and varbinary ranges and {@code IN} lists)
 * compare primitive values against bounds unpacked from the domain, without boxing a value or
 * going through the domain's method handles per row: this is the hot loop of selective scans.
 * Anything else (other types, value sets that are not range sets) keeps the boxed comparison.
 *
 * <p>Trino's range order, which the fast paths reproduce: integer-like types compare as signed
 * longs; {@code double} and {@code real} compare numerically with {@code -0.0} equal to
 * {@code 0.0} (Trino's comparison checks {@code ==} before {@code Double.compare}, so neither
 * bounds nor values tell the zeros apart, as Java's {@code <} and {@code <=} do not); NaN, which
 * no range bound can be, is in a value set only when the set is all values (NaN rows take the
 * boxed path); {@code varchar} and {@code varbinary} compare bytes unsigned, lexicographically.
 *
 * <p>Size (over 500 lines): one kernel per value family (long, double, slice ranges and
 * {@code IN} lists; booleans; nulls; the boxed rest), with a loop per block class, so that each
 * loop reads its values directly.
 */
public final class DomainFilter
{
    // IN lists at least this long are looked up in a hash table rather than binary searched
    private static final int MIN_HASHED_POINTS = 4;

    private final boolean keepsAll;
    private final boolean keepsNone;
    private final boolean nullAllowed;
    private final Kernel kernel;

    private DomainFilter(Domain domain, Type type)
    {
        this.keepsAll = domain.isAll();
        this.keepsNone = domain.isNone();
        this.nullAllowed = domain.isNullAllowed();
        this.kernel = kernel(domain, type);
    }

    /**
     * @param type the type of the values the filtered blocks hold (the domain's type)
     */
    public static DomainFilter of(Domain domain, Type type)
    {
        requireNonNull(domain, "domain is null");
        requireNonNull(type, "type is null");
        return new DomainFilter(domain, type);
    }

    /**
     * Compacts {@code positions[0..count)} in place, in order, to the positions whose value is in
     * the domain.
     *
     * @param block the values; {@code null} for a column the file lacks, all NULL
     * @return how many positions were kept, at the start of {@code positions}
     */
    public int filter(Block block, int[] positions, int count)
    {
        if (count == 0 || keepsAll) {
            return count;
        }
        if (keepsNone) {
            return 0;
        }
        if (block == null) {
            return nullAllowed ? count : 0;
        }
        if (block instanceof RunLengthEncodedBlock rle) {
            // one value for every row: decide once
            return kernel.filter(rle.getValue(), new int[] {0}, 1) == 1 ? count : 0;
        }
        if (block instanceof DictionaryBlock dictionary && dictionary.getDictionary().getPositionCount() <= count) {
            // decide once per dictionary entry when there are no more entries than rows to decide
            Block entries = dictionary.getDictionary();
            int entryCount = entries.getPositionCount();
            int[] keptEntries = new int[entryCount];
            for (int entry = 0; entry < entryCount; entry++) {
                keptEntries[entry] = entry;
            }
            int keptEntryCount = kernel.filter(entries, keptEntries, entryCount);
            boolean[] keep = new boolean[entryCount];
            for (int i = 0; i < keptEntryCount; i++) {
                keep[keptEntries[i]] = true;
            }
            int kept = 0;
            for (int i = 0; i < count; i++) {
                int position = positions[i];
                positions[kept] = position;
                kept += keep[dictionary.getId(position)] ? 1 : 0;
            }
            return kept;
        }
        return kernel.filter(block, positions, count);
    }

    private static Kernel kernel(Domain domain, Type type)
    {
        ValueSet values = domain.getValues();
        boolean nullAllowed = domain.isNullAllowed();
        if (values.isNone()) {
            return new NullsKernel(nullAllowed, false);
        }
        if (values.isAll()) {
            return new NullsKernel(nullAllowed, true);
        }
        if (values instanceof SortedRangeSet rangeSet) {
            List<Range> ranges = rangeSet.getOrderedRanges();
            if (isSignedLongOrder(type)) {
                return LongRangesKernel.of(type, ranges, nullAllowed);
            }
            if (type.equals(DOUBLE) || type.equals(REAL)) {
                return DoubleRangesKernel.of(domain, type, ranges);
            }
            if (type instanceof VarcharType || type instanceof VarbinaryType) {
                return new SliceRangesKernel(type, ranges, nullAllowed);
            }
            if (type.equals(BOOLEAN)) {
                return new BooleanKernel(domain.includesNullableValue(true), domain.includesNullableValue(false), nullAllowed);
            }
        }
        return new BoxedKernel(domain, type);
    }

    // types held as longs whose Trino order is the signed order of those longs
    private static boolean isSignedLongOrder(Type type)
    {
        if (type.getJavaType() != long.class) {
            return false;
        }
        return type.equals(BIGINT) || type.equals(INTEGER) || type.equals(SMALLINT) || type.equals(TINYINT) || type.equals(DATE)
                || (type instanceof DecimalType decimal && decimal.isShort())
                || (type instanceof TimestampType timestamp && timestamp.isShort())
                || type instanceof TimeType;
    }

    /**
     * Compacts positions of a block to those kept, NULL rows included. Blocks are usually value
     * blocks; any other block is read through its type (as the boxed path does).
     */
    private interface Kernel
    {
        int filter(Block block, int[] positions, int count);
    }

    /** The value set is none or all: whether a row is kept depends only on whether it is NULL. */
    private record NullsKernel(boolean keepNulls, boolean keepValues)
            implements Kernel
    {
        @Override
        public int filter(Block block, int[] positions, int count)
        {
            if (!block.mayHaveNull() || keepNulls == keepValues) {
                return keepValues ? count : 0;
            }
            int kept = 0;
            for (int i = 0; i < count; i++) {
                int position = positions[i];
                positions[kept] = position;
                kept += block.isNull(position) == keepNulls ? 1 : 0;
            }
            return kept;
        }
    }

    /** The exact general path: each value boxed and looked up in the domain. */
    private record BoxedKernel(Domain domain, Type type)
            implements Kernel
    {
        @Override
        public int filter(Block block, int[] positions, int count)
        {
            int kept = 0;
            for (int i = 0; i < count; i++) {
                int position = positions[i];
                if (domain.includesNullableValue(readNativeValue(type, block, position))) {
                    positions[kept++] = position;
                }
            }
            return kept;
        }
    }

    /**
     * Ranges of integer-like values as closed long intervals: an exclusive bound is the next
     * value inside it (every value of these types is an integer of its long representation), so
     * a row is tested with two comparisons, or a binary search over the lows for many ranges.
     */
    private static final class LongRangesKernel
            implements Kernel
    {
        private final Type type;
        private final boolean nullAllowed;
        // closed, ascending, disjoint
        private final long[] lows;
        private final long[] highs;
        private final long first;
        private final long last;
        private final boolean single;
        // for an IN list: its values hashed (open addressing), else null
        private final long[] points;
        // a value not in the list, marking the free slots of points
        private final long free;
        private final int shift;

        private LongRangesKernel(Type type, long[] lows, long[] highs, boolean nullAllowed)
        {
            this.type = type;
            this.nullAllowed = nullAllowed;
            this.lows = lows;
            this.highs = highs;
            this.first = lows[0];
            this.last = highs[highs.length - 1];
            this.single = lows.length == 1;
            if (lows.length >= MIN_HASHED_POINTS && Arrays.equals(lows, highs)) {
                // a probe costs about one multiplication; a binary search mispredicts about half its steps
                int bits = 64 - Long.numberOfLeadingZeros(lows.length * 2L - 1) + 1;
                this.shift = 64 - bits;
                this.points = new long[1 << bits];
                long free = 0;
                while (Arrays.binarySearch(lows, free) >= 0) {
                    free++;
                }
                this.free = free;
                Arrays.fill(points, free);
                for (long point : lows) {
                    int slot = slot(point);
                    while (points[slot] != free) {
                        slot = (slot + 1) & (points.length - 1);
                    }
                    points[slot] = point;
                }
            }
            else {
                this.points = null;
                this.free = 0;
                this.shift = 0;
            }
        }

        private int slot(long value)
        {
            return (int) ((value * 0x9E3779B97F4A7C15L) >>> shift);
        }

        static Kernel of(Type type, List<Range> ranges, boolean nullAllowed)
        {
            List<long[]> intervals = new ArrayList<>(ranges.size());
            for (Range range : ranges) {
                long low = Long.MIN_VALUE;
                if (!range.isLowUnbounded()) {
                    low = (Long) range.getLowBoundedValue();
                    if (!range.isLowInclusive()) {
                        if (low == Long.MAX_VALUE) {
                            continue;
                        }
                        low++;
                    }
                }
                long high = Long.MAX_VALUE;
                if (!range.isHighUnbounded()) {
                    high = (Long) range.getHighBoundedValue();
                    if (!range.isHighInclusive()) {
                        if (high == Long.MIN_VALUE) {
                            continue;
                        }
                        high--;
                    }
                }
                // (5, 6) holds no integer, yet is a range to Trino
                if (low <= high) {
                    intervals.add(new long[] {low, high});
                }
            }
            if (intervals.isEmpty()) {
                return new NullsKernel(nullAllowed, false);
            }
            long[] lows = new long[intervals.size()];
            long[] highs = new long[intervals.size()];
            for (int i = 0; i < intervals.size(); i++) {
                lows[i] = intervals.get(i)[0];
                highs[i] = intervals.get(i)[1];
            }
            return new LongRangesKernel(type, lows, highs, nullAllowed);
        }

        private boolean contains(long value)
        {
            if (value < first || value > last) {
                return false;
            }
            if (single) {
                return true;
            }
            if (points != null) {
                // the free marker is not in the list: the probe ends at a free slot without matching it
                int mask = points.length - 1;
                for (int slot = slot(value); ; slot = (slot + 1) & mask) {
                    long point = points[slot];
                    if (point == value) {
                        return point != free;
                    }
                    if (point == free) {
                        return false;
                    }
                }
            }
            // the last range whose low is at most the value: the only one that can hold it
            int low = 0;
            int high = lows.length - 1;
            while (low < high) {
                int middle = (low + high + 1) >>> 1;
                if (lows[middle] <= value) {
                    low = middle;
                }
                else {
                    high = middle - 1;
                }
            }
            return value <= highs[low];
        }

        // one loop per block class so each reads its values directly; the kept position is always
        // written and the count advanced by the outcome, without a branch that mispredicts
        @Override
        public int filter(Block block, int[] positions, int count)
        {
            boolean mayHaveNull = block.mayHaveNull();
            int kept = 0;
            switch (block) {
                case LongArrayBlock values -> {
                    for (int i = 0; i < count; i++) {
                        int position = positions[i];
                        boolean keep = mayHaveNull && values.isNull(position) ? nullAllowed : contains(values.getLong(position));
                        positions[kept] = position;
                        kept += keep ? 1 : 0;
                    }
                }
                case IntArrayBlock values -> {
                    for (int i = 0; i < count; i++) {
                        int position = positions[i];
                        boolean keep = mayHaveNull && values.isNull(position) ? nullAllowed : contains(values.getInt(position));
                        positions[kept] = position;
                        kept += keep ? 1 : 0;
                    }
                }
                case ShortArrayBlock values -> {
                    for (int i = 0; i < count; i++) {
                        int position = positions[i];
                        boolean keep = mayHaveNull && values.isNull(position) ? nullAllowed : contains(values.getShort(position));
                        positions[kept] = position;
                        kept += keep ? 1 : 0;
                    }
                }
                case ByteArrayBlock values -> {
                    for (int i = 0; i < count; i++) {
                        int position = positions[i];
                        boolean keep = mayHaveNull && values.isNull(position) ? nullAllowed : contains(values.getByte(position));
                        positions[kept] = position;
                        kept += keep ? 1 : 0;
                    }
                }
                default -> {
                    // not a value block (a large dictionary): read through the type, as the boxed path does
                    for (int i = 0; i < count; i++) {
                        int position = positions[i];
                        boolean keep = mayHaveNull && block.isNull(position) ? nullAllowed : contains(type.getLong(block, position));
                        positions[kept] = position;
                        kept += keep ? 1 : 0;
                    }
                }
            }
            return kept;
        }
    }

    /**
     * Ranges of {@code double} or {@code real} values as closed double intervals: an exclusive
     * bound is the next representable value inside it ({@code nextUp(-0.0)} is the smallest
     * positive value, so {@code > -0.0} excludes both zeros, as Trino does), computed in the
     * column's own precision. A {@code real} value widens to double exactly. NaN is below no
     * bound, so it fails the comparisons and is decided by the boxed path.
     */
    private static final class DoubleRangesKernel
            implements Kernel
    {
        private final Domain domain;
        private final Type type;
        private final boolean real;
        private final boolean nullAllowed;
        private final double[] lows;
        private final double[] highs;
        private final double first;
        private final double last;
        private final boolean single;

        private DoubleRangesKernel(Domain domain, Type type, double[] lows, double[] highs)
        {
            this.domain = domain;
            this.type = type;
            this.real = type.equals(REAL);
            this.nullAllowed = domain.isNullAllowed();
            this.lows = lows;
            this.highs = highs;
            this.first = lows.length == 0 ? Double.NaN : lows[0];
            this.last = highs.length == 0 ? Double.NaN : highs[highs.length - 1];
            this.single = lows.length == 1;
        }

        static Kernel of(Domain domain, Type type, List<Range> ranges)
        {
            boolean real = type.equals(REAL);
            List<double[]> intervals = new ArrayList<>(ranges.size());
            for (Range range : ranges) {
                double low = Double.NEGATIVE_INFINITY;
                if (!range.isLowUnbounded()) {
                    low = value(range.getLowBoundedValue(), real);
                    if (Double.isNaN(low)) {
                        // Trino rejects NaN bounds; were there one, keep its exact semantics
                        return new BoxedKernel(domain, type);
                    }
                    if (!range.isLowInclusive()) {
                        if (low == Double.POSITIVE_INFINITY) {
                            continue;
                        }
                        low = real ? Math.nextUp((float) low) : Math.nextUp(low);
                    }
                }
                double high = Double.POSITIVE_INFINITY;
                if (!range.isHighUnbounded()) {
                    high = value(range.getHighBoundedValue(), real);
                    if (Double.isNaN(high)) {
                        return new BoxedKernel(domain, type);
                    }
                    if (!range.isHighInclusive()) {
                        if (high == Double.NEGATIVE_INFINITY) {
                            continue;
                        }
                        high = real ? Math.nextDown((float) high) : Math.nextDown(high);
                    }
                }
                if (low <= high) {
                    intervals.add(new double[] {low, high});
                }
            }
            double[] lows = new double[intervals.size()];
            double[] highs = new double[intervals.size()];
            for (int i = 0; i < intervals.size(); i++) {
                lows[i] = intervals.get(i)[0];
                highs[i] = intervals.get(i)[1];
            }
            // with no interval left every comparison fails, and NaN still goes the boxed way
            return new DoubleRangesKernel(domain, type, lows, highs);
        }

        private static double value(Object bound, boolean real)
        {
            return real ? Float.intBitsToFloat((int) (long) (Long) bound) : (Double) bound;
        }

        // false for NaN: every comparison with it is false
        private boolean contains(double value)
        {
            if (!(value >= first && value <= last)) {
                return false;
            }
            if (single) {
                return true;
            }
            int low = 0;
            int high = lows.length - 1;
            while (low < high) {
                int middle = (low + high + 1) >>> 1;
                if (lows[middle] <= value) {
                    low = middle;
                }
                else {
                    high = middle - 1;
                }
            }
            return value <= highs[low];
        }

        private boolean boxed(Block block, int position)
        {
            return domain.includesNullableValue(readNativeValue(type, block, position));
        }

        @Override
        public int filter(Block block, int[] positions, int count)
        {
            boolean mayHaveNull = block.mayHaveNull();
            int kept = 0;
            if (!real && block instanceof LongArrayBlock values) {
                for (int i = 0; i < count; i++) {
                    int position = positions[i];
                    boolean keep;
                    if (mayHaveNull && values.isNull(position)) {
                        keep = nullAllowed;
                    }
                    else {
                        double value = Double.longBitsToDouble(values.getLong(position));
                        keep = contains(value) || (Double.isNaN(value) && boxed(block, position));
                    }
                    positions[kept] = position;
                    kept += keep ? 1 : 0;
                }
                return kept;
            }
            if (real && block instanceof IntArrayBlock values) {
                for (int i = 0; i < count; i++) {
                    int position = positions[i];
                    boolean keep;
                    if (mayHaveNull && values.isNull(position)) {
                        keep = nullAllowed;
                    }
                    else {
                        float value = Float.intBitsToFloat(values.getInt(position));
                        keep = contains(value) || (Float.isNaN(value) && boxed(block, position));
                    }
                    positions[kept] = position;
                    kept += keep ? 1 : 0;
                }
                return kept;
            }
            for (int i = 0; i < count; i++) {
                int position = positions[i];
                boolean keep;
                if (mayHaveNull && block.isNull(position)) {
                    keep = nullAllowed;
                }
                else {
                    double value = real ? Float.intBitsToFloat((int) type.getLong(block, position)) : type.getDouble(block, position);
                    keep = contains(value) || (Double.isNaN(value) && boxed(block, position));
                }
                positions[kept] = position;
                kept += keep ? 1 : 0;
            }
            return kept;
        }
    }

    /**
     * Ranges of {@code varchar} or {@code varbinary} values, whose Trino order is
     * {@link Slice#compareTo}: unsigned, lexicographic bytes. Values of a
     * {@link VariableWidthBlock} are compared in place, without a slice per row. Not for
     * {@code char}, whose comparison ignores trailing spaces.
     */
    private static final class SliceRangesKernel
            implements Kernel
    {
        private final Type type;
        private final boolean nullAllowed;
        // a null low or high is unbounded
        private final Slice[] lows;
        private final boolean[] lowInclusive;
        private final Slice[] highs;
        private final boolean[] highInclusive;
        // for an IN list: its values hashed (open addressing, null slots free), else null
        private final Slice[] points;
        private final long[] pointHashes;

        SliceRangesKernel(Type type, List<Range> ranges, boolean nullAllowed)
        {
            this.type = type;
            this.nullAllowed = nullAllowed;
            int count = ranges.size();
            lows = new Slice[count];
            lowInclusive = new boolean[count];
            highs = new Slice[count];
            highInclusive = new boolean[count];
            for (int i = 0; i < count; i++) {
                Range range = ranges.get(i);
                lows[i] = range.isLowUnbounded() ? null : (Slice) range.getLowBoundedValue();
                lowInclusive[i] = range.isLowInclusive();
                highs[i] = range.isHighUnbounded() ? null : (Slice) range.getHighBoundedValue();
                highInclusive[i] = range.isHighInclusive();
            }
            if (count >= MIN_HASHED_POINTS && ranges.stream().allMatch(Range::isSingleValue)) {
                // a hash and usually one comparison, instead of a comparison per binary search step
                int size = Integer.highestOneBit(count * 4 - 1) << 1;
                points = new Slice[size];
                pointHashes = new long[size];
                for (Slice point : lows) {
                    long hash = XxHash64.hash(point);
                    int slot = (int) hash & (size - 1);
                    while (points[slot] != null) {
                        slot = (slot + 1) & (size - 1);
                    }
                    points[slot] = point;
                    pointHashes[slot] = hash;
                }
            }
            else {
                points = null;
                pointHashes = null;
            }
        }

        private boolean isPoint(Slice value, int offset, int length)
        {
            long hash = XxHash64.hash(value, offset, length);
            int mask = points.length - 1;
            for (int slot = (int) hash & mask; points[slot] != null; slot = (slot + 1) & mask) {
                if (pointHashes[slot] == hash && value.equals(offset, length, points[slot], 0, points[slot].length())) {
                    return true;
                }
            }
            return false;
        }

        private boolean aboveLow(int range, Slice value, int offset, int length)
        {
            Slice low = lows[range];
            if (low == null) {
                return true;
            }
            int comparison = value.compareTo(offset, length, low, 0, low.length());
            return comparison > 0 || (comparison == 0 && lowInclusive[range]);
        }

        private boolean belowHigh(int range, Slice value, int offset, int length)
        {
            Slice high = highs[range];
            if (high == null) {
                return true;
            }
            int comparison = value.compareTo(offset, length, high, 0, high.length());
            return comparison < 0 || (comparison == 0 && highInclusive[range]);
        }

        private boolean contains(Slice value, int offset, int length)
        {
            if (points != null) {
                // byte equality is comparison equality for these types
                return isPoint(value, offset, length);
            }
            if (!aboveLow(0, value, offset, length)) {
                return false;
            }
            // ranges are disjoint and ascending: the last one whose low the value passes
            int low = 0;
            int high = lows.length - 1;
            while (low < high) {
                int middle = (low + high + 1) >>> 1;
                if (aboveLow(middle, value, offset, length)) {
                    low = middle;
                }
                else {
                    high = middle - 1;
                }
            }
            return belowHigh(low, value, offset, length);
        }

        @Override
        public int filter(Block block, int[] positions, int count)
        {
            boolean mayHaveNull = block.mayHaveNull();
            int kept = 0;
            if (block instanceof VariableWidthBlock values) {
                Slice raw = values.getRawSlice();
                for (int i = 0; i < count; i++) {
                    int position = positions[i];
                    boolean keep = mayHaveNull && values.isNull(position)
                            ? nullAllowed
                            : contains(raw, values.getRawSliceOffset(position), values.getSliceLength(position));
                    positions[kept] = position;
                    kept += keep ? 1 : 0;
                }
                return kept;
            }
            for (int i = 0; i < count; i++) {
                int position = positions[i];
                boolean keep;
                if (mayHaveNull && block.isNull(position)) {
                    keep = nullAllowed;
                }
                else {
                    Slice value = type.getSlice(block, position);
                    keep = contains(value, 0, value.length());
                }
                positions[kept] = position;
                kept += keep ? 1 : 0;
            }
            return kept;
        }
    }

    /** Two values: whether each is kept is decided once, by the domain. */
    private record BooleanKernel(boolean keepTrue, boolean keepFalse, boolean nullAllowed)
            implements Kernel
    {
        @Override
        public int filter(Block block, int[] positions, int count)
        {
            boolean mayHaveNull = block.mayHaveNull();
            int kept = 0;
            for (int i = 0; i < count; i++) {
                int position = positions[i];
                boolean keep = mayHaveNull && block.isNull(position) ? nullAllowed : (BOOLEAN.getBoolean(block, position) ? keepTrue : keepFalse);
                positions[kept] = position;
                kept += keep ? 1 : 0;
            }
            return kept;
        }
    }
}

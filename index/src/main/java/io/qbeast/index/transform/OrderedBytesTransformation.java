package io.qbeast.index.transform;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Order-preserving transformation of the {@link ValueDomain#BYTES} domain (varchar, varbinary)
 * built from quantiles of a sample.
 *
 * <p>{@code n} strictly increasing boundaries {@code b[0] < ... < b[n-1]} split all byte strings into
 * {@code n + 1} bins: {@code ["", b[0])}, {@code [b[0], b[1])}, ..., {@code [b[n-1], ∞)}. A value in
 * bin {@code i} maps to {@code (i + f) / (n + 1)}, where {@code f} in [0, 1] interpolates the value
 * between the bin's edges using the {@value #KEY_BYTES} bytes that follow the edges' common prefix.
 * Every value of a bin shares that prefix, so data with long common prefixes (URLs, ISO dates)
 * still spreads: the quantiles put about the same number of sampled values in every inner bin, and
 * the interpolation spreads the values inside a bin by the bytes where they actually differ.
 *
 * <p>Monotone over all byte strings; no value is ever out of bounds (the outer bins take values
 * below or above the sample), so these boundaries never force a new revision. The last bin has no
 * upper edge to share a prefix with and interpolates on the first 8 bytes, so values far above the
 * sample (strings that grow over time, such as later ISO dates) spread less until optimize
 * re-chooses the boundaries.
 */
public final class OrderedBytesTransformation
        implements Transformation
{
    /** Bytes used to interpolate inside a bin, read as an unsigned 64-bit key. */
    static final int KEY_BYTES = Long.BYTES;
    private static final VarHandle LONG_BIG_ENDIAN = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private final byte[][] boundaries;
    // the prefix all boundaries share, and each boundary's key after it: the bin search compares
    // 8-byte keys and looks at whole byte strings only on ties
    private final byte[] sharedPrefix;
    private final long[] boundaryKeys;
    // per bin (n + 1 of them): where the interpolation key starts, the low edge's key, 1 / (high - low)
    private final int[] keyOffset;
    private final long[] lowKey;
    private final double[] keyScale;
    private final double binScale;

    public OrderedBytesTransformation(List<byte[]> boundaries)
    {
        requireNonNull(boundaries, "boundaries is null");
        this.boundaries = new byte[boundaries.size()][];
        for (int i = 0; i < this.boundaries.length; i++) {
            byte[] boundary = requireNonNull(boundaries.get(i), "boundary is null").clone();
            if (i > 0 && Arrays.compareUnsigned(this.boundaries[i - 1], boundary) >= 0) {
                throw new IllegalArgumentException("Quantile boundaries must be strictly increasing (unsigned bytes): boundary " + i);
            }
            this.boundaries[i] = boundary;
        }
        this.sharedPrefix = this.boundaries.length == 0
                ? new byte[0]
                : Arrays.copyOf(this.boundaries[0], commonPrefix(this.boundaries[0], this.boundaries[this.boundaries.length - 1]));
        this.boundaryKeys = new long[this.boundaries.length];
        for (int i = 0; i < this.boundaries.length; i++) {
            boundaryKeys[i] = key(this.boundaries[i], 0, this.boundaries[i].length, sharedPrefix.length);
        }
        int bins = this.boundaries.length + 1;
        this.keyOffset = new int[bins];
        this.lowKey = new long[bins];
        this.keyScale = new double[bins];
        this.binScale = 1.0 / bins;
        for (int bin = 0; bin < bins; bin++) {
            byte[] lowEdge = bin == 0 ? new byte[0] : this.boundaries[bin - 1];
            // the last bin has no upper edge: its keys run up to the largest key
            byte[] highEdge = bin == bins - 1 ? null : this.boundaries[bin];
            int prefix = highEdge == null ? 0 : commonPrefix(lowEdge, highEdge);
            long low = key(lowEdge, 0, lowEdge.length, prefix);
            long high = highEdge == null ? -1L : key(highEdge, 0, highEdge.length, prefix);
            keyOffset[bin] = prefix;
            lowKey[bin] = low;
            keyScale[bin] = high != low ? 1.0 / LongLinearTransformation.unsignedToDouble(high - low) : 0.0;
        }
    }

    /**
     * Boundaries at evenly spaced quantiles of the sample: the sample's minimum, its maximum, and
     * {@code maxBoundaries - 2} quantiles in between (fewer if the sample has fewer distinct
     * values). Sampled values are first cut to {@code maxBoundaryLength} bytes, and each boundary
     * to the shortest prefix that still sorts above the next smaller sampled value, which keeps the
     * stored form small without moving any sampled value to another bin.
     */
    public static OrderedBytesTransformation fromSample(Collection<byte[]> sample, int maxBoundaries, int maxBoundaryLength)
    {
        requireNonNull(sample, "sample is null");
        if (maxBoundaries < 1 || maxBoundaryLength < 1) {
            throw new IllegalArgumentException("maxBoundaries and maxBoundaryLength must be positive");
        }
        byte[][] sorted = sample.stream()
                .map(value -> Arrays.copyOf(value, Math.min(value.length, maxBoundaryLength)))
                .sorted(Arrays::compareUnsigned)
                .toArray(byte[][]::new);
        List<byte[]> distinct = new ArrayList<>();
        for (byte[] value : sorted) {
            if (distinct.isEmpty() || !Arrays.equals(distinct.getLast(), value)) {
                distinct.add(value);
            }
        }
        int count = Math.min(maxBoundaries, distinct.size());
        List<byte[]> boundaries = new ArrayList<>(count);
        for (int k = 0; k < count; k++) {
            // count <= distinct values, so the indexes are strictly increasing
            int index = count == 1 ? 0 : (int) Math.round((double) k * (distinct.size() - 1) / (count - 1));
            byte[] value = distinct.get(index);
            // the shortest prefix still above the sample value just below it: no sampled value changes bin,
            // and the boundaries stay strictly increasing
            boundaries.add(index == 0 ? value : Arrays.copyOf(value, commonPrefix(distinct.get(index - 1), value) + 1));
        }
        return new OrderedBytesTransformation(boundaries);
    }

    @Override
    public ValueDomain domain()
    {
        return ValueDomain.BYTES;
    }

    @Override
    public boolean preservesOrder()
    {
        return true;
    }

    public int boundaryCount()
    {
        return boundaries.length;
    }

    public byte[] boundary(int index)
    {
        return boundaries[index].clone();
    }

    public List<byte[]> boundaries()
    {
        return Arrays.stream(boundaries).map(byte[]::clone).toList();
    }

    public double coordinate(byte[] value)
    {
        return coordinate(value, 0, value.length);
    }

    public double coordinate(byte[] value, int offset, int length)
    {
        int bin = binOf(value, offset, length);
        // every value of the bin has a key >= the low edge's key, so the unsigned difference does not wrap
        long keyOffsetInBin = key(value, offset, length, keyOffset[bin]) - lowKey[bin];
        double fraction = LongLinearTransformation.unsignedToDouble(keyOffsetInBin) * keyScale[bin];
        double coordinate = (bin + Math.min(fraction, 1.0)) * binScale;
        return coordinate < 1.0 ? coordinate : MAX_COORDINATE;
    }

    /**
     * The coordinates of the values in the range; a {@code null} bound is an unbounded side.
     */
    public CoordinateRanges range(byte[] low, boolean lowInclusive, byte[] high, boolean highInclusive)
    {
        if (low != null && high != null) {
            int order = Arrays.compareUnsigned(low, high);
            if (order > 0 || (order == 0 && !(lowInclusive && highInclusive))) {
                return CoordinateRanges.none();
            }
        }
        double lowCoordinate = low == null ? 0.0 : coordinate(low);
        double highCoordinate = high == null ? MAX_COORDINATE : coordinate(high);
        return CoordinateRanges.of(lowCoordinate, highCoordinate);
    }

    public CoordinateRanges point(byte[] value)
    {
        return CoordinateRanges.point(coordinate(value));
    }

    // the number of boundaries <= value, which is the value's bin
    private int binOf(byte[] value, int offset, int length)
    {
        int prefix = sharedPrefix.length;
        int end = offset + length;
        int mismatch = Arrays.mismatch(value, offset, end, sharedPrefix, 0, prefix);
        if (mismatch >= 0 && mismatch < prefix) {
            // the value does not start with the shared prefix, so it sorts before or after every boundary
            boolean before = mismatch == length || (value[offset + mismatch] & 0xFF) < (sharedPrefix[mismatch] & 0xFF);
            return before ? 0 : boundaries.length;
        }
        // boundary and value share the prefix: their keys after it order them, unless equal
        long valueKey = key(value, offset, length, prefix);
        int low = 0;
        int high = boundaries.length;
        while (low < high) {
            int middle = (low + high) >>> 1;
            int order = Long.compareUnsigned(boundaryKeys[middle], valueKey);
            if (order == 0) {
                byte[] boundary = boundaries[middle];
                order = Arrays.compareUnsigned(boundary, 0, boundary.length, value, offset, end);
            }
            if (order <= 0) {
                low = middle + 1;
            }
            else {
                high = middle;
            }
        }
        return low;
    }

    // KEY_BYTES bytes from position start of the value, big-endian, zero padded: unsigned, monotone in the value
    private static long key(byte[] value, int offset, int length, int start)
    {
        if (start + KEY_BYTES <= length) {
            return (long) LONG_BIG_ENDIAN.get(value, offset + start);
        }
        long key = 0;
        for (int i = start; i < start + KEY_BYTES; i++) {
            key = (key << 8) | (i < length ? value[offset + i] & 0xFF : 0);
        }
        return key;
    }

    private static int commonPrefix(byte[] a, byte[] b)
    {
        int mismatch = Arrays.mismatch(a, b);
        return mismatch < 0 ? a.length : mismatch;
    }

    @Override
    public boolean equals(Object o)
    {
        return o instanceof OrderedBytesTransformation that && Arrays.deepEquals(boundaries, that.boundaries);
    }

    @Override
    public int hashCode()
    {
        return Arrays.deepHashCode(boundaries);
    }

    @Override
    public String toString()
    {
        return "quantiles bytes (%s boundaries)".formatted(boundaries.length);
    }
}

package io.qbeast.index.transform;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Maps a value to a pseudo-random coordinate, for columns the user asks to hash (high-cardinality
 * keys queried by equality only). Equal values, as SQL compares them, get equal coordinates, so
 * equality and IN lists prune; ranges cannot, and map to {@link CoordinateRanges#all()} (except
 * short integer ranges, which are enumerated).
 *
 * <p>The hash functions are part of the stored format: data written under this transformation is
 * found again only if they never change. Longs: the MurmurHash3 64-bit finalizer of the value
 * plus 0x9E3779B97F4A7C15;
 * doubles: the same over {@link Double#doubleToLongBits} after folding -0.0 into 0.0; bytes: a
 * MurmurHash3-style 64-bit hash of the bytes read as little-endian longs. The coordinate is the top
 * 53 bits of the hash divided by 2^53.
 */
public record HashTransformation(ValueDomain domain)
        implements Transformation
{
    // ranges over at most this many integers are enumerated as points
    static final int MAX_ENUMERATED_VALUES = 64;

    private static final VarHandle LONG_LITTLE_ENDIAN = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long GOLDEN_RATIO = 0x9E3779B97F4A7C15L;
    private static final long C1 = 0x87c37b91114253d5L;
    private static final long C2 = 0x4cf5ad432745937fL;

    public HashTransformation
    {
        requireNonNull(domain, "domain is null");
        if (domain == ValueDomain.BOOLEAN) {
            throw new IllegalArgumentException("Hashing a boolean column gains nothing: use the boolean transformation");
        }
    }

    @Override
    public boolean preservesOrder()
    {
        return false;
    }

    public double coordinate(long value)
    {
        // offset by the golden ratio so that 0 does not hash to 0, the NULL coordinate
        return toCoordinate(mix(value + GOLDEN_RATIO));
    }

    public double coordinate(double value)
    {
        // SQL equality: -0.0 = 0.0; doubleToLongBits folds every NaN into one
        return coordinate(Double.doubleToLongBits(value + 0.0));
    }

    public double coordinate(byte[] value)
    {
        return coordinate(value, 0, value.length);
    }

    public double coordinate(byte[] value, int offset, int length)
    {
        long hash = length * C1;
        int end = offset + length;
        int position = offset;
        for (; position + Long.BYTES <= end; position += Long.BYTES) {
            hash ^= Long.rotateLeft((long) LONG_LITTLE_ENDIAN.get(value, position) * C1, 31) * C2;
            hash = Long.rotateLeft(hash, 27) * 5 + 0x52dce729;
        }
        long tail = 0;
        for (int shift = 0; position < end; position++, shift += 8) {
            tail |= (value[position] & 0xFFL) << shift;
        }
        hash ^= Long.rotateLeft(tail * C1, 31) * C2;
        return toCoordinate(mix(hash));
    }

    public CoordinateRanges point(long value)
    {
        return CoordinateRanges.point(coordinate(value));
    }

    public CoordinateRanges point(double value)
    {
        return CoordinateRanges.point(coordinate(value));
    }

    public CoordinateRanges point(byte[] value)
    {
        return CoordinateRanges.point(coordinate(value));
    }

    /** All coordinates, unless the range is empty or holds few enough integers to enumerate. */
    public CoordinateRanges range(long low, boolean lowInclusive, long high, boolean highInclusive)
    {
        Optional<LongInterval> interval = LongInterval.of(low, lowInclusive, high, highInclusive);
        if (interval.isEmpty()) {
            return CoordinateRanges.none();
        }
        low = interval.get().low();
        high = interval.get().high();
        if (Long.compareUnsigned(high - low, MAX_ENUMERATED_VALUES) >= 0) {
            return CoordinateRanges.all();
        }
        CoordinateRanges points = CoordinateRanges.none();
        for (long value = low; ; value++) {
            points = points.union(point(value));
            if (value == high) {
                return points;
            }
        }
    }

    /** All coordinates unless the range is empty or a single value. */
    public CoordinateRanges range(double low, boolean lowInclusive, double high, boolean highInclusive)
    {
        int order = DoubleLinearTransformation.compare(low, high);
        if (order > 0 || (order == 0 && !(lowInclusive && highInclusive))) {
            return CoordinateRanges.none();
        }
        return order == 0 ? point(low) : CoordinateRanges.all();
    }

    /** All coordinates unless the range is empty or a single value; a {@code null} bound is unbounded. */
    public CoordinateRanges range(byte[] low, boolean lowInclusive, byte[] high, boolean highInclusive)
    {
        if (low == null || high == null) {
            return CoordinateRanges.all();
        }
        int order = Arrays.compareUnsigned(low, high);
        if (order > 0 || (order == 0 && !(lowInclusive && highInclusive))) {
            return CoordinateRanges.none();
        }
        return order == 0 ? point(low) : CoordinateRanges.all();
    }

    // MurmurHash3 fmix64
    private static long mix(long value)
    {
        value ^= value >>> 33;
        value *= 0xff51afd7ed558ccdL;
        value ^= value >>> 33;
        value *= 0xc4ceb9fe1a85ec53L;
        value ^= value >>> 33;
        return value;
    }

    private static double toCoordinate(long hash)
    {
        return (hash >>> 11) * 0x1p-53;
    }
}

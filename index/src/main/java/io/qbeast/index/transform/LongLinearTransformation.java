package io.qbeast.index.transform;

/**
 * Linear transformation of the {@link ValueDomain#LONG} domain over the inclusive bounds
 * {@code [min, max]}: value {@code v} maps to {@code (v - min) / (max - min + 1)}, so the
 * {@code max - min + 1} integers of the bounds split [0, 1) evenly and bounds aligned to powers of
 * two put cube edges on round values. Values below {@code min} map to 0, values above {@code max} to
 * {@link #MAX_COORDINATE}.
 *
 * <p>Arithmetic is done on the unsigned offset {@code v - min}, so any bounds, up to
 * {@code [Long.MIN_VALUE, Long.MAX_VALUE]}, work without overflow.
 */
public final class LongLinearTransformation
        implements LinearTransformation
{
    private final long min;
    private final long max;
    // 1 / (max - min + 1), computed once because coordinate() runs per row
    private final double scale;

    public LongLinearTransformation(long min, long max)
    {
        if (min > max) {
            throw new IllegalArgumentException("Linear bounds out of order: min %s > max %s".formatted(min, max));
        }
        this.min = min;
        this.max = max;
        this.scale = 1.0 / (unsignedToDouble(max - min) + 1.0);
    }

    public long min()
    {
        return min;
    }

    public long max()
    {
        return max;
    }

    @Override
    public ValueDomain domain()
    {
        return ValueDomain.LONG;
    }

    public double coordinate(long value)
    {
        if (value <= min) {
            return 0.0;
        }
        if (value > max) {
            return MAX_COORDINATE;
        }
        double coordinate = unsignedToDouble(value - min) * scale;
        return coordinate < 1.0 ? coordinate : MAX_COORDINATE;
    }

    public boolean contains(long value)
    {
        return min <= value && value <= max;
    }

    /** The smallest linear transformation whose bounds hold these bounds and {@code [low, high]}. */
    public LongLinearTransformation union(long low, long high)
    {
        if (low > high) {
            throw new IllegalArgumentException("Bounds out of order: %s > %s".formatted(low, high));
        }
        if (low >= min && high <= max) {
            return this;
        }
        return new LongLinearTransformation(Math.min(min, low), Math.max(max, high));
    }

    /**
     * The coordinates of the values in the range; {@code Long.MIN_VALUE} / {@code Long.MAX_VALUE}
     * inclusive express an unbounded side.
     */
    public CoordinateRanges range(long low, boolean lowInclusive, long high, boolean highInclusive)
    {
        return LongInterval.of(low, lowInclusive, high, highInclusive)
                .map(interval -> CoordinateRanges.of(coordinate(interval.low()), coordinate(interval.high())))
                .orElse(CoordinateRanges.none());
    }

    public CoordinateRanges point(long value)
    {
        return CoordinateRanges.point(coordinate(value));
    }

    // correctly rounded, hence monotone, conversion of an unsigned 64-bit integer
    static double unsignedToDouble(long value)
    {
        if (value >= 0) {
            return value;
        }
        // halve, keeping the dropped bit as a sticky bit so rounding stays correct
        return ((value >>> 1) | (value & 1)) * 2.0;
    }

    @Override
    public boolean equals(Object o)
    {
        return o instanceof LongLinearTransformation that && min == that.min && max == that.max;
    }

    @Override
    public int hashCode()
    {
        return Long.hashCode(min) * 31 + Long.hashCode(max);
    }

    @Override
    public String toString()
    {
        return "linear long [%s, %s]".formatted(min, max);
    }
}

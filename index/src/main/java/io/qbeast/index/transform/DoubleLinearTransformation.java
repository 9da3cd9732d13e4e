package io.qbeast.index.transform;

/**
 * Linear transformation of the {@link ValueDomain#DOUBLE} domain over finite bounds
 * {@code min < max}: value {@code v} maps to {@code (v - min) / (max - min)}. Values below
 * {@code min} and -Infinity map to 0; values at or above {@code max}, +Infinity and NaN (which SQL
 * sorts above +Infinity) map to {@link #MAX_COORDINATE}. -0.0 and 0.0 map alike, since SQL treats
 * them as equal.
 *
 * <p>Differences are taken on halved values so that bounds as wide as
 * {@code [-Double.MAX_VALUE, Double.MAX_VALUE]} do not overflow.
 */
public final class DoubleLinearTransformation
        implements LinearTransformation
{
    private final double min;
    private final double max;
    private final double halfMin;
    // 1 / (max/2 - min/2), computed once because coordinate() runs per row
    private final double scale;

    public DoubleLinearTransformation(double min, double max)
    {
        if (!Double.isFinite(min) || !Double.isFinite(max)) {
            throw new IllegalArgumentException("Linear bounds must be finite: [%s, %s]".formatted(min, max));
        }
        if (!(min < max)) {
            throw new IllegalArgumentException("Linear bounds need min < max: [%s, %s]".formatted(min, max));
        }
        this.min = min + 0.0;
        this.max = max + 0.0;
        this.halfMin = min * 0.5;
        this.scale = 1.0 / (max * 0.5 - halfMin);
        if (!Double.isFinite(scale)) {
            throw new IllegalArgumentException("Linear bounds too close to map: [%s, %s]".formatted(min, max));
        }
    }

    public double min()
    {
        return min;
    }

    public double max()
    {
        return max;
    }

    @Override
    public ValueDomain domain()
    {
        return ValueDomain.DOUBLE;
    }

    public double coordinate(double value)
    {
        double coordinate = (value * 0.5 - halfMin) * scale;
        // written so that NaN and +Infinity go to the top and -0.0 becomes 0.0
        if (!(coordinate < 1.0)) {
            return MAX_COORDINATE;
        }
        return coordinate > 0.0 ? coordinate : 0.0;
    }

    /** Whether the value lies within the bounds; never true for NaN or infinities. */
    public boolean contains(double value)
    {
        return min <= value && value <= max;
    }

    /** The smallest linear transformation whose bounds hold these bounds and finite {@code [low, high]}. */
    public DoubleLinearTransformation union(double low, double high)
    {
        if (!Double.isFinite(low) || !Double.isFinite(high) || low > high) {
            throw new IllegalArgumentException("Invalid bounds [%s, %s]".formatted(low, high));
        }
        if (low >= min && high <= max) {
            return this;
        }
        return new DoubleLinearTransformation(Math.min(min, low), Math.max(max, high));
    }

    /**
     * The coordinates of the values in the range, ordered as SQL orders doubles (NaN above
     * +Infinity). {@code -Infinity} inclusive expresses an unbounded low side and {@code NaN}
     * inclusive an unbounded high side.
     */
    public CoordinateRanges range(double low, boolean lowInclusive, double high, boolean highInclusive)
    {
        int order = compare(low, high);
        if (order > 0 || (order == 0 && !(lowInclusive && highInclusive))) {
            return CoordinateRanges.none();
        }
        return CoordinateRanges.of(coordinate(low), coordinate(high));
    }

    public CoordinateRanges point(double value)
    {
        return CoordinateRanges.point(coordinate(value));
    }

    // SQL order: NaN is the largest value and -0.0 equals 0.0
    static int compare(double a, double b)
    {
        if (a < b) {
            return -1;
        }
        if (a > b) {
            return 1;
        }
        if (a == b) {
            return 0;
        }
        return Boolean.compare(Double.isNaN(a), Double.isNaN(b));
    }

    @Override
    public boolean equals(Object o)
    {
        return o instanceof DoubleLinearTransformation that && min == that.min && max == that.max;
    }

    @Override
    public int hashCode()
    {
        return Double.hashCode(min) * 31 + Double.hashCode(max);
    }

    @Override
    public String toString()
    {
        return "linear double [%s, %s]".formatted(min, max);
    }
}

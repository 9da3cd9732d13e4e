package io.qbeast.index.transform;

/**
 * false → 0.25, true → 0.75: the first split of the dimension separates the two values, and NULL
 * (at 0) is separated from false one level below.
 */
public record BooleanTransformation()
        implements Transformation
{
    static final double FALSE_COORDINATE = 0.25;
    static final double TRUE_COORDINATE = 0.75;

    @Override
    public ValueDomain domain()
    {
        return ValueDomain.BOOLEAN;
    }

    @Override
    public boolean preservesOrder()
    {
        return true;
    }

    public double coordinate(boolean value)
    {
        return value ? TRUE_COORDINATE : FALSE_COORDINATE;
    }

    public CoordinateRanges point(boolean value)
    {
        return CoordinateRanges.point(coordinate(value));
    }

    /** false < true, as SQL orders booleans. */
    public CoordinateRanges range(boolean low, boolean lowInclusive, boolean high, boolean highInclusive)
    {
        boolean includesFalse = !low && lowInclusive && (high || highInclusive);
        boolean includesTrue = high && highInclusive && (!low || lowInclusive);
        CoordinateRanges ranges = CoordinateRanges.none();
        if (includesFalse) {
            ranges = ranges.union(point(false));
        }
        if (includesTrue) {
            ranges = ranges.union(point(true));
        }
        return ranges;
    }
}

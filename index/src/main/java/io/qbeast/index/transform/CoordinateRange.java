package io.qbeast.index.transform;

import static io.qbeast.index.transform.Transformation.MAX_COORDINATE;

/**
 * A closed interval {@code [low, high]} of coordinates, {@code 0 <= low <= high <= MAX_COORDINATE}.
 * Closed because transformations map bounds of value ranges to coordinates that rows with exactly
 * those values have.
 */
public record CoordinateRange(double low, double high)
{
    public static final CoordinateRange ALL = new CoordinateRange(0.0, MAX_COORDINATE);

    public CoordinateRange
    {
        if (!(low >= 0.0 && low <= high && high <= MAX_COORDINATE)) {
            throw new IllegalArgumentException("Invalid coordinate range [%s, %s]".formatted(low, high));
        }
        // -0.0 would make equal ranges unequal as records
        low += 0.0;
        high += 0.0;
    }

    public static CoordinateRange point(double coordinate)
    {
        return new CoordinateRange(coordinate, coordinate);
    }

    public boolean contains(double coordinate)
    {
        return low <= coordinate && coordinate <= high;
    }

    /**
     * Whether this range meets the half-open region {@code [lowInclusive, highExclusive)}, such as a
     * cube's extent in one dimension.
     */
    public boolean intersects(double lowInclusive, double highExclusive)
    {
        return low < highExclusive && high >= lowInclusive;
    }

    public boolean isAll()
    {
        return low == 0.0 && high == MAX_COORDINATE;
    }
}

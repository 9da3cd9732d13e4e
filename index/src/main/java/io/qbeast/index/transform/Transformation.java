package io.qbeast.index.transform;

/**
 * Maps the values of one indexed column to a coordinate in [0, 1).
 *
 * <p>Each kind has typed {@code coordinate(...)} methods for its {@link ValueDomain}; they are
 * called once per row and indexed column, so they neither allocate nor box. Every kind except
 * {@link HashTransformation} is monotone: {@code a <= b} implies
 * {@code coordinate(a) <= coordinate(b)} over the whole domain, including values outside the
 * transformation's bounds, which clamp to the edges. That is what lets {@code range(...)} map a
 * value range to a coordinate range without ever excluding a matching row.
 *
 * <p>Coordinates never reach 1.0 (they clamp to {@link #MAX_COORDINATE}), so every point lies in
 * exactly one cell of every level of the tree.
 */
public sealed interface Transformation
        permits LinearTransformation, OrderedBytesTransformation, HashTransformation, BooleanTransformation
{
    double MAX_COORDINATE = Math.nextDown(1.0);

    ValueDomain domain();

    /**
     * The coordinate of SQL NULL: 0, as if NULL sorted before every value. It is shared with the
     * smallest values, so {@code IS NULL} prunes like an equality on the minimum.
     */
    default double nullCoordinate()
    {
        return 0.0;
    }

    /** Whether coordinates are monotone in the values, so that value ranges prune. */
    boolean preservesOrder();

    /** The coordinates a predicate {@code IS NULL} may match. */
    default CoordinateRanges nullRange()
    {
        return CoordinateRanges.point(nullCoordinate());
    }
}

package io.qbeast.index;

import io.qbeast.index.transform.Transformation;

import static java.util.Objects.requireNonNull;

/**
 * A column whose transformation does not depend on the data: hash and boolean columns, and
 * quantile columns of an existing revision (their boundaries are re-chosen only by optimize).
 */
public record FixedColumnProfile(String name, Transformation transformation)
        implements ColumnProfile
{
    public FixedColumnProfile
    {
        requireNonNull(name, "name is null");
        requireNonNull(transformation, "transformation is null");
    }
}

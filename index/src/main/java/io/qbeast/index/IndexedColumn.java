package io.qbeast.index;

import io.qbeast.index.transform.Transformation;

import static java.util.Objects.requireNonNull;

/**
 * One dimension of a {@link Revision}: a table column and the transformation that maps its values
 * to a coordinate in [0, 1).
 */
public record IndexedColumn(String name, Transformation transformation)
{
    public IndexedColumn
    {
        requireNonNull(name, "name is null");
        requireNonNull(transformation, "transformation is null");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("Indexed column name is empty");
        }
    }
}

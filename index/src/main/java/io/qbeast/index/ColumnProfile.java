package io.qbeast.index;

import io.qbeast.index.transform.DoubleLinearTransformation;
import io.qbeast.index.transform.LongLinearTransformation;

/**
 * What a writer learned about one indexed column from one batch of rows, for the
 * {@link RevisionPlanner}: value bounds, a sample, and how many rows fell outside the bounds of the
 * revision the profile was created against. The mutable kinds are filled on the write path, one
 * call per row, without allocating (except the occasional sample copy).
 */
public sealed interface ColumnProfile
        permits LongColumnProfile, DoubleColumnProfile, BytesColumnProfile, FixedColumnProfile
{
    String name();

    /**
     * A profile for a column of an existing revision: linear columns count the rows outside their
     * bounds; the other kinds never need a new revision, so their profile takes no values.
     */
    static ColumnProfile forColumn(IndexedColumn column)
    {
        return switch (column.transformation()) {
            case LongLinearTransformation linear -> new LongColumnProfile(column.name(), linear);
            case DoubleLinearTransformation linear -> new DoubleColumnProfile(column.name(), linear);
            default -> new FixedColumnProfile(column.name(), column.transformation());
        };
    }
}

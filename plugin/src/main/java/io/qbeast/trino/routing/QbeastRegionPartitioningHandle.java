package io.qbeast.trino.routing;

import com.google.common.collect.ImmutableList;
import io.trino.spi.connector.ConnectorPartitioningHandle;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The write layout of an INSERT into a table with a revision: each row goes to the bucket of its
 * region of the revision's space ({@link io.qbeast.index.RegionCuts}), so each writer builds the
 * subtree of its own regions instead of a tree over the whole space. The engine feeds the bucket
 * function the indexed columns, in index order.
 *
 * @param revisionJson the revision whose transformations map the indexed values to coordinates
 * @param cuts the region cuts, in key order: one bucket more than cuts
 */
public record QbeastRegionPartitioningHandle(String revisionJson, List<Long> cuts)
        implements ConnectorPartitioningHandle
{
    public QbeastRegionPartitioningHandle
    {
        requireNonNull(revisionJson, "revisionJson is null");
        cuts = ImmutableList.copyOf(cuts);
    }

    public int regions()
    {
        return cuts.size() + 1;
    }
}

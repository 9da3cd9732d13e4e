package io.qbeast.trino.routing;

import com.google.common.primitives.Longs;
import io.qbeast.iceberg.QbeastTableMetadata;
import io.qbeast.index.IndexState;
import io.qbeast.index.IndexedColumn;
import io.qbeast.index.RegionCuts;
import io.qbeast.index.Revision;
import io.qbeast.trino.catalog.IndexStateCache;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.spi.connector.ConnectorTableLayout;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;

import java.util.List;
import java.util.Optional;

/**
 * The layout of an INSERT: with a revision, rows go to writers by region, cut from the index
 * state so that the writers' shares are even; without one (a table never written) each writer
 * clusters what it receives, as in CTAS.
 */
public final class InsertLayout
{
    /** Write regions per worker node: a node's writers share a contiguous part of the space. */
    private static final int REGIONS_PER_NODE = 4;

    private InsertLayout() {}

    /**
     * @param snapshotId the snapshot the INSERT starts from (empty for a table without one)
     * @param workerNodes the worker nodes now: four regions each
     */
    public static Optional<ConnectorTableLayout> of(Table table, Optional<Long> snapshotId, IndexStateCache indexStateCache, TrinoFileSystem fileSystem, int workerNodes)
    {
        Optional<Revision> current;
        try {
            current = QbeastTableMetadata.of(table.properties()).flatMap(QbeastTableMetadata::currentRevision);
        }
        catch (IllegalArgumentException e) {
            // beginInsert reports the invalid properties
            return Optional.empty();
        }
        if (current.isEmpty()) {
            return Optional.empty();
        }
        Revision revision = current.get();
        String metadataLocation = ((HasTableOperations) table).operations().current().metadataFileLocation();
        IndexState state = snapshotId
                .map(id -> indexStateCache.get(fileSystem, metadataLocation, id).state(revision))
                .orElseGet(() -> IndexState.empty(revision));
        RegionCuts cuts = RegionCuts.plan(state, Math.max(1, workerNodes) * REGIONS_PER_NODE);
        List<String> indexedColumns = revision.columns().stream().map(IndexedColumn::name).toList();
        // a region is never split between writers: its subtree is one writer's
        return Optional.of(new ConnectorTableLayout(new QbeastRegionPartitioningHandle(revision.toJson(), Longs.asList(cuts.cuts())), indexedColumns, false));
    }
}

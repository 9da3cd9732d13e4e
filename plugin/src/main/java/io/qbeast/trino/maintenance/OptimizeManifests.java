package io.qbeast.trino.maintenance;

import com.google.common.collect.ImmutableList;
import io.airlift.log.Logger;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.connector.TableProcedureMetadata;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.PropertyUtil;

import java.util.List;

import static io.qbeast.trino.handle.QbeastTableProcedureId.OPTIMIZE_MANIFESTS;
import static io.trino.spi.connector.TableProcedureExecutionMode.coordinatorOnly;
import static org.apache.iceberg.TableProperties.MANIFEST_TARGET_SIZE_BYTES;
import static org.apache.iceberg.TableProperties.MANIFEST_TARGET_SIZE_BYTES_DEFAULT;

/**
 * {@code ALTER TABLE t EXECUTE optimize_manifests}: rewrites the current snapshot's data
 * manifests into as few as the manifest target size allows (Iceberg's {@code RewriteManifests}),
 * after many small INSERTs left one manifest each. The data files stay and each manifest entry is
 * copied whole, with the column bounds that hold a file's cubes and weights: the index read from
 * the manifests is the same after.
 */
final class OptimizeManifests
{
    // one group: Iceberg rolls to a new manifest at the target size, so the count follows the size
    private static final String ONE_CLUSTER = "all";

    private static final Logger log = Logger.get(OptimizeManifests.class);

    private OptimizeManifests() {}

    static TableProcedureMetadata metadata()
    {
        return new TableProcedureMetadata(OPTIMIZE_MANIFESTS.name(), coordinatorOnly(), ImmutableList.of());
    }

    static void run(Table table, SchemaTableName name)
    {
        Snapshot current = table.currentSnapshot();
        if (current == null) {
            return;
        }
        List<ManifestFile> manifests = current.dataManifests(table.io());
        long targetSize = PropertyUtil.propertyAsLong(table.properties(), MANIFEST_TARGET_SIZE_BYTES, MANIFEST_TARGET_SIZE_BYTES_DEFAULT);
        if (manifests.isEmpty() || (manifests.size() == 1 && manifests.getFirst().length() < targetSize)) {
            // nothing to merge or split: no new snapshot
            return;
        }
        table.rewriteManifests()
                .clusterBy(_ -> ONE_CLUSTER)
                .commit();
        log.info("optimize_manifests of %s: %s data manifests rewritten into %s", name, manifests.size(), table.currentSnapshot().dataManifests(table.io()).size());
    }
}

package io.qbeast.trino.maintenance;

import com.google.common.collect.ImmutableList;
import io.airlift.units.Duration;
import io.qbeast.trino.config.QbeastConfig;
import io.qbeast.trino.handle.QbeastMaintenanceHandle;
import io.qbeast.trino.handle.QbeastTableProcedureId;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.connector.TableProcedureMetadata;
import org.apache.iceberg.Table;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The table procedures that run in the coordinator alone and change only metadata and files
 * ({@code expire_snapshots}, {@code remove_orphan_files}, {@code optimize_manifests},
 * {@code rollback_to_snapshot}): what the engine registers, the arguments checked into a
 * {@link QbeastMaintenanceHandle} at analysis, and the run, one class per procedure.
 */
public final class TableMaintenance
{
    private TableMaintenance() {}

    public static List<TableProcedureMetadata> tableProcedures()
    {
        return ImmutableList.of(
                ExpireSnapshots.metadata(),
                RemoveOrphanFiles.metadata(),
                OptimizeManifests.metadata(),
                RollbackToSnapshot.metadata());
    }

    /** The handle of {@code ALTER TABLE name EXECUTE procedure(...)}; refuses bad arguments before anything runs. */
    public static QbeastMaintenanceHandle executeHandle(QbeastTableProcedureId procedure, SchemaTableName name, Table table, Map<String, Object> executeProperties, QbeastConfig config)
    {
        Optional<Duration> retention = switch (procedure) {
            case EXPIRE_SNAPSHOTS -> Optional.of(RetentionThreshold.checked(executeProperties, config.getExpireSnapshotsMinRetention(), QbeastConfig.EXPIRE_SNAPSHOTS_MIN_RETENTION));
            case REMOVE_ORPHAN_FILES -> Optional.of(RetentionThreshold.checked(executeProperties, config.getRemoveOrphanFilesMinRetention(), QbeastConfig.REMOVE_ORPHAN_FILES_MIN_RETENTION));
            default -> Optional.empty();
        };
        Optional<Long> snapshotId = procedure == QbeastTableProcedureId.ROLLBACK_TO_SNAPSHOT
                ? Optional.of(RollbackToSnapshot.checked(executeProperties, table, name))
                : Optional.empty();
        return new QbeastMaintenanceHandle(name.getSchemaName(), name.getTableName(), procedure, retention, snapshotId);
    }

    /**
     * Runs the procedure on the newest version of the table.
     *
     * @param start when the statement started: the thresholds count back from it
     */
    public static void execute(QbeastMaintenanceHandle handle, Table latest, TrinoFileSystem fileSystem, Instant start)
    {
        SchemaTableName name = handle.schemaTableName();
        switch (handle.procedureId()) {
            case EXPIRE_SNAPSHOTS -> ExpireSnapshots.run(latest, before(start, handle), fileSystem, name);
            case REMOVE_ORPHAN_FILES -> RemoveOrphanFiles.run(latest, before(start, handle), fileSystem, name);
            case OPTIMIZE_MANIFESTS -> OptimizeManifests.run(latest, name);
            case ROLLBACK_TO_SNAPSHOT -> RollbackToSnapshot.run(latest, handle.snapshotId().orElseThrow(), name);
            case OPTIMIZE -> throw new IllegalArgumentException("optimize is not run by executeTableExecute");
        }
    }

    private static Instant before(Instant start, QbeastMaintenanceHandle handle)
    {
        return start.minusMillis(handle.retentionThreshold().orElseThrow().toMillis());
    }
}

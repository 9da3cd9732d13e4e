package io.qbeast.trino.handle;

import io.airlift.units.Duration;
import io.trino.spi.connector.ConnectorTableExecuteHandle;
import io.trino.spi.connector.SchemaTableName;

import java.util.Locale;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * A table procedure that changes only the table's metadata and files, run by the coordinator
 * alone ({@code expire_snapshots}, {@code remove_orphan_files}, {@code optimize_manifests},
 * {@code rollback_to_snapshot}); its arguments already checked.
 *
 * @param retentionThreshold of {@code expire_snapshots} and {@code remove_orphan_files}
 * @param snapshotId the target of {@code rollback_to_snapshot}
 */
public record QbeastMaintenanceHandle(
        String schemaName,
        String tableName,
        QbeastTableProcedureId procedureId,
        Optional<Duration> retentionThreshold,
        Optional<Long> snapshotId)
        implements ConnectorTableExecuteHandle
{
    public QbeastMaintenanceHandle
    {
        requireNonNull(schemaName, "schemaName is null");
        requireNonNull(tableName, "tableName is null");
        requireNonNull(procedureId, "procedureId is null");
        checkArgument(procedureId != QbeastTableProcedureId.OPTIMIZE, "optimize has its own handle");
        requireNonNull(retentionThreshold, "retentionThreshold is null");
        requireNonNull(snapshotId, "snapshotId is null");
    }

    public SchemaTableName schemaTableName()
    {
        return new SchemaTableName(schemaName, tableName);
    }

    @Override
    public String toString()
    {
        return procedureId.name().toLowerCase(Locale.ENGLISH) + " " + schemaName + "." + tableName
                + retentionThreshold.map(retention -> " retention_threshold " + retention).orElse("")
                + snapshotId.map(id -> " snapshot_id " + id).orElse("");
    }
}

package io.qbeast.trino.maintenance;

import com.google.common.collect.ImmutableList;
import io.qbeast.iceberg.SnapshotRollback;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.connector.TableProcedureMetadata;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.ValidationException;

import java.util.Map;

import static io.qbeast.trino.handle.QbeastTableProcedureId.ROLLBACK_TO_SNAPSHOT;
import static io.trino.spi.StandardErrorCode.INVALID_PROCEDURE_ARGUMENT;
import static io.trino.spi.connector.TableProcedureExecutionMode.coordinatorOnly;
import static io.trino.spi.session.PropertyMetadata.longProperty;

/**
 * {@code ALTER TABLE t EXECUTE rollback_to_snapshot(snapshot_id => ...)} (and
 * {@code CALL system.rollback_to_snapshot}): makes an ancestor of the current snapshot current
 * again, its index with it ({@link SnapshotRollback}).
 */
final class RollbackToSnapshot
{
    static final String SNAPSHOT_ID = "snapshot_id";

    private RollbackToSnapshot() {}

    static TableProcedureMetadata metadata()
    {
        return new TableProcedureMetadata(
                ROLLBACK_TO_SNAPSHOT.name(),
                coordinatorOnly(),
                ImmutableList.of(longProperty(SNAPSHOT_ID, "Snapshot ID", null, false)));
    }

    /** The snapshot id given, if the table has that snapshot. */
    static long checked(Map<String, Object> executeProperties, Table table, SchemaTableName name)
    {
        Long snapshotId = (Long) executeProperties.get(SNAPSHOT_ID);
        if (snapshotId == null) {
            throw new TrinoException(INVALID_PROCEDURE_ARGUMENT, "Argument '%s' must be given".formatted(SNAPSHOT_ID));
        }
        if (table.snapshot(snapshotId) == null) {
            throw new TrinoException(INVALID_PROCEDURE_ARGUMENT, "Cannot roll back to unknown snapshot id: %s (table %s)".formatted(snapshotId, name));
        }
        return snapshotId;
    }

    static void run(Table table, long snapshotId, SchemaTableName name)
    {
        try {
            SnapshotRollback.rollbackTo(table, snapshotId);
        }
        catch (ValidationException e) {
            // unknown (expired since the check), or not an ancestor of the current snapshot
            throw new TrinoException(INVALID_PROCEDURE_ARGUMENT, "Cannot roll back %s to snapshot %s: %s".formatted(name, snapshotId, e.getMessage()), e);
        }
    }
}

package io.qbeast.trino.procedure;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.inject.Inject;
import com.google.inject.Provider;
import io.qbeast.trino.handle.QbeastTableProcedureId;
import io.qbeast.trino.metadata.QbeastMetadata;
import io.qbeast.trino.metadata.QbeastMetadataFactory;
import io.trino.spi.TrinoException;
import io.trino.spi.classloader.ThreadContextClassLoader;
import io.trino.spi.connector.ConnectorAccessControl;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableExecuteHandle;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.RetryMode;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.connector.TableNotFoundException;
import io.trino.spi.procedure.Procedure;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Optional;

import static io.trino.spi.StandardErrorCode.INVALID_PROCEDURE_ARGUMENT;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.util.Objects.requireNonNull;

/**
 * {@code CALL <catalog>.system.rollback_to_snapshot(schema, table, snapshot_id)}, the Iceberg
 * connector's procedure: the same rollback as {@code ALTER TABLE ... EXECUTE rollback_to_snapshot},
 * checked and run by the same code, with the same right required of the caller.
 */
public class RollbackToSnapshotProcedure
        implements Provider<Procedure>
{
    private static final MethodHandle ROLLBACK_TO_SNAPSHOT;

    static {
        try {
            ROLLBACK_TO_SNAPSHOT = MethodHandles.lookup().findVirtual(RollbackToSnapshotProcedure.class, "rollbackToSnapshot",
                    MethodType.methodType(void.class, ConnectorSession.class, ConnectorAccessControl.class, String.class, String.class, Long.class));
        }
        catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final QbeastMetadataFactory metadataFactory;

    @Inject
    public RollbackToSnapshotProcedure(QbeastMetadataFactory metadataFactory)
    {
        this.metadataFactory = requireNonNull(metadataFactory, "metadataFactory is null");
    }

    @Override
    public Procedure get()
    {
        return new Procedure(
                "system",
                "rollback_to_snapshot",
                ImmutableList.of(
                        new Procedure.Argument("SCHEMA", VARCHAR),
                        new Procedure.Argument("TABLE", VARCHAR),
                        new Procedure.Argument("SNAPSHOT_ID", BIGINT)),
                ROLLBACK_TO_SNAPSHOT.bindTo(this));
    }

    public void rollbackToSnapshot(ConnectorSession session, ConnectorAccessControl accessControl, String schema, String table, Long snapshotId)
    {
        checkArgument(schema != null && !schema.isEmpty(), "schema");
        checkArgument(table != null && !table.isEmpty(), "table");
        checkArgument(snapshotId != null, "snapshot_id");
        SchemaTableName name = new SchemaTableName(schema, table);
        String procedure = QbeastTableProcedureId.ROLLBACK_TO_SNAPSHOT.name();
        // the right that ALTER TABLE ... EXECUTE rollback_to_snapshot needs, under the same name
        accessControl.checkCanExecuteTableProcedure(null, name, procedure);
        try (ThreadContextClassLoader _ = new ThreadContextClassLoader(getClass().getClassLoader())) {
            QbeastMetadata metadata = metadataFactory.create(session.getIdentity());
            ConnectorTableHandle tableHandle = metadata.getTableHandle(session, name, Optional.empty(), Optional.empty());
            if (tableHandle == null) {
                throw new TableNotFoundException(name);
            }
            ConnectorTableExecuteHandle handle = metadata.getTableHandleForExecute(session, accessControl, tableHandle, procedure, ImmutableMap.of("snapshot_id", snapshotId), RetryMode.NO_RETRIES)
                    .orElseThrow();
            metadata.executeTableExecute(session, handle);
        }
    }

    private static void checkArgument(boolean condition, String argument)
    {
        if (!condition) {
            throw new TrinoException(INVALID_PROCEDURE_ARGUMENT, "Argument '%s' must be given".formatted(argument));
        }
    }
}

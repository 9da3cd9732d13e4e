package io.qbeast.trino.handle;

import com.google.common.collect.ImmutableList;
import io.qbeast.iceberg.OptimizeSelection;
import io.trino.spi.connector.ConnectorTableExecuteHandle;
import io.trino.spi.connector.SchemaTableName;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * An optimize of one table ({@code ALTER TABLE ... EXECUTE optimize} or {@code CALL system.optimize}).
 * Created at analysis with the procedure's arguments; {@code beginTableExecute} fixes the start
 * snapshot, the files to rewrite and the write.
 *
 * @param revision the revision of mode {@code revision}
 * @param startSnapshotId the snapshot the rewritten files are read from (validated at commit)
 * @param files the data files to rewrite, by location: the page sinks index against the files
 * the optimize keeps (the snapshot without these)
 * @param write what the page sinks need, as for an INSERT (its base snapshot is the start snapshot)
 */
public record QbeastTableExecuteHandle(
        String schemaName,
        String tableName,
        OptimizeSelection.Mode mode,
        Optional<Long> revision,
        Optional<Long> startSnapshotId,
        List<String> files,
        Optional<QbeastWritableTableHandle> write)
        implements ConnectorTableExecuteHandle
{
    public QbeastTableExecuteHandle
    {
        requireNonNull(schemaName, "schemaName is null");
        requireNonNull(tableName, "tableName is null");
        requireNonNull(mode, "mode is null");
        requireNonNull(revision, "revision is null");
        requireNonNull(startSnapshotId, "startSnapshotId is null");
        files = ImmutableList.copyOf(requireNonNull(files, "files is null"));
        requireNonNull(write, "write is null");
    }

    public SchemaTableName schemaTableName()
    {
        return new SchemaTableName(schemaName, tableName);
    }

    public QbeastTableExecuteHandle withWrite(Optional<Long> startSnapshotId, List<String> files, QbeastWritableTableHandle write)
    {
        return new QbeastTableExecuteHandle(schemaName, tableName, mode, revision, startSnapshotId, files, Optional.of(write));
    }

    @Override
    public String toString()
    {
        return "optimize " + schemaName + "." + tableName + " mode " + mode.name().toLowerCase(Locale.ENGLISH) + revision.map(id -> " revision " + id).orElse("");
    }
}

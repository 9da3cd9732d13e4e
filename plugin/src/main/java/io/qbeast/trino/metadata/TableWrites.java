package io.qbeast.trino.metadata;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import io.airlift.json.JsonCodec;
import io.airlift.log.Logger;
import io.airlift.slice.Slice;
import io.qbeast.iceberg.IcebergCommits;
import io.qbeast.iceberg.IcebergCommits.RowChanges;
import io.qbeast.iceberg.ObsoleteDeletes;
import io.qbeast.iceberg.QbeastTableMetadata;
import io.qbeast.iceberg.QbeastTableProperties;
import io.qbeast.index.Revision;
import io.qbeast.trino.catalog.QbeastTableMetadataReader;
import io.qbeast.trino.error.CommitFailures;
import io.qbeast.trino.error.CommitFailures.RewriteConflict;
import io.qbeast.trino.error.CommitFailures.Write;
import io.qbeast.trino.handle.QbeastColumnHandle;
import io.qbeast.trino.handle.QbeastDeleteFile;
import io.qbeast.trino.handle.QbeastMergeTableHandle;
import io.qbeast.trino.handle.QbeastTableExecuteHandle;
import io.qbeast.trino.handle.QbeastTableHandle;
import io.qbeast.trino.handle.QbeastWritableTableHandle;
import io.qbeast.trino.metadata.TransactionCatalog.CreatedTable;
import io.qbeast.trino.optimize.OptimizeReport;
import io.qbeast.trino.optimize.QbeastOptimize;
import io.qbeast.trino.parquet.DeleteFileReader;
import io.qbeast.trino.parquet.QbeastPageSourceFactory;
import io.qbeast.trino.read.ExpressionConverter;
import io.qbeast.trino.write.CommitTaskData;
import io.trino.filesystem.FileEntry;
import io.trino.filesystem.FileIterator;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.BeginTableExecuteResult;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableExecuteHandle;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTableMetadata;
import io.trino.spi.connector.SchemaTableName;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.CloseableIterable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_COMMIT_ERROR;
import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_INTERNAL_ERROR;
import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_INVALID_METADATA;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static java.util.Objects.requireNonNull;

/**
 * The write protocol of one transaction: CTAS, INSERT and optimize each begin (a handle for the
 * sinks, and the write remembered so that a failure can remove its files) and finish (the sinks'
 * fragments decoded by {@link WrittenFiles} and committed as one Iceberg operation, failures
 * mapped by {@link CommitFailures}). One write per transaction.
 */
final class TableWrites
{
    private static final Logger log = Logger.get(TableWrites.class);

    private final TransactionCatalog catalog;
    private final TableColumns columns;
    private final TrinoFileSystem fileSystem;
    private final JsonCodec<CommitTaskData> commitTaskCodec;
    private final long defaultCubeSize;
    private final DeleteFileReader deleteFileReader = new DeleteFileReader(new QbeastPageSourceFactory(), ParquetReaderOptions.defaultOptions());

    // a write begun and not finished: what rollback() must remove
    private volatile PendingWrite pendingWrite;

    TableWrites(TransactionCatalog catalog, TableColumns columns, TrinoFileSystem fileSystem, JsonCodec<CommitTaskData> commitTaskCodec, long defaultCubeSize)
    {
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.columns = requireNonNull(columns, "columns is null");
        this.fileSystem = requireNonNull(fileSystem, "fileSystem is null");
        this.commitTaskCodec = requireNonNull(commitTaskCodec, "commitTaskCodec is null");
        this.defaultCubeSize = defaultCubeSize;
    }

    // ---- CREATE TABLE AS ----

    QbeastWritableTableHandle beginCreateTable(ConnectorSession session, ConnectorTableMetadata tableMetadata)
    {
        CreatedTable created = catalog.beginCreateTable(tableMetadata);
        Table table = created.transaction().table();
        beginWrite(new PendingWrite(session.getQueryId(), Location.of(dataLocation(table)), created.ownedLocation(), Optional.of(created.transaction()), List.of()));
        List<QbeastColumnHandle> inputColumns = tableMetadata.getColumns().stream()
                .map(column -> columns.handle(table.schema().findField(column.getName())))
                .collect(toImmutableList());
        return writableHandle(tableMetadata.getTable(), table, QbeastTableMetadataReader.read(tableMetadata.getTable(), table).orElseThrow(), inputColumns, Optional.empty(), created.ownedLocation());
    }

    void finishCreateTable(ConnectorSession session, QbeastWritableTableHandle handle, Collection<Slice> fragments)
    {
        Transaction transaction = requirePendingWrite().createTransaction().orElseThrow();
        WrittenFiles written = WrittenFiles.decode(commitTaskCodec, fragments);
        commit(Write.CREATE, handle.schemaTableName(), OptionalLong.empty(),
                () -> IcebergCommits.commitCreate(transaction, written.dataFiles(), written.newRevisions(), snapshotSummary(session)));
    }

    // ---- INSERT ----

    QbeastWritableTableHandle beginInsert(ConnectorSession session, QbeastTableHandle handle, List<QbeastColumnHandle> inputColumns)
    {
        Table table = catalog.getTable(handle.schemaTableName());
        QbeastTableMetadata qbeast = QbeastTableMetadataReader.read(handle.schemaTableName(), table)
                .orElseThrow(() -> new TrinoException(NOT_SUPPORTED, "Table %s is not a qbeast table (it has no %s property); only qbeast tables accept inserts".formatted(handle.schemaTableName(), QbeastTableProperties.INDEXED_COLUMNS)));
        beginWrite(new PendingWrite(session.getQueryId(), Location.of(dataLocation(table)), Optional.empty(), Optional.empty(), List.of()));
        return writableHandle(handle.schemaTableName(), table, qbeast, inputColumns, handle.snapshotId(), Optional.empty());
    }

    void finishInsert(ConnectorSession session, QbeastWritableTableHandle handle, Collection<Slice> fragments)
    {
        requirePendingWrite();
        WrittenFiles written = WrittenFiles.decode(commitTaskCodec, fragments);
        if (written.isEmpty()) {
            pendingWrite = null;
            return;
        }
        // the commit starts from the newest metadata
        Table table = catalog.loadLatest(handle.schemaTableName());
        commit(Write.INSERT, handle.schemaTableName(), OptionalLong.empty(),
                () -> IcebergCommits.append(table, written.dataFiles(), written.newRevisions(), snapshotSummary(session)));
    }

    // ---- DELETE, UPDATE, MERGE ----

    /**
     * A row-level change of a qbeast table of format version 2: its new rows are written as an
     * INSERT's (the visible columns, then {@code _qbeast_weight}, which an updated row keeps).
     */
    QbeastMergeTableHandle beginMerge(ConnectorSession session, QbeastTableHandle handle)
    {
        Table table = catalog.getTable(handle.schemaTableName());
        QbeastTableMetadata qbeast = QbeastTableMetadataReader.read(handle.schemaTableName(), table)
                .orElseThrow(() -> new TrinoException(NOT_SUPPORTED, "Table %s is not a qbeast table (it has no %s property); only qbeast tables accept row-level changes".formatted(handle.schemaTableName(), QbeastTableProperties.INDEXED_COLUMNS)));
        int formatVersion = ((HasTableOperations) table).operations().current().formatVersion();
        if (formatVersion != 2) {
            throw new TrinoException(NOT_SUPPORTED, "Table %s has Iceberg format version %s; DELETE, UPDATE and MERGE write position delete files, which need format version 2".formatted(handle.schemaTableName(), formatVersion));
        }
        List<QbeastColumnHandle> inputColumns = ImmutableList.<QbeastColumnHandle>builder()
                .addAll(columns.visible(table))
                .add(columns.handle(table.schema().findField(QbeastTableProperties.WEIGHT_COLUMN)))
                .build();
        beginWrite(new PendingWrite(session.getQueryId(), Location.of(dataLocation(table)), Optional.empty(), Optional.empty(), List.of()));
        return new QbeastMergeTableHandle(handle, writableHandle(handle.schemaTableName(), table, qbeast, inputColumns, handle.snapshotId(), Optional.empty()));
    }

    /**
     * Commits a row-level change as one Iceberg {@code RowDelta}, validated as serializable from
     * the snapshot the statement read ({@link IcebergCommits#rowDelta}): the new rows' data files;
     * for each data file rows were deleted from, its position delete files, or, when the statement
     * deleted every row of a file that had no delete file yet, the removal of the data file
     * (its delete files are then not committed, and removed once the commit succeeded).
     */
    void finishMerge(ConnectorSession session, QbeastMergeTableHandle handle, Collection<Slice> fragments)
    {
        requirePendingWrite();
        WrittenFiles written = WrittenFiles.decode(commitTaskCodec, fragments);
        if (written.isEmpty()) {
            pendingWrite = null;
            return;
        }
        SchemaTableName name = handle.table().schemaTableName();
        Map<String, ImmutableList<CommitTaskData>> deletesByDataFile = written.tasks().stream()
                .filter(CommitTaskData::isPositionDeletes)
                .collect(Collectors.groupingBy(task -> task.referencedDataFile().orElseThrow(), LinkedHashMap::new, toImmutableList()));
        Table table = catalog.loadLatest(name);
        handle.table().snapshotId().filter(id -> table.snapshot(id) == null).ifPresent(id -> {
            throw new TrinoException(QBEAST_COMMIT_ERROR, "Changing rows of %s: the snapshot %s it read was expired meanwhile; nothing was changed, run it again".formatted(name, id));
        });
        Map<String, FileScanTask> readFiles = readFiles(table, handle.table().snapshotId(), deletesByDataFile.keySet());
        List<DeleteFile> addedDeletes = new ArrayList<>();
        List<DataFile> removedFiles = new ArrayList<>();
        List<Location> unusedDeleteFiles = new ArrayList<>();
        deletesByDataFile.forEach((dataFile, deletes) -> {
            FileScanTask read = readFiles.get(dataFile);
            if (read == null) {
                throw new TrinoException(QBEAST_INTERNAL_ERROR, "Deleting rows of %s from %s, which is not in the snapshot read".formatted(name, dataFile));
            }
            long deletedRows = deletes.stream().mapToLong(task -> task.file().recordCount()).sum();
            if (read.deletes().isEmpty() && deletedRows == read.file().recordCount()) {
                removedFiles.add(read.file());
                deletes.forEach(task -> unusedDeleteFiles.add(Location.of(task.file().path())));
            }
            else {
                deletes.forEach(task -> addedDeletes.add(FileMetadata.deleteFileBuilder(table.spec())
                        .ofPositionDeletes()
                        .withPath(task.file().path())
                        .withFormat(FileFormat.PARQUET)
                        .withFileSizeInBytes(task.file().fileSizeInBytes())
                        .withMetrics(task.file().metrics().toIcebergMetrics())
                        .withReferencedDataFile(dataFile)
                        .build()));
            }
        });
        WrittenFiles inserted = new WrittenFiles(written.tasks().stream().filter(task -> !task.isPositionDeletes()).collect(toImmutableList()));
        // the files that keep rows: a removed file must not be named (Iceberg refuses a commit that
        // both removes a data file and adds deletes for it); its existence is validated as removed
        List<String> referenced = addedDeletes.stream().map(delete -> delete.referencedDataFile().toString()).distinct().collect(toImmutableList());
        RowChanges changes = new RowChanges(inserted.dataFiles(), addedDeletes, removedFiles, referenced);
        Expression conflictFilter = ExpressionConverter.toIcebergExpression(handle.table().predicate());
        OptionalLong startSnapshotId = handle.table().snapshotId().map(OptionalLong::of).orElseGet(OptionalLong::empty);
        commit(Write.MERGE, name, startSnapshotId,
                () -> IcebergCommits.rowDelta(table, startSnapshotId, conflictFilter, changes, inserted.newRevisions(), snapshotSummary(session)));
        try {
            fileSystem.deleteFiles(unusedDeleteFiles);
        }
        catch (IOException | RuntimeException e) {
            log.warn(e, "Failed to remove the unused position delete files of query %s: %s", session.getQueryId(), unusedDeleteFiles);
        }
    }

    // the data files of the snapshot a statement read that it deleted rows from, with their delete files then
    private static Map<String, FileScanTask> readFiles(Table table, Optional<Long> snapshotId, Set<String> locations)
    {
        Map<String, FileScanTask> files = new HashMap<>();
        if (locations.isEmpty() || snapshotId.isEmpty()) {
            return files;
        }
        try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(snapshotId.get()).planFiles()) {
            for (FileScanTask task : tasks) {
                if (locations.contains(task.file().location())) {
                    files.put(task.file().location(), task);
                }
            }
        }
        catch (IOException e) {
            throw new TrinoException(QBEAST_INVALID_METADATA, "Failed to read the files of snapshot %s of %s: %s".formatted(snapshotId.get(), table.name(), e.getMessage()), e);
        }
        return files;
    }

    // ---- optimize ----

    /**
     * Chooses the files to rewrite (planning the source's snapshot once: the commit replaces the
     * files chosen here that the scan read) and narrows the scan to them.
     */
    BeginTableExecuteResult<ConnectorTableExecuteHandle, ConnectorTableHandle> beginOptimize(ConnectorSession session, QbeastTableExecuteHandle handle, QbeastTableHandle source)
    {
        if (source.isSampled()) {
            throw new TrinoException(NOT_SUPPORTED, "Optimize does not accept a sample");
        }
        Table table = catalog.getTable(handle.schemaTableName());
        Optional<QbeastTableMetadata> qbeast = QbeastTableMetadataReader.read(handle.schemaTableName(), table);
        List<FileScanTask> selected = QbeastOptimize.selectFiles(table, handle, source, qbeast, fileSystem);
        List<String> files = selected.stream().map(task -> task.file().location()).collect(toImmutableList());
        beginWrite(new PendingWrite(session.getQueryId(), Location.of(dataLocation(table)), Optional.empty(), Optional.empty(), selected));
        QbeastWritableTableHandle write = writableHandle(handle.schemaTableName(), table, qbeast.orElseThrow(), columns.visible(table), source.snapshotId(), Optional.empty());
        return new BeginTableExecuteResult<>(handle.withWrite(source.snapshotId(), files, write), source.forOptimize(files));
    }

    /**
     * Commits an optimize: one Iceberg {@code RewriteFiles} replacing the {@code scanned} files with
     * the files in {@code fragments}, validated from the start snapshot; nothing when nothing was
     * scanned. The scan left out the rows that delete files removed, so the position delete files
     * that name only replaced files, and the equality delete files older than every kept data file, are removed in the same commit ({@link ObsoleteDeletes}). The report is logged and stored in the snapshot summary ({@code qbeast.optimize.*}).
     */
    OptimizeReport finishOptimize(ConnectorSession session, QbeastTableExecuteHandle handle, List<String> scanned, Collection<Slice> fragments)
    {
        PendingWrite pending = requirePendingWrite();
        WrittenFiles written = WrittenFiles.decode(commitTaskCodec, fragments);
        if (scanned.isEmpty()) {
            if (!written.isEmpty()) {
                throw new TrinoException(QBEAST_INTERNAL_ERROR, "Optimize of %s wrote %s files without reading any".formatted(handle.schemaTableName(), written.tasks().size()));
            }
            pendingWrite = null;
            log.info("Optimize of %s (query %s): nothing to rewrite", handle.schemaTableName(), session.getQueryId());
            return OptimizeReport.NOTHING;
        }
        Set<String> scannedSet = ImmutableSet.copyOf(scanned);
        List<FileScanTask> rewritten = pending.rewrittenFiles().stream()
                .filter(task -> scannedSet.contains(task.file().location()))
                .collect(toImmutableList());
        List<DataFile> deleted = rewritten.stream().map(FileScanTask::file).collect(toImmutableList());
        if (deleted.size() != scannedSet.size()) {
            throw new TrinoException(QBEAST_INTERNAL_ERROR, "Optimize of %s read %s files, of which %s were selected".formatted(handle.schemaTableName(), scannedSet.size(), deleted.size()));
        }
        long startSnapshotId = handle.startSnapshotId().orElseThrow();
        Table table = catalog.loadLatest(handle.schemaTableName());
        Snapshot start = table.snapshot(startSnapshotId);
        if (start == null) {
            throw new TrinoException(QBEAST_COMMIT_ERROR, "Optimize of %s: its start snapshot %s was expired meanwhile; nothing was changed".formatted(handle.schemaTableName(), startSnapshotId));
        }
        List<DataFile> added = written.dataFiles();
        OptimizeReport report = OptimizeReport.of(
                handle.mode(),
                deleted,
                added,
                Long.parseLong(start.summary().getOrDefault("total-files-size", "0")),
                written.cubes());
        Map<String, String> summary = ImmutableMap.<String, String>builder()
                .putAll(snapshotSummary(session))
                .putAll(report.toSnapshotSummary())
                .buildOrThrow();
        SchemaTableName name = handle.schemaTableName();
        // position delete files naming only rewritten files (their rows were left out of the new
        // files), and equality delete files older than every data file kept
        long oldestKept = ObsoleteDeletes.oldestKeptDataSequenceNumber(table, startSnapshotId, scannedSet);
        List<DeleteFile> obsoleteDeletes = ObsoleteDeletes.of(rewritten, delete -> deleteFileReader.referencedDataFiles(fileSystem, new QbeastDeleteFile(
                delete.location(), delete.format().name(), QbeastDeleteFile.Content.POSITION_DELETES, delete.recordCount(), delete.fileSizeInBytes(), List.of())), oldestKept);
        commit(name, () -> IcebergCommits.rewrite(table, startSnapshotId, deleted, obsoleteDeletes, added, written.newRevisions(), summary),
                failure -> failure instanceof ValidationException conflict
                        ? conflictError(name, startSnapshotId, deleted, conflict)
                        : CommitFailures.toTrinoException(Write.OPTIMIZE, name, OptionalLong.of(startSnapshotId), failure));
        log.info("Optimize of %s (query %s): %s", handle.schemaTableName(), session.getQueryId(), report);
        return report;
    }

    /**
     * The error of an optimize whose rewrite was refused: which of the files it meant to replace
     * are no longer in the table as it is now (read only on this path, to tell the user what
     * changed), or, should reading the table fail too, the conflict as Iceberg reported it.
     */
    private TrinoException conflictError(SchemaTableName name, long startSnapshotId, List<DataFile> deleted, ValidationException conflict)
    {
        try {
            Table latest = catalog.loadLatest(name);
            Set<String> live = new HashSet<>();
            try (CloseableIterable<FileScanTask> tasks = latest.newScan().planFiles()) {
                tasks.forEach(task -> live.add(task.file().location()));
            }
            List<String> gone = deleted.stream()
                    .map(DataFile::location)
                    .filter(location -> !live.contains(location))
                    .collect(toImmutableList());
            return CommitFailures.rewriteConflict(name, startSnapshotId, new RewriteConflict(latest.currentSnapshot().snapshotId(), gone), conflict);
        }
        catch (IOException | RuntimeException e) {
            conflict.addSuppressed(e);
            return CommitFailures.toTrinoException(Write.OPTIMIZE, name, OptionalLong.of(startSnapshotId), conflict);
        }
    }

    /** The files the pending optimize chose to rewrite, with their delete files; empty without one. */
    Optional<List<FileScanTask>> optimizeFiles()
    {
        PendingWrite write = pendingWrite;
        return write == null || write.rewrittenFiles().isEmpty() ? Optional.empty() : Optional.of(write.rewrittenFiles());
    }

    /** Removes the files of a write that did not commit. */
    void rollback()
    {
        PendingWrite write = pendingWrite;
        pendingWrite = null;
        if (write != null) {
            write.cleanUp(fileSystem);
        }
    }

    /**
     * Commits a write; on success or an unknown outcome its files are no longer this write's to
     * remove (they are, or may be, referenced by the table), on any other failure they are removed
     * when the query is cleaned up. Failures are mapped by {@link CommitFailures}.
     */
    private void commit(Write write, SchemaTableName table, OptionalLong startSnapshotId, Runnable commit)
    {
        commit(table, commit, failure -> CommitFailures.toTrinoException(write, table, startSnapshotId, failure));
    }

    private void commit(SchemaTableName table, Runnable commit, Function<RuntimeException, TrinoException> toError)
    {
        try {
            commit.run();
        }
        catch (RuntimeException e) {
            if (CommitFailures.outcomeUnknown(e)) {
                pendingWrite = null;
            }
            throw toError.apply(e);
        }
        pendingWrite = null;
        catalog.forget(table);
    }

    /**
     * The handle a write (CTAS, INSERT, optimize) gives its sinks: the table's schema, indexed
     * columns, cube size and current revision, and the snapshot the write starts from.
     */
    private QbeastWritableTableHandle writableHandle(SchemaTableName name, Table table, QbeastTableMetadata qbeast, List<QbeastColumnHandle> inputColumns, Optional<Long> snapshotId, Optional<Location> ownedLocation)
    {
        return new QbeastWritableTableHandle(
                name.getSchemaName(),
                name.getTableName(),
                SchemaParser.toJson(table.schema()),
                inputColumns,
                dataLocation(table),
                snapshotId.map(_ -> ((HasTableOperations) table).operations().current().metadataFileLocation()),
                snapshotId,
                qbeast.currentRevision().map(Revision::toJson),
                qbeast.indexedColumns(),
                qbeast.cubeSize(defaultCubeSize),
                storageProperties(table.properties()),
                ownedLocation.map(Location::toString));
    }

    private static String dataLocation(Table table)
    {
        String configured = table.properties().get(TableProperties.WRITE_DATA_LOCATION);
        return configured != null ? NewTable.stripTrailingSlash(configured) : NewTable.stripTrailingSlash(table.location()) + "/data";
    }

    private static Map<String, String> storageProperties(Map<String, String> properties)
    {
        ImmutableMap.Builder<String, String> storage = ImmutableMap.builder();
        properties.forEach((key, value) -> {
            if (key.startsWith("write.")) {
                storage.put(key, value);
            }
        });
        return storage.buildOrThrow();
    }

    static Map<String, String> snapshotSummary(ConnectorSession session)
    {
        return ImmutableMap.of(
                "trino_query_id", session.getQueryId(),
                "trino_user", session.getUser());
    }

    private void beginWrite(PendingWrite write)
    {
        if (pendingWrite != null) {
            throw new TrinoException(NOT_SUPPORTED, "This connector supports one write per transaction");
        }
        pendingWrite = write;
    }

    private PendingWrite requirePendingWrite()
    {
        if (pendingWrite == null) {
            throw new IllegalStateException("No write in progress");
        }
        return pendingWrite;
    }

    /**
     * A write between its begin and its commit. Every file it creates is named
     * {@code <queryId>-<writer>-<n>.parquet} in {@code dataLocation}, so a failed write can be
     * removed even when some of its writers finished (their files are in no fragment the engine
     * kept).
     *
     * @param createTransaction the Iceberg transaction of a CTAS
     * @param rewrittenFiles the files an optimize chose to rewrite, with their delete files (empty for CTAS and INSERT)
     */
    private record PendingWrite(String queryId, Location dataLocation, Optional<Location> ownedTableLocation, Optional<Transaction> createTransaction, List<FileScanTask> rewrittenFiles)
    {
        void cleanUp(TrinoFileSystem fileSystem)
        {
            try {
                if (ownedTableLocation.isPresent()) {
                    fileSystem.deleteDirectory(ownedTableLocation.get());
                    return;
                }
                List<Location> files = new ArrayList<>();
                FileIterator iterator = fileSystem.listFiles(dataLocation);
                while (iterator.hasNext()) {
                    FileEntry entry = iterator.next();
                    if (entry.location().fileName().startsWith(queryId + "-")) {
                        files.add(entry.location());
                    }
                }
                fileSystem.deleteFiles(files);
            }
            catch (IOException | RuntimeException e) {
                log.warn(e, "Failed to remove the files of failed query %s in %s", queryId, dataLocation);
            }
        }
    }
}

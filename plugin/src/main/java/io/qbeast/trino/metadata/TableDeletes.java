package io.qbeast.trino.metadata;

import com.google.common.collect.ImmutableList;
import io.qbeast.iceberg.ObsoleteDeletes;
import io.qbeast.iceberg.WholeFileDeletes;
import io.qbeast.index.Weight;
import io.qbeast.trino.catalog.QbeastTableMetadataReader;
import io.qbeast.trino.error.CommitFailures;
import io.qbeast.trino.error.CommitFailures.Write;
import io.qbeast.trino.handle.QbeastDeleteFile;
import io.qbeast.trino.handle.QbeastTableHandle;
import io.qbeast.trino.parquet.DeleteFileReader;
import io.qbeast.trino.parquet.QbeastPageSourceFactory;
import io.qbeast.trino.read.ExpressionConverter;
import io.qbeast.trino.read.FileMetadataColumns;
import io.qbeast.trino.read.QbeastFilePruner;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.SchemaTableName;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.StrictMetricsEvaluator;
import org.apache.iceberg.io.CloseableIterable;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_INTERNAL_ERROR;
import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_INVALID_METADATA;
import static java.util.Objects.requireNonNull;

/**
 * The deletes that remove whole files and read no rows: {@code TRUNCATE TABLE}, and a DELETE
 * whose predicate every data file of the snapshot either wholly satisfies or wholly misses (the
 * engine offers a DELETE here, {@code applyDelete}, only when the scan's filter was all pushed into
 * the table handle). Any other DELETE takes the row-level path.
 */
final class TableDeletes
{
    private final TransactionCatalog catalog;
    private final TrinoFileSystem fileSystem;
    private final DeleteFileReader deleteFileReader;
    // applyDelete's plans, which executeDelete commits (the same handle, the same snapshot)
    private final Map<QbeastTableHandle, WholeFiles> planned = new ConcurrentHashMap<>();

    TableDeletes(TransactionCatalog catalog, TrinoFileSystem fileSystem)
    {
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.fileSystem = requireNonNull(fileSystem, "fileSystem is null");
        this.deleteFileReader = new DeleteFileReader(new QbeastPageSourceFactory(), ParquetReaderOptions.defaultOptions());
    }

    /** {@code TRUNCATE TABLE}: see {@link WholeFileDeletes#truncate}. */
    void truncate(ConnectorSession session, QbeastTableHandle handle)
    {
        SchemaTableName name = handle.schemaTableName();
        Table table = catalog.loadLatest(name);
        try {
            WholeFileDeletes.truncate(table, TableWrites.snapshotSummary(session));
        }
        catch (RuntimeException e) {
            throw CommitFailures.toTrinoException(Write.TRUNCATE, name, OptionalLong.empty(), e);
        }
        finally {
            catalog.forget(name);
        }
    }

    /**
     * Whether the DELETE of {@code handle} removes whole files only: the handle narrows the scan
     * by column domains alone (no expressions the page source evaluates), each exactly expressible
     * in Iceberg ({@link ExpressionConverter#toExactIcebergExpression}); and each data file the
     * predicate may match (by column bounds, cube region and file metadata, as a scan prunes) has
     * every row matching by its column bounds and null counts (Iceberg's strict metrics
     * evaluation) and no delete file other than position delete files naming only removed files
     * (the deleted rows are then counted from the metadata).
     */
    boolean isWholeFileDelete(QbeastTableHandle handle)
    {
        Optional<WholeFiles> plan = plan(handle);
        plan.ifPresent(files -> planned.put(handle, files));
        return plan.isPresent();
    }

    /** Commits the delete {@link #isWholeFileDelete} accepted; returns the number of rows deleted. */
    long execute(ConnectorSession session, QbeastTableHandle handle)
    {
        WholeFiles files = Optional.ofNullable(planned.remove(handle)).or(() -> plan(handle))
                .orElseThrow(() -> new TrinoException(QBEAST_INTERNAL_ERROR, "Delete from %s: the files to remove are no longer whole".formatted(handle.schemaTableName())));
        if (files.dataFiles().isEmpty()) {
            return 0;
        }
        SchemaTableName name = handle.schemaTableName();
        long startSnapshotId = handle.snapshotId().orElseThrow();
        Table table = catalog.loadLatest(name);
        try {
            WholeFileDeletes.delete(table, startSnapshotId, files.dataFiles(), files.deleteFiles(), TableWrites.snapshotSummary(session));
        }
        catch (RuntimeException e) {
            throw CommitFailures.toTrinoException(Write.DELETE, name, OptionalLong.of(startSnapshotId), e);
        }
        finally {
            catalog.forget(name);
        }
        return files.deletedRows();
    }

    private Optional<WholeFiles> plan(QbeastTableHandle handle)
    {
        if (!handle.rowPredicates().isEmpty() || handle.isSampled() || handle.optimizeFiles().isPresent()) {
            return Optional.empty();
        }
        Optional<Expression> exact = ExpressionConverter.toExactIcebergExpression(handle.predicate());
        if (exact.isEmpty()) {
            return Optional.empty();
        }
        if (handle.snapshotId().isEmpty() || handle.predicate().isNone()) {
            return Optional.of(new WholeFiles(List.of(), List.of(), 0));
        }
        Table table = catalog.getTable(handle.schemaTableName());
        QbeastFilePruner pruner = new QbeastFilePruner(table.schema(), QbeastTableMetadataReader.read(handle.schemaTableName(), table), handle.predicate(), Weight.ALL);
        StrictMetricsEvaluator allRowsMatch = new StrictMetricsEvaluator(table.schema(), exact.get());
        ImmutableList.Builder<FileScanTask> removed = ImmutableList.builder();
        try (CloseableIterable<FileScanTask> tasks = table.newScan()
                .useSnapshot(handle.snapshotId().get())
                .filter(exact.get())
                .includeColumnStats()
                .planFiles()) {
            for (FileScanTask task : tasks) {
                String location = task.file().location();
                boolean mayMatch = pruner.mayContain(task.file())
                        && FileMetadataColumns.matches(handle.predicate(), location, () -> FileMetadataColumns.modifiedMillis(fileSystem.newInputFile(Location.of(location))));
                if (!mayMatch) {
                    continue;
                }
                if (!allRowsMatch.eval(task.file()) || task.deletes().stream().anyMatch(delete -> delete.content() != FileContent.POSITION_DELETES)) {
                    return Optional.empty();
                }
                removed.add(task);
            }
        }
        catch (IOException e) {
            throw new TrinoException(QBEAST_INVALID_METADATA, "Failed to plan the delete from %s: %s".formatted(handle.schemaTableName(), e.getMessage()), e);
        }
        List<FileScanTask> tasks = removed.build();
        List<DeleteFile> obsolete = ObsoleteDeletes.of(tasks, delete -> deleteFileReader.referencedDataFiles(fileSystem, new QbeastDeleteFile(
                delete.location(), delete.format().name(), QbeastDeleteFile.Content.POSITION_DELETES, delete.recordCount(), delete.fileSizeInBytes(), List.of())));
        Set<String> obsoleteLocations = obsolete.stream().map(DeleteFile::location).collect(toImmutableSet());
        if (tasks.stream().flatMap(task -> task.deletes().stream()).anyMatch(delete -> !obsoleteLocations.contains(delete.location()))) {
            // a position delete file that also names kept files: how many of a removed file's
            // rows it deletes is known only by reading it
            return Optional.empty();
        }
        List<DataFile> dataFiles = tasks.stream().map(FileScanTask::file).collect(toImmutableList());
        long deletedRows = dataFiles.stream().mapToLong(DataFile::recordCount).sum() - obsolete.stream().mapToLong(DeleteFile::recordCount).sum();
        return Optional.of(new WholeFiles(dataFiles, obsolete, deletedRows));
    }

    /**
     * @param dataFiles the data files every row of which the DELETE deletes
     * @param deleteFiles the position delete files naming only those
     * @param deletedRows their live rows
     */
    private record WholeFiles(List<DataFile> dataFiles, List<DeleteFile> deleteFiles, long deletedRows)
    {
        WholeFiles
        {
            dataFiles = List.copyOf(dataFiles);
            deleteFiles = List.copyOf(deleteFiles);
        }
    }
}

package io.qbeast.trino.read;

import com.google.common.collect.ImmutableSet;
import com.google.inject.Inject;
import io.qbeast.index.Weight;
import io.qbeast.trino.catalog.PlanningExecutors;
import io.qbeast.trino.catalog.QbeastTableMetadataReader;
import io.qbeast.trino.catalog.TransactionTables;
import io.qbeast.trino.config.QbeastSessionProperties;
import io.qbeast.trino.handle.QbeastColumnHandle;
import io.qbeast.trino.handle.QbeastDeleteFile;
import io.qbeast.trino.handle.QbeastTableHandle;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.filesystem.TrinoFileSystemFactory;
import io.trino.plugin.base.classloader.ClassLoaderSafeConnectorSplitSource;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplitManager;
import io.trino.spi.connector.ConnectorSplitSource;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.Constraint;
import io.trino.spi.connector.FixedSplitSource;
import io.trino.spi.type.TypeManager;
import org.apache.iceberg.BaseFileScanTask;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.ResidualEvaluator;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import java.util.stream.Stream;

import static com.google.common.base.Preconditions.checkState;
import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static java.util.Objects.requireNonNull;

/**
 * Splits of a table scan: an Iceberg scan of the handle's snapshot, filtered by the pushed-down
 * predicate so that Iceberg prunes files by column bounds (the index columns included), planned on
 * background threads ({@link PlanningExecutors}) so manifest reads never block the scheduler. On
 * top, {@link QbeastFilePruner} drops files whose cube region misses the predicate (narrowed by the
 * dynamic filter as it arrives: {@link QbeastSplitSource} gets its state with every batch) or whose
 * lightest row is not in the sample.
 */
public class QbeastSplitManager
        implements ConnectorSplitManager
{
    private final TransactionTables transactionTables;
    private final PlanningExecutors executors;
    private final ClassLoader classLoader;
    private final TrinoFileSystemFactory fileSystemFactory;
    private final TypeManager typeManager;

    @Inject
    public QbeastSplitManager(TransactionTables transactionTables, PlanningExecutors executors, ClassLoader classLoader, TrinoFileSystemFactory fileSystemFactory, TypeManager typeManager)
    {
        this.typeManager = requireNonNull(typeManager, "typeManager is null");
        this.fileSystemFactory = requireNonNull(fileSystemFactory, "fileSystemFactory is null");
        this.transactionTables = requireNonNull(transactionTables, "transactionTables is null");
        this.executors = requireNonNull(executors, "executors is null");
        this.classLoader = requireNonNull(classLoader, "classLoader is null");
    }

    @Override
    public ConnectorSplitSource getSplits(ConnectorTransactionHandle transaction, ConnectorSession session, ConnectorTableHandle tableHandle, Set<ColumnHandle> dynamicFilterColumns, Constraint constraint)
    {
        QbeastTableHandle table = (QbeastTableHandle) tableHandle;
        if (table.optimizeFiles().isPresent()) {
            // the scan of an optimize: the files it rewrites, whole, recorded for the commit
            if (table.snapshotId().isEmpty() || table.optimizeFiles().get().isEmpty()) {
                return new FixedSplitSource(List.of(), List.of());
            }
            Table icebergTable = transactionTables.icebergTable(transaction, session.getIdentity(), table.schemaTableName());
            DeleteFiles.checkFormatVersion(table.schemaTableName(), icebergTable);
            List<FileScanTask> files = transactionTables.optimizeFiles(transaction, session.getIdentity())
                    .orElseThrow(() -> new IllegalStateException("Optimize of %s scans without having begun".formatted(table.schemaTableName())));
            checkState(files.stream().map(task -> task.file().location()).collect(toImmutableSet()).equals(ImmutableSet.copyOf(table.optimizeFiles().get())),
                    "Optimize of %s scans other files than it chose", table.schemaTableName());
            return new ClassLoaderSafeConnectorSplitSource(QbeastSplitSource.forOptimize(wholeFileTasks(icebergTable, files), executors.splitBatches(), deleteHandles(icebergTable)), classLoader);
        }
        if (table.snapshotId().isEmpty() || table.predicate().isNone() || table.weightUpperBound() <= Weight.NONE) {
            return FixedSplitSource.emptySplitSource();
        }
        Table icebergTable = transactionTables.icebergTable(transaction, session.getIdentity(), table.schemaTableName());
        DeleteFiles.checkFormatVersion(table.schemaTableName(), icebergTable);
        TableScan scan = snapshotScan(icebergTable, table.snapshotId().get());
        Schema scanSchema = scan.schema();
        scan = scan
                .filter(ExpressionConverter.toIcebergExpression(table.predicate()))
                // the index columns' bounds (dropped from planned files by default) are what QbeastFilePruner reads;
                // a plain Iceberg table (not converted yet) has no index columns
                .includeColumnStats(Stream.of(QbeastColumnHandle.CUBE_COLUMN, QbeastColumnHandle.WEIGHT_COLUMN)
                        .filter(column -> scanSchema.findField(column) != null)
                        .toList())
                .planWith(executors.metadataReads());
        QbeastFilePruner pruner = new QbeastFilePruner(icebergTable.schema(), QbeastTableMetadataReader.read(table.schemaTableName(), icebergTable), table.predicate(), table.weightUpperBound());
        TrinoFileSystem fileSystem = fileSystemFactory.create(session);
        ToLongFunction<String> modifiedMillis = location -> FileMetadataColumns.modifiedMillis(fileSystem.newInputFile(Location.of(location)));
        return new ClassLoaderSafeConnectorSplitSource(new QbeastSplitSource(scan, executors.splitBatches(), pruner, table.predicate(), snapshotFiles(icebergTable, table.snapshotId().get()), modifiedMillis, deleteHandles(icebergTable), QbeastSessionProperties.getMaxSplitSize(session).toBytes()), classLoader);
    }

    private Function<List<DeleteFile>, List<QbeastDeleteFile>> deleteHandles(Table table)
    {
        Schema schema = table.schema();
        return deletes -> DeleteFiles.toHandles(deletes, schema, typeManager);
    }

    // the chosen files as scan tasks of all their rows (their planned residual was the optimize's
    // WHERE, which selects whole files), with the delete files planned for them
    private static List<FileScanTask> wholeFileTasks(Table table, List<FileScanTask> tasks)
    {
        String schema = SchemaParser.toJson(table.schema());
        Map<Integer, String> specs = new HashMap<>();
        ResidualEvaluator allRows = ResidualEvaluator.unpartitioned(Expressions.alwaysTrue());
        return tasks.stream()
                .map(task -> (FileScanTask) new BaseFileScanTask(task.file(), task.deletes().toArray(DeleteFile[]::new), schema, specs.computeIfAbsent(task.file().specId(), id -> PartitionSpecParser.toJson(table.specs().get(id))), allRows))
                .toList();
    }

    private static OptionalLong snapshotFiles(Table table, long snapshotId)
    {
        Snapshot snapshot = table.snapshot(snapshotId);
        String files = snapshot == null ? null : snapshot.summary().get(SnapshotSummary.TOTAL_DATA_FILES_PROP);
        try {
            return files == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(files));
        }
        catch (NumberFormatException _) {
            return OptionalLong.empty();
        }
    }

    // useSnapshot binds the scan to the snapshot's own schema: when the snapshot is the current
    // one, scan with the current schema instead, which may be newer (a converted table's index
    // columns were added without a new snapshot)
    private static TableScan snapshotScan(Table icebergTable, long snapshotId)
    {
        Snapshot current = icebergTable.currentSnapshot();
        TableScan scan = icebergTable.newScan();
        if (current == null || current.snapshotId() != snapshotId) {
            scan = scan.useSnapshot(snapshotId);
        }
        return scan;
    }
}

package io.qbeast.trino.metadata;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.airlift.json.JsonCodec;
import io.airlift.slice.Slice;
import io.qbeast.trino.catalog.IcebergCatalogProvider;
import io.qbeast.trino.catalog.IndexStateCache;
import io.qbeast.trino.config.QbeastConfig;
import io.qbeast.trino.encoding.TypeConverter;
import io.qbeast.trino.handle.QbeastColumnHandle;
import io.qbeast.trino.handle.QbeastMaintenanceHandle;
import io.qbeast.trino.handle.QbeastMergeTableHandle;
import io.qbeast.trino.handle.QbeastTableExecuteHandle;
import io.qbeast.trino.handle.QbeastTableHandle;
import io.qbeast.trino.handle.QbeastTableProcedureId;
import io.qbeast.trino.handle.QbeastWritableTableHandle;
import io.qbeast.trino.maintenance.TableMaintenance;
import io.qbeast.trino.optimize.OptimizeReport;
import io.qbeast.trino.optimize.QbeastOptimize;
import io.qbeast.trino.parquet.QbeastPageSourceFactory;
import io.qbeast.trino.read.RowPredicateTranslator;
import io.qbeast.trino.routing.InsertLayout;
import io.qbeast.trino.routing.QbeastPartitioningHandle;
import io.qbeast.trino.system.QbeastSystemTables;
import io.qbeast.trino.write.CommitTaskData;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.spi.NodeManager;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.BeginTableExecuteResult;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ConnectorAccessControl;
import io.trino.spi.connector.ConnectorInsertTableHandle;
import io.trino.spi.connector.ConnectorMergeTableHandle;
import io.trino.spi.connector.ConnectorMetadata;
import io.trino.spi.connector.ConnectorOutputMetadata;
import io.trino.spi.connector.ConnectorOutputTableHandle;
import io.trino.spi.connector.ConnectorPartitioningHandle;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableExecuteHandle;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTableLayout;
import io.trino.spi.connector.ConnectorTableMetadata;
import io.trino.spi.connector.ConnectorTableVersion;
import io.trino.spi.connector.Constraint;
import io.trino.spi.connector.ConstraintApplicationResult;
import io.trino.spi.connector.RelationColumnsMetadata;
import io.trino.spi.connector.RetryMode;
import io.trino.spi.connector.RowChangeParadigm;
import io.trino.spi.connector.SampleApplicationResult;
import io.trino.spi.connector.SampleType;
import io.trino.spi.connector.SaveMode;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.connector.SystemTable;
import io.trino.spi.connector.WriterScalingOptions;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.security.TrinoPrincipal;
import io.trino.spi.statistics.ComputedStatistics;
import io.trino.spi.statistics.TableStatistics;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeManager;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.UnaryOperator;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static java.util.Objects.requireNonNull;

/**
 * Metadata of one transaction, as the engine calls it; it delegates to the parts that own each
 * job: {@link TransactionCatalog} (schemas, tables, each table loaded once per transaction),
 * {@link TableColumns} (columns and table properties as Trino sees them), {@link TableWrites} (the
 * write protocol of CTAS, INSERT and optimize), {@link InsertLayout} (routing an INSERT by
 * region), {@link QbeastTableStatistics} and {@link QbeastSystemTables}; it keeps filter and
 * sample pushdown, which only narrow the table handle.
 */
public class QbeastMetadata
        implements ConnectorMetadata
{
    private final TrinoFileSystem fileSystem;
    private final IndexStateCache indexStateCache;
    private final NodeManager nodeManager;
    private final Executor metadataReads;
    private final TransactionCatalog catalog;
    private final TableColumns columns;
    private final TableWrites writes;
    private final TableDeletes deletes;
    private final QbeastConfig config;
    // tables whose ALTER TABLE EXECUTE optimize this transaction is planning, from
    // getTableHandleForExecute to beginTableExecute: applyFilter then checks the WHERE
    private final Set<SchemaTableName> optimizesPlanned = ConcurrentHashMap.newKeySet();
    // tables whose DELETE, UPDATE or MERGE this transaction is planning, from getUpdateLayout to beginMerge
    private final Set<SchemaTableName> mergesPlanned = ConcurrentHashMap.newKeySet();

    public QbeastMetadata(
            IcebergCatalogProvider catalogProvider,
            TypeManager typeManager,
            TrinoFileSystem fileSystem,
            JsonCodec<CommitTaskData> commitTaskCodec,
            QbeastConfig config,
            IndexStateCache indexStateCache,
            NodeManager nodeManager,
            Executor metadataReads)
    {
        this.fileSystem = requireNonNull(fileSystem, "fileSystem is null");
        this.indexStateCache = requireNonNull(indexStateCache, "indexStateCache is null");
        this.nodeManager = requireNonNull(nodeManager, "nodeManager is null");
        this.metadataReads = requireNonNull(metadataReads, "metadataReads is null");
        this.config = requireNonNull(config, "config is null");
        this.catalog = new TransactionCatalog(catalogProvider, fileSystem, config);
        this.columns = new TableColumns(typeManager);
        this.writes = new TableWrites(catalog, columns, fileSystem, commitTaskCodec, config.getDefaultCubeSize());
        this.deletes = new TableDeletes(catalog, fileSystem);
    }

    // ---- schemas ----

    @Override
    public boolean schemaExists(ConnectorSession session, String schemaName)
    {
        return catalog.schemaExists(schemaName);
    }

    @Override
    public List<String> listSchemaNames(ConnectorSession session)
    {
        return catalog.listSchemaNames();
    }

    @Override
    public void createSchema(ConnectorSession session, String schemaName, Map<String, Object> properties, TrinoPrincipal owner)
    {
        catalog.createSchema(schemaName);
    }

    @Override
    public void dropSchema(ConnectorSession session, String schemaName, boolean cascade)
    {
        catalog.dropSchema(schemaName, cascade);
    }

    // ---- tables ----

    @Override
    public List<SchemaTableName> listTables(ConnectorSession session, Optional<String> schemaName)
    {
        return catalog.listTables(schemaName);
    }

    @Override
    public ConnectorTableHandle getTableHandle(ConnectorSession session, SchemaTableName tableName, Optional<ConnectorTableVersion> startVersion, Optional<ConnectorTableVersion> endVersion)
    {
        if (startVersion.isPresent() || endVersion.isPresent()) {
            throw new TrinoException(NOT_SUPPORTED, "This connector does not support versioned tables");
        }
        Optional<Table> table = catalog.findTable(tableName);
        if (table.isEmpty()) {
            return null;
        }
        Optional<Long> snapshotId = Optional.ofNullable(table.get().currentSnapshot()).map(Snapshot::snapshotId);
        return new QbeastTableHandle(tableName.getSchemaName(), tableName.getTableName(), snapshotId, TupleDomain.all());
    }

    /** {@code "t$files"}, {@code "t$revisions"} and {@code "t$cubes"}: see {@link QbeastSystemTables}. */
    @Override
    public Optional<SystemTable> getSystemTable(ConnectorSession session, SchemaTableName tableName)
    {
        return QbeastSystemTables.baseTable(tableName)
                .flatMap(catalog::findTable)
                .flatMap(table -> QbeastSystemTables.create(table, tableName, fileSystem, metadataReads));
    }

    @Override
    public SchemaTableName getTableName(ConnectorSession session, ConnectorTableHandle table)
    {
        return ((QbeastTableHandle) table).schemaTableName();
    }

    @Override
    public ConnectorTableMetadata getTableMetadata(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        SchemaTableName name = ((QbeastTableHandle) tableHandle).schemaTableName();
        return columns.tableMetadata(name, catalog.getTable(name));
    }

    @Override
    public Map<String, ColumnHandle> getColumnHandles(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        return columns.handlesByName(catalog.getTable(((QbeastTableHandle) tableHandle).schemaTableName()));
    }

    @Override
    public ColumnMetadata getColumnMetadata(ConnectorSession session, ConnectorTableHandle tableHandle, ColumnHandle columnHandle)
    {
        SchemaTableName name = ((QbeastTableHandle) tableHandle).schemaTableName();
        return columns.columnMetadata(name, catalog.getTable(name), (QbeastColumnHandle) columnHandle);
    }

    @Override
    public Iterator<RelationColumnsMetadata> streamRelationColumns(ConnectorSession session, Optional<String> schemaName, UnaryOperator<Set<SchemaTableName>> relationFilter)
    {
        return columns.relationColumns(catalog, relationFilter.apply(new HashSet<>(catalog.listTables(schemaName))));
    }

    @Override
    public TableStatistics getTableStatistics(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        QbeastTableHandle handle = (QbeastTableHandle) tableHandle;
        Table table = catalog.getTable(handle.schemaTableName());
        return QbeastTableStatistics.of(handle.schemaTableName(), table, handle.snapshotId(), columns.handles(table));
    }

    @Override
    public Optional<Type> getSupportedType(ConnectorSession session, Map<String, Object> tableProperties, Type type)
    {
        return TypeConverter.toSupportedType(type);
    }

    @Override
    public void createTable(ConnectorSession session, ConnectorTableMetadata tableMetadata, SaveMode saveMode)
    {
        catalog.createTable(tableMetadata, saveMode);
    }

    @Override
    public void dropTable(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        catalog.dropTable(((QbeastTableHandle) tableHandle).schemaTableName());
    }

    // ---- CREATE TABLE AS and INSERT ----

    @Override
    public Optional<ConnectorTableLayout> getNewTableLayout(ConnectorSession session, ConnectorTableMetadata tableMetadata)
    {
        // no revision yet to route by: each writer clusters what it receives
        return Optional.empty();
    }

    @Override
    public WriterScalingOptions getNewTableWriterScalingOptions(ConnectorSession session, SchemaTableName tableName, Map<String, Object> tableProperties)
    {
        return WriterScalingOptions.ENABLED;
    }

    @Override
    public ConnectorOutputTableHandle beginCreateTable(ConnectorSession session, ConnectorTableMetadata tableMetadata, Optional<ConnectorTableLayout> layout, RetryMode retryMode, boolean replace)
    {
        if (replace) {
            throw new TrinoException(NOT_SUPPORTED, "This connector does not support replacing tables");
        }
        checkNoRetries(retryMode);
        return writes.beginCreateTable(session, tableMetadata);
    }

    @Override
    public Optional<ConnectorOutputMetadata> finishCreateTable(ConnectorSession session, ConnectorOutputTableHandle tableHandle, Collection<Slice> fragments, Collection<ComputedStatistics> computedStatistics)
    {
        writes.finishCreateTable(session, (QbeastWritableTableHandle) tableHandle, fragments);
        return Optional.empty();
    }

    @Override
    public Optional<ConnectorTableLayout> getInsertLayout(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        QbeastTableHandle handle = (QbeastTableHandle) tableHandle;
        if (mergesPlanned.contains(handle.schemaTableName())) {
            // a DELETE, UPDATE or MERGE: see getUpdateLayout
            return Optional.empty();
        }
        return InsertLayout.of(catalog.getTable(handle.schemaTableName()), handle.snapshotId(), indexStateCache, fileSystem, nodeManager.getWorkerNodes().size());
    }

    @Override
    public WriterScalingOptions getInsertWriterScalingOptions(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        return WriterScalingOptions.ENABLED;
    }

    @Override
    public ConnectorInsertTableHandle beginInsert(ConnectorSession session, ConnectorTableHandle tableHandle, List<ColumnHandle> insertColumns, RetryMode retryMode)
    {
        checkNoRetries(retryMode);
        return writes.beginInsert(session, (QbeastTableHandle) tableHandle, insertColumns.stream().map(QbeastColumnHandle.class::cast).collect(toImmutableList()));
    }

    @Override
    public Optional<ConnectorOutputMetadata> finishInsert(ConnectorSession session, ConnectorInsertTableHandle insertHandle, List<ConnectorTableHandle> sourceTableHandles, Collection<Slice> fragments, Collection<ComputedStatistics> computedStatistics)
    {
        writes.finishInsert(session, (QbeastWritableTableHandle) insertHandle, fragments);
        return Optional.empty();
    }

    // ---- DELETE, UPDATE, MERGE (merge-on-read: position delete files, new rows clustered as by an INSERT) ----

    /**
     * An updated row reaches the merge sink as one row with its new values and its row id, whose
     * weight the new version keeps (with {@code DELETE_ROW_AND_INSERT_ROW} the inserted half of an
     * update comes without a row id, so its weight would be lost).
     */
    @Override
    public RowChangeParadigm getRowChangeParadigm(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        return RowChangeParadigm.CHANGE_ONLY_UPDATED_COLUMNS;
    }

    @Override
    public ColumnHandle getMergeRowIdColumnHandle(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        return QbeastColumnHandle.mergeRowIdColumn();
    }

    /**
     * No layout: the engine asks for it (then for the insert layout) only when planning a
     * row-level change, which is remembered so that {@link #getInsertLayout} gives none either.
     * The region routing of an INSERT would send the rows of an update to writers by their
     * values, and a merge's partitioning needs both layouts; every merge writer clusters the new
     * rows it receives, as a CREATE TABLE AS writer does.
     */
    @Override
    public Optional<ConnectorPartitioningHandle> getUpdateLayout(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        mergesPlanned.add(((QbeastTableHandle) tableHandle).schemaTableName());
        return Optional.empty();
    }

    @Override
    public ConnectorMergeTableHandle beginMerge(ConnectorSession session, ConnectorTableHandle tableHandle, Map<Integer, Collection<ColumnHandle>> updateCaseColumns, RetryMode retryMode)
    {
        checkNoRetries(retryMode);
        QbeastTableHandle handle = (QbeastTableHandle) tableHandle;
        mergesPlanned.remove(handle.schemaTableName());
        // the engine scans with the returned handle's table: without an UPDATE case no row id needs a weight
        return writes.beginMerge(session, updateCaseColumns.isEmpty() ? handle.forDeletesOnly() : handle);
    }

    @Override
    public void finishMerge(ConnectorSession session, ConnectorMergeTableHandle mergeTableHandle, List<ConnectorTableHandle> sourceTableHandles, Collection<Slice> fragments, Collection<ComputedStatistics> computedStatistics)
    {
        writes.finishMerge(session, (QbeastMergeTableHandle) mergeTableHandle, fragments);
    }

    // ---- table procedures: optimize (ALTER TABLE ... EXECUTE optimize, CALL system.optimize) and maintenance ----

    @Override
    public Optional<ConnectorTableExecuteHandle> getTableHandleForExecute(ConnectorSession session, ConnectorAccessControl accessControl, ConnectorTableHandle tableHandle, String procedureName, Map<String, Object> executeProperties, RetryMode retryMode)
    {
        QbeastTableProcedureId procedure = QbeastTableProcedureId.fromName(procedureName);
        QbeastTableHandle handle = (QbeastTableHandle) tableHandle;
        // the engine checked only the right to run the procedure, which file rules grant on every
        // table; every table procedure rewrites or deletes the table's files, so it needs the right to write the table
        accessControl.checkCanInsertIntoTable(null, handle.schemaTableName());
        Table table = catalog.getTable(handle.schemaTableName());
        if (procedure != QbeastTableProcedureId.OPTIMIZE) {
            return Optional.of(TableMaintenance.executeHandle(procedure, handle.schemaTableName(), table, executeProperties, config));
        }
        checkNoRetries(retryMode);
        QbeastTableExecuteHandle executeHandle = QbeastOptimize.executeHandle(handle, table, executeProperties);
        optimizesPlanned.add(handle.schemaTableName());
        return Optional.of(executeHandle);
    }

    /**
     * The maintenance procedures ({@link TableMaintenance}), on the newest version of the table.
     * They report no metrics, so the statement's result is empty.
     */
    @Override
    public Map<String, Long> executeTableExecute(ConnectorSession session, ConnectorTableExecuteHandle tableExecuteHandle)
    {
        QbeastMaintenanceHandle handle = (QbeastMaintenanceHandle) tableExecuteHandle;
        TableMaintenance.execute(handle, catalog.loadLatest(handle.schemaTableName()), fileSystem, session.getStart());
        catalog.forget(handle.schemaTableName());
        return ImmutableMap.of();
    }

    @Override
    public Optional<ConnectorTableLayout> getLayoutForTableExecute(ConnectorSession session, ConnectorTableExecuteHandle tableExecuteHandle)
    {
        // one writer for all rewritten rows: they are indexed together, so each cube gets one block
        QbeastTableExecuteHandle handle = (QbeastTableExecuteHandle) tableExecuteHandle;
        String anyColumn = columns.visible(catalog.getTable(handle.schemaTableName())).getFirst().name();
        return Optional.of(new ConnectorTableLayout(QbeastPartitioningHandle.SINGLE_WRITER, ImmutableList.of(anyColumn), false));
    }

    @Override
    public BeginTableExecuteResult<ConnectorTableExecuteHandle, ConnectorTableHandle> beginTableExecute(ConnectorSession session, ConnectorTableExecuteHandle tableExecuteHandle, ConnectorTableHandle updatedSourceTableHandle)
    {
        QbeastTableExecuteHandle handle = (QbeastTableExecuteHandle) tableExecuteHandle;
        optimizesPlanned.remove(handle.schemaTableName());
        return writes.beginOptimize(session, handle, (QbeastTableHandle) updatedSourceTableHandle);
    }

    /** An optimize's commit; its report's counts are the statement's result ({@link OptimizeReport#metrics}). */
    @Override
    public Map<String, Long> finishTableExecute(ConnectorSession session, ConnectorTableExecuteHandle tableExecuteHandle, Collection<Slice> fragments, List<Object> splitsInfo)
    {
        List<String> scanned = splitsInfo.stream().map(String.class::cast).distinct().collect(toImmutableList());
        return finishOptimize(session, (QbeastTableExecuteHandle) tableExecuteHandle, scanned, fragments).metrics();
    }

    /** Commits an optimize ({@link TableWrites#finishOptimize}); also the last step of {@code CALL system.optimize}. */
    public OptimizeReport finishOptimize(ConnectorSession session, QbeastTableExecuteHandle handle, List<String> scanned, Collection<Slice> fragments)
    {
        return writes.finishOptimize(session, handle, scanned, fragments);
    }

    // ---- pushdown ----

    @Override
    public Optional<ConstraintApplicationResult<ConnectorTableHandle>> applyFilter(ConnectorSession session, ConnectorTableHandle tableHandle, Constraint constraint)
    {
        QbeastTableHandle table = (QbeastTableHandle) tableHandle;
        if (optimizesPlanned.contains(table.schemaTableName())) {
            // what the engine would filter on top could not be left there: the optimize rewrites whole files
            QbeastOptimize.checkWhere(table.schemaTableName(), constraint);
        }
        TupleDomain<QbeastColumnHandle> summary = constraint.getSummary().transformKeys(QbeastColumnHandle.class::cast);
        TupleDomain<QbeastColumnHandle> predicate = table.predicate().intersect(summary);
        // files and row groups are pruned with the whole predicate; the page source filters rows by
        // the domains of non-nested columns (enforced, so the engine drops them: a Filter left between
        // a TABLESAMPLE and the scan would keep the sample from being pushed down); the rest stays
        TupleDomain<ColumnHandle> remaining = constraint.getSummary()
                .filter((column, _) -> !QbeastPageSourceFactory.isEnforceable(((QbeastColumnHandle) column).type()));
        // the common expression shapes the page source evaluates too, after the domains (for the
        // same reason); the optimize's scan above refused them already
        RowPredicateTranslator.Translation expression = RowPredicateTranslator.translate(constraint.getExpression(), constraint.getAssignments(), !remaining.isAll());
        if (predicate.equals(table.predicate()) && expression.taken().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new ConstraintApplicationResult<>(table.withPredicate(predicate, expression.taken()), remaining, expression.remaining(), false));
    }

    /**
     * {@code TABLESAMPLE SYSTEM (p)}: the scan reads exactly the rows with
     * {@code _qbeast_weight < Weight.upperBound(p / 100)} (a deterministic sample of the snapshot).
     * A second sample on the same scan is refused (the engine then samples splits on top), so a
     * handle's rows are always exactly one weight prefix.
     */
    @Override
    public Optional<SampleApplicationResult<ConnectorTableHandle>> applySample(ConnectorSession session, ConnectorTableHandle tableHandle, SampleType sampleType, double sampleRatio)
    {
        QbeastTableHandle table = (QbeastTableHandle) tableHandle;
        if (sampleType != SampleType.SYSTEM || table.isSampled() || !(sampleRatio >= 0 && sampleRatio < 1)) {
            return Optional.empty();
        }
        return Optional.of(new SampleApplicationResult<>(table.withSampleFraction(sampleRatio), true));
    }

    // ---- TRUNCATE, and DELETE of whole files ----

    /** Removes every file in one commit and resets the revision list: see {@link TableDeletes#truncate}. */
    @Override
    public void truncateTable(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        deletes.truncate(session, (QbeastTableHandle) tableHandle);
    }

    /**
     * A DELETE whose filter the scan took over whole (so the engine offers it here) and which
     * removes whole data files only ({@link TableDeletes#isWholeFileDelete}); otherwise empty, and
     * the engine plans the row-level path.
     */
    @Override
    public Optional<ConnectorTableHandle> applyDelete(ConnectorSession session, ConnectorTableHandle handle)
    {
        QbeastTableHandle table = (QbeastTableHandle) handle;
        return deletes.isWholeFileDelete(table) ? Optional.of(table) : Optional.empty();
    }

    @Override
    public OptionalLong executeDelete(ConnectorSession session, ConnectorTableHandle handle)
    {
        return OptionalLong.of(deletes.execute(session, (QbeastTableHandle) handle));
    }

    // ---- transaction ----

    /** Removes the files of a write begun in this transaction and not committed. */
    public void rollback()
    {
        writes.rollback();
    }

    /** The files this transaction's optimize chose to rewrite; empty if it began none. */
    public Optional<List<FileScanTask>> optimizeFiles()
    {
        return writes.optimizeFiles();
    }

    /** The Iceberg table as this transaction sees it. */
    public Table getIcebergTable(SchemaTableName name)
    {
        return catalog.getTable(name);
    }

    private static void checkNoRetries(RetryMode retryMode)
    {
        if (retryMode != RetryMode.NO_RETRIES) {
            throw new TrinoException(NOT_SUPPORTED, "This connector does not support query retries");
        }
    }
}

package io.qbeast.trino.metadata;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import com.google.common.primitives.Longs;
import io.airlift.json.JsonCodec;
import io.airlift.log.Logger;
import io.airlift.slice.Slice;
import io.qbeast.iceberg.IcebergCatalogs.IcebergCatalog;
import io.qbeast.iceberg.IcebergCommits;
import io.qbeast.iceberg.OptimizeSelection;
import io.qbeast.iceberg.QbeastTableMetadata;
import io.qbeast.iceberg.QbeastTableProperties;
import io.qbeast.index.IndexState;
import io.qbeast.index.IndexedColumn;
import io.qbeast.index.RegionCuts;
import io.qbeast.index.Revision;
import io.qbeast.index.Weight;
import io.qbeast.trino.catalog.IcebergCatalogProvider;
import io.qbeast.trino.catalog.IndexStateCache;
import io.qbeast.trino.catalog.QbeastTableMetadataReader;
import io.qbeast.trino.config.QbeastConfig;
import io.qbeast.trino.encoding.TypeConverter;
import io.qbeast.trino.error.CommitFailures.Write;
import io.qbeast.trino.error.CommitFailures;
import io.qbeast.trino.handle.QbeastColumnHandle;
import io.qbeast.trino.handle.QbeastTableExecuteHandle;
import io.qbeast.trino.handle.QbeastTableHandle;
import io.qbeast.trino.handle.QbeastWritableTableHandle;
import io.qbeast.trino.optimize.OptimizeReport;
import io.qbeast.trino.optimize.QbeastOptimize;
import io.qbeast.trino.parquet.QbeastPageSourceFactory;
import io.qbeast.trino.routing.QbeastPartitioningHandle;
import io.qbeast.trino.routing.QbeastRegionPartitioningHandle;
import io.qbeast.trino.system.QbeastSystemTables;
import io.qbeast.trino.write.CommitTaskData;
import io.trino.filesystem.FileEntry;
import io.trino.filesystem.FileIterator;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.spi.NodeManager;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.BeginTableExecuteResult;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ConnectorAccessControl;
import io.trino.spi.connector.ConnectorInsertTableHandle;
import io.trino.spi.connector.ConnectorMetadata;
import io.trino.spi.connector.ConnectorOutputMetadata;
import io.trino.spi.connector.ConnectorOutputTableHandle;
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
import io.trino.spi.connector.SampleApplicationResult;
import io.trino.spi.connector.SampleType;
import io.trino.spi.connector.SaveMode;
import io.trino.spi.connector.SchemaNotFoundException;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.connector.SystemTable;
import io.trino.spi.connector.TableNotFoundException;
import io.trino.spi.connector.WriterScalingOptions;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.security.TrinoPrincipal;
import io.trino.spi.statistics.ComputedStatistics;
import io.trino.spi.statistics.Estimate;
import io.trino.spi.statistics.TableStatistics;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeManager;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.qbeast.iceberg.QbeastTableProperties.CUBE_COLUMN;
import static io.qbeast.iceberg.QbeastTableProperties.WEIGHT_COLUMN;
import static io.qbeast.trino.config.QbeastTablePropertyMetadata.CUBE_SIZE;
import static io.qbeast.trino.config.QbeastTablePropertyMetadata.INDEXED_COLUMNS;
import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_COMMIT_ERROR;
import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_INTERNAL_ERROR;
import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_INVALID_METADATA;
import static io.trino.spi.StandardErrorCode.ALREADY_EXISTS;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.StandardErrorCode.SCHEMA_NOT_EMPTY;
import static io.trino.spi.StandardErrorCode.SCHEMA_NOT_FOUND;
import static java.util.Objects.requireNonNull;

/**
 * Metadata of one transaction: schemas and tables in the Iceberg catalog, the write protocol
 * (begin/finish of CREATE TABLE AS and INSERT, committing one Iceberg append per statement) and
 * filter pushdown.
 */
public class QbeastMetadata
        implements ConnectorMetadata
{
    private static final Logger log = Logger.get(QbeastMetadata.class);
    /** Write regions per worker node: a node's writers share a contiguous part of the space. */
    private static final int REGIONS_PER_NODE = 4;
    // a schema name becomes a directory name in the warehouse: keep it within the 255-byte file
    // name limit of common file systems (NewTable limits table names likewise)
    private static final int MAX_SCHEMA_NAME_LENGTH = 255;

    private final IcebergCatalogProvider catalogProvider;
    private final TypeManager typeManager;
    private final TrinoFileSystem fileSystem;
    private final JsonCodec<CommitTaskData> commitTaskCodec;
    private final QbeastConfig config;
    private final IndexStateCache indexStateCache;
    private final NodeManager nodeManager;

    // tables loaded by this transaction: every statement of it sees one version of a table
    private final Map<SchemaTableName, Table> tables = new ConcurrentHashMap<>();
    // a write begun and not finished: what rollback() must remove
    private volatile PendingWrite pendingWrite;

    public QbeastMetadata(
            IcebergCatalogProvider catalogProvider,
            TypeManager typeManager,
            TrinoFileSystem fileSystem,
            JsonCodec<CommitTaskData> commitTaskCodec,
            QbeastConfig config,
            IndexStateCache indexStateCache,
            NodeManager nodeManager)
    {
        this.indexStateCache = requireNonNull(indexStateCache, "indexStateCache is null");
        this.nodeManager = requireNonNull(nodeManager, "nodeManager is null");
        this.catalogProvider = requireNonNull(catalogProvider, "catalogProvider is null");
        this.typeManager = requireNonNull(typeManager, "typeManager is null");
        this.fileSystem = requireNonNull(fileSystem, "fileSystem is null");
        this.commitTaskCodec = requireNonNull(commitTaskCodec, "commitTaskCodec is null");
        this.config = requireNonNull(config, "config is null");
    }

    private IcebergCatalog catalog()
    {
        return catalogProvider.get();
    }

    // ---- schemas ----

    @Override
    public boolean schemaExists(ConnectorSession session, String schemaName)
    {
        if (schemaName.length() > MAX_SCHEMA_NAME_LENGTH) {
            return false;
        }
        return catalog().namespaces().namespaceExists(Namespace.of(schemaName));
    }

    @Override
    public List<String> listSchemaNames(ConnectorSession session)
    {
        return catalog().namespaces().listNamespaces(Namespace.empty()).stream()
                .filter(namespace -> namespace.length() == 1)
                .map(namespace -> namespace.level(0))
                .filter(name -> !name.equals("information_schema"))
                .collect(toImmutableList());
    }

    @Override
    public void createSchema(ConnectorSession session, String schemaName, Map<String, Object> properties, TrinoPrincipal owner)
    {
        if (schemaName.length() > MAX_SCHEMA_NAME_LENGTH) {
            throw new TrinoException(NOT_SUPPORTED, "Schema name must be shorter than or equal to '%s' characters but got '%s'".formatted(MAX_SCHEMA_NAME_LENGTH, schemaName.length()));
        }
        try {
            catalog().namespaces().createNamespace(Namespace.of(schemaName), ImmutableMap.of());
        }
        catch (AlreadyExistsException e) {
            throw new TrinoException(ALREADY_EXISTS, "Schema already exists: '%s'".formatted(schemaName), e);
        }
    }

    @Override
    public void dropSchema(ConnectorSession session, String schemaName, boolean cascade)
    {
        Namespace namespace = Namespace.of(schemaName);
        if (cascade) {
            for (SchemaTableName table : listTables(session, Optional.of(schemaName))) {
                dropTable(table);
            }
        }
        try {
            if (!catalog().namespaces().dropNamespace(namespace)) {
                throw new TrinoException(SCHEMA_NOT_FOUND, "Schema not found: '%s'".formatted(schemaName));
            }
        }
        catch (NamespaceNotEmptyException e) {
            throw new TrinoException(SCHEMA_NOT_EMPTY, "Cannot drop non-empty schema '%s'".formatted(schemaName), e);
        }
    }

    // ---- tables ----

    @Override
    public List<SchemaTableName> listTables(ConnectorSession session, Optional<String> schemaName)
    {
        List<String> schemas = schemaName.map(List::of).orElseGet(() -> listSchemaNames(session));
        ImmutableList.Builder<SchemaTableName> tableNames = ImmutableList.builder();
        for (String schema : schemas) {
            try {
                for (TableIdentifier table : catalog().catalog().listTables(Namespace.of(schema))) {
                    tableNames.add(new SchemaTableName(schema, table.name()));
                }
            }
            catch (NoSuchNamespaceException _) {
                // dropped concurrently, or never existed
            }
        }
        return tableNames.build();
    }

    @Override
    public ConnectorTableHandle getTableHandle(ConnectorSession session, SchemaTableName tableName, Optional<ConnectorTableVersion> startVersion, Optional<ConnectorTableVersion> endVersion)
    {
        if (startVersion.isPresent() || endVersion.isPresent()) {
            throw new TrinoException(NOT_SUPPORTED, "This connector does not support versioned tables");
        }
        Optional<Table> table = findTable(tableName);
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
        String name = tableName.getTableName();
        int marker = name.lastIndexOf('$');
        if (marker <= 0) {
            return Optional.empty();
        }
        Optional<Table> table = findTable(new SchemaTableName(tableName.getSchemaName(), name.substring(0, marker)));
        if (table.isEmpty()) {
            return Optional.empty();
        }
        return QbeastSystemTables.create(table.get(), tableName, name.substring(marker + 1), fileSystem);
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
        return tableMetadata(name, getIcebergTable(name));
    }

    private ConnectorTableMetadata tableMetadata(SchemaTableName name, Table table)
    {
        List<ColumnMetadata> columns = table.schema().columns().stream()
                .map(field -> {
                    QbeastColumnHandle column = columnHandle(field);
                    return ColumnMetadata.builder()
                            .setName(column.name())
                            .setType(column.type())
                            .setHidden(column.hidden())
                            .setNullable(field.isOptional())
                            .setComment(Optional.ofNullable(field.doc()))
                            .build();
                })
                .collect(toImmutableList());
        ImmutableMap.Builder<String, Object> properties = ImmutableMap.builder();
        Map<String, String> icebergProperties = table.properties();
        QbeastTableMetadataReader.read(name, table).ifPresent(qbeast -> {
            properties.put(INDEXED_COLUMNS, qbeast.indexedColumns());
            qbeast.cubeSize().ifPresent(cubeSize -> properties.put(CUBE_SIZE, cubeSize));
        });
        return new ConnectorTableMetadata(name, columns, properties.buildOrThrow(), Optional.ofNullable(icebergProperties.get(NewTable.COMMENT_PROPERTY)));
    }

    @Override
    public Map<String, ColumnHandle> getColumnHandles(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        Table table = getIcebergTable(((QbeastTableHandle) tableHandle).schemaTableName());
        ImmutableMap.Builder<String, ColumnHandle> columns = ImmutableMap.builder();
        for (QbeastColumnHandle column : columnHandles(table)) {
            columns.put(column.name(), column);
        }
        return columns.buildOrThrow();
    }

    @Override
    public ColumnMetadata getColumnMetadata(ConnectorSession session, ConnectorTableHandle tableHandle, ColumnHandle columnHandle)
    {
        // from the table metadata, which carries nullability and comments that the handle does not
        QbeastColumnHandle column = (QbeastColumnHandle) columnHandle;
        SchemaTableName name = ((QbeastTableHandle) tableHandle).schemaTableName();
        return tableMetadata(name, getIcebergTable(name)).getColumns().stream()
                .filter(metadata -> metadata.getName().equals(column.name()))
                .findFirst()
                .orElseGet(column::toColumnMetadata);
    }

    @Override
    public Iterator<RelationColumnsMetadata> streamRelationColumns(ConnectorSession session, Optional<String> schemaName, UnaryOperator<Set<SchemaTableName>> relationFilter)
    {
        Map<SchemaTableName, RelationColumnsMetadata> relations = new LinkedHashMap<>();
        for (SchemaTableName name : relationFilter.apply(new HashSet<>(listTables(session, schemaName)))) {
            try {
                findTable(name).ifPresent(table -> relations.put(name, RelationColumnsMetadata.forTable(name, tableMetadata(name, table).getColumns())));
            }
            catch (TrinoException e) {
                // a table of another engine with types this connector cannot read: leave it out of the listing
                log.debug(e, "Skipping columns of %s", name);
            }
        }
        return relations.values().iterator();
    }

    @Override
    public TableStatistics getTableStatistics(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        QbeastTableHandle handle = (QbeastTableHandle) tableHandle;
        if (handle.snapshotId().isEmpty()) {
            return TableStatistics.builder().setRowCount(Estimate.zero()).build();
        }
        Table table = getIcebergTable(handle.schemaTableName());
        try {
            return QbeastTableStatistics.get(table, handle.snapshotId().get(), columnHandles(table));
        }
        catch (RuntimeException e) {
            log.warn(e, "Cannot compute statistics of %s from its manifests", handle.schemaTableName());
        }
        Snapshot snapshot = table.snapshot(handle.snapshotId().get());
        String totalRecords = snapshot == null ? null : snapshot.summary().get("total-records");
        if (totalRecords == null) {
            return TableStatistics.empty();
        }
        return TableStatistics.builder().setRowCount(Estimate.of(Long.parseLong(totalRecords))).build();
    }

    @Override
    public Optional<Type> getSupportedType(ConnectorSession session, Map<String, Object> tableProperties, Type type)
    {
        return TypeConverter.toSupportedType(type);
    }

    @Override
    public void createTable(ConnectorSession session, ConnectorTableMetadata tableMetadata, SaveMode saveMode)
    {
        if (saveMode == SaveMode.REPLACE) {
            throw new TrinoException(NOT_SUPPORTED, "This connector does not support replacing tables");
        }
        NewTable newTable = NewTable.define(tableMetadata, catalog(), config);
        try {
            catalog().catalog().buildTable(newTable.identifier(), newTable.schema())
                    .withLocation(newTable.location().orElse(null))
                    .withProperties(newTable.properties())
                    .create();
        }
        catch (AlreadyExistsException e) {
            if (saveMode == SaveMode.IGNORE) {
                return;
            }
            throw new TrinoException(ALREADY_EXISTS, "Table already exists: " + tableMetadata.getTable(), e);
        }
        catch (NoSuchNamespaceException e) {
            throw new SchemaNotFoundException(tableMetadata.getTable().getSchemaName(), e);
        }
    }

    @Override
    public Optional<ConnectorTableLayout> getNewTableLayout(ConnectorSession session, ConnectorTableMetadata tableMetadata)
    {
        // rows may go to any writer: each writer clusters what it receives
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
        NewTable newTable = NewTable.define(tableMetadata, catalog(), config);
        Transaction transaction;
        try {
            transaction = catalog().catalog().buildTable(newTable.identifier(), newTable.schema())
                    .withLocation(newTable.location().orElse(null))
                    .withProperties(newTable.properties())
                    .createTransaction();
        }
        catch (AlreadyExistsException e) {
            throw new TrinoException(ALREADY_EXISTS, "Table already exists: " + tableMetadata.getTable(), e);
        }
        catch (NoSuchNamespaceException e) {
            throw new SchemaNotFoundException(tableMetadata.getTable().getSchemaName(), e);
        }
        Table table = transaction.table();
        // a new table's location is this write's alone (unless a REST server chose it): remove it all on failure
        Optional<Location> ownedLocation = newTable.location().map(Location::of);
        String dataLocation = dataLocation(table);
        beginWrite(new PendingWrite(session.getQueryId(), Location.of(dataLocation), ownedLocation, Optional.of(transaction)));

        List<QbeastColumnHandle> inputColumns = tableMetadata.getColumns().stream()
                .map(column -> columnHandle(table.schema().findField(column.getName())))
                .collect(toImmutableList());
        return writableHandle(tableMetadata.getTable(), table, inputColumns, Optional.empty(), ownedLocation);
    }

    @Override
    public Optional<ConnectorOutputMetadata> finishCreateTable(ConnectorSession session, ConnectorOutputTableHandle tableHandle, Collection<Slice> fragments, Collection<ComputedStatistics> computedStatistics)
    {
        QbeastWritableTableHandle handle = (QbeastWritableTableHandle) tableHandle;
        PendingWrite write = requirePendingWrite();
        Transaction transaction = write.createTransaction().orElseThrow();
        WrittenFiles written = WrittenFiles.decode(commitTaskCodec, fragments);
        commit(Write.CREATE, handle.schemaTableName(), OptionalLong.empty(),
                () -> IcebergCommits.commitCreate(transaction, written.dataFiles(), written.newRevisions(), snapshotSummary(session)));
        return Optional.empty();
    }

    @Override
    public Optional<ConnectorTableLayout> getInsertLayout(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        // with a revision, rows go to writers by region, cut from the index state so that the
        // writers' shares are even; without one (a table never written) each writer clusters
        // what it receives, as in CTAS
        QbeastTableHandle handle = (QbeastTableHandle) tableHandle;
        Table table = getIcebergTable(handle.schemaTableName());
        Optional<Revision> current;
        try {
            current = QbeastTableMetadata.of(table.properties()).flatMap(QbeastTableMetadata::currentRevision);
        }
        catch (IllegalArgumentException e) {
            // beginInsert reports the invalid properties
            return Optional.empty();
        }
        if (current.isEmpty()) {
            return Optional.empty();
        }
        Revision revision = current.get();
        String metadataLocation = ((HasTableOperations) table).operations().current().metadataFileLocation();
        IndexState state = handle.snapshotId()
                .map(snapshotId -> indexStateCache.get(fileSystem, metadataLocation, snapshotId).state(revision))
                .orElseGet(() -> IndexState.empty(revision));
        int regions = Math.max(1, nodeManager.getWorkerNodes().size()) * REGIONS_PER_NODE;
        RegionCuts cuts = RegionCuts.plan(state, regions);
        List<String> indexedColumns = revision.columns().stream().map(IndexedColumn::name).toList();
        // a region is never split between writers: its subtree is one writer's
        return Optional.of(new ConnectorTableLayout(new QbeastRegionPartitioningHandle(revision.toJson(), Longs.asList(cuts.cuts())), indexedColumns, false));
    }

    @Override
    public WriterScalingOptions getInsertWriterScalingOptions(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        return WriterScalingOptions.ENABLED;
    }

    @Override
    public ConnectorInsertTableHandle beginInsert(ConnectorSession session, ConnectorTableHandle tableHandle, List<ColumnHandle> columns, RetryMode retryMode)
    {
        checkNoRetries(retryMode);
        QbeastTableHandle handle = (QbeastTableHandle) tableHandle;
        Table table = getIcebergTable(handle.schemaTableName());
        if (QbeastTableMetadataReader.read(handle.schemaTableName(), table).isEmpty()) {
            throw new TrinoException(NOT_SUPPORTED, "Table %s is not a qbeast table (it has no %s property); only qbeast tables accept inserts".formatted(handle.schemaTableName(), QbeastTableProperties.INDEXED_COLUMNS));
        }
        beginWrite(new PendingWrite(session.getQueryId(), Location.of(dataLocation(table)), Optional.empty(), Optional.empty()));
        return writableHandle(handle.schemaTableName(), table, columns.stream().map(QbeastColumnHandle.class::cast).collect(toImmutableList()), handle.snapshotId(), Optional.empty());
    }

    @Override
    public Optional<ConnectorOutputMetadata> finishInsert(ConnectorSession session, ConnectorInsertTableHandle insertHandle, List<ConnectorTableHandle> sourceTableHandles, Collection<Slice> fragments, Collection<ComputedStatistics> computedStatistics)
    {
        QbeastWritableTableHandle handle = (QbeastWritableTableHandle) insertHandle;
        requirePendingWrite();
        WrittenFiles written = WrittenFiles.decode(commitTaskCodec, fragments);
        if (written.isEmpty()) {
            pendingWrite = null;
            return Optional.empty();
        }
        // a fresh copy of the table: the commit starts from the newest metadata
        Table table;
        try {
            table = catalog().catalog().loadTable(identifier(handle.schemaTableName()));
        }
        catch (NoSuchTableException e) {
            throw new TableNotFoundException(handle.schemaTableName(), e);
        }
        Table target = table;
        commit(Write.INSERT, handle.schemaTableName(), OptionalLong.empty(),
                () -> IcebergCommits.append(target, written.dataFiles(), written.newRevisions(), snapshotSummary(session)));
        return Optional.empty();
    }

    @Override
    public void dropTable(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        dropTable(((QbeastTableHandle) tableHandle).schemaTableName());
    }

    private void dropTable(SchemaTableName name)
    {
        Table table = getIcebergTable(name);
        String location = table.location();
        if (!catalog().catalog().dropTable(identifier(name), true)) {
            throw new TableNotFoundException(name);
        }
        tables.remove(name);
        if (!catalog().managesLocations()) {
            // this connector gave the table a location of its own: remove what the purge did not (orphans)
            try {
                fileSystem.deleteDirectory(Location.of(location));
            }
            catch (IOException | RuntimeException e) {
                log.warn(e, "Dropped table %s, but failed to delete its directory %s", name, location);
            }
        }
    }

    // ---- optimize (ALTER TABLE ... EXECUTE optimize, CALL system.optimize) ----

    @Override
    public Optional<ConnectorTableExecuteHandle> getTableHandleForExecute(ConnectorSession session, ConnectorAccessControl accessControl, ConnectorTableHandle tableHandle, String procedureName, Map<String, Object> executeProperties, RetryMode retryMode)
    {
        if (!procedureName.equals(QbeastOptimize.PROCEDURE_NAME)) {
            throw new TrinoException(NOT_SUPPORTED, "Unknown table procedure: " + procedureName);
        }
        checkNoRetries(retryMode);
        QbeastTableHandle handle = (QbeastTableHandle) tableHandle;
        Table table = getIcebergTable(handle.schemaTableName());
        QbeastTableMetadata qbeast = QbeastTableMetadataReader.read(handle.schemaTableName(), table)
                .orElseThrow(() -> new TrinoException(NOT_SUPPORTED, "Table %s is not a qbeast table (it has no %s property); only qbeast tables can be optimized".formatted(handle.schemaTableName(), QbeastTableProperties.INDEXED_COLUMNS)));
        OptimizeSelection.Mode mode = QbeastOptimize.parseMode((String) executeProperties.get(QbeastOptimize.MODE));
        Optional<Long> revision = Optional.ofNullable((Long) executeProperties.get(QbeastOptimize.REVISION));
        QbeastOptimize.validateRevision(mode, revision, qbeast.revisionIds());
        return Optional.of(new QbeastTableExecuteHandle(handle.schemaName(), handle.tableName(), mode, revision, handle.snapshotId(), ImmutableList.of(), Optional.empty()));
    }

    @Override
    public Optional<ConnectorTableLayout> getLayoutForTableExecute(ConnectorSession session, ConnectorTableExecuteHandle tableExecuteHandle)
    {
        // one writer for all rewritten rows: they are indexed together, so each cube gets one block
        QbeastTableExecuteHandle handle = (QbeastTableExecuteHandle) tableExecuteHandle;
        String anyColumn = visibleColumns(getIcebergTable(handle.schemaTableName())).getFirst().name();
        return Optional.of(new ConnectorTableLayout(QbeastPartitioningHandle.SINGLE_WRITER, ImmutableList.of(anyColumn), false));
    }

    @Override
    public BeginTableExecuteResult<ConnectorTableExecuteHandle, ConnectorTableHandle> beginTableExecute(ConnectorSession session, ConnectorTableExecuteHandle tableExecuteHandle, ConnectorTableHandle updatedSourceTableHandle)
    {
        QbeastTableExecuteHandle handle = (QbeastTableExecuteHandle) tableExecuteHandle;
        QbeastTableHandle source = (QbeastTableHandle) updatedSourceTableHandle;
        if (source.isSampled()) {
            throw new TrinoException(NOT_SUPPORTED, "Optimize does not accept a sample");
        }
        Table table = getIcebergTable(handle.schemaTableName());
        List<String> files = QbeastOptimize.selectFiles(table, handle, source, QbeastTableMetadataReader.read(handle.schemaTableName(), table)).stream()
                .map(DataFile::location)
                .collect(toImmutableList());
        beginWrite(new PendingWrite(session.getQueryId(), Location.of(dataLocation(table)), Optional.empty(), Optional.empty()));
        QbeastWritableTableHandle write = writableHandle(handle.schemaTableName(), table, visibleColumns(table), source.snapshotId(), Optional.empty());
        return new BeginTableExecuteResult<>(handle.withWrite(source.snapshotId(), files, write), source.forOptimize(files));
    }

    @Override
    public void finishTableExecute(ConnectorSession session, ConnectorTableExecuteHandle tableExecuteHandle, Collection<Slice> fragments, List<Object> splitsInfo)
    {
        List<String> scanned = splitsInfo.stream().map(String.class::cast).distinct().collect(toImmutableList());
        finishOptimize(session, (QbeastTableExecuteHandle) tableExecuteHandle, scanned, fragments);
    }

    /**
     * Commits an optimize: one Iceberg {@code RewriteFiles} replacing the {@code scanned} files with
     * the files in {@code fragments}, validated from the start snapshot; nothing when nothing was
     * scanned. The report is logged and stored in the snapshot summary ({@code qbeast.optimize.*}).
     */
    public OptimizeReport finishOptimize(ConnectorSession session, QbeastTableExecuteHandle handle, List<String> scanned, Collection<Slice> fragments)
    {
        requirePendingWrite();
        WrittenFiles written = WrittenFiles.decode(commitTaskCodec, fragments);
        if (scanned.isEmpty()) {
            if (!written.isEmpty()) {
                throw new TrinoException(QBEAST_INTERNAL_ERROR, "Optimize of %s wrote %s files without reading any".formatted(handle.schemaTableName(), written.tasks().size()));
            }
            pendingWrite = null;
            log.info("Optimize of %s (query %s): nothing to rewrite", handle.schemaTableName(), session.getQueryId());
            return OptimizeReport.NOTHING;
        }
        Set<String> expected = ImmutableSet.copyOf(handle.files());
        if (!expected.containsAll(scanned)) {
            throw new TrinoException(QBEAST_INTERNAL_ERROR, "Optimize of %s read files it did not select".formatted(handle.schemaTableName()));
        }
        long startSnapshotId = handle.startSnapshotId().orElseThrow();
        Table table;
        try {
            table = catalog().catalog().loadTable(identifier(handle.schemaTableName()));
        }
        catch (NoSuchTableException e) {
            throw new TableNotFoundException(handle.schemaTableName(), e);
        }
        Snapshot start = table.snapshot(startSnapshotId);
        if (start == null) {
            throw new TrinoException(QBEAST_COMMIT_ERROR, "Optimize of %s: its start snapshot %s was expired meanwhile; nothing was changed".formatted(handle.schemaTableName(), startSnapshotId));
        }
        Set<String> scannedSet = ImmutableSet.copyOf(scanned);
        List<DataFile> deleted = new ArrayList<>();
        try (CloseableIterable<FileScanTask> files = table.newScan().useSnapshot(startSnapshotId).planFiles()) {
            for (FileScanTask task : files) {
                if (scannedSet.contains(task.file().location())) {
                    deleted.add(task.file());
                }
            }
        }
        catch (IOException e) {
            throw new TrinoException(QBEAST_COMMIT_ERROR, "Optimize of %s: failed to read snapshot %s: %s".formatted(handle.schemaTableName(), startSnapshotId, e.getMessage()), e);
        }
        if (deleted.size() != scannedSet.size()) {
            throw new TrinoException(QBEAST_INTERNAL_ERROR, "Optimize of %s read %s files, of which %s are in snapshot %s".formatted(handle.schemaTableName(), scannedSet.size(), deleted.size(), startSnapshotId));
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
        Table target = table;
        commit(Write.OPTIMIZE, handle.schemaTableName(), OptionalLong.of(startSnapshotId),
                () -> IcebergCommits.rewrite(target, startSnapshotId, deleted, added, written.newRevisions(), summary));
        log.info("Optimize of %s (query %s): %s", handle.schemaTableName(), session.getQueryId(), report);
        return report;
    }

    /**
     * Commits a write; on success or an unknown outcome its files are no longer this write's to
     * remove (they are, or may be, referenced by the table), on any other failure they are removed
     * when the query is cleaned up. Failures are mapped by {@link CommitFailures}.
     */
    private void commit(Write write, SchemaTableName table, OptionalLong startSnapshotId, Runnable commit)
    {
        try {
            commit.run();
        }
        catch (RuntimeException e) {
            if (CommitFailures.outcomeUnknown(e)) {
                pendingWrite = null;
            }
            throw CommitFailures.toTrinoException(write, table, startSnapshotId, e);
        }
        pendingWrite = null;
        tables.remove(table);
    }

    private List<QbeastColumnHandle> visibleColumns(Table table)
    {
        return columnHandles(table).stream()
                .filter(column -> !column.hidden())
                .collect(toImmutableList());
    }

    // ---- pushdown ----

    @Override
    public Optional<ConstraintApplicationResult<ConnectorTableHandle>> applyFilter(ConnectorSession session, ConnectorTableHandle tableHandle, Constraint constraint)
    {
        QbeastTableHandle table = (QbeastTableHandle) tableHandle;
        TupleDomain<QbeastColumnHandle> summary = constraint.getSummary().transformKeys(QbeastColumnHandle.class::cast);
        TupleDomain<QbeastColumnHandle> predicate = table.predicate().intersect(summary);
        if (predicate.equals(table.predicate())) {
            return Optional.empty();
        }
        // files and row groups are pruned with the whole predicate; the page source filters rows by
        // the domains of non-nested columns (enforced, so the engine drops them: a Filter left between
        // a TABLESAMPLE and the scan would keep the sample from being pushed down); the rest stays
        TupleDomain<ColumnHandle> remaining = constraint.getSummary()
                .filter((column, _) -> !QbeastPageSourceFactory.isEnforceable(((QbeastColumnHandle) column).type()));
        return Optional.of(new ConstraintApplicationResult<>(table.withPredicate(predicate), remaining, constraint.getExpression(), false));
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

    // ---- transaction ----

    public void rollback()
    {
        PendingWrite write = pendingWrite;
        pendingWrite = null;
        if (write != null) {
            write.cleanUp(fileSystem);
        }
    }

    // ---- helpers ----

    /** The Iceberg table as this transaction sees it. */
    public Table getIcebergTable(SchemaTableName name)
    {
        return findTable(name).orElseThrow(() -> new TableNotFoundException(name));
    }

    private Optional<Table> findTable(SchemaTableName name)
    {
        Table table = tables.get(name);
        if (table != null) {
            return Optional.of(table);
        }
        try {
            table = catalog().catalog().loadTable(identifier(name));
        }
        catch (NoSuchTableException | NoSuchNamespaceException _) {
            return Optional.empty();
        }
        Table existing = tables.putIfAbsent(name, table);
        return Optional.of(existing == null ? table : existing);
    }

    private List<QbeastColumnHandle> columnHandles(Table table)
    {
        return table.schema().columns().stream()
                .map(this::columnHandle)
                .collect(toImmutableList());
    }

    private QbeastColumnHandle columnHandle(Types.NestedField field)
    {
        boolean hidden = field.name().equals(WEIGHT_COLUMN) || field.name().equals(CUBE_COLUMN);
        return new QbeastColumnHandle(field.name(), field.fieldId(), TypeConverter.toTrinoType(field.type(), typeManager), hidden);
    }

    /**
     * The handle a write (CTAS, INSERT, optimize) gives its sinks: the table's schema, indexed
     * columns, cube size and current revision, and the snapshot the write starts from.
     */
    private QbeastWritableTableHandle writableHandle(SchemaTableName name, Table table, List<QbeastColumnHandle> inputColumns, Optional<Long> snapshotId, Optional<Location> ownedLocation)
    {
        QbeastTableMetadata qbeast = QbeastTableMetadataReader.read(name, table).orElseThrow();
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
                qbeast.cubeSize(config.getDefaultCubeSize()),
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

    private static TableIdentifier identifier(SchemaTableName name)
    {
        return TableIdentifier.of(Namespace.of(name.getSchemaName()), name.getTableName());
    }

    private static void checkNoRetries(RetryMode retryMode)
    {
        if (retryMode != RetryMode.NO_RETRIES) {
            throw new TrinoException(NOT_SUPPORTED, "This connector does not support query retries");
        }
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

    private static Map<String, String> snapshotSummary(ConnectorSession session)
    {
        return ImmutableMap.of(
                "trino_query_id", session.getQueryId(),
                "trino_user", session.getUser());
    }

    /**
     * A write between its begin and its commit. Every file it creates is named
     * {@code <queryId>-<uuid>.parquet} in {@code dataLocation}, so a failed write can be removed
     * even when some of its writers finished (their files are in no fragment the engine kept).
     */
    private record PendingWrite(String queryId, Location dataLocation, Optional<Location> ownedTableLocation, Optional<Transaction> createTransaction)
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

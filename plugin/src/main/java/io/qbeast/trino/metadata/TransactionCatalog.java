package io.qbeast.trino.metadata;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.airlift.log.Logger;
import io.qbeast.iceberg.IcebergCatalogs.IcebergCatalog;
import io.qbeast.trino.catalog.IcebergCatalogProvider;
import io.qbeast.trino.config.QbeastConfig;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorTableMetadata;
import io.trino.spi.connector.SaveMode;
import io.trino.spi.connector.SchemaNotFoundException;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.connector.TableNotFoundException;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.trino.spi.StandardErrorCode.ALREADY_EXISTS;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.StandardErrorCode.SCHEMA_NOT_EMPTY;
import static io.trino.spi.StandardErrorCode.SCHEMA_NOT_FOUND;
import static java.util.Objects.requireNonNull;

/**
 * The Iceberg catalog as one transaction sees it: schemas (Iceberg namespaces of one level),
 * tables created, listed and dropped, and each table loaded once, so that every statement of the
 * transaction sees one version of it. Iceberg's exceptions become the user's errors here.
 */
final class TransactionCatalog
{
    private static final Logger log = Logger.get(TransactionCatalog.class);

    private final IcebergCatalogProvider catalogProvider;
    private final TrinoFileSystem fileSystem;
    private final QbeastConfig config;
    private final Map<SchemaTableName, Table> tables = new ConcurrentHashMap<>();

    TransactionCatalog(IcebergCatalogProvider catalogProvider, TrinoFileSystem fileSystem, QbeastConfig config)
    {
        this.catalogProvider = requireNonNull(catalogProvider, "catalogProvider is null");
        this.fileSystem = requireNonNull(fileSystem, "fileSystem is null");
        this.config = requireNonNull(config, "config is null");
    }

    private IcebergCatalog catalog()
    {
        return catalogProvider.get();
    }

    // ---- schemas ----

    boolean schemaExists(String schemaName)
    {
        if (schemaName.length() > LocationNames.MAX_SCHEMA_NAME_LENGTH) {
            return false;
        }
        return catalog().namespaces().namespaceExists(Namespace.of(schemaName));
    }

    List<String> listSchemaNames()
    {
        return catalog().namespaces().listNamespaces(Namespace.empty()).stream()
                .filter(namespace -> namespace.length() == 1)
                .map(namespace -> namespace.level(0))
                .filter(name -> !name.equals("information_schema"))
                .collect(toImmutableList());
    }

    void createSchema(String schemaName)
    {
        LocationNames.checkSchemaName(schemaName);
        try {
            catalog().namespaces().createNamespace(Namespace.of(schemaName), ImmutableMap.of());
        }
        catch (AlreadyExistsException e) {
            throw new TrinoException(ALREADY_EXISTS, "Schema already exists: '%s'".formatted(schemaName), e);
        }
    }

    void dropSchema(String schemaName, boolean cascade)
    {
        if (cascade) {
            for (SchemaTableName table : listTables(Optional.of(schemaName))) {
                dropTable(table);
            }
        }
        try {
            if (!catalog().namespaces().dropNamespace(Namespace.of(schemaName))) {
                throw new TrinoException(SCHEMA_NOT_FOUND, "Schema not found: '%s'".formatted(schemaName));
            }
        }
        catch (NamespaceNotEmptyException e) {
            throw new TrinoException(SCHEMA_NOT_EMPTY, "Cannot drop non-empty schema '%s'".formatted(schemaName), e);
        }
    }

    // ---- tables ----

    List<SchemaTableName> listTables(Optional<String> schemaName)
    {
        List<String> schemas = schemaName.map(List::of).orElseGet(this::listSchemaNames);
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

    /** The table as this transaction sees it: loaded on first use, then the same version. */
    Optional<Table> findTable(SchemaTableName name)
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

    Table getTable(SchemaTableName name)
    {
        return findTable(name).orElseThrow(() -> new TableNotFoundException(name));
    }

    /** The newest version of the table, for a commit to start from; the transaction's copy is left as it is. */
    Table loadLatest(SchemaTableName name)
    {
        try {
            return catalog().catalog().loadTable(identifier(name));
        }
        catch (NoSuchTableException e) {
            throw new TableNotFoundException(name, e);
        }
    }

    /** After a commit: the next statement of the transaction loads the table again. */
    void forget(SchemaTableName name)
    {
        tables.remove(name);
    }

    void createTable(ConnectorTableMetadata tableMetadata, SaveMode saveMode)
    {
        if (saveMode == SaveMode.REPLACE) {
            throw new TrinoException(NOT_SUPPORTED, "This connector does not support replacing tables");
        }
        try {
            buildTable(tableMetadata, NewTable.define(tableMetadata, catalog(), config), Catalog.TableBuilder::create);
        }
        catch (AlreadyExistsException e) {
            if (saveMode != SaveMode.IGNORE) {
                throw alreadyExists(tableMetadata, e);
            }
        }
    }

    /** A table created by the Iceberg transaction of a CTAS, committed with its first files. */
    CreatedTable beginCreateTable(ConnectorTableMetadata tableMetadata)
    {
        NewTable newTable = NewTable.define(tableMetadata, catalog(), config);
        try {
            Transaction transaction = buildTable(tableMetadata, newTable, Catalog.TableBuilder::createTransaction);
            return new CreatedTable(transaction, newTable.location().map(Location::of));
        }
        catch (AlreadyExistsException e) {
            throw alreadyExists(tableMetadata, e);
        }
    }

    private <T> T buildTable(ConnectorTableMetadata tableMetadata, NewTable newTable, Function<Catalog.TableBuilder, T> create)
    {
        try {
            return create.apply(catalog().catalog().buildTable(newTable.identifier(), newTable.schema())
                    .withLocation(newTable.location().orElse(null))
                    .withProperties(newTable.properties()));
        }
        catch (NoSuchNamespaceException e) {
            throw new SchemaNotFoundException(tableMetadata.getTable().getSchemaName(), e);
        }
    }

    private static TrinoException alreadyExists(ConnectorTableMetadata tableMetadata, AlreadyExistsException e)
    {
        return new TrinoException(ALREADY_EXISTS, "Table already exists: " + tableMetadata.getTable(), e);
    }

    /**
     * @param transaction the Iceberg transaction that creates the table
     * @param ownedLocation the table's location when this connector chose it (no REST server did):
     *         the write's alone, removed whole if the write fails
     */
    record CreatedTable(Transaction transaction, Optional<Location> ownedLocation) {}

    void dropTable(SchemaTableName name)
    {
        Table table = getTable(name);
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

    private static TableIdentifier identifier(SchemaTableName name)
    {
        return TableIdentifier.of(Namespace.of(name.getSchemaName()), name.getTableName());
    }
}

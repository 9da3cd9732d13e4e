package io.qbeast.trino.metadata;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.qbeast.iceberg.IcebergCatalogs.IcebergCatalog;
import io.qbeast.iceberg.QbeastTableProperties;
import io.qbeast.trino.config.IndexedColumnsRule;
import io.qbeast.trino.config.QbeastConfig;
import io.qbeast.trino.config.QbeastTablePropertyMetadata;
import io.qbeast.trino.encoding.TypeConverter;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ConnectorTableMetadata;
import io.trino.spi.connector.SchemaNotFoundException;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarbinaryType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import static io.qbeast.iceberg.QbeastTableProperties.CUBE_COLUMN;
import static io.qbeast.iceberg.QbeastTableProperties.WEIGHT_COLUMN;
import static io.qbeast.trino.config.QbeastTablePropertyMetadata.CUBE_SIZE;
import static io.qbeast.trino.config.QbeastTablePropertyMetadata.INDEXED_COLUMNS;
import static io.trino.spi.StandardErrorCode.INVALID_TABLE_PROPERTY;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.type.IntegerType.INTEGER;
import static java.util.Objects.requireNonNull;

/**
 * A qbeast table about to be created ({@code CREATE TABLE}, CTAS): its Iceberg identifier, schema
 * (the user's columns, then the hidden index columns), location, and properties (the qbeast
 * entries of {@link QbeastTableProperties} from the checked {@code indexed_columns} and
 * {@code cube_size}, and the comment).
 *
 * @param location empty where the catalog chooses it (REST)
 */
record NewTable(TableIdentifier identifier, Schema schema, Optional<String> location, Map<String, String> properties)
{
    /** The Iceberg table property holding the table comment (as Trino's Iceberg connector stores it). */
    static final String COMMENT_PROPERTY = "comment";

    NewTable
    {
        requireNonNull(identifier, "identifier is null");
        requireNonNull(schema, "schema is null");
        requireNonNull(location, "location is null");
        properties = ImmutableMap.copyOf(properties);
    }

    /**
     * Checks a {@code CREATE TABLE} (names, reserved columns, table properties) and defines the table.
     *
     * @param catalog where the table goes; a catalog that does not manage locations gets one from
     *         the schema's location or the warehouse
     */
    static NewTable define(ConnectorTableMetadata tableMetadata, IcebergCatalog catalog, QbeastConfig config)
    {
        SchemaTableName name = tableMetadata.getTable();
        if (!catalog.namespaces().namespaceExists(Namespace.of(name.getSchemaName()))) {
            throw new SchemaNotFoundException(name.getSchemaName());
        }
        LocationNames.checkTableName(name.getTableName(), !catalog.managesLocations());
        Map<String, Object> properties = tableMetadata.getProperties();
        List<ColumnMetadata> columns = tableMetadata.getColumns();
        for (ColumnMetadata column : columns) {
            if (column.getName().equals(WEIGHT_COLUMN) || column.getName().equals(CUBE_COLUMN)) {
                throw new TrinoException(NOT_SUPPORTED, "Column name %s is reserved for the qbeast index".formatted(column.getName()));
            }
        }
        List<?> listed = QbeastTablePropertyMetadata.getIndexedColumns(properties)
                .orElseThrow(() -> new TrinoException(INVALID_TABLE_PROPERTY, "Table property '%s' is required: the columns to index, e.g. WITH (%s = ARRAY['x', 'y'])".formatted(INDEXED_COLUMNS, INDEXED_COLUMNS)));
        Map<String, Type> columnTypes = new LinkedHashMap<>();
        columns.forEach(column -> columnTypes.put(column.getName(), column.getType()));
        List<String> indexedColumns = new IndexedColumnsRule("Table property '%s'".formatted(INDEXED_COLUMNS), "the table", INVALID_TABLE_PROPERTY).check(listed, columnTypes);
        long cubeSize = QbeastTablePropertyMetadata.getCubeSize(properties).orElse(config.getDefaultCubeSize());
        if (cubeSize <= 0) {
            throw new TrinoException(INVALID_TABLE_PROPERTY, "Table property '%s' must be positive, but is %s".formatted(CUBE_SIZE, cubeSize));
        }

        List<ColumnMetadata> physicalColumns = ImmutableList.<ColumnMetadata>builder()
                .addAll(columns)
                .add(ColumnMetadata.builder().setName(WEIGHT_COLUMN).setType(INTEGER).setHidden(true).build())
                .add(ColumnMetadata.builder().setName(CUBE_COLUMN).setType(VarbinaryType.VARBINARY).setHidden(true).build())
                .build();
        Schema schema = TypeConverter.toIcebergSchema(physicalColumns);
        TableIdentifier identifier = TableIdentifier.of(Namespace.of(name.getSchemaName()), name.getTableName());
        Optional<String> location = catalog.managesLocations() ? Optional.empty() : Optional.of(newTableLocation(identifier, catalog, config));
        Map<String, String> tableProperties = new LinkedHashMap<>(QbeastTableProperties.newTableProperties(indexedColumns, cubeSize));
        tableMetadata.getComment().ifPresent(comment -> tableProperties.put(COMMENT_PROPERTY, comment));
        return new NewTable(identifier, schema, location, tableProperties);
    }

    /** {@code <schema location>/<table>-<random>}: a directory no other table ever uses. */
    private static String newTableLocation(TableIdentifier identifier, IcebergCatalog catalog, QbeastConfig config)
    {
        Namespace namespace = identifier.namespace();
        String schemaLocation = Optional.ofNullable(catalog.namespaces().loadNamespaceMetadata(namespace).get("location"))
                .orElseGet(() -> stripTrailingSlash(config.getWarehouse().orElseThrow()) + "/" + namespace.level(0));
        return stripTrailingSlash(schemaLocation) + "/" + identifier.name() + "-" + UUID.randomUUID().toString().replace("-", "");
    }

    static String stripTrailingSlash(String location)
    {
        String result = location;
        while (result.endsWith("/") && !result.endsWith("://")) {
            result = result.substring(0, result.length() - 1);
        }
        return result;
    }
}

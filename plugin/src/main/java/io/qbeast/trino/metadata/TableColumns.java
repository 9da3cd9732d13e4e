package io.qbeast.trino.metadata;

import com.google.common.collect.ImmutableMap;
import io.airlift.log.Logger;
import io.qbeast.trino.catalog.QbeastTableMetadataReader;
import io.qbeast.trino.encoding.TypeConverter;
import io.qbeast.trino.handle.QbeastColumnHandle;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ConnectorTableMetadata;
import io.trino.spi.connector.RelationColumnsMetadata;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.type.TypeManager;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.qbeast.iceberg.QbeastTableProperties.CUBE_COLUMN;
import static io.qbeast.iceberg.QbeastTableProperties.WEIGHT_COLUMN;
import static io.qbeast.trino.config.QbeastTablePropertyMetadata.CUBE_SIZE;
import static io.qbeast.trino.config.QbeastTablePropertyMetadata.INDEXED_COLUMNS;
import static java.util.Objects.requireNonNull;

/**
 * A table's columns and properties as Trino sees them: one handle per Iceberg field, the index
 * columns ({@code _qbeast_weight}, {@code _qbeast_cube}) hidden, the hidden file metadata columns
 * ({@code $path}, {@code $file_modified_time}), and the qbeast table properties read back from the
 * Iceberg table's.
 */
final class TableColumns
{
    private static final Logger log = Logger.get(TableColumns.class);

    private final TypeManager typeManager;

    TableColumns(TypeManager typeManager)
    {
        this.typeManager = requireNonNull(typeManager, "typeManager is null");
    }

    List<QbeastColumnHandle> handles(Table table)
    {
        return table.schema().columns().stream()
                .map(this::handle)
                .collect(toImmutableList());
    }

    Map<String, ColumnHandle> handlesByName(Table table)
    {
        ImmutableMap.Builder<String, ColumnHandle> columns = ImmutableMap.builder();
        for (QbeastColumnHandle column : handles(table)) {
            columns.put(column.name(), column);
        }
        for (QbeastColumnHandle column : QbeastColumnHandle.fileMetadataColumns()) {
            columns.put(column.name(), column);
        }
        return columns.buildOrThrow();
    }

    /** The columns a user writes: all but the index columns. */
    List<QbeastColumnHandle> visible(Table table)
    {
        return handles(table).stream()
                .filter(column -> !column.hidden())
                .collect(toImmutableList());
    }

    QbeastColumnHandle handle(Types.NestedField field)
    {
        boolean hidden = field.name().equals(WEIGHT_COLUMN) || field.name().equals(CUBE_COLUMN);
        return new QbeastColumnHandle(field.name(), field.fieldId(), TypeConverter.toTrinoType(field.type(), typeManager), hidden);
    }

    ConnectorTableMetadata tableMetadata(SchemaTableName name, Table table)
    {
        Stream<ColumnMetadata> fields = table.schema().columns().stream()
                .map(field -> {
                    QbeastColumnHandle column = handle(field);
                    return ColumnMetadata.builder()
                            .setName(column.name())
                            .setType(column.type())
                            .setHidden(column.hidden())
                            .setNullable(field.isOptional())
                            .setComment(Optional.ofNullable(field.doc()))
                            .build();
                });
        // hidden, as in Trino's Iceberg connector: DESCRIBE and SELECT * leave them out
        List<ColumnMetadata> columns = Stream.concat(fields, QbeastColumnHandle.fileMetadataColumns().stream().map(QbeastColumnHandle::toColumnMetadata))
                .collect(toImmutableList());
        ImmutableMap.Builder<String, Object> properties = ImmutableMap.builder();
        QbeastTableMetadataReader.read(name, table).ifPresent(qbeast -> {
            properties.put(INDEXED_COLUMNS, qbeast.indexedColumns());
            qbeast.cubeSize().ifPresent(cubeSize -> properties.put(CUBE_SIZE, cubeSize));
        });
        return new ConnectorTableMetadata(name, columns, properties.buildOrThrow(), Optional.ofNullable(table.properties().get(NewTable.COMMENT_PROPERTY)));
    }

    /** From the table metadata, which carries nullability and comments that the handle does not. */
    ColumnMetadata columnMetadata(SchemaTableName name, Table table, QbeastColumnHandle column)
    {
        return tableMetadata(name, table).getColumns().stream()
                .filter(metadata -> metadata.getName().equals(column.name()))
                .findFirst()
                .orElseGet(column::toColumnMetadata);
    }

    /**
     * The columns of the named tables for {@code information_schema} and JDBC metadata; a table
     * of another engine with types this connector cannot read is left out of the listing.
     */
    Iterator<RelationColumnsMetadata> relationColumns(TransactionCatalog catalog, Set<SchemaTableName> names)
    {
        Map<SchemaTableName, RelationColumnsMetadata> relations = new LinkedHashMap<>();
        for (SchemaTableName name : names) {
            try {
                catalog.findTable(name).ifPresent(table -> relations.put(name, RelationColumnsMetadata.forTable(name, tableMetadata(name, table).getColumns())));
            }
            catch (TrinoException e) {
                log.debug(e, "Skipping columns of %s", name);
            }
        }
        return relations.values().iterator();
    }
}

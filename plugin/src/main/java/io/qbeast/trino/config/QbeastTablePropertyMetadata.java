package io.qbeast.trino.config;

import com.google.common.collect.ImmutableList;
import com.google.inject.Inject;
import io.trino.spi.session.PropertyMetadata;
import io.trino.spi.type.ArrayType;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.trino.spi.session.PropertyMetadata.longProperty;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.util.Locale.ENGLISH;

/** The table properties of {@code CREATE TABLE ... WITH (...)}. */
public class QbeastTablePropertyMetadata
{
    public static final String INDEXED_COLUMNS = "indexed_columns";
    public static final String CUBE_SIZE = "cube_size";

    private final List<PropertyMetadata<?>> tableProperties;

    @Inject
    public QbeastTablePropertyMetadata(QbeastConfig config)
    {
        tableProperties = ImmutableList.of(
                new PropertyMetadata<>(
                        INDEXED_COLUMNS,
                        "Columns of the OTree index, in index order (required)",
                        new ArrayType(VARCHAR),
                        List.class,
                        // no default: a missing property ("required") differs from ARRAY[] ("at least one column")
                        null,
                        false,
                        // NULL elements are kept for IndexedColumnsRule to name
                        value -> ((Collection<?>) value).stream()
                                .map(name -> name == null ? null : ((String) name).toLowerCase(ENGLISH))
                                .toList(),
                        value -> value),
                longProperty(
                        CUBE_SIZE,
                        "Desired number of rows per cube",
                        config.getDefaultCubeSize(),
                        false));
    }

    public List<PropertyMetadata<?>> getTableProperties()
    {
        return tableProperties;
    }

    /** The listed names (elements may be NULL: {@link IndexedColumnsRule} reports them); empty if the property is not set. */
    public static Optional<List<?>> getIndexedColumns(Map<String, Object> properties)
    {
        return Optional.ofNullable((List<?>) properties.get(INDEXED_COLUMNS));
    }

    public static Optional<Long> getCubeSize(Map<String, Object> properties)
    {
        return Optional.ofNullable((Long) properties.get(CUBE_SIZE));
    }
}

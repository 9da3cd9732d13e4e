package io.qbeast.trino.config;

import com.google.common.collect.ImmutableList;
import io.qbeast.trino.encoding.PointMapper;
import io.qbeast.trino.encoding.ValueEncoding;
import io.trino.spi.ErrorCodeSupplier;
import io.trino.spi.TrinoException;
import io.trino.spi.type.Type;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The one rule for a list of indexed columns, for {@code CREATE TABLE}'s {@code indexed_columns}
 * property and {@code convert_table}'s argument alike: at least one column, no NULL, no column
 * twice, each a column of the table of a type {@link ValueEncoding} can index, at most
 * {@link PointMapper#MAX_DIMENSIONS} of them. Each error names the property or argument and the
 * column.
 *
 * @param subject how the list is named in errors, e.g. {@code Table property 'indexed_columns'}
 * @param table how the table is named in errors, e.g. {@code the table}
 * @param errorCode the error code of a broken rule (e.g. {@code INVALID_TABLE_PROPERTY})
 */
public record IndexedColumnsRule(String subject, String table, ErrorCodeSupplier errorCode)
{
    /**
     * @param names the listed names, as given (elements may be NULL)
     * @param columns the table's columns by name, with their types
     * @return the names, checked
     */
    public List<String> check(List<?> names, Map<String, Type> columns)
    {
        List<String> checked = checkNames(names);
        checkColumns(checked, columns);
        return checked;
    }

    /** The part of the rule that needs no table: at least one name, no NULL, none twice, not too many. */
    public List<String> checkNames(List<?> names)
    {
        require(names != null && !names.isEmpty(), "%s must name at least one column, e.g. ARRAY['x', 'y']", subject);
        ImmutableList.Builder<String> checked = ImmutableList.builder();
        Set<String> seen = new HashSet<>();
        for (Object element : names) {
            require(element != null, "%s must not contain NULL", subject);
            String name = element.toString();
            require(seen.add(name), "%s lists column '%s' more than once", subject, name);
            checked.add(name);
        }
        require(seen.size() <= PointMapper.MAX_DIMENSIONS, "%s lists %s columns; at most %s can be indexed", subject, seen.size(), PointMapper.MAX_DIMENSIONS);
        return checked.build();
    }

    /** The part of the rule that needs the table: each name a column of an indexable type. */
    public void checkColumns(List<String> names, Map<String, Type> columns)
    {
        for (String name : names) {
            Type type = columns.get(name);
            require(type != null, "%s names column '%s', which %s does not have", subject, name, table);
            require(ValueEncoding.isIndexable(type), "Column '%s' of type %s cannot be indexed: %s accepts %s columns",
                    name, type.getDisplayName(), QbeastTablePropertyMetadata.INDEXED_COLUMNS, ValueEncoding.INDEXABLE_TYPES);
        }
    }

    private void require(boolean condition, String format, Object... arguments)
    {
        if (!condition) {
            throw new TrinoException(errorCode, format.formatted(arguments));
        }
    }
}

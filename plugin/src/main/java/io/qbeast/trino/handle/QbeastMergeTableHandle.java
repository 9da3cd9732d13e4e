package io.qbeast.trino.handle;

import com.fasterxml.jackson.annotation.JsonIgnore;
import io.trino.spi.connector.ConnectorMergeTableHandle;
import io.trino.spi.connector.ConnectorTableHandle;

import static java.util.Objects.requireNonNull;

/**
 * What the merge sinks of a DELETE, UPDATE or MERGE need: the table as the statement read it and
 * the write of its new rows (the table's visible columns, then {@code _qbeast_weight}).
 */
public record QbeastMergeTableHandle(QbeastTableHandle table, QbeastWritableTableHandle insert)
        implements ConnectorMergeTableHandle
{
    public QbeastMergeTableHandle
    {
        requireNonNull(table, "table is null");
        requireNonNull(insert, "insert is null");
    }

    @JsonIgnore
    @Override
    public ConnectorTableHandle getTableHandle()
    {
        return table;
    }

    /** How many visible columns the merge's pages have before the operation and the row id. */
    @JsonIgnore
    public int dataColumns()
    {
        return insert.inputColumns().size() - 1;
    }

    @Override
    public String toString()
    {
        return table.toString();
    }
}

package io.qbeast.trino;

import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.predicate.TupleDomain;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A qbeast table read at one snapshot ({@code snapshotId} empty: the table has no data yet),
 * with the predicate pushed down by {@code applyFilter} (used for file and row-group pruning; the
 * engine still applies it to rows).
 */
public record QbeastTableHandle(
        String schemaName,
        String tableName,
        Optional<Long> snapshotId,
        TupleDomain<QbeastColumnHandle> predicate)
        implements ConnectorTableHandle
{
    public QbeastTableHandle
    {
        requireNonNull(schemaName, "schemaName is null");
        requireNonNull(tableName, "tableName is null");
        requireNonNull(snapshotId, "snapshotId is null");
        requireNonNull(predicate, "predicate is null");
    }

    public SchemaTableName schemaTableName()
    {
        return new SchemaTableName(schemaName, tableName);
    }

    public QbeastTableHandle withPredicate(TupleDomain<QbeastColumnHandle> predicate)
    {
        return new QbeastTableHandle(schemaName, tableName, snapshotId, predicate);
    }

    @Override
    public String toString()
    {
        return schemaName + "." + tableName + snapshotId.map(id -> "@" + id).orElse("") +
                (predicate.isAll() ? "" : " constraint on " + predicate.getDomains().map(domains -> domains.keySet().stream().map(QbeastColumnHandle::name).toList()).orElse(java.util.List.of()));
    }
}

package io.qbeast.trino.metadata;

import io.qbeast.iceberg.WholeFileDeletes;
import io.qbeast.trino.error.CommitFailures;
import io.qbeast.trino.error.CommitFailures.Write;
import io.qbeast.trino.handle.QbeastTableHandle;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.SchemaTableName;
import org.apache.iceberg.Table;

import java.util.OptionalLong;

import static java.util.Objects.requireNonNull;

/**
 * The deletes that remove whole files and read no rows: {@code TRUNCATE TABLE}.
 */
final class TableDeletes
{
    private final TransactionCatalog catalog;

    TableDeletes(TransactionCatalog catalog)
    {
        this.catalog = requireNonNull(catalog, "catalog is null");
    }

    /** {@code TRUNCATE TABLE}: see {@link WholeFileDeletes#truncate}. */
    void truncate(ConnectorSession session, QbeastTableHandle handle)
    {
        SchemaTableName name = handle.schemaTableName();
        Table table = catalog.loadLatest(name);
        try {
            WholeFileDeletes.truncate(table, TableWrites.snapshotSummary(session));
        }
        catch (RuntimeException e) {
            throw CommitFailures.toTrinoException(Write.TRUNCATE, name, OptionalLong.empty(), e);
        }
        finally {
            catalog.forget(name);
        }
    }
}

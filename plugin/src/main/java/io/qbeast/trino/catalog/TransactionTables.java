package io.qbeast.trino.catalog;

import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.security.ConnectorIdentity;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;

import java.util.List;
import java.util.Optional;

/**
 * What the read side needs of a transaction's metadata: the Iceberg table it loaded (so planning
 * reads the snapshot that the statement's metadata calls saw), and the files its optimize chose
 * (so the optimize's scan does not plan the snapshot again; with their delete files). The read side depends on this, not
 * on the metadata package, which itself uses the read side (optimize chooses its files with the
 * pruner).
 */
public interface TransactionTables
{
    Table icebergTable(ConnectorTransactionHandle transaction, ConnectorIdentity identity, SchemaTableName name);

    /** The files the transaction's optimize chose to rewrite, from {@code beginTableExecute}; empty if it began none. */
    Optional<List<FileScanTask>> optimizeFiles(ConnectorTransactionHandle transaction, ConnectorIdentity identity);
}

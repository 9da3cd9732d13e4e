package io.qbeast.trino.catalog;

import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.security.ConnectorIdentity;
import org.apache.iceberg.Table;

/**
 * The Iceberg table a transaction sees: the one its metadata loaded (so planning reads the
 * snapshot that the statement's metadata calls saw). The read side depends on this, not on the
 * metadata package, which itself uses the read side (optimize chooses its files with the pruner).
 */
public interface TransactionTables
{
    Table icebergTable(ConnectorTransactionHandle transaction, ConnectorIdentity identity, SchemaTableName name);
}

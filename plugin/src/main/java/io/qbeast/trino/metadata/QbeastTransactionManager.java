package io.qbeast.trino.metadata;

import com.google.inject.Inject;
import io.qbeast.trino.catalog.TransactionTables;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.security.ConnectorIdentity;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;
import static java.util.Objects.requireNonNull;

/**
 * One {@link QbeastMetadata} per transaction: {@code beginInsert} and {@code finishInsert} of a
 * statement run on the same instance, which holds what the write needs between the two (the
 * loaded table, a create-table transaction).
 */
public class QbeastTransactionManager
        implements TransactionTables
{
    private final QbeastMetadataFactory metadataFactory;
    private final Map<ConnectorTransactionHandle, MemoizedMetadata> transactions = new ConcurrentHashMap<>();

    @Inject
    public QbeastTransactionManager(QbeastMetadataFactory metadataFactory)
    {
        this.metadataFactory = requireNonNull(metadataFactory, "metadataFactory is null");
    }

    public void begin(ConnectorTransactionHandle transaction)
    {
        MemoizedMetadata previous = transactions.putIfAbsent(transaction, new MemoizedMetadata());
        checkState(previous == null, "Transaction %s already exists", transaction);
    }

    public QbeastMetadata get(ConnectorTransactionHandle transaction, ConnectorIdentity identity)
    {
        MemoizedMetadata metadata = transactions.get(transaction);
        checkArgument(metadata != null, "No such transaction: %s", transaction);
        return metadata.get(identity);
    }

    @Override
    public Table icebergTable(ConnectorTransactionHandle transaction, ConnectorIdentity identity, SchemaTableName name)
    {
        return get(transaction, identity).getIcebergTable(name);
    }

    @Override
    public Optional<List<FileScanTask>> optimizeFiles(ConnectorTransactionHandle transaction, ConnectorIdentity identity)
    {
        return get(transaction, identity).optimizeFiles();
    }

    public void commit(ConnectorTransactionHandle transaction)
    {
        MemoizedMetadata metadata = transactions.remove(transaction);
        checkArgument(metadata != null, "No such transaction: %s", transaction);
    }

    public void rollback(ConnectorTransactionHandle transaction)
    {
        MemoizedMetadata metadata = transactions.remove(transaction);
        checkArgument(metadata != null, "No such transaction: %s", transaction);
        QbeastMetadata instance = metadata.instance;
        if (instance != null) {
            instance.rollback();
        }
    }

    private class MemoizedMetadata
    {
        private volatile QbeastMetadata instance;

        public QbeastMetadata get(ConnectorIdentity identity)
        {
            QbeastMetadata metadata = instance;
            if (metadata == null) {
                synchronized (this) {
                    metadata = instance;
                    if (metadata == null) {
                        metadata = metadataFactory.create(identity);
                        instance = metadata;
                    }
                }
            }
            return metadata;
        }
    }
}

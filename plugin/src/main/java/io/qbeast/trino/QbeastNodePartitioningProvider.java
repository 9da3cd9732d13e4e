package io.qbeast.trino;

import io.trino.spi.connector.BucketFunction;
import io.trino.spi.connector.ConnectorBucketNodeMap;
import io.trino.spi.connector.ConnectorNodePartitioningProvider;
import io.trino.spi.connector.ConnectorPartitioningHandle;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.type.Type;

import java.util.List;
import java.util.Optional;
import java.util.function.ToIntFunction;

/** {@link QbeastPartitioningHandle#SINGLE_WRITER}: one bucket, which every row maps to. */
public class QbeastNodePartitioningProvider
        implements ConnectorNodePartitioningProvider
{
    @Override
    public Optional<ConnectorBucketNodeMap> getBucketNodeMapping(ConnectorTransactionHandle transaction, ConnectorSession session, ConnectorPartitioningHandle partitioningHandle)
    {
        return Optional.of(ConnectorBucketNodeMap.createBucketNodeMap(1));
    }

    @Override
    public ToIntFunction<ConnectorSplit> getSplitBucketFunction(ConnectorTransactionHandle transaction, ConnectorSession session, ConnectorPartitioningHandle partitioningHandle, int bucketCount)
    {
        return _ -> 0;
    }

    @Override
    public BucketFunction getBucketFunction(ConnectorTransactionHandle transaction, ConnectorSession session, ConnectorPartitioningHandle partitioningHandle, List<Type> partitionChannelTypes, int bucketCount)
    {
        return (_, _) -> 0;
    }
}

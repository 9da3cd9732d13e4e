package io.qbeast.trino.routing;

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

/**
 * The write layouts: {@link QbeastPartitioningHandle#SINGLE_WRITER}, one bucket for every row, and
 * {@link QbeastRegionPartitioningHandle}, one bucket per region. The connector fixes the number of
 * buckets, not their nodes: the engine places the buckets on the nodes that are alive when the
 * statement is scheduled (as it does for Hive's buckets), so a worker lost since planning never
 * receives a region.
 */
public class QbeastNodePartitioningProvider
        implements ConnectorNodePartitioningProvider
{
    @Override
    public Optional<ConnectorBucketNodeMap> getBucketNodeMapping(ConnectorTransactionHandle transaction, ConnectorSession session, ConnectorPartitioningHandle partitioningHandle)
    {
        return switch (partitioningHandle) {
            case QbeastRegionPartitioningHandle regions -> Optional.of(ConnectorBucketNodeMap.createBucketNodeMap(regions.regions()));
            default -> Optional.of(ConnectorBucketNodeMap.createBucketNodeMap(1));
        };
    }

    @Override
    public ToIntFunction<ConnectorSplit> getSplitBucketFunction(ConnectorTransactionHandle transaction, ConnectorSession session, ConnectorPartitioningHandle partitioningHandle, int bucketCount)
    {
        // no table is read with these layouts: they only route written rows
        return _ -> 0;
    }

    @Override
    public BucketFunction getBucketFunction(ConnectorTransactionHandle transaction, ConnectorSession session, ConnectorPartitioningHandle partitioningHandle, List<Type> partitionChannelTypes, int bucketCount)
    {
        return switch (partitioningHandle) {
            case QbeastRegionPartitioningHandle regions -> new QbeastRegionBucketFunction(regions, partitionChannelTypes, bucketCount);
            default -> (_, _) -> 0;
        };
    }
}

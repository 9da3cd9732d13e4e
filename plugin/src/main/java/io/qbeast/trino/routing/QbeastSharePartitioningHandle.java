package io.qbeast.trino.routing;

import io.trino.spi.connector.ConnectorPartitioningHandle;

/**
 * The write layout of a CREATE TABLE AS: there is no revision yet to cut regions from, so each row
 * goes to one of {@code buckets} buckets by a hash of its indexed values
 * ({@link QbeastShareBucketFunction}). Every writer then gets an even, random part of the rows,
 * and knows how large: the buckets it is sent, of all. A writer builds its tree with that share
 * of the cube size (a cube of its tree holds that share of the rows the cube of one tree over all
 * rows would hold, of the same weights), so the writers' trees add up to one tree: the top cube
 * holds one cube size of rows in all, not one per writer.
 */
public record QbeastSharePartitioningHandle(int buckets)
        implements ConnectorPartitioningHandle
{
    /** Buckets per worker node: finer than a node's writers, so that shares come out even. */
    public static final int BUCKETS_PER_NODE = 16;

    public QbeastSharePartitioningHandle
    {
        if (buckets < 1) {
            throw new IllegalArgumentException("buckets must be positive: " + buckets);
        }
    }

    public static QbeastSharePartitioningHandle forNodes(int workerNodes)
    {
        return new QbeastSharePartitioningHandle(Math.max(1, workerNodes) * BUCKETS_PER_NODE);
    }
}

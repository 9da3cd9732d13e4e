package io.qbeast.trino.routing;

import io.trino.spi.connector.ConnectorPartitioningHandle;

/**
 * The write layout of an optimize: every row goes to one writer (one bucket), so the rewritten
 * rows are indexed together and every cube they fill gets one block.
 */
public record QbeastPartitioningHandle(String kind)
        implements ConnectorPartitioningHandle
{
    public static final QbeastPartitioningHandle SINGLE_WRITER = new QbeastPartitioningHandle("single-writer");
}

package io.qbeast.trino;

import com.google.common.collect.ImmutableList;
import io.trino.spi.Plugin;
import io.trino.spi.connector.ConnectorFactory;

/** The qbeast Trino plugin: one connector, {@code connector.name=qbeast}. */
public class QbeastPlugin
        implements Plugin
{
    @Override
    public Iterable<ConnectorFactory> getConnectorFactories()
    {
        return ImmutableList.of(new QbeastConnectorFactory());
    }
}

package io.qbeast.trino.handle;

import io.trino.spi.connector.ConnectorTransactionHandle;

import java.util.UUID;

import static java.util.Objects.requireNonNull;

public record QbeastTransactionHandle(UUID uuid)
        implements ConnectorTransactionHandle
{
    public QbeastTransactionHandle
    {
        requireNonNull(uuid, "uuid is null");
    }

    public static QbeastTransactionHandle create()
    {
        return new QbeastTransactionHandle(UUID.randomUUID());
    }
}

package io.qbeast.trino.catalog;

import io.qbeast.iceberg.QbeastTableMetadata;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.SchemaTableName;
import org.apache.iceberg.Table;

import java.util.Optional;

import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_INVALID_METADATA;

/**
 * A table's qbeast metadata as the connector reads it: {@link QbeastTableMetadata#of} (the one
 * parse), with a malformed entry reported to the user as {@code QBEAST_INVALID_METADATA} naming the
 * table. Metadata, the split manager and the system tables read tables through it.
 */
public final class QbeastTableMetadataReader
{
    private QbeastTableMetadataReader() {}

    /** Empty for an Iceberg table that is not a qbeast table. */
    public static Optional<QbeastTableMetadata> read(SchemaTableName name, Table table)
    {
        try {
            return QbeastTableMetadata.of(table.properties());
        }
        catch (IllegalArgumentException e) {
            throw new TrinoException(QBEAST_INVALID_METADATA, "Invalid qbeast properties of table %s: %s".formatted(name, e.getMessage()), e);
        }
    }
}

package io.qbeast.trino.handle;

import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.type.Type;

import static java.util.Objects.requireNonNull;

/**
 * A column of a qbeast table: its Iceberg field id (how Parquet files and manifests name it)
 * and its Trino type. The two index columns ({@code _qbeast_weight}, {@code _qbeast_cube}) are
 * physical in every file but hidden from {@code SELECT *}.
 */
public record QbeastColumnHandle(String name, int fieldId, Type type, boolean hidden)
        implements ColumnHandle
{
    public static final String WEIGHT_COLUMN = "_qbeast_weight";
    public static final String CUBE_COLUMN = "_qbeast_cube";

    public QbeastColumnHandle
    {
        requireNonNull(name, "name is null");
        requireNonNull(type, "type is null");
    }

    public ColumnMetadata toColumnMetadata()
    {
        return ColumnMetadata.builder()
                .setName(name)
                .setType(type)
                .setHidden(hidden)
                .build();
    }
}

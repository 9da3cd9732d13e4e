package io.qbeast.trino.handle;

import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.type.Type;

import java.util.List;

import static io.trino.spi.type.TimestampWithTimeZoneType.TIMESTAMP_TZ_MILLIS;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.util.Objects.requireNonNull;

/**
 * A column of a qbeast table: its Iceberg field id (how Parquet files and manifests name it)
 * and its Trino type. The two index columns ({@code _qbeast_weight}, {@code _qbeast_cube}) are
 * physical in every file but hidden from {@code SELECT *}. The file metadata columns
 * ({@code $path}, {@code $file_modified_time}, named and typed as in Trino's Iceberg connector)
 * are hidden too and stored nowhere: each is one value per data file, filled in when it is read.
 */
public record QbeastColumnHandle(String name, int fieldId, Type type, boolean hidden)
        implements ColumnHandle
{
    public static final String WEIGHT_COLUMN = "_qbeast_weight";
    public static final String CUBE_COLUMN = "_qbeast_cube";
    public static final String PATH_COLUMN = "$path";
    public static final String FILE_MODIFIED_TIME_COLUMN = "$file_modified_time";
    // in the range Iceberg reserves for metadata columns (the path's is Iceberg's own _file id),
    // so never the id of a table's field
    private static final int PATH_FIELD_ID = Integer.MAX_VALUE - 1;
    private static final int FILE_MODIFIED_TIME_FIELD_ID = Integer.MAX_VALUE - 1001;

    public QbeastColumnHandle
    {
        requireNonNull(name, "name is null");
        requireNonNull(type, "type is null");
    }

    /** {@code $path}: the location of the row's data file, as {@code "t$files".path} shows it. */
    public static QbeastColumnHandle pathColumn()
    {
        return new QbeastColumnHandle(PATH_COLUMN, PATH_FIELD_ID, VARCHAR, true);
    }

    /** {@code $file_modified_time}: when the row's data file was last modified, by its file system. */
    public static QbeastColumnHandle fileModifiedTimeColumn()
    {
        return new QbeastColumnHandle(FILE_MODIFIED_TIME_COLUMN, FILE_MODIFIED_TIME_FIELD_ID, TIMESTAMP_TZ_MILLIS, true);
    }

    public static List<QbeastColumnHandle> fileMetadataColumns()
    {
        return List.of(pathColumn(), fileModifiedTimeColumn());
    }

    /** Whether this is a file metadata column: not in the files, one value per file. */
    public boolean isFileMetadata()
    {
        return fieldId == PATH_FIELD_ID || fieldId == FILE_MODIFIED_TIME_FIELD_ID;
    }

    public boolean isPath()
    {
        return fieldId == PATH_FIELD_ID;
    }

    public boolean isFileModifiedTime()
    {
        return fieldId == FILE_MODIFIED_TIME_FIELD_ID;
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

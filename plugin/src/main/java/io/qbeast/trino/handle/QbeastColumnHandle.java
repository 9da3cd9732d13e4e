package io.qbeast.trino.handle;

import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.type.RowType;
import io.trino.spi.type.Type;

import java.util.List;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.IntegerType.INTEGER;
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
    public static final String MERGE_ROW_ID_COLUMN = "$merge_row_id";
    // reserved like the two above; no table field and no Iceberg metadata column has it
    private static final int MERGE_ROW_ID_FIELD_ID = Integer.MAX_VALUE - 1100;
    // the row id of a scan that deletes only (QbeastTableHandle.deletesOnly): its weight is null.
    // The page source provider asks for it in place of the other; the engine never sees it
    private static final int MERGE_ROW_ID_WITHOUT_WEIGHT_FIELD_ID = Integer.MAX_VALUE - 1101;
    /**
     * The merge row id: the row's data file and position in it (what a position delete names),
     * and the row's weight, stored or derived, which an UPDATE gives the row's new version.
     */
    public static final RowType MERGE_ROW_ID_TYPE = RowType.from(List.of(
            RowType.field("file_path", VARCHAR),
            RowType.field("pos", BIGINT),
            RowType.field("weight", INTEGER)));

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

    /** The row id of DELETE, UPDATE and MERGE ({@link #MERGE_ROW_ID_TYPE}), filled in by the page source. */
    public static QbeastColumnHandle mergeRowIdColumn()
    {
        return new QbeastColumnHandle(MERGE_ROW_ID_COLUMN, MERGE_ROW_ID_FIELD_ID, MERGE_ROW_ID_TYPE, true);
    }

    /** The row id with a null weight, for a scan whose change deletes rows and updates none. */
    public static QbeastColumnHandle mergeRowIdWithoutWeightColumn()
    {
        return new QbeastColumnHandle(MERGE_ROW_ID_COLUMN, MERGE_ROW_ID_WITHOUT_WEIGHT_FIELD_ID, MERGE_ROW_ID_TYPE, true);
    }

    public boolean isMergeRowId()
    {
        return fieldId == MERGE_ROW_ID_FIELD_ID || fieldId == MERGE_ROW_ID_WITHOUT_WEIGHT_FIELD_ID;
    }

    /** Whether this merge row id carries the rows' weights. */
    public boolean mergeRowIdHasWeights()
    {
        return fieldId == MERGE_ROW_ID_FIELD_ID;
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

package io.qbeast.trino.handle;

import java.util.List;

import static com.google.common.base.Preconditions.checkArgument;
import static io.airlift.slice.SizeOf.estimatedSizeOf;
import static io.airlift.slice.SizeOf.instanceSize;
import static java.util.Objects.requireNonNull;

/**
 * An Iceberg v2 delete file that applies to a split's data file, as planned by Iceberg (which
 * matched it to the data file by partition and sequence number): every row it deletes is dropped
 * when the split is read. Another engine (Spark, Flink, Trino's Iceberg connector, Iceberg's Java
 * API) wrote it; qbeast itself writes none.
 *
 * @param format the file's Iceberg format name ({@code PARQUET}: the only one read)
 * @param equalityColumns for equality deletes, the columns a row is matched on (their Iceberg
 * field ids are the file's equality field ids), typed by the table's schema; empty for position deletes
 */
public record QbeastDeleteFile(String path, String format, Content content, long recordCount, long fileSizeInBytes, List<QbeastColumnHandle> equalityColumns)
{
    private static final int INSTANCE_SIZE = instanceSize(QbeastDeleteFile.class);

    public enum Content
    {
        /** rows named by (data file path, row position) */
        POSITION_DELETES,
        /** every row whose equality columns equal one of the file's rows */
        EQUALITY_DELETES,
    }

    public QbeastDeleteFile
    {
        requireNonNull(path, "path is null");
        requireNonNull(format, "format is null");
        requireNonNull(content, "content is null");
        equalityColumns = List.copyOf(requireNonNull(equalityColumns, "equalityColumns is null"));
        checkArgument((content == Content.EQUALITY_DELETES) != equalityColumns.isEmpty(), "equality columns are given exactly for equality deletes: %s", path);
    }

    public long getRetainedSizeInBytes()
    {
        return INSTANCE_SIZE + estimatedSizeOf(path) + estimatedSizeOf(format) + equalityColumns.size() * 64L;
    }
}

package io.qbeast.trino.handle;

import io.trino.spi.SplitWeight;
import io.trino.spi.connector.ConnectorSplit;

import java.util.List;

import static io.airlift.slice.SizeOf.estimatedSizeOf;
import static io.airlift.slice.SizeOf.instanceSize;
import static java.util.Objects.requireNonNull;

/**
 * A byte range of one data file: the row groups that start inside {@code [start, start + length)}.
 *
 * @param deletes the delete files that apply to the data file (by file row position, or by
 * equality): their rows are not read
 */
public record QbeastSplit(String path, long start, long length, long fileSize, long fileRecordCount, List<QbeastDeleteFile> deletes, SplitWeight splitWeight)
        implements ConnectorSplit
{
    private static final int INSTANCE_SIZE = instanceSize(QbeastSplit.class);

    public QbeastSplit
    {
        requireNonNull(path, "path is null");
        deletes = List.copyOf(requireNonNull(deletes, "deletes is null"));
        requireNonNull(splitWeight, "splitWeight is null");
    }

    @Override
    public SplitWeight getSplitWeight()
    {
        return splitWeight;
    }

    @Override
    public long getRetainedSizeInBytes()
    {
        return INSTANCE_SIZE + estimatedSizeOf(path) + estimatedSizeOf(deletes, QbeastDeleteFile::getRetainedSizeInBytes) + splitWeight.getRetainedSizeInBytes();
    }
}

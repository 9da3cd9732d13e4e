package io.qbeast.trino.parquet;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.google.common.collect.ImmutableList;

import java.util.List;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * A committed Parquet data file: everything Iceberg's {@code DataFiles.builder} needs
 * (path, size, record count, metrics, split offsets).
 *
 * @param splitOffsets the start offset of every row group, ascending (where a reader may start a split)
 */
public record WrittenFile(
        @JsonProperty("path") String path,
        @JsonProperty("fileSizeInBytes") long fileSizeInBytes,
        @JsonProperty("recordCount") long recordCount,
        @JsonProperty("metrics") IcebergMetrics metrics,
        @JsonProperty("splitOffsets") List<Long> splitOffsets)
{
    public WrittenFile
    {
        requireNonNull(path, "path is null");
        requireNonNull(metrics, "metrics is null");
        splitOffsets = ImmutableList.copyOf(requireNonNull(splitOffsets, "splitOffsets is null"));
        checkArgument(fileSizeInBytes >= 0, "fileSizeInBytes is negative");
        checkArgument(recordCount == metrics.recordCount(), "recordCount %s does not match metrics %s", recordCount, metrics.recordCount());
    }
}

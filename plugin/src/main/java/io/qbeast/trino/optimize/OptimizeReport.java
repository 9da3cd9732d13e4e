package io.qbeast.trino.optimize;

import com.google.common.collect.ImmutableMap;
import io.qbeast.iceberg.OptimizeSelection;
import org.apache.iceberg.DataFile;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What an optimize did; stored in the summary of its snapshot under {@code qbeast.optimize.*}.
 *
 * @param cubesWritten the blocks written: per new file, the cubes with rows in it (a cube counts once per block)
 * @param tableBytes the size of the table's data files at the start snapshot
 * @param writeAmplification bytes written / table bytes
 */
public record OptimizeReport(
        String mode,
        long filesRead,
        long bytesRead,
        long rows,
        long filesWritten,
        long bytesWritten,
        long cubesWritten,
        long tableBytes,
        double writeAmplification)
{
    public static final String PREFIX = "qbeast.optimize.";
    public static final OptimizeReport NOTHING = new OptimizeReport("none", 0, 0, 0, 0, 0, 0, 0, 0);

    public static OptimizeReport of(OptimizeSelection.Mode mode, List<DataFile> deleted, List<DataFile> added, long tableBytes, long cubesWritten)
    {
        long bytesWritten = added.stream().mapToLong(DataFile::fileSizeInBytes).sum();
        return new OptimizeReport(
                mode.name().toLowerCase(Locale.ENGLISH),
                deleted.size(),
                deleted.stream().mapToLong(DataFile::fileSizeInBytes).sum(),
                deleted.stream().mapToLong(DataFile::recordCount).sum(),
                added.size(),
                bytesWritten,
                cubesWritten,
                tableBytes,
                tableBytes == 0 ? 0 : (double) bytesWritten / tableBytes);
    }

    /**
     * The counts, as {@code ALTER TABLE ... EXECUTE optimize} returns them (its statement result);
     * named as the snapshot summary's keys, in the SQL style of Trino's own metric names.
     */
    public Map<String, Long> metrics()
    {
        return ImmutableMap.<String, Long>builder()
                .put("files_read", filesRead)
                .put("bytes_read", bytesRead)
                .put("rows", rows)
                .put("files_written", filesWritten)
                .put("bytes_written", bytesWritten)
                .put("cubes_written", cubesWritten)
                .buildOrThrow();
    }

    public Map<String, String> toSnapshotSummary()
    {
        return ImmutableMap.<String, String>builder()
                .put(PREFIX + "mode", mode)
                .put(PREFIX + "files-read", Long.toString(filesRead))
                .put(PREFIX + "bytes-read", Long.toString(bytesRead))
                .put(PREFIX + "rows", Long.toString(rows))
                .put(PREFIX + "files-written", Long.toString(filesWritten))
                .put(PREFIX + "bytes-written", Long.toString(bytesWritten))
                .put(PREFIX + "cubes-written", Long.toString(cubesWritten))
                .put(PREFIX + "table-bytes", Long.toString(tableBytes))
                .put(PREFIX + "write-amplification", String.format(Locale.ENGLISH, "%.4f", writeAmplification))
                .buildOrThrow();
    }
}

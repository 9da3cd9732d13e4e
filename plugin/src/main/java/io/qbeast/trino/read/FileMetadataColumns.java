package io.qbeast.trino.read;

import io.qbeast.trino.handle.QbeastColumnHandle;
import io.trino.filesystem.TrinoInputFile;
import io.trino.spi.TrinoException;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.TupleDomain;

import java.io.IOException;
import java.util.Map;
import java.util.function.LongSupplier;

import static io.airlift.slice.Slices.utf8Slice;
import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_FILESYSTEM_ERROR;
import static io.trino.spi.type.DateTimeEncoding.packDateTimeWithZone;
import static io.trino.spi.type.TimeZoneKey.UTC_KEY;

/**
 * The values of the file metadata columns ({@code $path}, {@code $file_modified_time}) of one data
 * file, and the check of a predicate against them: a file's rows all share them, so a file either
 * matches their domains whole or not at all (the split source drops the files that do not, which
 * is how the connector enforces these domains).
 */
public final class FileMetadataColumns
{
    private FileMetadataColumns() {}

    /** The predicate without the file metadata columns: what the Parquet reader can prune and filter with. */
    public static TupleDomain<QbeastColumnHandle> withoutFileMetadata(TupleDomain<QbeastColumnHandle> predicate)
    {
        return predicate.filter((column, _) -> !column.isFileMetadata());
    }

    /** Whether the predicate has a domain on {@code $file_modified_time}, whose check reads the file system. */
    public static boolean constrainsModifiedTime(TupleDomain<QbeastColumnHandle> predicate)
    {
        return predicate.getDomains()
                .map(domains -> domains.entrySet().stream().anyMatch(entry -> entry.getKey().isFileModifiedTime() && !entry.getValue().isAll()))
                .orElse(false);
    }

    /**
     * Whether the rows of the file at {@code path} may match the predicate's domains on the file
     * metadata columns; {@code modifiedMillis} is asked only if the predicate constrains the time.
     */
    public static boolean matches(TupleDomain<QbeastColumnHandle> predicate, String path, LongSupplier modifiedMillis)
    {
        if (predicate.isNone()) {
            return false;
        }
        for (Map.Entry<QbeastColumnHandle, Domain> entry : predicate.getDomains().orElseThrow().entrySet()) {
            QbeastColumnHandle column = entry.getKey();
            Domain domain = entry.getValue();
            if (column.isFileMetadata() && !domain.isAll() && !domain.includesNullableValue(value(column, path, modifiedMillis))) {
                return false;
            }
        }
        return true;
    }

    /** The column's value for the file at {@code path}, in Trino's native representation. */
    public static Object value(QbeastColumnHandle column, String path, LongSupplier modifiedMillis)
    {
        if (column.isPath()) {
            return utf8Slice(path);
        }
        if (column.isFileModifiedTime()) {
            return packDateTimeWithZone(modifiedMillis.getAsLong(), UTC_KEY);
        }
        throw new IllegalArgumentException("Not a file metadata column: " + column.name());
    }

    /** The file's last modification time in epoch milliseconds, as its file system reports it. */
    public static long modifiedMillis(TrinoInputFile file)
    {
        try {
            return file.lastModified().toEpochMilli();
        }
        catch (IOException e) {
            throw new TrinoException(QBEAST_FILESYSTEM_ERROR, "Failed to read the modification time of data file %s: %s".formatted(file.location(), e.getMessage()), e);
        }
    }
}

package io.qbeast.trino.maintenance;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.Lists;
import io.airlift.log.Logger;
import io.qbeast.iceberg.ReferencedFiles;
import io.trino.filesystem.FileEntry;
import io.trino.filesystem.FileIterator;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.connector.TableProcedureMetadata;
import org.apache.iceberg.Table;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_FILESYSTEM_ERROR;
import static io.qbeast.trino.handle.QbeastTableProcedureId.REMOVE_ORPHAN_FILES;
import static io.trino.spi.connector.TableProcedureExecutionMode.coordinatorOnly;

/**
 * {@code ALTER TABLE t EXECUTE remove_orphan_files(retention_threshold => '7d')}: deletes the
 * files under the table's location that its metadata does not reference ({@link ReferencedFiles})
 * and that were last modified before the threshold: the Parquet files of a write that died before
 * its commit, or of a commit that failed.
 *
 * <p>A write in flight has written files its commit will reference, and nothing tells them from
 * orphans but their age: the threshold must be longer than the longest write (the catalog's
 * {@code qbeast.remove-orphan-files.min-retention} guards it). The listing comes first and the
 * references are read after it, from the newest metadata, so a write that commits while the
 * listing runs keeps its files.
 */
final class RemoveOrphanFiles
{
    private static final Logger log = Logger.get(RemoveOrphanFiles.class);
    private static final int DELETE_BATCH_SIZE = 1000;

    private RemoveOrphanFiles() {}

    static TableProcedureMetadata metadata()
    {
        return new TableProcedureMetadata(
                REMOVE_ORPHAN_FILES.name(),
                coordinatorOnly(),
                ImmutableList.of(RetentionThreshold.property("Only files older than threshold should be removed")));
    }

    static void run(Table table, Instant olderThan, TrinoFileSystem fileSystem, SchemaTableName name)
    {
        List<FileEntry> candidates = new ArrayList<>();
        long scanned = 0;
        try {
            FileIterator files = fileSystem.listFiles(Location.of(table.location()));
            while (files.hasNext()) {
                FileEntry file = files.next();
                scanned++;
                if (file.lastModified().isBefore(olderThan)) {
                    candidates.add(file);
                }
            }
        }
        catch (IOException | UncheckedIOException e) {
            throw new TrinoException(QBEAST_FILESYSTEM_ERROR, "Failed to list the files of table %s: %s".formatted(name, e.getMessage()), e);
        }
        table.refresh();
        Set<String> referenced = ReferencedFiles.names(table);
        List<Location> orphans = new ArrayList<>();
        long deletedBytes = 0;
        for (FileEntry file : candidates) {
            if (!referenced.contains(file.location().fileName())) {
                orphans.add(file.location());
                deletedBytes += file.length();
            }
        }
        try {
            for (List<Location> batch : Lists.partition(orphans, DELETE_BATCH_SIZE)) {
                fileSystem.deleteFiles(batch);
            }
        }
        catch (IOException | UncheckedIOException e) {
            throw new TrinoException(QBEAST_FILESYSTEM_ERROR, "Failed to remove the orphan files of table %s: %s".formatted(name, e.getMessage()), e);
        }
        log.info("remove_orphan_files of %s: %s files scanned, %s referenced names, %s orphans deleted (%s bytes)", name, scanned, referenced.size(), orphans.size(), deletedBytes);
    }
}

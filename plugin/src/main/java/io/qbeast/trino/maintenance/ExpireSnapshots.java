package io.qbeast.trino.maintenance;

import com.google.common.collect.ImmutableList;
import io.airlift.log.Logger;
import io.qbeast.iceberg.ReferencedFiles;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.connector.TableProcedureMetadata;
import org.apache.iceberg.Table;

import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Set;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_FILESYSTEM_ERROR;
import static io.qbeast.trino.handle.QbeastTableProcedureId.EXPIRE_SNAPSHOTS;
import static io.trino.spi.connector.TableProcedureExecutionMode.coordinatorOnly;

/**
 * {@code ALTER TABLE t EXECUTE expire_snapshots(retention_threshold => '7d')}: removes the
 * snapshots older than the threshold (never the current one) with Iceberg's
 * {@code ExpireSnapshots}, then deletes the files only they used: data files replaced by an
 * optimize or left by a rollback, their manifests and manifest lists.
 *
 * <p>The files to delete are those the snapshots referenced before the commit and none references
 * after it (by reachability, as Iceberg's reachable-file cleanup). Iceberg's default, incremental,
 * cleanup deletes a replaced file only once the snapshot that replaced it expires too: the files an
 * optimize replaced would stay while the optimize is the current snapshot, though no snapshot
 * left can read them.
 */
final class ExpireSnapshots
{
    private static final Logger log = Logger.get(ExpireSnapshots.class);

    private ExpireSnapshots() {}

    static TableProcedureMetadata metadata()
    {
        return new TableProcedureMetadata(
                EXPIRE_SNAPSHOTS.name(),
                coordinatorOnly(),
                ImmutableList.of(RetentionThreshold.property("Only snapshots older than threshold should be removed")));
    }

    static void run(Table table, Instant expireBefore, TrinoFileSystem fileSystem, SchemaTableName name)
    {
        Set<String> before = ReferencedFiles.snapshotFiles(table);
        table.expireSnapshots()
                .expireOlderThan(expireBefore.toEpochMilli())
                .cleanExpiredFiles(false)
                .commit();
        table.refresh();
        // by name, as remove_orphan_files: a file named by a snapshot left is never deleted
        Set<String> kept = ReferencedFiles.snapshotFiles(table).stream().map(ReferencedFiles::fileName).collect(toImmutableSet());
        List<Location> unused = before.stream()
                .filter(location -> !kept.contains(ReferencedFiles.fileName(location)))
                .map(Location::of)
                .collect(toImmutableList());
        try {
            fileSystem.deleteFiles(unused);
        }
        catch (IOException e) {
            throw new TrinoException(QBEAST_FILESYSTEM_ERROR, "Expired the snapshots of %s but failed to delete the files they used: %s".formatted(name, e.getMessage()), e);
        }
        log.info("expire_snapshots of %s: snapshots before %s expired, %s files they alone used deleted", name, expireBefore, unused.size());
    }
}

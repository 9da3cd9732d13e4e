package io.qbeast.iceberg;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.DeleteFiles;
import org.apache.iceberg.OverwriteFiles;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.util.DataFileSet;
import org.apache.iceberg.util.DeleteFileSet;

import java.util.List;
import java.util.Map;

import static io.qbeast.iceberg.QbeastTableProperties.REVISIONS;
import static java.util.Objects.requireNonNull;

/**
 * Commits that remove whole files and write none: {@code TRUNCATE TABLE} and a DELETE whose
 * predicate every data file either wholly satisfies or wholly misses. Both are Iceberg
 * {@code delete} snapshots, which Iceberg re-applies on the newer metadata when a concurrent
 * commit wins the race ({@code commit.retry.num-retries}).
 */
public final class WholeFileDeletes
{
    private WholeFileDeletes() {}

    /**
     * Removes every data file and delete file, whatever the commit finds (Iceberg's
     * {@code deleteFromRowFilter(true)}: rows a concurrent INSERT committed first are truncated
     * too), and empties the revision list in the same commit, as a rollback to a snapshot without
     * files does ({@link SnapshotRollback}): the next write proposes a revision for its own rows
     * and builds a fresh tree. The revision entries stay (an id hashes its JSON, so a write that
     * proposes one again agrees with its entry; a concurrent INSERT that read the old revision
     * still finds it).
     */
    public static void truncate(Table table, Map<String, String> summary)
    {
        requireNonNull(table, "table is null");
        Transaction transaction = table.newTransaction();
        if (table.currentSnapshot() != null) {
            DeleteFiles delete = transaction.newDelete().deleteFromRowFilter(Expressions.alwaysTrue());
            summary.forEach(delete::set);
            delete.commit();
        }
        if (table.properties().containsKey(REVISIONS)) {
            transaction.updateProperties().remove(REVISIONS).commit();
        }
        transaction.commitTransaction();
    }

    /**
     * Removes {@code dataFiles} (every row of each is deleted) and {@code deleteFiles} (delete
     * files naming only removed files) in one snapshot, validated from {@code startSnapshotId},
     * the snapshot in which the files were chosen: the commit fails when one of them is gone
     * (an optimize rewrote it: its rows, now in a new file, would survive) or when a delete file
     * for one of them was committed since. Files a concurrent INSERT appended are kept: the
     * DELETE is ordered before it. The revision list is left as it is: the remaining files
     * still use it, and a later INSERT routes by it.
     *
     * @throws org.apache.iceberg.exceptions.ValidationException on a conflict
     * @throws org.apache.iceberg.exceptions.CommitFailedException when every retry lost to a concurrent commit
     * @throws org.apache.iceberg.exceptions.CommitStateUnknownException when the outcome is unknown
     */
    public static void delete(Table table, long startSnapshotId, List<DataFile> dataFiles, List<DeleteFile> deleteFiles, Map<String, String> summary)
    {
        requireNonNull(table, "table is null");
        if (dataFiles.isEmpty()) {
            throw new IllegalArgumentException("A delete of whole files removes at least one data file");
        }
        DataFileSet data = DataFileSet.create();
        data.addAll(dataFiles);
        DeleteFileSet deletes = DeleteFileSet.create();
        deletes.addAll(deleteFiles);
        OverwriteFiles overwrite = table.newOverwrite()
                .deleteFiles(data, deletes)
                .validateFromSnapshot(startSnapshotId)
                // also fails when a removed file is missing
                .validateNoConflictingDeletes();
        summary.forEach(overwrite::set);
        overwrite.commit();
    }
}

package io.qbeast.iceberg;

import org.apache.iceberg.DeleteFiles;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.expressions.Expressions;

import java.util.Map;

import static io.qbeast.iceberg.QbeastTableProperties.REVISIONS;
import static java.util.Objects.requireNonNull;

/**
 * Commits that remove whole files and write none: {@code TRUNCATE TABLE}. An Iceberg
 * {@code delete} snapshot, which Iceberg re-applies on the newer metadata when a concurrent
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
}

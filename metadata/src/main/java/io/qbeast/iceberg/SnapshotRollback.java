package io.qbeast.iceberg;

import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.qbeast.iceberg.QbeastTableProperties.REVISIONS;

/**
 * Rolls a table back to an earlier snapshot of its history, with the index of that snapshot: the
 * snapshot's files carry their cubes (so {@code $cubes}, pruning and sampling follow at once), and
 * the revision list, a table property that a rollback alone would leave as it is, becomes the
 * listed revisions the snapshot's files use. A later INSERT then routes by the revision that was
 * current at that snapshot, not by one introduced after it. Revision entries stay: a revision's id
 * hashes its JSON, so a write that introduces it again agrees with the entry.
 */
public final class SnapshotRollback
{
    private SnapshotRollback() {}

    /**
     * Makes {@code snapshotId} current, with the revision list of its files, in one commit.
     *
     * @throws org.apache.iceberg.exceptions.ValidationException when the snapshot is unknown or not
     * an ancestor of the current snapshot (Iceberg's {@code rollbackTo} rule)
     */
    public static void rollbackTo(Table table, long snapshotId)
    {
        List<Long> listed = QbeastTableProperties.revisionIds(table.properties());
        Transaction transaction = table.newTransaction();
        transaction.manageSnapshots().rollbackTo(snapshotId).commit();
        if (!listed.isEmpty()) {
            Set<Long> used = SnapshotIndexReader.read(table.io(), ((HasTableOperations) table).operations().current(), snapshotId)
                    .factsByRevision().keySet();
            List<Long> kept = listed.stream().filter(used::contains).collect(toImmutableList());
            if (kept.isEmpty()) {
                transaction.updateProperties().remove(REVISIONS).commit();
            }
            else if (!kept.equals(listed)) {
                transaction.updateProperties().set(REVISIONS, QbeastTableProperties.mergeRevisionIds(Map.of(), kept)).commit();
            }
        }
        transaction.commitTransaction();
    }
}

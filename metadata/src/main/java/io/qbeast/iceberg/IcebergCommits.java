package io.qbeast.iceberg;

import com.google.common.collect.ImmutableMap;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.Transactions;
import org.apache.iceberg.UpdateProperties;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.expressions.Expression;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

import static io.qbeast.iceberg.QbeastTableProperties.REVISIONS;
import static io.qbeast.iceberg.QbeastTableProperties.mergeRevisionIds;
import static io.qbeast.iceberg.QbeastTableProperties.revisionKey;
import static java.util.Objects.requireNonNull;

/**
 * Commits of qbeast writes: one atomic Iceberg append per statement, with the properties of the
 * revisions the write introduced in the same table-metadata change.
 *
 * <p>Concurrent writers: Iceberg re-applies an append on top of the newer table metadata when
 * its commit loses a race ({@code commit.retry.num-retries}); when those retries run out this
 * class starts a fresh transaction on the refreshed table, up to {@link #MAX_ATTEMPTS} times.
 * Re-applied property updates would carry a stale {@code qbeast.revisions} list, so the list is
 * never set by an update: it is merged (committed list + this write's new ids, in order) at the
 * moment the metadata is committed. A revision proposed by two writers has the same id and the
 * same JSON, so both commits agree on it.
 */
public final class IcebergCommits
{
    public static final int MAX_ATTEMPTS = 8;

    private IcebergCommits() {}

    /** A revision introduced by a write: its id and {@code Revision.toJson}. */
    public record NewRevision(long id, String json)
    {
        public NewRevision
        {
            requireNonNull(json, "json is null");
        }
    }

    /**
     * Appends {@code files} to the table (and adds {@code newRevisions}) in one snapshot.
     *
     * @throws CommitFailedException when every attempt lost to a concurrent commit
     * @throws org.apache.iceberg.exceptions.CommitStateUnknownException when the outcome is
     * unknown: the files may be committed and must not be deleted
     */
    public static void append(Table table, List<DataFile> files, List<NewRevision> newRevisions, Map<String, String> summary)
    {
        requireNonNull(table, "table is null");
        commitWithRetries(table, newRevisions, transaction -> apply(transaction, files, newRevisions, summary));
    }

    /**
     * Replaces {@code deleted} with {@code added} in one snapshot (an Iceberg {@code RewriteFiles}
     * validated from {@code startSnapshotId}, the snapshot the rewritten files were read from),
     * adding {@code newRevisions}. Appends committed since the start snapshot are kept: the
     * rewrite is re-applied on top of them. A concurrent change that removed one of the deleted
     * files (another optimize) makes the commit fail.
     *
     * @throws org.apache.iceberg.exceptions.ValidationException when a deleted file is gone
     * @throws CommitFailedException when every attempt lost to a concurrent commit
     * @throws org.apache.iceberg.exceptions.CommitStateUnknownException when the outcome is unknown
     */
    public static void rewrite(Table table, long startSnapshotId, List<DataFile> deleted, List<DataFile> added, List<NewRevision> newRevisions, Map<String, String> summary)
    {
        rewrite(table, startSnapshotId, deleted, List.of(), added, newRevisions, summary);
    }

    /**
     * Like the above, also removing {@code obsoleteDeletes}: delete files that apply only to rows
     * of the {@code deleted} files, which the rewrite left out of {@code added} ({@link ObsoleteDeletes}).
     * Iceberg's rewrite validation refuses the commit when a delete file for one of the
     * {@code deleted} files was committed since the start snapshot (its rows would be resurrected)
     * or when one of {@code obsoleteDeletes} is gone.
     */
    public static void rewrite(Table table, long startSnapshotId, List<DataFile> deleted, List<DeleteFile> obsoleteDeletes, List<DataFile> added, List<NewRevision> newRevisions, Map<String, String> summary)
    {
        requireNonNull(table, "table is null");
        if (deleted.isEmpty()) {
            throw new IllegalArgumentException("A rewrite deletes at least one file");
        }
        commitWithRetries(table, newRevisions, transaction -> {
            addRevisionProperties(transaction, newRevisions);
            RewriteFiles rewrite = transaction.newRewrite().validateFromSnapshot(startSnapshotId);
            deleted.forEach(rewrite::deleteFile);
            obsoleteDeletes.forEach(rewrite::deleteFile);
            added.forEach(rewrite::addFile);
            summary.forEach(rewrite::set);
            rewrite.commit();
        });
    }

    /**
     * The row-level changes of a DELETE, UPDATE or MERGE, committed in one snapshot (an Iceberg
     * {@code RowDelta}) with {@code newRevisions}: data files of new rows, position delete files,
     * and data files every row of which was deleted (removed instead of getting a delete file).
     * Validated as serializable from {@code startSnapshotId} (the snapshot the statement read):
     * the commit fails when a file it deletes from was removed meanwhile, or when a data file or a
     * delete file committed since may hold rows matching {@code conflictFilter}, which covers the
     * rows the statement read (another statement added or deleted rows it would have changed).
     *
     * @param startSnapshotId empty when the statement read an empty table
     * @throws org.apache.iceberg.exceptions.ValidationException on a conflict
     * @throws CommitFailedException when every attempt lost to a concurrent commit
     * @throws org.apache.iceberg.exceptions.CommitStateUnknownException when the outcome is unknown
     */
    public static void rowDelta(Table table, OptionalLong startSnapshotId, Expression conflictFilter, RowChanges changes, List<NewRevision> newRevisions, Map<String, String> summary)
    {
        requireNonNull(table, "table is null");
        requireNonNull(conflictFilter, "conflictFilter is null");
        requireNonNull(changes, "changes is null");
        commitWithRetries(table, newRevisions, transaction -> {
            addRevisionProperties(transaction, newRevisions);
            RowDelta rowDelta = transaction.newRowDelta();
            changes.addedRows().forEach(rowDelta::addRows);
            changes.addedDeletes().forEach(rowDelta::addDeletes);
            changes.removedFiles().forEach(rowDelta::removeRows);
            if (startSnapshotId.isPresent()) {
                rowDelta.validateFromSnapshot(startSnapshotId.getAsLong())
                        .conflictDetectionFilter(conflictFilter)
                        .validateDataFilesExist(changes.referencedDataFiles())
                        .validateDeletedFiles()
                        .validateNoConflictingDataFiles()
                        .validateNoConflictingDeleteFiles();
            }
            summary.forEach(rowDelta::set);
            rowDelta.commit();
        });
    }

    /**
     * @param referencedDataFiles the locations of the data files the statement deletes rows from
     * (with a delete file, or by removing them)
     */
    public record RowChanges(List<DataFile> addedRows, List<DeleteFile> addedDeletes, List<DataFile> removedFiles, List<String> referencedDataFiles)
    {
        public RowChanges
        {
            addedRows = List.copyOf(addedRows);
            addedDeletes = List.copyOf(addedDeletes);
            removedFiles = List.copyOf(removedFiles);
            referencedDataFiles = List.copyOf(referencedDataFiles);
        }

        public boolean isEmpty()
        {
            return addedRows.isEmpty() && addedDeletes.isEmpty() && removedFiles.isEmpty();
        }
    }

    /**
     * Adds {@code files} and {@code newRevisions} to a create-table transaction and commits it:
     * the table appears with its data, or not at all.
     */
    public static void commitCreate(Transaction createTransaction, List<DataFile> files, List<NewRevision> newRevisions, Map<String, String> summary)
    {
        if (!newRevisions.isEmpty()) {
            UpdateProperties properties = createTransaction.updateProperties();
            properties.set(REVISIONS, mergeRevisionIds(ImmutableMap.of(), newRevisions.stream().map(NewRevision::id).toList()));
            newRevisions.forEach(revision -> properties.set(revisionKey(revision.id()), revision.json()));
            properties.commit();
        }
        AppendFiles append = createTransaction.newFastAppend();
        files.forEach(append::appendFile);
        summary.forEach(append::set);
        append.commit();
        createTransaction.commitTransaction();
    }

    /**
     * Runs {@code changes} in a fresh transaction on the table and commits it, refreshing and
     * starting over when the commit loses to a concurrent one, up to {@link #MAX_ATTEMPTS} times.
     */
    private static void commitWithRetries(Table table, List<NewRevision> newRevisions, Consumer<Transaction> changes)
    {
        TableOperations operations = ((HasTableOperations) table).operations();
        CommitFailedException lastFailure = null;
        for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
            if (attempt > 1) {
                sleepBeforeRetry(attempt);
                operations.refresh();
            }
            Transaction transaction = Transactions.newTransaction(table.name(), new RevisionListMerging(operations, newRevisions));
            try {
                changes.accept(transaction);
                transaction.commitTransaction();
                return;
            }
            catch (CommitFailedException e) {
                lastFailure = e;
            }
        }
        throw lastFailure;
    }

    /** Sets each new revision's JSON; {@code qbeast.revisions} is merged at commit time. */
    private static void addRevisionProperties(Transaction transaction, List<NewRevision> newRevisions)
    {
        if (!newRevisions.isEmpty()) {
            UpdateProperties properties = transaction.updateProperties();
            newRevisions.forEach(revision -> properties.set(revisionKey(revision.id()), revision.json()));
            properties.commit();
        }
    }

    private static void apply(Transaction transaction, List<DataFile> files, List<NewRevision> newRevisions, Map<String, String> summary)
    {
        addRevisionProperties(transaction, newRevisions);
        AppendFiles append = transaction.newFastAppend();
        files.forEach(append::appendFile);
        summary.forEach(append::set);
        append.commit();
    }

    private static void sleepBeforeRetry(int attempt)
    {
        long maxMillis = Math.min(2_000, 50L << Math.min(attempt, 6));
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(maxMillis / 2, maxMillis + 1));
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommitFailedException(e, "Interrupted while retrying a commit");
        }
    }

    /** Table operations that complete {@code qbeast.revisions} against the metadata being replaced. */
    private static final class RevisionListMerging
            extends ForwardingTableOperations
    {
        private final List<NewRevision> newRevisions;

        RevisionListMerging(TableOperations delegate, List<NewRevision> newRevisions)
        {
            super(delegate);
            this.newRevisions = requireNonNull(newRevisions, "newRevisions is null");
        }

        @Override
        public void commit(TableMetadata base, TableMetadata metadata)
        {
            TableMetadata toCommit = metadata;
            if (!newRevisions.isEmpty()) {
                Map<String, String> committed = base == null ? ImmutableMap.of() : base.properties();
                Map<String, String> properties = new HashMap<>(metadata.properties());
                properties.put(REVISIONS, mergeRevisionIds(committed, newRevisions.stream().map(NewRevision::id).toList()));
                toCommit = metadata.replaceProperties(properties);
            }
            super.commit(base, toCommit);
        }
    }
}

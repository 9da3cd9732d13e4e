package io.qbeast.trino.error;

import io.qbeast.iceberg.IcebergCommits;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.SchemaTableName;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;

import java.util.List;
import java.util.OptionalLong;

import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_COMMIT_ERROR;
import static io.trino.spi.StandardErrorCode.ALREADY_EXISTS;

/**
 * The one mapping of a failed Iceberg commit to the error a user sees, for each kind of write.
 * The outcomes differ in what happened to the table, and the message says which:
 * <ul>
 *   <li>the catalog did not confirm the commit ({@link CommitStateUnknownException}): it may have
 *       been applied, so the write's files must be kept ({@link #outcomeUnknown});</li>
 *   <li>a rewrite's files were replaced meanwhile, the files a DELETE removes whole were
 *       rewritten or got delete files, or a row-level change (DELETE, UPDATE, MERGE) conflicts
 *       with rows committed since it read the table ({@link ValidationException}), or the commit
 *       lost against concurrent writers after {@link IcebergCommits#MAX_ATTEMPTS} attempts: nothing
 *       was changed, running it again may succeed;</li>
 *   <li>the table was created meanwhile (CTAS): {@code ALREADY_EXISTS};</li>
 *   <li>anything else: nothing was changed.</li>
 * </ul>
 */
public final class CommitFailures
{
    public enum Write
    {
        CREATE("Creating table %s", "the table may or may not exist", "another statement created it"),
        INSERT("Inserting into %s", "the rows may or may not have been added", "another statement changed the table"),
        OPTIMIZE("Optimize of %s", "it may or may not have been applied (no rows are lost either way)", "another optimize rewrote the same files"),
        DELETE("Deleting from %s", "the rows may or may not have been deleted", "another statement rewrote, removed or deleted rows of the files it removes"),
        TRUNCATE("Truncating %s", "the rows may or may not have been removed", "another statement changed the table"),
        MERGE("Changing rows of %s", "the rows may or may not have been changed", "another statement added, deleted or rewrote rows this statement read");

        private final String subject;
        private final String unknownOutcome;
        private final String conflict;

        Write(String subject, String unknownOutcome, String conflict)
        {
            this.subject = subject;
            this.unknownOutcome = unknownOutcome;
            this.conflict = conflict;
        }
    }

    /** How many of a conflict's files a message names; the rest are counted. */
    public static final int LISTED_FILES = 3;
    /** How much of Iceberg's own message a conflict message quotes (it may list every file). */
    private static final int QUOTED_CAUSE_LENGTH = 300;

    /**
     * What an optimize found when its rewrite was refused ({@link ValidationException}): the
     * snapshot the table is at now, and which of the files it meant to replace are no longer in it.
     */
    public record RewriteConflict(long currentSnapshotId, List<String> goneFiles)
    {
        public RewriteConflict
        {
            goneFiles = List.copyOf(goneFiles);
        }
    }

    private CommitFailures() {}

    /** Whether the commit may have been applied although it failed: its files must not be removed. */
    public static boolean outcomeUnknown(RuntimeException failure)
    {
        return failure instanceof CommitStateUnknownException;
    }

    /**
     * @param startSnapshotId the snapshot the write started from, if it read one
     */
    public static TrinoException toTrinoException(Write write, SchemaTableName table, OptionalLong startSnapshotId, RuntimeException failure)
    {
        String what = write.subject.formatted(table);
        String since = startSnapshotId.isPresent() ? " since snapshot " + startSnapshotId.getAsLong() : "";
        return switch (failure) {
            case AlreadyExistsException e when write == Write.CREATE -> new TrinoException(ALREADY_EXISTS, "Table already exists: " + table, e);
            case CommitStateUnknownException e -> new TrinoException(QBEAST_COMMIT_ERROR, "%s: the catalog did not confirm the commit; %s".formatted(what, write.unknownOutcome), e);
            case ValidationException e -> new TrinoException(QBEAST_COMMIT_ERROR,
                    "%s conflicts with a change committed%s (%s); nothing was changed, run it again: %s".formatted(what, since, write.conflict, abbreviate(e.getMessage())), e);
            case CommitFailedException e -> new TrinoException(QBEAST_COMMIT_ERROR,
                    "%s failed to commit after %s attempts against concurrent writers; nothing was changed: %s".formatted(what, IcebergCommits.MAX_ATTEMPTS, e.getMessage()), e);
            default -> new TrinoException(QBEAST_COMMIT_ERROR, "%s failed to commit; nothing was changed: %s".formatted(what, failure.getMessage()), failure);
        };
    }

    /**
     * An optimize whose rewrite was refused because files it replaces changed since it started:
     * says how many files, names the first {@link #LISTED_FILES} (a large optimize may replace
     * hundreds; Iceberg's own message lists them all), and the snapshots between which they changed.
     */
    public static TrinoException rewriteConflict(SchemaTableName table, long startSnapshotId, RewriteConflict conflict, ValidationException failure)
    {
        String what = Write.OPTIMIZE.subject.formatted(table);
        String changed = conflict.goneFiles().isEmpty()
                ? abbreviate(failure.getMessage())
                : "%s of the files it rewrites were rewritten or removed meanwhile (another optimize rewrote the same files): %s".formatted(
                        conflict.goneFiles().size(), listFiles(conflict.goneFiles()));
        return new TrinoException(QBEAST_COMMIT_ERROR,
                "%s conflicts with a change committed since snapshot %s (the table is now at snapshot %s); nothing was changed, run it again. %s".formatted(
                        what, startSnapshotId, conflict.currentSnapshotId(), changed),
                failure);
    }

    private static String listFiles(List<String> files)
    {
        String listed = String.join(", ", files.subList(0, Math.min(LISTED_FILES, files.size())));
        return files.size() > LISTED_FILES ? "%s and %s more".formatted(listed, files.size() - LISTED_FILES) : listed;
    }

    private static String abbreviate(String message)
    {
        if (message == null || message.length() <= QUOTED_CAUSE_LENGTH) {
            return message;
        }
        return message.substring(0, QUOTED_CAUSE_LENGTH) + "…";
    }
}

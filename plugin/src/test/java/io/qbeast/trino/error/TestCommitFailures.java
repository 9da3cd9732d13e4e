package io.qbeast.trino.error;

import io.qbeast.trino.error.CommitFailures.RewriteConflict;
import io.qbeast.trino.error.CommitFailures.Write;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.SchemaTableName;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.OptionalLong;
import java.util.stream.IntStream;

import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_COMMIT_ERROR;
import static io.trino.spi.StandardErrorCode.ALREADY_EXISTS;
import static org.assertj.core.api.Assertions.assertThat;

class TestCommitFailures
{
    private static final SchemaTableName TABLE = new SchemaTableName("s", "t");

    @Test
    void testUnknownOutcomeKeepsFilesAndSaysSo()
    {
        RuntimeException failure = new CommitStateUnknownException(new RuntimeException("timeout"));
        assertThat(CommitFailures.outcomeUnknown(failure)).isTrue();
        for (Write write : Write.values()) {
            TrinoException error = CommitFailures.toTrinoException(write, TABLE, OptionalLong.empty(), failure);
            assertThat(error.getErrorCode()).isEqualTo(QBEAST_COMMIT_ERROR.toErrorCode());
            assertThat(error.getMessage()).contains("s.t").contains("did not confirm").contains("may or may not");
            assertThat(error.getCause()).isSameAs(failure);
        }
    }

    @Test
    void testLostCommitsSayNothingChanged()
    {
        RuntimeException lost = new CommitFailedException("concurrent append");
        assertThat(CommitFailures.outcomeUnknown(lost)).isFalse();
        TrinoException insert = CommitFailures.toTrinoException(Write.INSERT, TABLE, OptionalLong.empty(), lost);
        assertThat(insert.getErrorCode()).isEqualTo(QBEAST_COMMIT_ERROR.toErrorCode());
        assertThat(insert.getMessage()).startsWith("Inserting into s.t").contains("8 attempts").contains("nothing was changed").contains("concurrent append");

        TrinoException conflict = CommitFailures.toTrinoException(Write.OPTIMIZE, TABLE, OptionalLong.of(42), new ValidationException("files were deleted"));
        assertThat(conflict.getMessage()).startsWith("Optimize of s.t").contains("since snapshot 42").contains("run it again").contains("files were deleted");

        TrinoException merge = CommitFailures.toTrinoException(Write.MERGE, TABLE, OptionalLong.of(43), new ValidationException("found conflicting files"));
        assertThat(merge.getErrorCode()).isEqualTo(QBEAST_COMMIT_ERROR.toErrorCode());
        assertThat(merge.getMessage()).startsWith("Changing rows of s.t").contains("since snapshot 43").contains("rows this statement read").contains("nothing was changed").contains("found conflicting files");

        TrinoException other = CommitFailures.toTrinoException(Write.CREATE, TABLE, OptionalLong.empty(), new IllegalStateException("catalog down"));
        assertThat(other.getErrorCode()).isEqualTo(QBEAST_COMMIT_ERROR.toErrorCode());
        assertThat(other.getMessage()).startsWith("Creating table s.t").contains("catalog down");
    }

    @Test
    void testTableCreatedMeanwhileIsAlreadyExists()
    {
        TrinoException error = CommitFailures.toTrinoException(Write.CREATE, TABLE, OptionalLong.empty(), new AlreadyExistsException("exists"));
        assertThat(error.getErrorCode()).isEqualTo(ALREADY_EXISTS.toErrorCode());
        assertThat(error.getMessage()).contains("s.t");
        // only a CTAS reports it so: for an INSERT it is a failed commit like any other
        assertThat(CommitFailures.toTrinoException(Write.INSERT, TABLE, OptionalLong.empty(), new AlreadyExistsException("exists")).getErrorCode())
                .isEqualTo(QBEAST_COMMIT_ERROR.toErrorCode());
    }

    @Test
    void testRewriteConflictCountsFilesAndNamesTheFirstFew()
    {
        List<String> gone = IntStream.range(0, 33).mapToObj(i -> "local:///warehouse/tpch/t/data/file-%02d.parquet".formatted(i)).toList();
        ValidationException cause = new ValidationException("Missing required files to delete: %s", String.join(",", gone));
        TrinoException error = CommitFailures.rewriteConflict(TABLE, 42, new RewriteConflict(57, gone), cause);
        assertThat(error.getErrorCode()).isEqualTo(QBEAST_COMMIT_ERROR.toErrorCode());
        assertThat(error.getCause()).isSameAs(cause);
        assertThat(error.getMessage())
                .startsWith("Optimize of s.t conflicts with a change committed since snapshot 42 (the table is now at snapshot 57)")
                .contains("nothing was changed, run it again")
                .contains("33 of the files it rewrites were rewritten or removed meanwhile")
                .contains(gone.get(0) + ", " + gone.get(1) + ", " + gone.get(2) + " and 30 more");
        assertThat(gone.stream().filter(error.getMessage()::contains)).hasSize(CommitFailures.LISTED_FILES);

        // up to the listed number, every file is named and nothing is said to be left out
        TrinoException few = CommitFailures.rewriteConflict(TABLE, 42, new RewriteConflict(57, gone.subList(0, 2)), cause);
        assertThat(few.getMessage()).contains("2 of the files").endsWith(gone.get(0) + ", " + gone.get(1)).doesNotContain("more");

        // a conflict that is not about replaced files quotes Iceberg's message, cut short
        TrinoException other = CommitFailures.rewriteConflict(TABLE, 42, new RewriteConflict(57, List.of()), cause);
        assertThat(other.getMessage()).contains("since snapshot 42").contains("Missing required files to delete: " + gone.get(0)).doesNotContain(gone.get(32));
    }
}

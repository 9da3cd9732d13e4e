package io.qbeast.trino;

import io.airlift.units.DataSize;
import io.qbeast.trino.write.QbeastPageSink;
import io.qbeast.trino.write.QbeastWriterStats;
import io.trino.Session;
import io.trino.execution.QueryState;
import io.trino.server.BasicQueryInfo;
import io.trino.spi.QueryId;
import io.trino.testing.MaterializedResult;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static io.airlift.units.DataSize.Unit.GIGABYTE;
import static io.airlift.units.DataSize.Unit.MEGABYTE;
import static io.qbeast.trino.QbeastQueryRunner.oneWriter;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.parallel.ExecutionMode.SAME_THREAD;

/**
 * One sink given more than a gigabyte with a 64 MB budget: it stays within the budget, spills
 * and merges more runs than it merges at once, writes every row, and leaves no spill file after
 * success or cancel. Tests run one at a time: they read the node-wide writer counters.
 */
@Execution(SAME_THREAD)
class TestQbeastGigabyteWrite
        extends AbstractTestQbeastWriterBudget
{
    private static final DataSize BUDGET = DataSize.of(64, MEGABYTE);
    private static final long ROWS = 1_100_000;
    // 1.1 million rows of about 1,000 bytes: 1.1 GB of input, generated on the fly
    private static final String INPUT = "SELECT a * 1000 + b id, (a * 1000 + b) % 97 bucket, rpad(CAST(a * 1000 + b AS varchar), 1000, 'qbeast') payload " +
            "FROM UNNEST(sequence(0, " + (ROWS / 1000 - 1) + ")) t(a) CROSS JOIN UNNEST(sequence(0, 999)) u(b)";
    private static final String CHECKSUMS = "SELECT count(*), sum(id), sum(bucket), checksum(payload) FROM ";

    @Override
    protected DataSize budget()
    {
        return BUDGET;
    }

    @Test
    void testGigabyteIntoOneSinkStaysWithinItsBudget()
    {
        resetWriterStats();
        Session oneSink = oneWriter(getSession());
        assertUpdate(oneSink, "CREATE TABLE test_gigabyte WITH (indexed_columns = ARRAY['id', 'bucket'], cube_size = 100000) AS " + INPUT, ROWS);

        List<QbeastWriterStats> stats = writerStats();
        // one sink took every row
        assertThat(stats.stream().filter(node -> node.getRowsWritten() > 0).count()).as("nodes that wrote").isEqualTo(1);
        QbeastWriterStats sink = stats.stream().filter(node -> node.getRowsWritten() > 0).findFirst().orElseThrow();
        assertThat(sink.getRowsWritten()).isEqualTo(ROWS);
        System.out.println(String.format("one sink: %,d bytes in, peak %,d bytes, %d runs of %,d bytes spilled, %d files",
                sink.getFlushedBytes(), sink.getPeakSinkMemory(), sink.getSpills(), sink.getSpilledBytes(), sink.getFilesWritten()));
        assertThat(sink.getFlushedBytes()).as("bytes given to the sink").isGreaterThanOrEqualTo(DataSize.of(1, GIGABYTE).toBytes());
        // buffer, index arrays, merge pages and the open Parquet writer stayed within the budget
        assertThat(sink.getPeakSinkMemory()).as("peak memory of the sink").isPositive().isLessThanOrEqualTo(BUDGET.toBytes());
        // more runs than one merge opens: runs were merged into runs first
        assertThat(sink.getSpills()).as("runs spilled").isGreaterThan(QbeastPageSink.MAX_MERGE_RUNS);
        // the smaller half of the runs is merged each time: a row is rewritten about log8(runs)
        // times, not once per merge (merging all runs wrote 2.3x the input for these 35 runs)
        assertThat(sink.getSpilledBytes()).as("bytes spilled").isBetween(sink.getFlushedBytes() * 9 / 10, 2 * sink.getFlushedBytes());
        assertThat(spillFiles()).as("spill files left").isEmpty();

        assertThat(computeActual(CHECKSUMS + "test_gigabyte").getMaterializedRows())
                .isEqualTo(computeActual(CHECKSUMS + "(" + INPUT + ")").getMaterializedRows());
        assertUpdate("DROP TABLE test_gigabyte");
    }

    @Test
    void testCancelledInsertLeavesNothing()
            throws Exception
    {
        assertUpdate("CREATE TABLE test_cancelled WITH (indexed_columns = ARRAY['id', 'bucket'], cube_size = 100000) AS " + INPUT + " WHERE a < 10", 10_000);
        Table before = tables().table("test_cancelled");
        String dataLocation = before.location() + "/data";
        Set<String> filesBefore = tables().listFiles(dataLocation);
        long snapshotBefore = before.currentSnapshot().snapshotId();

        resetWriterStats();
        String insert = "INSERT INTO test_cancelled " + INPUT;
        CompletableFuture<MaterializedResult> running = CompletableFuture.supplyAsync(() -> computeActual(oneWriter(getSession()), insert));
        // cancel once the sink has spilled runs: it holds spill files and has written no data file yet
        assertEventually(() -> assertThat(writerStats().stream().mapToLong(QbeastWriterStats::getSpills).sum()).as("runs spilled").isGreaterThan(1));
        QueryId queryId = getDistributedQueryRunner().getCoordinator().getQueryManager().getQueries().stream()
                .filter(query -> query.getQuery().equals(insert) && query.getState() == QueryState.RUNNING)
                .map(BasicQueryInfo::getQueryId)
                .findFirst()
                .orElseThrow();
        getDistributedQueryRunner().getCoordinator().getDispatchManager().cancelQuery(queryId);

        try {
            running.get(60, TimeUnit.SECONDS);
            throw new AssertionError("the cancelled INSERT succeeded");
        }
        catch (ExecutionException e) {
            assertThat(e.getCause()).hasMessageContaining("Query was canceled");
        }
        assertThat(tables().table("test_cancelled").currentSnapshot().snapshotId()).isEqualTo(snapshotBefore);
        assertThat(computeActual("SELECT count(*) FROM test_cancelled").getOnlyValue()).isEqualTo(10_000L);
        // the cancelled sinks remove their spill files and any data file they wrote
        assertEventually(() -> assertThat(spillFiles()).as("spill files left").isEmpty());
        assertEventually(() -> assertThat(tables().listFiles(dataLocation)).isEqualTo(filesBefore));
        assertUpdate("DROP TABLE test_cancelled");
    }
}

package io.qbeast.trino;

import io.airlift.units.DataSize;
import io.qbeast.trino.write.QbeastWriterStats;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;

import java.util.List;
import java.util.Set;

import static io.airlift.units.DataSize.Unit.MEGABYTE;
import static io.trino.tpch.TpchTable.LINE_ITEM;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.parallel.ExecutionMode.SAME_THREAD;

/**
 * Writes with a small writer buffer: the sinks stay within it however much is inserted, and a
 * write that fails after sinks have written files leaves neither a commit nor a file behind.
 * Tests run one at a time: they read the node-wide writer counters.
 */
@Execution(SAME_THREAD)
class TestQbeastBoundedWrites
        extends AbstractTestQbeastWriterBudget
{
    private static final DataSize BUFFER = DataSize.of(4, MEGABYTE);
    // lineitem six times over, numbered in one stream: a failure at row 300000 of 361050 comes
    // after every writer has written files
    private static final String NUMBERED_LINEITEM = "(SELECT l.*, row_number() OVER () row_number FROM tpch.tiny.lineitem l CROSS JOIN UNNEST(sequence(1, 6)))";

    @Override
    protected DataSize budget()
    {
        return BUFFER;
    }

    @Override
    protected QbeastQueryRunner.Builder queryRunnerBuilder()
    {
        return super.queryRunnerBuilder()
                // small exchange buffers: a producer waits for the writers, so rows before a
                // failure have reached the writers when it happens
                .addExtraProperty("sink.max-buffer-size", "1MB")
                .setInitialTables(List.of(LINE_ITEM));
    }

    @Test
    void testLargeInsertStaysWithinWriterBuffer()
    {
        assertUpdate("CREATE TABLE test_bounded (LIKE tpch.tiny.lineitem) WITH (indexed_columns = ARRAY['orderkey', 'partkey', 'shipdate'], cube_size = 20000)");
        resetWriterStats();
        // lineitem six times over: more than ten writer buffers
        assertUpdate("INSERT INTO test_bounded SELECT l.* FROM tpch.tiny.lineitem l CROSS JOIN UNNEST(sequence(1, 6))", 6 * 60175);

        long flushedBytes = 0;
        long flushes = 0;
        long rows = 0;
        long peak = 0;
        for (QbeastWriterStats stats : writerStats()) {
            flushedBytes += stats.getFlushedBytes();
            flushes += stats.getFlushes();
            rows += stats.getRowsWritten();
            peak = Math.max(peak, stats.getPeakSinkMemory());
        }
        assertThat(rows).isEqualTo(6 * 60175);
        assertThat(flushedBytes).as("bytes inserted").isGreaterThanOrEqualTo(10 * BUFFER.toBytes());
        assertThat(flushes).as("full buffers indexed").isGreaterThanOrEqualTo(10);
        // buffer, index arrays and the open Parquet writer of every sink stayed within the budget
        assertThat(peak).as("peak memory of a sink").isPositive().isLessThanOrEqualTo(BUFFER.toBytes());
        // beyond half the budget the sinks spilled sorted runs, and removed them when they finished
        assertThat(writerStats().stream().mapToLong(QbeastWriterStats::getSpills).sum()).as("runs spilled").isPositive();
        assertThat(spillFiles()).as("spill files left").isEmpty();

        assertQuery("SELECT orderkey, linenumber, count(*), sum(quantity), min(comment), max(shipdate) FROM test_bounded GROUP BY orderkey, linenumber",
                "SELECT orderkey, linenumber, 6, 6 * quantity, comment, shipdate FROM lineitem");
        assertUpdate("DROP TABLE test_bounded");
    }

    @Test
    void testFailedInsertLeavesTableUnchanged()
    {
        assertUpdate("CREATE TABLE test_failed_insert WITH (indexed_columns = ARRAY['orderkey'], cube_size = 5000) AS SELECT orderkey, partkey, comment FROM tpch.tiny.lineitem", 60175);
        Table before = tables().table("test_failed_insert");
        String dataLocation = before.location() + "/data";
        Set<String> filesBefore = tables().listFiles(dataLocation);
        long snapshotBefore = before.currentSnapshot().snapshotId();

        resetWriterStats();
        assertQueryFails("INSERT INTO test_failed_insert SELECT orderkey, partkey / (row_number - 300000), comment FROM " + NUMBERED_LINEITEM, "Division by zero");
        // data files are written when a sink finishes; before the failure the sinks had spilled runs
        assertThat(writerStats().stream().mapToLong(QbeastWriterStats::getSpills).sum()).as("runs spilled before the failure").isPositive();

        assertThat(tables().table("test_failed_insert").currentSnapshot().snapshotId()).isEqualTo(snapshotBefore);
        assertQuery("SELECT count(*), sum(partkey) FROM test_failed_insert", "SELECT count(*), sum(partkey) FROM lineitem");
        // the aborted writers and the rollback remove every file of the failed query (rollback is asynchronous)
        assertEventually(() -> assertThat(tables().listFiles(dataLocation)).isEqualTo(filesBefore));
        assertEventually(() -> assertThat(spillFiles()).as("spill files left").isEmpty());
        assertUpdate("DROP TABLE test_failed_insert");
    }

    @Test
    void testFailedCreateTableAsLeavesNothing()
    {
        resetWriterStats();
        assertQueryFails("CREATE TABLE test_failed_ctas WITH (indexed_columns = ARRAY['orderkey']) AS SELECT orderkey, partkey / (row_number - 300000) p, comment FROM " + NUMBERED_LINEITEM,
                "Division by zero");
        // data files are written when a sink finishes; before the failure the sinks had spilled runs
        assertThat(writerStats().stream().mapToLong(QbeastWriterStats::getSpills).sum()).as("runs spilled before the failure").isPositive();
        assertThat(getQueryRunner().tableExists(getSession(), "test_failed_ctas")).isFalse();
        assertEventually(() -> assertThat(tables().listDirectories("local:///warehouse/tpch/"))
                .noneMatch(directory -> directory.contains("test_failed_ctas")));
        assertEventually(() -> assertThat(spillFiles()).as("spill files left").isEmpty());
    }
}

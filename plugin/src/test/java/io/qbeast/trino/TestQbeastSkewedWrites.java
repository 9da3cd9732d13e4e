package io.qbeast.trino;

import io.airlift.units.DataSize;
import io.qbeast.index.BatchIndexer;
import io.qbeast.trino.write.QbeastWriterStats;
import io.trino.testing.MaterializedResult;
import io.trino.testing.MaterializedRow;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;

import java.util.List;

import static io.airlift.units.DataSize.Unit.MEGABYTE;
import static io.qbeast.trino.QbeastQueryRunner.oneWriter;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.parallel.ExecutionMode.SAME_THREAD;

/**
 * Skewed indexed values: a million equal points and Zipf-distributed ones write within the
 * writer budget and with a bounded tree, and appends that each fall outside the table's revision
 * (a new revision per append) become cubes of at most twice the cube size after optimize. Tests
 * run one at a time: they read the node-wide writer counters.
 */
@Execution(SAME_THREAD)
class TestQbeastSkewedWrites
        extends AbstractTestQbeastWriterBudget
{
    private static final DataSize BUDGET = DataSize.of(16, MEGABYTE);
    private static final long CUBE_SIZE = 10_000;
    // a million rows numbered 0..999999, generated on the fly
    private static final String MILLION = "(SELECT a * 1000 + b x FROM UNNEST(sequence(0, 999)) t(a) CROSS JOIN UNNEST(sequence(0, 999)) u(b))";

    @Override
    protected DataSize budget()
    {
        return BUDGET;
    }

    @Test
    void testMillionEqualPoints()
    {
        String source = "SELECT 7 k, 'same' s, x FROM " + MILLION;
        long batches = assertWrittenWithinBudget("test_equal", "'k', 's'", source);

        List<MaterializedRow> cubes = cubes("test_equal");
        int deepest = cubes.stream().mapToInt(TestQbeastSkewedWrites::depth).max().orElseThrow();
        System.out.println(String.format("equal points: %d batches, %d cubes, deepest %d, largest %,d rows", batches, cubes.size(), deepest, largest(cubes)));
        // one point: a single chain of cubes from the root, never deeper than the indexer's maximum
        assertThat(deepest).isLessThanOrEqualTo(BatchIndexer.DEFAULT_MAX_DEPTH);
        assertThat(cubes).hasSize(deepest + 1);
        assertThat(cubes.stream().map(TestQbeastSkewedWrites::depth).toList()).doesNotHaveDuplicates();
        assertCubesHoldAtMostACubeSizePerBatch(cubes, batches);
        assertThat(cubes.stream().mapToLong(TestQbeastSkewedWrites::rows).sum()).isEqualTo(1_000_000);
        // a sample still reads a prefix of weights: about its share of the rows
        long sampled = (long) computeActual("SELECT count(*) FROM test_equal TABLESAMPLE SYSTEM (1)").getOnlyValue();
        assertThat(sampled).isBetween(5_000L, 20_000L);
        assertUpdate("DROP TABLE test_equal");
    }

    @Test
    void testZipfPoints()
    {
        // log-uniform values (P(k) proportional to 1/k, Zipf with exponent 1) from two multiplicative hashes of x
        String source = "SELECT CAST(floor(exp(ln(1e6) * ((x * 2654435761) % 4294967296) / 4294967296e0)) AS bigint) k, " +
                "CAST(floor(exp(ln(1e4) * ((x * 40503 + 12345) % 65536) / 65536e0)) AS bigint) z, x FROM " + MILLION;
        long batches = assertWrittenWithinBudget("test_zipf", "'k', 'z'", source);

        List<MaterializedRow> cubes = cubes("test_zipf");
        int deepest = cubes.stream().mapToInt(TestQbeastSkewedWrites::depth).max().orElseThrow();
        System.out.println(String.format("zipf: %d batches, %d cubes, deepest %d, largest %,d rows", batches, cubes.size(), deepest, largest(cubes)));
        // the most frequent point has 5% x 7.5% of the rows, less than a cube: no chain reaches the cap
        assertThat(deepest).isLessThan(BatchIndexer.DEFAULT_MAX_DEPTH);
        assertCubesHoldAtMostACubeSizePerBatch(cubes, batches);
        assertUpdate("DROP TABLE test_zipf");
    }

    @Test
    void testDriftingAppendsAfterOptimize()
    {
        long cubeSize = 2_000;
        long batch = 20_000;
        int appends = 4;
        // batch n (n >= 1) starts at batch * 4^n: beyond the bounds (and headroom) of every revision before it
        String numbers = "SELECT x, x %% 1000 y FROM (SELECT a * 1000 + b x FROM UNNEST(sequence(0, %d)) t(a) CROSS JOIN UNNEST(sequence(0, 999)) u(b))";
        String first = numbers.formatted(batch / 1000 - 1);
        assertUpdate("CREATE TABLE test_drift WITH (indexed_columns = ARRAY['x', 'y'], cube_size = " + cubeSize + ") AS " + first, batch);
        StringBuilder all = new StringBuilder(first);
        for (int append = 1; append <= appends; append++) {
            String rows = "SELECT x + %d x, y FROM (%s)".formatted(batch << (2 * append), first);
            assertUpdate("INSERT INTO test_drift " + rows, batch);
            all.append(" UNION ALL ").append(rows);
        }
        assertThat(computeActual("SELECT count(*) FROM \"test_drift$revisions\"").getOnlyValue()).as("revisions").isEqualTo((long) appends + 1);

        assertUpdate("ALTER TABLE test_drift EXECUTE optimize(mode => 'all')");

        // in the order they were added: the last is the current one
        Object newest = computeActual("SELECT revision_id FROM \"test_drift$revisions\"").getOnlyColumn().toList().getLast();
        assertThat(computeActual("SELECT DISTINCT revision_id FROM \"test_drift$files\"").getOnlyColumnAsSet()).containsExactly(newest);
        List<MaterializedRow> cubes = cubes("test_drift");
        System.out.println(String.format("drift: %d cubes after optimize, largest %,d rows", cubes.size(), largest(cubes)));
        assertThat(cubes.stream().mapToLong(TestQbeastSkewedWrites::rows).sum()).isEqualTo((appends + 1) * batch);
        for (MaterializedRow cube : cubes) {
            assertThat(rows(cube)).as("rows of cube %s", cube.getField(0)).isLessThanOrEqualTo(2 * cubeSize);
        }
        String checksums = "SELECT count(*), sum(x), sum(y), checksum(x), checksum(y) FROM ";
        assertThat(computeActual(checksums + "test_drift").getMaterializedRows())
                .isEqualTo(computeActual(checksums + "(" + all + ")").getMaterializedRows());
        assertUpdate("DROP TABLE test_drift");
    }

    /**
     * Writes {@code source} to a new table indexed on {@code indexed} through one sink, checks its
     * rows and the sink's memory, and returns the batches the sink indexed.
     */
    private long assertWrittenWithinBudget(String table, String indexed, String source)
    {
        resetWriterStats();
        assertUpdate(oneWriter(getSession()), "CREATE TABLE " + table + " WITH (indexed_columns = ARRAY[" + indexed + "], cube_size = " + CUBE_SIZE + ") AS " + source, 1_000_000);
        List<QbeastWriterStats> stats = writerStats();
        assertThat(stats.stream().mapToLong(QbeastWriterStats::getRowsWritten).sum()).isEqualTo(1_000_000);
        assertThat(stats.stream().mapToLong(QbeastWriterStats::getSpills).sum()).as("runs spilled").isPositive();
        assertThat(stats.stream().mapToLong(QbeastWriterStats::getPeakSinkMemory).max().orElseThrow()).as("peak memory of the sink").isLessThanOrEqualTo(BUDGET.toBytes());
        assertThat(spillFiles()).as("spill files left").isEmpty();
        MaterializedResult written = computeActual("SELECT count(*), checksum(k), checksum(x) FROM " + table);
        assertThat(written.getMaterializedRows()).isEqualTo(computeActual("SELECT count(*), checksum(k), checksum(x) FROM (" + source + ")").getMaterializedRows());
        return stats.stream().mapToLong(QbeastWriterStats::getFlushes).sum();
    }

    /**
     * Each batch of a statement keeps its lightest rows in the upper cubes (the sink's own rows do
     * not count against a cube's fill: index/README.md), so a cube above the maximum depth holds
     * at most a cube size per batch, in a single tree (no cube id twice).
     */
    private static void assertCubesHoldAtMostACubeSizePerBatch(List<MaterializedRow> cubes, long batches)
    {
        assertThat(batches).as("batches indexed").isGreaterThan(1);
        assertThat(cubes.stream().map(cube -> cube.getField(0)).toList()).doesNotHaveDuplicates();
        for (MaterializedRow cube : cubes) {
            if (depth(cube) < BatchIndexer.DEFAULT_MAX_DEPTH) {
                assertThat(rows(cube)).as("rows of cube %s", cube.getField(0)).isLessThanOrEqualTo(batches * CUBE_SIZE);
            }
        }
    }

    private static long largest(List<MaterializedRow> cubes)
    {
        return cubes.stream().mapToLong(TestQbeastSkewedWrites::rows).max().orElseThrow();
    }

    private List<MaterializedRow> cubes(String table)
    {
        return computeActual("SELECT cube_id, depth, rows FROM \"" + table + "$cubes\" ORDER BY depth, cube_id").getMaterializedRows();
    }

    private static int depth(MaterializedRow cube)
    {
        return (int) cube.getField(1);
    }

    private static long rows(MaterializedRow cube)
    {
        return (long) cube.getField(2);
    }
}

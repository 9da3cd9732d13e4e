package io.qbeast.trino;

import io.airlift.units.DataSize;
import io.qbeast.trino.write.QbeastWriterStats;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of writers given a small memory budget ({@code qbeast.writer.buffer-size}) and their own
 * spill directory: they read the node-wide writer counters, so a subclass runs its tests one at a
 * time.
 */
abstract class AbstractTestQbeastWriterBudget
        extends AbstractTestQbeastTables
{
    private final Path spillDirectory = createSpillDirectory();

    /** The memory budget of every sink. */
    protected abstract DataSize budget();

    @Override
    protected QbeastQueryRunner.Builder queryRunnerBuilder()
    {
        return QbeastQueryRunner.builder()
                .addConnectorProperty("qbeast.writer.buffer-size", budget().toString())
                .addConnectorProperty("qbeast.writer.spill-path", spillDirectory.toString());
    }

    /** The files in the writers' spill directory now. */
    protected final List<Path> spillFiles()
    {
        try (Stream<Path> files = Files.list(spillDirectory)) {
            return files.toList();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The writer counters of each node since the last {@link #resetWriterStats()}: of the nodes
     * that have built the catalog's connector (a node builds it for its first task of the
     * catalog, with zero counters).
     */
    protected final List<QbeastWriterStats> writerStats()
    {
        assertThat(connectors()).hasSizeLessThanOrEqualTo(getDistributedQueryRunner().getNodeCount());
        return connectors().stream().map(QbeastConnector::getWriterStats).toList();
    }

    protected final void resetWriterStats()
    {
        // writers of an earlier failed query may still be running after the failure reached the
        // client; their rows must not count in the next test's statistics
        assertEventually(() -> assertThat(getDistributedQueryRunner().getServers().stream()
                .flatMap(server -> server.getTaskManager().getAllTaskInfo().stream())
                .allMatch(task -> task.taskStatus().state().isDone()))
                .as("every task of earlier queries is done")
                .isTrue());
        writerStats().forEach(QbeastWriterStats::reset);
    }

    /** Retries {@code assertion} for up to 30 seconds (aborts and rollbacks are asynchronous). */
    protected static void assertEventually(Runnable assertion)
    {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (true) {
            try {
                assertion.run();
                return;
            }
            catch (AssertionError e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                try {
                    Thread.sleep(200);
                }
                catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    private static Path createSpillDirectory()
    {
        try {
            Path directory = Files.createTempDirectory("qbeast-spill-test");
            directory.toFile().deleteOnExit();
            return directory;
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

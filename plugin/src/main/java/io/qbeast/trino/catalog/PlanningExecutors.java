package io.qbeast.trino.catalog;

import com.google.inject.Inject;
import io.qbeast.trino.config.QbeastConfig;
import jakarta.annotation.PreDestroy;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;

import static io.airlift.concurrent.Threads.daemonThreadsNamed;
import static java.util.concurrent.TimeUnit.SECONDS;

/**
 * The coordinator's threads for reading table metadata, two bounded pools of
 * {@code qbeast.split-manager-threads} each, shut down with the connector. Two, because a task of
 * the first waits for tasks of the second: a split source's batch iterates an Iceberg scan whose
 * manifests are read in parallel ({@code planWith}); in one bounded pool, batches holding every
 * thread would wait forever for manifest reads queued behind them. Manifest reads and the file
 * reads of {@code $cubes} wait for nothing.
 */
public final class PlanningExecutors
{
    private final ExecutorService splitBatches;
    private final ExecutorService metadataReads;

    @Inject
    public PlanningExecutors(QbeastConfig config)
    {
        this(config.getSplitManagerThreads());
    }

    public PlanningExecutors(int threads)
    {
        splitBatches = boundedPool(threads, "qbeast-split-batches-%s");
        metadataReads = boundedPool(threads, "qbeast-metadata-reads-%s");
    }

    /** Runs the batches of split sources; its tasks may wait for {@link #metadataReads()}. */
    public ExecutorService splitBatches()
    {
        return splitBatches;
    }

    /** Reads manifests for scans and files for {@code $cubes}; its tasks wait for no other task. */
    public ExecutorService metadataReads()
    {
        return metadataReads;
    }

    @PreDestroy
    public void shutdown()
    {
        splitBatches.shutdownNow();
        metadataReads.shutdownNow();
    }

    // threads are made as tasks come, up to the bound, and end after a minute idle
    private static ExecutorService boundedPool(int threads, String nameFormat)
    {
        ThreadPoolExecutor executor = new ThreadPoolExecutor(threads, threads, 60, SECONDS, new LinkedBlockingQueue<>(), daemonThreadsNamed(nameFormat));
        executor.allowCoreThreadTimeOut(true);
        return executor;
    }
}

package io.qbeast.trino;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import io.trino.spi.SplitWeight;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorSplitSource;
import io.trino.spi.connector.DynamicFilter;
import io.trino.spi.predicate.TupleDomain;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import static java.util.Objects.requireNonNull;

/**
 * One split per row-group range of every file the scan keeps: files are split at their row-group
 * offsets into pieces of about {@link #TARGET_SPLIT_SIZE}, so a large file is read in parallel.
 * Batches are produced on the planning executor.
 */
public class QbeastSplitSource
        implements ConnectorSplitSource
{
    static final long TARGET_SPLIT_SIZE = 64L * 1024 * 1024;

    private final TableScan scan;
    private final Executor executor;
    private final QbeastFilePruner pruner;
    private final TupleDomain<QbeastColumnHandle> predicate;
    private final DynamicFilter dynamicFilter;
    private long keptFiles;
    private long prunedFiles;
    private CloseableIterable<FileScanTask> files;
    private CloseableIterator<FileScanTask> fileIterator;
    private Iterator<FileScanTask> pieces = ImmutableList.<FileScanTask>of().iterator();
    private volatile boolean finished;
    // an optimize's scan: the files to read, and those read so far (handed to finishTableExecute)
    private final Optional<Set<String>> optimizeFiles;
    private final List<Object> scannedFiles = new ArrayList<>();

    public QbeastSplitSource(TableScan scan, Executor executor)
    {
        this(scan, executor, null, TupleDomain.all(), DynamicFilter.EMPTY);
    }

    /**
     * @param pruner drops files by cube region and weight ({@code null}: no index pruning)
     * @param predicate the handle's predicate; narrowed by the dynamic filter's current predicate at every batch
     */
    public QbeastSplitSource(TableScan scan, Executor executor, QbeastFilePruner pruner, TupleDomain<QbeastColumnHandle> predicate, DynamicFilter dynamicFilter)
    {
        this(scan, executor, pruner, predicate, dynamicFilter, Optional.empty());
    }

    /** The scan of an optimize: every row of exactly {@code files} (a subset of the scan's files). */
    public static QbeastSplitSource forOptimize(TableScan scan, Executor executor, Set<String> files)
    {
        return new QbeastSplitSource(scan, executor, null, TupleDomain.all(), DynamicFilter.EMPTY, Optional.of(ImmutableSet.copyOf(files)));
    }

    private QbeastSplitSource(TableScan scan, Executor executor, QbeastFilePruner pruner, TupleDomain<QbeastColumnHandle> predicate, DynamicFilter dynamicFilter, Optional<Set<String>> optimizeFiles)
    {
        this.optimizeFiles = requireNonNull(optimizeFiles, "optimizeFiles is null");
        this.scan = requireNonNull(scan, "scan is null");
        this.executor = requireNonNull(executor, "executor is null");
        this.pruner = pruner;
        this.predicate = requireNonNull(predicate, "predicate is null");
        this.dynamicFilter = requireNonNull(dynamicFilter, "dynamicFilter is null");
    }

    @Override
    public CompletableFuture<ConnectorSplitBatch> getNextBatch(int maxSize)
    {
        return CompletableFuture.supplyAsync(() -> nextBatch(maxSize), executor);
    }

    private synchronized ConnectorSplitBatch nextBatch(int maxSize)
    {
        if (fileIterator == null) {
            files = scan.planFiles();
            fileIterator = files.iterator();
        }
        if (pruner != null) {
            // the dynamic filter only ever narrows: its current predicate is always safe to prune with
            pruner.setPredicate(predicate.intersect(dynamicFilter.getCurrentPredicate().transformKeys(QbeastColumnHandle.class::cast)));
        }
        ImmutableList.Builder<ConnectorSplit> splits = ImmutableList.builder();
        int count = 0;
        while (count < maxSize) {
            if (!pieces.hasNext()) {
                if (!fileIterator.hasNext()) {
                    finished = true;
                    break;
                }
                FileScanTask task = fileIterator.next();
                if (optimizeFiles.isPresent()) {
                    if (!optimizeFiles.get().contains(task.file().location())) {
                        continue;
                    }
                    scannedFiles.add(task.file().location());
                }
                if (pruner != null && !pruner.mayContain(task.file())) {
                    prunedFiles++;
                    continue;
                }
                keptFiles++;
                pieces = task.split(TARGET_SPLIT_SIZE).iterator();
                continue;
            }
            splits.add(toSplit(pieces.next()));
            count++;
        }
        if (!finished && !pieces.hasNext() && !fileIterator.hasNext()) {
            finished = true;
        }
        return new ConnectorSplitBatch(splits.build(), finished);
    }

    private static QbeastSplit toSplit(FileScanTask task)
    {
        long fileSize = task.file().fileSizeInBytes();
        double weight = Math.min(1.0, Math.max((double) task.length() / TARGET_SPLIT_SIZE, 0.01));
        return new QbeastSplit(task.file().location(), task.start(), task.length(), fileSize, task.file().recordCount(), SplitWeight.fromProportion(weight));
    }

    @Override
    public synchronized Optional<List<Object>> getTableExecuteSplitsInfo()
    {
        return optimizeFiles.map(_ -> ImmutableList.copyOf(scannedFiles));
    }

    @Override
    public boolean isFinished()
    {
        return finished;
    }

    @Override
    public synchronized void close()
    {
        try {
            if (fileIterator != null) {
                fileIterator.close();
            }
            if (files != null) {
                files.close();
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

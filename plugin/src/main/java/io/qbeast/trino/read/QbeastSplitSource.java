package io.qbeast.trino.read;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.qbeast.trino.handle.QbeastColumnHandle;
import io.qbeast.trino.handle.QbeastDeleteFile;
import io.qbeast.trino.handle.QbeastSplit;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.spi.SplitWeight;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorSplitSource;
import io.trino.spi.connector.DynamicFilterSnapshot;
import io.trino.spi.metrics.Metric;
import io.trino.spi.metrics.Metrics;
import io.trino.spi.predicate.TupleDomain;
import org.apache.iceberg.DeleteFile;
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
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static java.util.Objects.requireNonNull;

/**
 * One split per row-group range of every file the scan keeps: files are split at their row-group
 * offsets into pieces of at most about the session's {@code max_split_size}, so a large file is read in parallel.
 * Batches are produced on the planning executor; each narrows the pruning predicate by the
 * dynamic filter's state the engine hands it ({@link DynamicFilterSnapshot}).
 */
public class QbeastSplitSource
        implements ConnectorSplitSource
{
    /**
     * Iceberg's {@code read.split.target-size} default, and {@code qbeast.max-split-size}'s: the
     * splits of an optimize. Each split opens its file; a qbeast file has one row group per cube
     * slice (a hundred or more in a large file), so its footer is large (a node parses it once,
     * {@code FooterCache}) and fewer, larger splits open it fewer times.
     */
    static final long TARGET_SPLIT_SIZE = 128L * 1024 * 1024;
    public static final String FILES_SCANNED = "qbeast_files_scanned";
    public static final String FILES_PRUNED_BY_SAMPLE = "qbeast_files_pruned_by_sample";
    public static final String FILES_PRUNED_BY_REGION = "qbeast_files_pruned_by_region";
    public static final String FILES_PRUNED_BY_BOUNDS = "qbeast_files_pruned_by_column_bounds";
    public static final String FILES_PRUNED_BY_FILE_METADATA = "qbeast_files_pruned_by_path_or_modified_time";
    public static final String SPLITS = "qbeast_splits";

    // the scan's files, planned on the first batch
    private final Supplier<CloseableIterable<FileScanTask>> plan;
    private final Executor executor;
    private final QbeastFilePruner pruner;
    private final TupleDomain<QbeastColumnHandle> predicate;
    private final OptionalLong snapshotFiles;
    // a data file's modification time in epoch milliseconds, read only for a predicate on $file_modified_time
    private final ToLongFunction<String> modifiedMillis;
    private final long maxSplitSize;
    // the delete files Iceberg attached to a data file, as its splits carry them
    private final Function<List<DeleteFile>, List<QbeastDeleteFile>> deleteHandles;
    private long keptFiles;
    private long prunedByFileMetadata;
    private long prunedBySample;
    private long prunedByRegion;
    private long splitCount;
    private CloseableIterable<FileScanTask> files;
    private CloseableIterator<FileScanTask> fileIterator;
    private Iterator<QbeastSplit> pieces = ImmutableList.<QbeastSplit>of().iterator();
    private volatile boolean finished;
    // an optimize's scan: the files to read, and those read so far (handed to finishTableExecute)
    private final Optional<Set<String>> optimizeFiles;
    private final List<Object> scannedFiles = new ArrayList<>();

    /**
     * @param pruner drops files by cube region and weight ({@code null}: no index pruning)
     * @param predicate the handle's predicate; narrowed by the dynamic filter's snapshot at every batch
     * @param snapshotFiles the snapshot's data file count (from its summary), to report how many the Iceberg scan's column-bounds filter skipped
     * @param modifiedMillis a data file's modification time in epoch milliseconds, by its location
     * @param deleteHandles the delete files of a planned file, as a split carries them
     * @param maxSplitSize the largest split in bytes (of whole row groups; a larger row group is a split of its own)
     */
    public QbeastSplitSource(TableScan scan, Executor executor, QbeastFilePruner pruner, TupleDomain<QbeastColumnHandle> predicate, OptionalLong snapshotFiles, ToLongFunction<String> modifiedMillis, Function<List<DeleteFile>, List<QbeastDeleteFile>> deleteHandles, long maxSplitSize)
    {
        this(scan::planFiles, executor, pruner, predicate, snapshotFiles, modifiedMillis, deleteHandles, Optional.empty(), maxSplitSize);
    }

    /**
     * The scan of an optimize: every row of exactly the files it chose (whole, with their
     * statistics and delete files as planned when it began: the snapshot is not planned again).
     */
    public static QbeastSplitSource forOptimize(List<FileScanTask> files, Executor executor, Function<List<DeleteFile>, List<QbeastDeleteFile>> deleteHandles)
    {
        Set<String> locations = files.stream().map(task -> task.file().location()).collect(toImmutableSet());
        return new QbeastSplitSource(() -> CloseableIterable.withNoopClose(files), executor, null, TupleDomain.all(), OptionalLong.empty(), _ -> {
            throw new IllegalStateException("An optimize's scan has no predicate");
        }, deleteHandles, Optional.of(locations), TARGET_SPLIT_SIZE);
    }

    private QbeastSplitSource(Supplier<CloseableIterable<FileScanTask>> plan, Executor executor, QbeastFilePruner pruner, TupleDomain<QbeastColumnHandle> predicate, OptionalLong snapshotFiles, ToLongFunction<String> modifiedMillis, Function<List<DeleteFile>, List<QbeastDeleteFile>> deleteHandles, Optional<Set<String>> optimizeFiles, long maxSplitSize)
    {
        checkArgument(maxSplitSize > 0, "maxSplitSize is not positive: %s", maxSplitSize);
        this.maxSplitSize = maxSplitSize;
        this.deleteHandles = requireNonNull(deleteHandles, "deleteHandles is null");
        this.modifiedMillis = requireNonNull(modifiedMillis, "modifiedMillis is null");
        this.snapshotFiles = requireNonNull(snapshotFiles, "snapshotFiles is null");
        this.optimizeFiles = requireNonNull(optimizeFiles, "optimizeFiles is null");
        this.plan = requireNonNull(plan, "plan is null");
        this.executor = requireNonNull(executor, "executor is null");
        this.pruner = pruner;
        this.predicate = requireNonNull(predicate, "predicate is null");
    }

    @Override
    public CompletableFuture<List<ConnectorSplit>> getNextBatch(int maxSize, DynamicFilterSnapshot dynamicFilter)
    {
        requireNonNull(dynamicFilter, "dynamicFilter is null");
        return CompletableFuture.supplyAsync(() -> nextBatch(maxSize, dynamicFilter), executor);
    }

    private synchronized List<ConnectorSplit> nextBatch(int maxSize, DynamicFilterSnapshot dynamicFilter)
    {
        if (fileIterator == null) {
            files = plan.get();
            fileIterator = files.iterator();
        }
        // the dynamic filter only ever narrows: its current predicate is always safe to prune with.
        // An optimize rewrites exactly the files it chose, whatever the filter
        TupleDomain<QbeastColumnHandle> current = optimizeFiles.isPresent()
                ? predicate
                : predicate.intersect(dynamicFilter.currentPredicate().transformKeys(QbeastColumnHandle.class::cast));
        if (pruner != null) {
            pruner.setPredicate(current);
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
                QbeastFilePruner.Verdict verdict = pruner == null ? QbeastFilePruner.Verdict.KEEP : pruner.check(task.file());
                switch (verdict) {
                    case KEEP -> {}
                    case SAMPLE -> prunedBySample++;
                    case REGION, EMPTY_SCAN -> prunedByRegion++;
                }
                if (verdict != QbeastFilePruner.Verdict.KEEP) {
                    continue;
                }
                // exact: all rows of a file share its path and time (applyFilter leaves these domains to the connector)
                String location = task.file().location();
                if (!FileMetadataColumns.matches(current, location, () -> modifiedMillis.applyAsLong(location))) {
                    prunedByFileMetadata++;
                    continue;
                }
                keptFiles++;
                pieces = splits(task, deleteHandles.apply(task.deletes())).iterator();
                continue;
            }
            splits.add(pieces.next());
            splitCount++;
            count++;
        }
        if (!finished && !pieces.hasNext() && !fileIterator.hasNext()) {
            finished = true;
        }
        return splits.build();
    }

    /**
     * Iceberg cuts a file at every row-group offset; consecutive row groups are joined again up to
     * the largest split size, so a file of many small row groups (the writer cuts files into
     * several for samples) is still one split, opened and its footer read once.
     */
    private List<QbeastSplit> splits(FileScanTask task, List<QbeastDeleteFile> deletes)
    {
        ImmutableList.Builder<QbeastSplit> splits = ImmutableList.builder();
        long start = -1;
        long end = -1;
        for (FileScanTask piece : task.split(maxSplitSize)) {
            if (start >= 0 && piece.start() == end && piece.start() + piece.length() - start <= maxSplitSize) {
                end = piece.start() + piece.length();
                continue;
            }
            if (start >= 0) {
                splits.add(toSplit(task, start, end - start, deletes));
            }
            start = piece.start();
            end = piece.start() + piece.length();
        }
        if (start >= 0) {
            splits.add(toSplit(task, start, end - start, deletes));
        }
        return splits.build();
    }

    private QbeastSplit toSplit(FileScanTask task, long start, long length, List<QbeastDeleteFile> deletes)
    {
        long fileSize = task.file().fileSizeInBytes();
        double weight = Math.min(1.0, Math.max((double) length / maxSplitSize, 0.01));
        return new QbeastSplit(task.file().location(), start, length, fileSize, task.file().recordCount(), deletes, SplitWeight.fromProportion(weight));
    }

    /**
     * Shown by {@code EXPLAIN ANALYZE VERBOSE} as the scan's "splits generation metrics": files the
     * Iceberg scan returned (after its column-bounds filter) that were kept, dropped because their
     * lightest row is not in the sample, or dropped because their cube region misses the predicate.
     */
    @Override
    public synchronized Metrics getMetrics()
    {
        ImmutableMap.Builder<String, Metric<?>> metrics = ImmutableMap.<String, Metric<?>>builder()
                .put(FILES_SCANNED, new LongCount(keptFiles))
                .put(FILES_PRUNED_BY_SAMPLE, new LongCount(prunedBySample))
                .put(FILES_PRUNED_BY_REGION, new LongCount(prunedByRegion))
                .put(FILES_PRUNED_BY_FILE_METADATA, new LongCount(prunedByFileMetadata))
                .put(SPLITS, new LongCount(splitCount));
        if (finished && snapshotFiles.isPresent()) {
            // known only once the scan is exhausted
            metrics.put(FILES_PRUNED_BY_BOUNDS, new LongCount(snapshotFiles.getAsLong() - keptFiles - prunedBySample - prunedByRegion - prunedByFileMetadata));
        }
        return new Metrics(metrics.buildOrThrow());
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

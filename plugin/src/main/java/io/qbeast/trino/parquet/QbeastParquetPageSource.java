package io.qbeast.trino.parquet;

import com.google.common.collect.ImmutableMap;
import io.trino.parquet.ParquetCorruptionException;
import io.trino.parquet.ParquetDataSourceId;
import io.trino.parquet.reader.ParquetReader;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.block.RunLengthEncodedBlock;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.metrics.Metrics;
import io.trino.spi.predicate.Domain;
import io.trino.spi.type.Type;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.ObjLongConsumer;
import java.util.stream.Stream;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.airlift.slice.SizeOf.instanceSize;
import static io.airlift.slice.SizeOf.sizeOf;
import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_BAD_DATA;
import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_CURSOR_ERROR;
import static io.trino.spi.type.IntegerType.INTEGER;
import static java.util.Objects.requireNonNull;

/**
 * Pages of one Parquet split: the requested columns (nulls for columns the file lacks), with the
 * sample's weight bound enforced row by row. Rows whose {@code _qbeast_weight} is at or above the
 * bound are dropped before any other column is decoded ({@link SourcePage#selectPositions}), so a
 * sample decodes only the rows it returns. Rows with no stored weight (files written by other
 * engines, or null weights) get a pseudo-random weight derived from the file and row position.
 * The table predicate's domains on non-nested columns are enforced here too ({@link RowFilter},
 * compiled per split by {@link DomainFilter}), after the weight bound, and then the handle's row
 * predicates ({@link RowPredicateFilter}); the engine filters only by what
 * {@code QbeastMetadata.applyFilter} leaves it.
 */
public final class QbeastParquetPageSource
        implements ConnectorPageSource
{
    private static final long INSTANCE_SIZE = instanceSize(QbeastParquetPageSource.class);
    public static final String ROW_GROUPS_READ = "qbeast_row_groups_read";
    public static final String ROW_GROUPS_SKIPPED = "qbeast_row_groups_skipped";
    public static final String ROWS_DROPPED_BY_WEIGHT = "qbeast_rows_dropped_by_weight";
    public static final String SPLITS_STOPPED_AT_BOUND = "qbeast_splits_stopped_at_weight_bound";

    private final ParquetReader reader;
    // for each output channel, its reader channel, or -1 for a column missing in the file
    private final int[] outputToReaderChannel;
    private final Block[] missingColumnValues;
    private final Optional<WeightFilter> weightFilter;
    // the merge row id's channel and how to build it, when requested (DELETE, UPDATE, MERGE)
    private final Optional<MergeRowIds> mergeRowIds;

    // after the weight bound, in order: the predicate's domains, other engines' deletes (so a deleted
    // row never reaches an expression that could fail), the handle's row predicates
    private final List<RowSelection> rowSelections;
    // rows are in ascending stored weight (files of the qbeast writer): the first weight at or past the bound ends the split
    private final boolean sortedByWeight;
    private final long rowGroupsRead;
    private final long rowGroupsSkipped;

    private long completedPositions;
    private long rowsDroppedByWeight;
    private boolean pastWeightBound;
    private boolean closed;

    /**
     * @param weightFilter where the weight and row-number channels are, when sampling
     * @param rowFilter the predicate's domains checked per row, when any
     * @param deleteFilter the rows that delete files remove from the file, when any
     * @param rowPredicateFilter the handle's row predicates (not domains) checked per row after the
     *        domains and the deletes (a deleted row never reaches an expression that could fail), when any
     * @param mergeRowIds the channel of the merge row id and where its parts are, when requested
     * @param sortedByWeight the file's rows are in ascending {@code _qbeast_weight}: reading stops at the first row at or past the weight bound
     * @param rowGroupsRead row groups of the split given to the reader, for {@link #getMetrics()}
     * @param rowGroupsSkipped row groups of the split that statistics (predicate, weight bound) skipped, for {@link #getMetrics()}
     */
    QbeastParquetPageSource(ParquetReader reader, int[] outputToReaderChannel, Block[] missingColumnValues, Optional<WeightFilter> weightFilter, Optional<RowFilter> rowFilter, Optional<DeleteFilter> deleteFilter, Optional<RowPredicateFilter> rowPredicateFilter, Optional<MergeRowIds> mergeRowIds, boolean sortedByWeight, long rowGroupsRead, long rowGroupsSkipped)
    {
        this.sortedByWeight = sortedByWeight;
        this.rowGroupsRead = rowGroupsRead;
        this.rowGroupsSkipped = rowGroupsSkipped;
        this.rowSelections = Stream.of(
                        requireNonNull(rowFilter, "rowFilter is null"),
                        requireNonNull(deleteFilter, "deleteFilter is null"),
                        requireNonNull(rowPredicateFilter, "rowPredicateFilter is null"))
                .flatMap(Optional::stream)
                .map(RowSelection.class::cast)
                .collect(toImmutableList());
        this.reader = requireNonNull(reader, "reader is null");
        this.outputToReaderChannel = outputToReaderChannel.clone();
        this.missingColumnValues = missingColumnValues.clone();
        checkArgument(outputToReaderChannel.length == missingColumnValues.length, "channel mapping and missing values differ in length");
        this.weightFilter = requireNonNull(weightFilter, "weightFilter is null");
        this.mergeRowIds = requireNonNull(mergeRowIds, "mergeRowIds is null");
    }

    @Override
    public SourcePage getNextSourcePage()
    {
        while (!closed) {
            if (pastWeightBound) {
                // every later row of the file weighs at least the bound: none is in the sample
                close();
                return null;
            }
            SourcePage page;
            try {
                page = reader.nextPage();
            }
            catch (IOException | RuntimeException e) {
                closeWithSuppression(e);
                throw handleException(reader.getDataSource().getId(), e);
            }
            if (page == null) {
                close();
                return null;
            }
            completedPositions += page.getPositionCount();

            int[] selection = null;
            if (weightFilter.isPresent()) {
                try {
                    selection = weightFilter.get().apply(page);
                    rowsDroppedByWeight += selection == null ? 0 : page.getPositionCount() - selection.length;
                    pastWeightBound = sortedByWeight && weightFilter.get().lastAtOrPastBound(page);
                    if (selection != null && selection.length == 0) {
                        // no row of this batch is in the sample; nothing else was decoded
                        continue;
                    }
                }
                catch (RuntimeException e) {
                    closeWithSuppression(e);
                    throw handleException(reader.getDataSource().getId(), e);
                }
            }
            try {
                for (RowSelection step : rowSelections) {
                    selection = step.apply(page, selection);
                    if (selection != null && selection.length == 0) {
                        break;
                    }
                }
            }
            catch (RuntimeException e) {
                closeWithSuppression(e);
                throw handleException(reader.getDataSource().getId(), e);
            }
            if (selection != null && selection.length == 0) {
                continue;
            }
            // the selection is kept here, not in the reader's page: trino-parquet 476's page applies a
            // second selectPositions (the engine's filter) to blocks it already filtered, losing rows
            return new ProjectedSourcePage(page, outputToReaderChannel, missingColumnValues, mergeRowIds, reader.getDataSource().getId(), selection);
        }
        return null;
    }

    @Override
    public long getCompletedBytes()
    {
        return reader.getDataSource().getReadBytes();
    }

    /**
     * Rows read from the file, before the weight bound is applied.
     */
    @Override
    public OptionalLong getCompletedPositions()
    {
        return OptionalLong.of(completedPositions);
    }

    @Override
    public long getReadTimeNanos()
    {
        return reader.getDataSource().getReadTimeNanos();
    }

    @Override
    public boolean isFinished()
    {
        return closed;
    }

    @Override
    public long getMemoryUsage()
    {
        return INSTANCE_SIZE + reader.getMemoryContext().getBytes();
    }

    /**
     * The reader's metrics plus, shown by {@code EXPLAIN ANALYZE VERBOSE} as the scan's connector
     * metrics: row groups given to the reader (one read only up to the weight bound counts too),
     * row groups skipped by statistics, rows read but dropped by the sample's weight bound, and
     * splits whose reading stopped at the bound before their end.
     */
    @Override
    public Metrics getMetrics()
    {
        return reader.getMetrics().mergeWith(new Metrics(ImmutableMap.of(
                ROW_GROUPS_READ, new LongCount(rowGroupsRead),
                ROW_GROUPS_SKIPPED, new LongCount(rowGroupsSkipped),
                ROWS_DROPPED_BY_WEIGHT, new LongCount(rowsDroppedByWeight),
                SPLITS_STOPPED_AT_BOUND, new LongCount(pastWeightBound ? 1 : 0))));
    }

    @Override
    public void close()
    {
        if (closed) {
            return;
        }
        closed = true;
        try {
            reader.close();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void closeWithSuppression(Throwable throwable)
    {
        try {
            close();
        }
        catch (RuntimeException e) {
            if (e != throwable) {
                throwable.addSuppressed(e);
            }
        }
    }

    static TrinoException handleException(ParquetDataSourceId dataSourceId, Exception exception)
    {
        if (exception instanceof TrinoException trinoException) {
            return trinoException;
        }
        if (exception instanceof ParquetCorruptionException) {
            return new TrinoException(QBEAST_BAD_DATA, "Corrupt Parquet file %s: %s".formatted(dataSourceId, exception.getMessage()), exception);
        }
        return new TrinoException(QBEAST_CURSOR_ERROR, "Failed to read Parquet file %s: %s".formatted(dataSourceId, exception.getMessage()), exception);
    }

    /**
     * Keeps the rows of a batch whose weight is below the bound.
     *
     * @param weightChannel reader channel of the stored weights, or -1 when the file has none
     * @param rowNumberChannel reader channel of the file row numbers
     * @param fileSeed mixed into derived weights so different files sample different row positions
     */
    record WeightFilter(int weightChannel, int rowNumberChannel, long weightUpperBound, long fileSeed)
    {
        /**
         * @return the positions of the sampled rows, ascending; {@code null} when every row is sampled
         */
        int[] apply(SourcePage page)
        {
            int positionCount = page.getPositionCount();
            Block weights = weightChannel >= 0 ? page.getBlock(weightChannel) : null;
            Block rowNumbers = null;
            int[] selected = new int[positionCount];
            int count = 0;
            for (int position = 0; position < positionCount; position++) {
                if (rowNumbers == null && (weights == null || weights.isNull(position))) {
                    // row numbers are decoded only when some row of the batch has no stored weight
                    rowNumbers = page.getBlock(rowNumberChannel);
                }
                int weight = RowWeights.weightOf(weights, rowNumbers, position, fileSeed);
                if (weight < weightUpperBound) {
                    selected[count++] = position;
                }
            }
            return count == positionCount ? null : Arrays.copyOf(selected, count);
        }

        /** Whether the batch's last row has a stored weight at or past the bound. */
        boolean lastAtOrPastBound(SourcePage page)
        {
            int last = page.getPositionCount() - 1;
            if (weightChannel < 0 || last < 0) {
                return false;
            }
            Block weights = page.getBlock(weightChannel);
            return !weights.isNull(last) && INTEGER.getInt(weights, last) >= weightUpperBound;
        }
    }

    /**
     * Keeps the rows whose values are in every domain (a missing column, channel -1, is NULL).
     *
     * @param filters the domains compiled for the types ({@link DomainFilter}), once per split
     */
    record RowFilter(int[] channels, List<Domain> domains, List<Type> types, List<DomainFilter> filters)
            implements RowSelection
    {
        RowFilter
        {
            checkArgument(channels.length == domains.size() && domains.size() == types.size() && types.size() == filters.size(), "channels, domains, types and filters differ in length");
        }

        RowFilter(int[] channels, List<Domain> domains, List<Type> types)
        {
            this(channels, domains, types, compile(domains, types));
        }

        private static List<DomainFilter> compile(List<Domain> domains, List<Type> types)
        {
            checkArgument(domains.size() == types.size(), "domains and types differ in length");
            DomainFilter[] filters = new DomainFilter[domains.size()];
            for (int i = 0; i < filters.length; i++) {
                filters[i] = DomainFilter.of(domains.get(i), types.get(i));
            }
            return List.of(filters);
        }

        @Override
        public int[] apply(SourcePage page, int[] selection)
        {
            int count = selection == null ? page.getPositionCount() : selection.length;
            int[] kept = new int[count];
            for (int i = 0; i < count; i++) {
                kept[i] = selection == null ? i : selection[i];
            }
            // each filter compacts the positions the previous ones kept; a column is decoded only
            // while some row is left
            for (int filter = 0; filter < channels.length && count > 0; filter++) {
                Block block = channels[filter] < 0 ? null : page.getBlock(channels[filter]);
                count = filters.get(filter).filter(block, kept, count);
            }
            if (selection == null && count == page.getPositionCount()) {
                return null;
            }
            return Arrays.copyOf(kept, count);
        }
    }

    /**
     * The reader's page seen through the requested column order: missing columns are constant
     * nulls, extra reader channels (weight, row number) are hidden. Blocks still decode lazily,
     * when the engine asks for them, so decoding errors are translated here too.
     */
    private static final class ProjectedSourcePage
            implements SourcePage
    {
        private static final long INSTANCE_SIZE = instanceSize(ProjectedSourcePage.class);

        private final SourcePage delegate;
        private final int[] channels;
        private final Block[] missingColumnValues;
        private final Optional<MergeRowIds> mergeRowIds;
        private final ParquetDataSourceId dataSourceId;
        // positions of the delegate's rows this page has (ascending), null: all of them
        private int[] selection;
        private boolean delegateSelected;
        // the row ids of the current selection, built once however often the engine asks
        private Block mergeRowIdBlock;

        ProjectedSourcePage(SourcePage delegate, int[] channels, Block[] missingColumnValues, Optional<MergeRowIds> mergeRowIds, ParquetDataSourceId dataSourceId, int[] selection)
        {
            this.delegate = delegate;
            this.channels = channels;
            this.missingColumnValues = missingColumnValues;
            this.mergeRowIds = mergeRowIds;
            this.dataSourceId = dataSourceId;
            this.selection = selection;
        }

        @Override
        public int getPositionCount()
        {
            return selection == null ? delegate.getPositionCount() : selection.length;
        }

        @Override
        public long getSizeInBytes()
        {
            return delegate.getSizeInBytes();
        }

        @Override
        public long getRetainedSizeInBytes()
        {
            return INSTANCE_SIZE + sizeOf(channels) + (selection == null ? 0 : sizeOf(selection)) + delegate.getRetainedSizeInBytes();
        }

        @Override
        public void retainedBytesForEachPart(ObjLongConsumer<Object> consumer)
        {
            consumer.accept(this, INSTANCE_SIZE);
            consumer.accept(channels, sizeOf(channels));
            delegate.retainedBytesForEachPart(consumer);
        }

        @Override
        public int getChannelCount()
        {
            return channels.length;
        }

        @Override
        public Block getBlock(int channel)
        {
            if (mergeRowIds.isPresent() && mergeRowIds.get().outputChannel() == channel) {
                try {
                    if (mergeRowIdBlock == null) {
                        mergeRowIdBlock = mergeRowIds.get().block(delegate, selection);
                    }
                    return mergeRowIdBlock;
                }
                catch (RuntimeException e) {
                    throw handleException(dataSourceId, e);
                }
            }
            int readerChannel = channels[channel];
            if (readerChannel < 0) {
                return RunLengthEncodedBlock.create(missingColumnValues[channel], getPositionCount());
            }
            try {
                Block block = delegate.getBlock(readerChannel);
                return selection == null ? block : block.getPositions(selection, 0, selection.length);
            }
            catch (RuntimeException e) {
                throw handleException(dataSourceId, e);
            }
        }

        @Override
        public Page getPage()
        {
            Block[] blocks = new Block[channels.length];
            for (int channel = 0; channel < channels.length; channel++) {
                blocks[channel] = getBlock(channel);
            }
            return new Page(getPositionCount(), blocks);
        }

        @Override
        public void selectPositions(int[] positions, int offset, int size)
        {
            mergeRowIdBlock = null;
            if (selection == null && !delegateSelected) {
                // the reader's own selection skips decoding unselected rows; it is right only once
                delegate.selectPositions(positions, offset, size);
                delegateSelected = true;
                return;
            }
            int[] composed = new int[size];
            for (int i = 0; i < size; i++) {
                int position = positions[offset + i];
                composed[i] = selection == null ? position : selection[position];
            }
            selection = composed;
        }
    }
}

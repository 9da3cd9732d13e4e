package io.qbeast.trino.read;

import com.google.common.base.Suppliers;
import com.google.inject.Inject;
import io.airlift.units.DataSize;
import io.qbeast.trino.catalog.QbeastFileSystemFactory;
import io.qbeast.trino.handle.QbeastColumnHandle;
import io.qbeast.trino.handle.QbeastSplit;
import io.qbeast.trino.handle.QbeastTableHandle;
import io.qbeast.trino.parquet.DeleteFileReader;
import io.qbeast.trino.parquet.FooterCache;
import io.qbeast.trino.parquet.QbeastPageSourceFactory;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.filesystem.TrinoFileSystemFactory;
import io.trino.filesystem.TrinoInputFile;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.spi.block.Block;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.ConnectorPageSourceProvider;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorTableCredentials;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.DynamicFilter;
import io.trino.spi.connector.EmptyPageSource;
import io.trino.spi.connector.MemoryContext;
import io.trino.spi.connector.MemoryUsageReportingPageSource;
import io.trino.spi.predicate.TupleDomain;

import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.airlift.units.DataSize.Unit.KILOBYTE;
import static io.trino.spi.type.TypeUtils.writeNativeValue;
import static java.util.Objects.requireNonNull;

/**
 * Reads a split with the Parquet page source: the pushed-down predicate and the current dynamic
 * filter prune row groups, and the page source enforces the predicate's domains on non-nested
 * columns row by row, and then the handle's row predicates (the expressions
 * {@code QbeastMetadata.applyFilter} took over, see {@link RowPredicateTranslator}); the engine
 * filters only by what is left (nested columns, other expressions). Rows that the split's delete
 * files (position and equality deletes of other engines) remove are never returned. The file metadata columns ({@code $path},
 * {@code $file_modified_time}) are not read from the file: {@link FileMetadataPageSource} adds the
 * split's values.
 */
public class QbeastPageSourceProvider
        implements ConnectorPageSourceProvider
{
    private final TrinoFileSystemFactory fileSystemFactory;
    private final QbeastPageSourceFactory pageSourceFactory;
    // qbeast files are cut into many row groups (a cube's weight slices, each its own region): a
    // column's chunk in one row group is a few kB to a few hundred kB, so the chunks a query needs
    // are separated by small gaps of the other columns, and each merged gap is read for nothing.
    // Measured on the SSB flat table (sf0.3, 193 row groups, SSB Q3.1's 6 of 33 columns): 14.1 MiB
    // of needed chunks read as 28.5 MiB in 365 reads at a 64 kB merge distance, 14.7 MiB in 727
    // reads at 16 kB (trino-parquet's default 1 MB: 93.7 MiB in 16 reads)
    static final DataSize MAX_MERGE_DISTANCE = DataSize.of(16, KILOBYTE);
    private final ParquetReaderOptions readerOptions = ParquetReaderOptions.builder()
            .withMaxMergeDistance(MAX_MERGE_DISTANCE)
            .build();
    private final DeleteFileReader deleteFileReader;

    @Inject
    public QbeastPageSourceProvider(QbeastFileSystemFactory fileSystemFactory, FooterCache footerCache)
    {
        this.pageSourceFactory = new QbeastPageSourceFactory(footerCache);
        this.deleteFileReader = new DeleteFileReader(pageSourceFactory, ParquetReaderOptions.defaultOptions());
        this.fileSystemFactory = requireNonNull(fileSystemFactory, "fileSystemFactory is null");
    }

    /**
     * Table credentials are not used: a qbeast catalog reads with the catalog's own file system
     * credentials. The memory context gets the page source's usage as it reads.
     */
    @Override
    public ConnectorPageSource createPageSource(
            ConnectorTransactionHandle transaction,
            ConnectorSession session,
            ConnectorSplit split,
            ConnectorTableHandle table,
            Optional<ConnectorTableCredentials> tableCredentials,
            List<ColumnHandle> columns,
            DynamicFilter dynamicFilter,
            MemoryContext memoryContext)
    {
        return new MemoryUsageReportingPageSource(createPageSource(session, split, table, columns, dynamicFilter), memoryContext);
    }

    private ConnectorPageSource createPageSource(ConnectorSession session, ConnectorSplit split, ConnectorTableHandle table, List<ColumnHandle> columns, DynamicFilter dynamicFilter)
    {
        QbeastSplit qbeastSplit = (QbeastSplit) split;
        QbeastTableHandle tableHandle = (QbeastTableHandle) table;
        TupleDomain<QbeastColumnHandle> predicate = tableHandle.predicate()
                .intersect(dynamicFilter.getCurrentPredicate().transformKeys(QbeastColumnHandle.class::cast));
        if (predicate.isNone()) {
            return new EmptyPageSource();
        }
        List<QbeastColumnHandle> requested = columns.stream().map(QbeastColumnHandle.class::cast).collect(toImmutableList());
        TrinoFileSystem fileSystem = fileSystemFactory.create(session);
        TrinoInputFile inputFile = fileSystem.newInputFile(Location.of(qbeastSplit.path()), qbeastSplit.fileSize());
        LongSupplier modifiedMillis = memoize(() -> FileMetadataColumns.modifiedMillis(inputFile));
        // the split source dropped the files whose path or time the handle's predicate rejects; a
        // dynamic filter on them may have narrowed since
        if (!FileMetadataColumns.matches(predicate, qbeastSplit.path(), modifiedMillis)) {
            return new EmptyPageSource();
        }
        List<QbeastColumnHandle> fileColumns = requested.stream()
                .filter(column -> !column.isFileMetadata())
                // a change that updates no row needs no weights in its row ids
                .map(column -> column.isMergeRowId() && tableHandle.deletesOnly() ? QbeastColumnHandle.mergeRowIdWithoutWeightColumn() : column)
                .collect(toImmutableList());
        ConnectorPageSource source = pageSourceFactory.createPageSource(
                inputFile,
                qbeastSplit.start(),
                qbeastSplit.length(),
                qbeastSplit.fileSize(),
                fileColumns,
                Optional.empty(),
                FileMetadataColumns.withoutFileMetadata(predicate),
                enforcedPredicate(tableHandle.predicate()),
                tableHandle.rowPredicates(),
                tableHandle.weightUpperBound(),
                // the rows other engines deleted from the file: every read (scan, sample, optimize) leaves them out
                deleteFileReader.read(fileSystem, qbeastSplit.path(), qbeastSplit.deletes()),
                readerOptions);
        if (fileColumns.size() == requested.size()) {
            return source;
        }
        int[] delegateChannels = new int[requested.size()];
        Block[] values = new Block[requested.size()];
        int fileChannel = 0;
        for (int channel = 0; channel < requested.size(); channel++) {
            QbeastColumnHandle column = requested.get(channel);
            if (column.isFileMetadata()) {
                delegateChannels[channel] = -1;
                values[channel] = writeNativeValue(column.type(), FileMetadataColumns.value(column, qbeastSplit.path(), modifiedMillis));
            }
            else {
                delegateChannels[channel] = fileChannel++;
            }
        }
        return new FileMetadataPageSource(source, delegateChannels, values);
    }

    private static LongSupplier memoize(LongSupplier supplier)
    {
        Supplier<Long> memoized = Suppliers.memoize(supplier::getAsLong);
        return memoized::get;
    }

    /** The part of a handle's predicate that the page source enforces row by row (what {@code applyFilter} does not return as remaining). */
    static TupleDomain<QbeastColumnHandle> enforcedPredicate(TupleDomain<QbeastColumnHandle> predicate)
    {
        // the file metadata columns are enforced per file, by the split source
        return predicate.filter((column, _) -> !column.isFileMetadata() && QbeastPageSourceFactory.isEnforceable(column.type()));
    }
}

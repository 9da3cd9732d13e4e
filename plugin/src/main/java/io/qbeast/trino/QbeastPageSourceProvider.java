package io.qbeast.trino;

import com.google.inject.Inject;
import io.airlift.units.DataSize;
import io.qbeast.trino.parquet.QbeastPageSourceFactory;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystemFactory;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.ConnectorPageSourceProvider;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.DynamicFilter;
import io.trino.spi.connector.EmptyPageSource;
import io.trino.spi.predicate.TupleDomain;

import java.util.List;
import java.util.Optional;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.airlift.units.DataSize.Unit.KILOBYTE;
import static java.util.Objects.requireNonNull;

/**
 * Reads a split with the Parquet page source: the pushed-down predicate and the current dynamic
 * filter prune row groups; the engine filters the rows.
 */
public class QbeastPageSourceProvider
        implements ConnectorPageSourceProvider
{
    private final TrinoFileSystemFactory fileSystemFactory;
    private final QbeastPageSourceFactory pageSourceFactory = new QbeastPageSourceFactory();
    // qbeast files are cut into several row groups (so a sample reads a weight prefix): a column's
    // chunks in consecutive row groups are close, and trino-parquet's default 1 MB merge distance would
    // read the other columns between them; merge only small gaps
    static final DataSize MAX_MERGE_DISTANCE = DataSize.of(64, KILOBYTE);
    private final ParquetReaderOptions readerOptions = ParquetReaderOptions.builder()
            .withMaxMergeDistance(MAX_MERGE_DISTANCE)
            .build();

    @Inject
    public QbeastPageSourceProvider(TrinoFileSystemFactory fileSystemFactory)
    {
        this.fileSystemFactory = requireNonNull(fileSystemFactory, "fileSystemFactory is null");
    }

    @Override
    public ConnectorPageSource createPageSource(
            ConnectorTransactionHandle transaction,
            ConnectorSession session,
            ConnectorSplit split,
            ConnectorTableHandle table,
            List<ColumnHandle> columns,
            DynamicFilter dynamicFilter)
    {
        QbeastSplit qbeastSplit = (QbeastSplit) split;
        QbeastTableHandle tableHandle = (QbeastTableHandle) table;
        TupleDomain<QbeastColumnHandle> predicate = tableHandle.predicate()
                .intersect(dynamicFilter.getCurrentPredicate().transformKeys(QbeastColumnHandle.class::cast));
        if (predicate.isNone()) {
            return new EmptyPageSource();
        }
        return pageSourceFactory.createPageSource(
                fileSystemFactory.create(session).newInputFile(Location.of(qbeastSplit.path()), qbeastSplit.fileSize()),
                qbeastSplit.start(),
                qbeastSplit.length(),
                qbeastSplit.fileSize(),
                columns.stream().map(QbeastColumnHandle.class::cast).collect(toImmutableList()),
                Optional.empty(),
                predicate,
                enforcedPredicate(tableHandle.predicate()),
                tableHandle.weightUpperBound(),
                readerOptions);
    }

    /** The part of a handle's predicate that the page source enforces row by row (what {@code applyFilter} does not return as remaining). */
    static TupleDomain<QbeastColumnHandle> enforcedPredicate(TupleDomain<QbeastColumnHandle> predicate)
    {
        return predicate.filter((column, _) -> QbeastPageSourceFactory.isEnforceable(column.type()));
    }
}

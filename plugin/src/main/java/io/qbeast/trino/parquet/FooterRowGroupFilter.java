package io.qbeast.trino.parquet;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.trino.parquet.BloomFilterStore;
import io.trino.parquet.ParquetCorruptionException;
import io.trino.parquet.ParquetDataSource;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.parquet.metadata.BlockMetadata;
import io.trino.parquet.metadata.ParquetMetadata;
import io.trino.parquet.metadata.PrunedBlockMetadata;
import io.trino.parquet.predicate.TupleDomainParquetPredicate;
import io.trino.parquet.reader.RowGroupInfo;
import io.trino.parquet.reader.TrinoColumnIndexStore;
import io.trino.spi.predicate.TupleDomain;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.internal.filter2.columnindex.ColumnIndexStore;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.joda.time.DateTimeZone.UTC;

/**
 * The row groups of a split that a predicate may match, judged by the file's own indexes: the
 * column chunks' statistics in the footer, and the page indexes and bloom filters of files that
 * have them (files converted from other writers). This is trino-parquet's
 * {@code PredicateUtils.getFilteredRowGroups} without its last step, which reads and decodes the
 * dictionary page of every dictionary-encoded column chunk the statistics could not exclude and
 * builds a sorted domain of all its values.
 *
 * <p>Why: a qbeast file has many row groups (a cube's point parts are row groups of their own),
 * so that step ran once per row group and predicate column of every split, where Iceberg's files
 * have one row group each. In a JFR profile of the sf1 SSB queries of 806ccf3, opening qbeast
 * splits took 1,092 samples: 659 in {@code getFilteredRowGroups}, 406 of them in its dictionary
 * step (sorting the dictionary values into a {@code SortedRangeSet}). What the dictionary could
 * prove is mostly proved already: indexed columns have tight bounds inside a row group, and the
 * engine or the row filter drops the rows the predicate rejects.
 */
final class FooterRowGroupFilter
{
    private FooterRowGroupFilter() {}

    /** The row groups that start in {@code [start, start + length)} and may hold rows of the domain. */
    static List<RowGroupInfo> rowGroups(
            long start,
            long length,
            ParquetDataSource dataSource,
            ParquetMetadata metadata,
            TupleDomain<ColumnDescriptor> domain,
            TupleDomainParquetPredicate predicate,
            Map<List<String>, ColumnDescriptor> descriptorsByPath,
            int domainCompactionThreshold,
            ParquetReaderOptions options)
            throws IOException
    {
        ImmutableList.Builder<RowGroupInfo> rowGroups = ImmutableList.builder();
        for (BlockMetadata block : metadata.getBlocks(start, length)) {
            long position = block.getStartingPos();
            // a row group belongs to the split its first byte is in
            if (position < start || position >= start + length) {
                continue;
            }
            PrunedBlockMetadata columns = PrunedBlockMetadata.createPrunedColumnsMetadata(block, dataSource.getId(), descriptorsByPath);
            if (columns.getRowCount() == 0) {
                continue;
            }
            Map<ColumnDescriptor, Long> valueCounts = valueCounts(columns, descriptorsByPath);
            // empty: the footer's statistics exclude the row group; else the columns they could not judge
            Optional<List<ColumnDescriptor>> candidates = predicate.getIndexLookupCandidates(valueCounts, statistics(columns, descriptorsByPath), dataSource.getId());
            if (candidates.isEmpty()) {
                continue;
            }
            // the page indexes and bloom filters only of row groups the statistics keep
            Optional<ColumnIndexStore> columnIndex = TrinoColumnIndexStore.getColumnIndexStore(dataSource, block, descriptorsByPath, domain, options);
            if (!candidates.get().isEmpty()) {
                TupleDomainParquetPredicate candidatePredicate = new TupleDomainParquetPredicate(domain, candidates.get(), UTC);
                if (columnIndex.isPresent() && !candidatePredicate.matches(valueCounts, columnIndex.get(), dataSource.getId())) {
                    continue;
                }
                Optional<BloomFilterStore> bloomFilters = BloomFilterStore.getBloomFilterStore(dataSource, block, domain, options);
                if (bloomFilters.isPresent() && !candidatePredicate.matches(bloomFilters.get(), domainCompactionThreshold)) {
                    continue;
                }
            }
            rowGroups.add(new RowGroupInfo(columns, block.fileRowCountOffset(), columnIndex));
        }
        return rowGroups.build();
    }

    private static Map<ColumnDescriptor, Statistics<?>> statistics(PrunedBlockMetadata block, Map<List<String>, ColumnDescriptor> descriptorsByPath)
            throws ParquetCorruptionException
    {
        ImmutableMap.Builder<ColumnDescriptor, Statistics<?>> statistics = ImmutableMap.builder();
        for (ColumnDescriptor descriptor : descriptorsByPath.values()) {
            Statistics<?> chunkStatistics = block.getColumnChunkMetaData(descriptor).getStatistics();
            if (chunkStatistics != null) {
                statistics.put(descriptor, chunkStatistics);
            }
        }
        return statistics.buildOrThrow();
    }

    private static Map<ColumnDescriptor, Long> valueCounts(PrunedBlockMetadata block, Map<List<String>, ColumnDescriptor> descriptorsByPath)
            throws ParquetCorruptionException
    {
        ImmutableMap.Builder<ColumnDescriptor, Long> valueCounts = ImmutableMap.builder();
        for (ColumnDescriptor descriptor : descriptorsByPath.values()) {
            valueCounts.put(descriptor, block.getColumnChunkMetaData(descriptor).getValueCount());
        }
        return valueCounts.buildOrThrow();
    }
}

package io.qbeast.trino.parquet;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.trino.parquet.BloomFilterStore;
import io.trino.parquet.ParquetCorruptionException;
import io.trino.parquet.ParquetDataSource;
import io.trino.parquet.ParquetDataSourceId;
import io.trino.parquet.ParquetMetadataConverter;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.parquet.metadata.BlockMetadata;
import io.trino.parquet.metadata.ColumnChunkMetadata;
import io.trino.parquet.metadata.ParquetMetadata;
import io.trino.parquet.metadata.PrunedBlockMetadata;
import io.trino.parquet.predicate.TupleDomainParquetPredicate;
import io.trino.parquet.reader.MetadataReader;
import io.trino.parquet.reader.RowGroupInfo;
import io.trino.parquet.reader.TrinoColumnIndexStore;
import io.trino.spi.predicate.TupleDomain;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.internal.filter2.columnindex.ColumnIndexStore;
import org.apache.parquet.schema.PrimitiveType;

import java.io.IOException;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

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
        for (BlockMetadata block : blocks(metadata.getParquetMetadata(), start, length, descriptorsByPath, dataSource.getId())) {
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
            Optional<ColumnIndexStore> columnIndex = TrinoColumnIndexStore.getColumnIndexStore(dataSource, block, descriptorsByPath, domain, options, Optional.empty());
            if (!candidates.get().isEmpty()) {
                TupleDomainParquetPredicate candidatePredicate = new TupleDomainParquetPredicate(domain, candidates.get(), UTC);
                if (columnIndex.isPresent() && !candidatePredicate.matches(valueCounts, columnIndex.get(), dataSource.getId())) {
                    continue;
                }
                Optional<BloomFilterStore> bloomFilters = BloomFilterStore.getBloomFilterStore(dataSource, block, domain, options, Optional.empty());
                if (bloomFilters.isPresent() && !candidatePredicate.matches(bloomFilters.get(), domainCompactionThreshold)) {
                    continue;
                }
            }
            rowGroups.add(new RowGroupInfo(columns, block.fileRowCountOffset(), columnIndex));
        }
        return rowGroups.build();
    }

    /**
     * The row groups that start in {@code [start, start + length)}, with the metadata of the
     * columns in {@code descriptorsByPath} only. trino-parquet's {@code ParquetMetadata.getBlocks}
     * converts every column chunk of the split's row groups (statistics, encodings, encoding
     * stats) where a query reads a few: with hundreds of row groups per file it was 247 of the
     * 1,680 qbeast samples of a JFR profile of the sf1 SSB queries (1,802 row groups of 33
     * columns). The conversion of each kept chunk is trino-parquet's own, field for field.
     */
    static List<BlockMetadata> blocks(FileMetaData footer, long start, long length, Map<List<String>, ColumnDescriptor> descriptorsByPath, ParquetDataSourceId dataSourceId)
            throws ParquetCorruptionException
    {
        Map<List<String>, ColumnDescriptor> descriptors = new HashMap<>();
        descriptorsByPath.forEach((path, descriptor) -> descriptors.put(lowerCase(path), descriptor));
        Optional<String> createdBy = Optional.ofNullable(footer.getCreated_by());
        ImmutableList.Builder<BlockMetadata> blocks = ImmutableList.builder();
        long fileRowCountOffset = 0;
        for (RowGroup rowGroup : footer.getRow_groups()) {
            long rowOffset = fileRowCountOffset;
            fileRowCountOffset += rowGroup.getNum_rows();
            OptionalLong firstByte = firstByte(rowGroup);
            if (firstByte.isEmpty() || firstByte.getAsLong() < start || firstByte.getAsLong() >= start + length) {
                continue;
            }
            ImmutableList.Builder<ColumnChunkMetadata> columns = ImmutableList.builder();
            for (ColumnChunk chunk : rowGroup.getColumns()) {
                ColumnMetaData metadata = chunk.getMeta_data();
                if (metadata == null) {
                    throw new ParquetCorruptionException(dataSourceId, "Column chunk without metadata in row group at %s".formatted(firstByte.getAsLong()));
                }
                List<String> path = lowerCase(metadata.getPath_in_schema());
                ColumnDescriptor descriptor = descriptors.get(path);
                if (descriptor == null) {
                    continue;
                }
                PrimitiveType type = descriptor.getPrimitiveType();
                Set<Encoding> encodings = new HashSet<>();
                metadata.getEncodings().forEach(encoding -> encodings.add(ParquetMetadataConverter.getEncoding(encoding)));
                ColumnChunkMetadata column = ColumnChunkMetadata.get(
                        ColumnPath.get(path.toArray(String[]::new)),
                        type,
                        CompressionCodecName.fromParquet(metadata.getCodec()),
                        ParquetMetadataConverter.convertEncodingStats(metadata.getEncoding_stats()),
                        Collections.unmodifiableSet(encodings),
                        MetadataReader.readStats(createdBy, Optional.ofNullable(metadata.getStatistics()), type),
                        metadata.getData_page_offset(),
                        metadata.getDictionary_page_offset(),
                        metadata.getNum_values(),
                        metadata.getTotal_compressed_size(),
                        metadata.getTotal_uncompressed_size());
                column.setColumnIndexReference(ParquetMetadataConverter.toColumnIndexReference(chunk));
                column.setOffsetIndexReference(ParquetMetadataConverter.toOffsetIndexReference(chunk));
                column.setBloomFilterOffset(metadata.getBloom_filter_offset());
                columns.add(column);
            }
            blocks.add(new BlockMetadata(rowOffset, rowGroup.getNum_rows(), columns.build()));
        }
        return blocks.build();
    }

    /**
     * The first byte of a row group: its file offset, else the first page of its first column
     * chunk. A row group belongs to the split this byte lies in, as in trino-parquet.
     */
    static OptionalLong firstByte(RowGroup rowGroup)
    {
        if (rowGroup.isSetFile_offset()) {
            return OptionalLong.of(rowGroup.getFile_offset());
        }
        if (rowGroup.getColumns() == null || rowGroup.getColumns().isEmpty() || rowGroup.getColumns().getFirst().getMeta_data() == null) {
            return OptionalLong.empty();
        }
        ColumnMetaData column = rowGroup.getColumns().getFirst().getMeta_data();
        return OptionalLong.of(column.isSetDictionary_page_offset() && column.getDictionary_page_offset() > 0
                ? Math.min(column.getData_page_offset(), column.getDictionary_page_offset())
                : column.getData_page_offset());
    }

    private static List<String> lowerCase(List<String> path)
    {
        return path.stream().map(name -> name.toLowerCase(Locale.ENGLISH)).toList();
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

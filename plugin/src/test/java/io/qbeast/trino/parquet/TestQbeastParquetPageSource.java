package io.qbeast.trino.parquet;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.airlift.slice.Slice;
import io.airlift.slice.Slices;
import io.airlift.units.DataSize;
import io.qbeast.trino.handle.QbeastColumnHandle;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.filesystem.local.LocalFileSystem;
import io.trino.parquet.ParquetDataSourceId;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.parquet.ParquetTypeUtils;
import io.trino.parquet.metadata.BlockMetadata;
import io.trino.parquet.metadata.ColumnChunkMetadata;
import io.trino.parquet.metadata.ParquetMetadata;
import io.trino.parquet.writer.ParquetWriterOptions;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.predicate.ValueSet;
import io.trino.spi.type.LongTimestampWithTimeZone;
import io.trino.spi.type.RowType;
import io.trino.spi.type.TimeZoneKey;
import io.trino.spi.type.Type;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.types.Types.NestedField;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.schema.MessageType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.stream.IntStream;

import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_BAD_DATA;
import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_CURSOR_ERROR;
import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_FILESYSTEM_ERROR;
import static io.qbeast.trino.handle.QbeastColumnHandle.CUBE_COLUMN;
import static io.qbeast.trino.handle.QbeastColumnHandle.WEIGHT_COLUMN;
import static io.qbeast.trino.parquet.ParquetTesting.PAGE_SOURCE_FACTORY;
import static io.qbeast.trino.parquet.ParquetTesting.READER_OPTIONS;
import static io.qbeast.trino.parquet.ParquetTesting.WRITER_OPTIONS;
import static io.qbeast.trino.parquet.ParquetTesting.column;
import static io.qbeast.trino.parquet.ParquetTesting.handle;
import static io.qbeast.trino.parquet.ParquetTesting.handles;
import static io.qbeast.trino.parquet.ParquetTesting.open;
import static io.qbeast.trino.parquet.ParquetTesting.project;
import static io.qbeast.trino.parquet.ParquetTesting.readAll;
import static io.qbeast.trino.parquet.ParquetTesting.readFooter;
import static io.qbeast.trino.parquet.ParquetTesting.rowGroupRowCounts;
import static io.qbeast.trino.parquet.ParquetTesting.schema;
import static io.qbeast.trino.parquet.ParquetTesting.smallRowGroups;
import static io.qbeast.trino.parquet.ParquetTesting.types;
import static io.qbeast.trino.parquet.ParquetTesting.write;
import static io.qbeast.trino.parquet.QbeastPageSourceFactory.NO_SAMPLING;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.RowType.field;
import static io.trino.spi.type.TimestampWithTimeZoneType.TIMESTAMP_TZ_MICROS;
import static io.trino.spi.type.VarbinaryType.VARBINARY;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestQbeastParquetPageSource
{
    private static final int ROWS = 5000;

    // id, k = 10 * id, s, weight, cube: rows in weight order, as the sink writes them
    private static final List<io.trino.spi.connector.ColumnMetadata> SIMPLE_COLUMNS = ImmutableList.of(
            column("id", BIGINT),
            column("k", BIGINT),
            column("s", VARCHAR),
            column(WEIGHT_COLUMN, INTEGER),
            column(CUBE_COLUMN, VARBINARY));
    private static final List<Type> SIMPLE_TYPES = ImmutableList.of(BIGINT, BIGINT, VARCHAR, INTEGER, VARBINARY);

    @TempDir
    Path directory;

    @Test
    void testAllTypesRoundTrip()
    {
        TrinoFileSystem fileSystem = new LocalFileSystem(directory);
        Schema schema = schema(AllTypesTable.COLUMNS);
        List<List<Object>> rows = AllTypesTable.rows(3000, 7);
        WrittenFile file = write(fileSystem, Location.of("local:///all.parquet"), schema, AllTypesTable.TYPES, rows, smallRowGroups(), ImmutableMap.of());
        assertThat(file.splitOffsets()).hasSizeGreaterThan(1);

        // read back with the types the connector reads Iceberg types as (tinyint and smallint come back as integer)
        List<QbeastColumnHandle> columns = handles(schema);
        assertThat(readAll(open(fileSystem, file, columns, Optional.of(schema), TupleDomain.all(), NO_SAMPLING), types(columns))).isEqualTo(rows);
        // without the table schema, nested fields are matched by name: same result
        assertThat(readAll(open(fileSystem, file, columns, Optional.empty(), TupleDomain.all(), NO_SAMPLING), types(columns))).isEqualTo(rows);
    }

    @Test
    void testTimestampWithTimeZoneReadsBackAsTheSameInstantInUtc()
    {
        TrinoFileSystem fileSystem = new LocalFileSystem(directory);
        Schema schema = schema(ImmutableList.of(column("t", TIMESTAMP_TZ_MICROS)));
        LongTimestampWithTimeZone written = LongTimestampWithTimeZone.fromEpochMillisAndFraction(1_700_000_000_123L, 456_000_000, TimeZoneKey.getTimeZoneKey("America/Bahia_Banderas"));
        WrittenFile file = write(fileSystem, Location.of("local:///tz.parquet"), schema, ImmutableList.of(TIMESTAMP_TZ_MICROS), ImmutableList.of(row(written)), WRITER_OPTIONS, ImmutableMap.of());

        List<List<Object>> rows = readAll(open(fileSystem, file, handles(schema), Optional.of(schema), TupleDomain.all(), NO_SAMPLING), ImmutableList.of(TIMESTAMP_TZ_MICROS));
        assertThat(rows).containsExactly(row(LongTimestampWithTimeZone.fromEpochMillisAndFraction(1_700_000_000_123L, 456_000_000, TimeZoneKey.UTC_KEY)));
    }

    @Test
    void testProjection()
    {
        TrinoFileSystem fileSystem = new LocalFileSystem(directory);
        Schema schema = schema(AllTypesTable.COLUMNS);
        List<List<Object>> rows = AllTypesTable.rows(2000, 11);
        WrittenFile file = write(fileSystem, Location.of("local:///projection.parquet"), schema, AllTypesTable.TYPES, rows, WRITER_OPTIONS, ImmutableMap.of());
        List<QbeastColumnHandle> all = handles(schema);

        ConnectorPageSource everything = open(fileSystem, file, all, Optional.of(schema), TupleDomain.all(), NO_SAMPLING);
        readAll(everything, types(all));

        // a subset, out of schema order, one column twice
        List<QbeastColumnHandle> columns = ImmutableList.of(handle(all, "c_bigint"), handle(all, "c_boolean"), handle(all, "c_bigint"));
        ConnectorPageSource projected = open(fileSystem, file, columns, Optional.of(schema), TupleDomain.all(), NO_SAMPLING);
        List<List<Object>> actual = readAll(projected, types(columns));
        int bigint = AllTypesTable.COLUMNS.indexOf(column("c_bigint", BIGINT));
        int bool = 0;
        assertThat(actual).isEqualTo(rows.stream().map(row -> project(row, bigint, bool, bigint)).toList());
        // only the requested columns were read from the file
        assertThat(projected.getCompletedBytes()).isPositive().isLessThan(everything.getCompletedBytes() / 5);

        // no columns at all (count(*)): positions only
        ConnectorPageSource none = open(fileSystem, file, ImmutableList.of(), Optional.of(schema), TupleDomain.all(), NO_SAMPLING);
        assertThat(readAll(none, ImmutableList.of())).hasSize(2000);
    }

    /**
     * The merge row id: file path, row position and weight; without weights (a change that updates
     * no row) the weight column is not read at all.
     */
    @Test
    void testMergeRowIdsWithAndWithoutWeights()
    {
        TrinoFileSystem fileSystem = new LocalFileSystem(directory);
        Schema schema = schema(SIMPLE_COLUMNS);
        // rows out of weight order, as in a point-ordered part of a cube: the weights are random values
        List<List<Object>> rows = new ArrayList<>(weightOrderedRows(ROWS, 5));
        java.util.Collections.shuffle(rows, new Random(6));
        WrittenFile file = write(fileSystem, Location.of("local:///row-ids.parquet"), schema, SIMPLE_TYPES, rows, smallRowGroups(), ImmutableMap.of());
        QbeastColumnHandle id = handle(handles(schema), "id");
        // each column chunk read on its own (no merged ranges), so bytes read tell which columns were read
        ParquetReaderOptions separateReads = ParquetReaderOptions.builder(READER_OPTIONS).withMaxMergeDistance(DataSize.ofBytes(0)).build();
        List<QbeastColumnHandle> idOnly = ImmutableList.of(id);
        // the first read parses the footer; the ones compared below all find it cached
        readAll(rowIdSource(fileSystem, file, idOnly, separateReads), types(idOnly));
        ConnectorPageSource ids = rowIdSource(fileSystem, file, idOnly, separateReads);
        readAll(ids, types(idOnly));

        for (boolean withWeights : new boolean[] {true, false}) {
            QbeastColumnHandle rowId = withWeights ? QbeastColumnHandle.mergeRowIdColumn() : QbeastColumnHandle.mergeRowIdWithoutWeightColumn();
            List<QbeastColumnHandle> columns = ImmutableList.of(id, rowId);
            ConnectorPageSource source = rowIdSource(fileSystem, file, columns, separateReads);
            List<List<Object>> read = readAll(source, types(columns));
            assertThat(read).hasSize(ROWS);
            for (int position = 0; position < ROWS; position++) {
                List<?> row = (List<?>) read.get(position).get(1);
                assertThat(read.get(position).get(0)).isEqualTo(rows.get(position).get(0));
                assertThat(((Slice) row.get(0)).toStringUtf8()).isEqualTo(file.path());
                assertThat(row.get(1)).isEqualTo((long) position);
                assertThat(row.get(2)).isEqualTo(withWeights ? rows.get(position).get(3) : null);
            }
            if (withWeights) {
                // 5,000 random weights do not compress: at least 3 bytes a row more
                assertThat(source.getCompletedBytes()).isGreaterThan(ids.getCompletedBytes() + 3L * ROWS);
            }
            else {
                assertThat(source.getCompletedBytes()).isEqualTo(ids.getCompletedBytes());
            }
        }
    }

    private static ConnectorPageSource rowIdSource(TrinoFileSystem fileSystem, WrittenFile file, List<QbeastColumnHandle> columns, ParquetReaderOptions options)
    {
        return PAGE_SOURCE_FACTORY.createPageSource(fileSystem.newInputFile(Location.of(file.path()), file.fileSizeInBytes()), 0, file.fileSizeInBytes(), file.fileSizeInBytes(), columns, TupleDomain.all(), NO_SAMPLING, options);
    }

    @Test
    void testWeightBoundSkipsRowGroupsAndFiltersRowsExactly()
    {
        TrinoFileSystem fileSystem = new LocalFileSystem(directory);
        Schema schema = schema(SIMPLE_COLUMNS);
        List<List<Object>> rows = weightOrderedRows(ROWS, 3);
        WrittenFile file = write(fileSystem, Location.of("local:///sample.parquet"), schema, SIMPLE_TYPES, rows, smallRowGroups(), ImmutableMap.of());
        List<Long> rowGroups = rowGroupRowCounts(directory.resolve("sample.parquet"));
        assertThat(rowGroups).hasSizeGreaterThan(5);
        assertThat(file.splitOffsets()).hasSize(rowGroups.size());
        List<QbeastColumnHandle> all = handles(schema);

        // a bound inside a row group in the first half: that group and the ones before are read, the rest skipped
        int boundIndex = (int) (rowGroups.get(0) + rowGroups.get(1) + rowGroups.get(2) / 2);
        long rowsInReadGroups = rowGroups.get(0) + rowGroups.get(1) + rowGroups.get(2);
        long bound = (long) rows.get(boundIndex).get(3);
        List<QbeastColumnHandle> columns = ImmutableList.of(handle(all, "id"), handle(all, "s"));
        ConnectorPageSource source = open(fileSystem, file, columns, Optional.of(schema), TupleDomain.all(), bound);
        List<List<Object>> actual = readAll(source, types(columns));
        assertThat(actual).isEqualTo(rows.stream().filter(row -> (long) row.get(3) < bound).map(row -> project(row, 0, 2)).toList());
        assertThat(actual).hasSize(boundIndex);
        assertThat(source.getCompletedPositions()).hasValue(rowsInReadGroups);
        assertThat(rowsInReadGroups).isLessThan(ROWS / 2);

        // with the weight projected too, every returned weight is below the bound
        List<QbeastColumnHandle> withWeight = ImmutableList.of(handle(all, WEIGHT_COLUMN), handle(all, "id"));
        assertThat(readAll(open(fileSystem, file, withWeight, Optional.of(schema), TupleDomain.all(), bound), types(withWeight)))
                .isEqualTo(rows.stream().filter(row -> (long) row.get(3) < bound).map(row -> project(row, 3, 0)).toList());

        // a bound at the very first weight: nothing is read at all
        long smallest = (long) rows.getFirst().get(3);
        ConnectorPageSource nothing = open(fileSystem, file, columns, Optional.of(schema), TupleDomain.all(), smallest);
        assertThat(readAll(nothing, types(columns))).isEmpty();
        assertThat(nothing.getCompletedPositions()).hasValue(0);

        // no sampling reads every row; the smallest bound is an empty source
        ConnectorPageSource everything = open(fileSystem, file, columns, Optional.of(schema), TupleDomain.all(), NO_SAMPLING);
        assertThat(readAll(everything, types(columns))).hasSize(ROWS);
        assertThat(everything.getCompletedPositions()).hasValue(ROWS);
        assertThat(readAll(open(fileSystem, file, columns, Optional.of(schema), TupleDomain.all(), Integer.MIN_VALUE), types(columns))).isEmpty();
    }

    @Test
    void testWeightOrderedFileStopsAtTheBound()
    {
        // one row group: statistics cannot skip anything, only stopping at the first weight past the bound can
        TrinoFileSystem fileSystem = new LocalFileSystem(directory);
        Schema schema = schema(SIMPLE_COLUMNS);
        List<List<Object>> rows = weightOrderedRows(ROWS, 6);
        WrittenFile ordered = write(fileSystem, Location.of("local:///ordered.parquet"), schema, SIMPLE_TYPES, rows, WRITER_OPTIONS, ImmutableMap.of(), true);
        WrittenFile unmarked = write(fileSystem, Location.of("local:///unmarked.parquet"), schema, SIMPLE_TYPES, rows, WRITER_OPTIONS, ImmutableMap.of(), false);
        assertThat(rowGroupRowCounts(directory.resolve("ordered.parquet"))).hasSize(1);
        List<QbeastColumnHandle> all = handles(schema);
        List<QbeastColumnHandle> columns = ImmutableList.of(handle(all, "id"), handle(all, "s"));
        long bound = (long) rows.get(ROWS / 20).get(3);
        List<List<Object>> expected = rows.stream().filter(row -> (long) row.get(3) < bound).map(row -> project(row, 0, 2)).toList();

        ConnectorPageSource stopping = open(fileSystem, ordered, columns, Optional.of(schema), TupleDomain.all(), bound);
        assertThat(readAll(stopping, types(columns))).isEqualTo(expected);
        // the reader's batches grow geometrically, so the batch holding the bound is at most about as large as what came before
        assertThat(stopping.getCompletedPositions().orElseThrow()).isGreaterThanOrEqualTo(expected.size()).isLessThan(ROWS / 4);
        assertThat(((LongCount) stopping.getMetrics().getMetrics().get(QbeastParquetPageSource.SPLITS_STOPPED_AT_BOUND)).getTotal()).isEqualTo(1);

        // without the writer's mark the rows are not known to be ordered: every row is read
        ConnectorPageSource reading = open(fileSystem, unmarked, columns, Optional.of(schema), TupleDomain.all(), bound);
        assertThat(readAll(reading, types(columns))).isEqualTo(expected);
        assertThat(reading.getCompletedPositions()).hasValue(ROWS);
        assertThat(((LongCount) reading.getMetrics().getMetrics().get(QbeastParquetPageSource.ROWS_DROPPED_BY_WEIGHT)).getTotal()).isEqualTo(ROWS - expected.size());
    }

    @Test
    void testWriterMarksOnlyRowsThatAreInWeightOrder()
    {
        // the page sink asks every file for the mark; the writer gives it only when the rows it got
        // are in ascending weight, across row groups too
        TrinoFileSystem fileSystem = new LocalFileSystem(directory);
        Schema schema = schema(SIMPLE_COLUMNS);
        List<List<Object>> ordered = weightOrderedRows(2000, 7);
        write(fileSystem, Location.of("local:///ascending.parquet"), schema, SIMPLE_TYPES, ordered, smallRowGroups(), ImmutableMap.of(), true);
        assertThat(rowGroupRowCounts(directory.resolve("ascending.parquet"))).hasSizeGreaterThan(1);
        assertThat(QbeastParquetFileWriter.isWeightOrdered(Optional.of(readFooter(directory.resolve("ascending.parquet")).getCreated_by()))).isTrue();

        List<List<Object>> shuffled = new ArrayList<>(ordered);
        java.util.Collections.shuffle(shuffled, new Random(7));
        WrittenFile file = write(fileSystem, Location.of("local:///shuffled-marked.parquet"), schema, SIMPLE_TYPES, shuffled, WRITER_OPTIONS, ImmutableMap.of(), true);
        String createdBy = readFooter(directory.resolve("shuffled-marked.parquet")).getCreated_by();
        assertThat(QbeastParquetFileWriter.isWeightOrdered(Optional.of(createdBy))).isFalse();
        assertThat(createdBy).isEqualTo("parquet-mr-trino version qbeast (build n/a)");
        List<QbeastColumnHandle> all = handles(schema);
        long bound = (long) ordered.get(100).get(3);
        List<List<Object>> expected = shuffled.stream().filter(row -> (long) row.get(3) < bound).map(row -> project(row, 0)).toList();
        // unmarked, the whole file is read and every row below the bound is found
        List<QbeastColumnHandle> columns = ImmutableList.of(handle(all, "id"));
        ConnectorPageSource reading = open(fileSystem, file, columns, Optional.of(schema), TupleDomain.all(), bound);
        assertThat(readAll(reading, types(columns))).isEqualTo(expected);
        assertThat(reading.getCompletedPositions()).hasValue(shuffled.size());
    }

    @Test
    void testWeightBoundWithinOneBatchSelectsPositions()
    {
        // one row group with weights in random order: the bound cannot prune, rows must be filtered one by one
        TrinoFileSystem fileSystem = new LocalFileSystem(directory);
        Schema schema = schema(SIMPLE_COLUMNS);
        List<List<Object>> rows = new ArrayList<>(weightOrderedRows(2000, 5));
        java.util.Collections.shuffle(rows, new Random(5));
        WrittenFile file = write(fileSystem, Location.of("local:///shuffled.parquet"), schema, SIMPLE_TYPES, rows, WRITER_OPTIONS, ImmutableMap.of());
        List<QbeastColumnHandle> all = handles(schema);

        long bound = 0;
        List<QbeastColumnHandle> columns = ImmutableList.of(handle(all, "s"), handle(all, "k"));
        ConnectorPageSource source = open(fileSystem, file, columns, Optional.of(schema), TupleDomain.all(), bound);
        assertThat(readAll(source, types(columns)))
                .isEqualTo(rows.stream().filter(row -> (long) row.get(3) < bound).map(row -> project(row, 2, 1)).toList())
                .isNotEmpty()
                .hasSizeLessThan(2000);
        assertThat(source.getCompletedPositions()).hasValue(2000);
    }

    @Test
    void testPredicateSkipsRowGroups()
    {
        TrinoFileSystem fileSystem = new LocalFileSystem(directory);
        Schema schema = schema(SIMPLE_COLUMNS);
        // ordered by k this time, so k ranges prune
        List<List<Object>> rows = orderedByK(weightOrderedRows(ROWS, 9));
        WrittenFile file = write(fileSystem, Location.of("local:///predicate.parquet"), schema, SIMPLE_TYPES, rows, smallRowGroups(), ImmutableMap.of());
        List<Long> rowGroups = rowGroupRowCounts(directory.resolve("predicate.parquet"));
        assertThat(rowGroups).hasSizeGreaterThan(5);
        List<QbeastColumnHandle> all = handles(schema);
        QbeastColumnHandle k = handle(all, "k");

        // predicate on a column that is not projected
        TupleDomain<QbeastColumnHandle> predicate = TupleDomain.withColumnDomains(ImmutableMap.of(k, Domain.create(ValueSet.ofRanges(Range.range(BIGINT, 21_000L, true, 23_990L, true)), false)));
        List<QbeastColumnHandle> columns = ImmutableList.of(handle(all, "id"), handle(all, "s"));
        ConnectorPageSource source = open(fileSystem, file, columns, Optional.of(schema), predicate, NO_SAMPLING);
        List<List<Object>> actual = readAll(source, types(columns));

        // a superset of the matching rows: the test filters, as the engine would
        List<List<Object>> expected = rows.stream().filter(row -> (long) row.get(1) >= 21_000 && (long) row.get(1) <= 23_990).map(row -> project(row, 0, 2)).toList();
        assertThat(actual).containsAll(expected);
        assertThat(actual.stream().filter(row -> (long) row.getFirst() * 10 >= 21_000 && (long) row.getFirst() * 10 <= 23_990).toList()).isEqualTo(expected);
        // the 300 matching rows span at most two row groups more than they fill
        long largestGroup = rowGroups.stream().mapToLong(Long::longValue).max().orElseThrow();
        assertThat(source.getCompletedPositions().orElseThrow()).isEqualTo(actual.size()).isLessThanOrEqualTo(300 + 2 * largestGroup).isLessThan(ROWS / 2);

        // predicate and weight bound together
        long bound = 0;
        ConnectorPageSource both = open(fileSystem, file, columns, Optional.of(schema), predicate, bound);
        List<List<Object>> sampled = readAll(both, types(columns));
        assertThat(sampled).isEqualTo(rows.stream()
                .filter(row -> (long) row.get(3) < bound)
                .filter(row -> actual.contains(project(row, 0, 2)))
                .map(row -> project(row, 0, 2))
                .toList());

        // a predicate no row group can match, and the none predicate
        TupleDomain<QbeastColumnHandle> nothing = TupleDomain.withColumnDomains(ImmutableMap.of(k, Domain.singleValue(BIGINT, -1L)));
        ConnectorPageSource empty = open(fileSystem, file, columns, Optional.of(schema), nothing, NO_SAMPLING);
        assertThat(readAll(empty, types(columns))).isEmpty();
        assertThat(empty.getCompletedPositions()).hasValue(0);
        assertThat(readAll(open(fileSystem, file, columns, Optional.of(schema), TupleDomain.none(), NO_SAMPLING), types(columns))).isEmpty();
    }

    /**
     * Inside one row group, a predicate skips the pages whose column-index bounds miss it (every
     * numeric, date and string column has a column index, PageBounds), with the rows it keeps the same as
     * without the index: the same rows in one page per column read every row.
     */
    @Test
    void testPredicateSkipsPagesInsideARowGroup()
    {
        TrinoFileSystem fileSystem = new LocalFileSystem(directory);
        Schema schema = schema(SIMPLE_COLUMNS);
        List<List<Object>> rows = orderedByK(weightOrderedRows(ROWS, 11));
        ParquetWriterOptions smallPages = ParquetWriterOptions.builder()
                .setMaxBlockSize(DataSize.of(64, DataSize.Unit.MEGABYTE))
                .setMaxPageSize(DataSize.ofBytes(1024))
                .setBatchSize(100)
                .build();
        ParquetWriterOptions onePage = ParquetWriterOptions.builder()
                .setMaxBlockSize(DataSize.of(64, DataSize.Unit.MEGABYTE))
                .setMaxPageSize(DataSize.of(64, DataSize.Unit.MEGABYTE))
                .setBatchSize(ROWS)
                .build();
        WrittenFile paged = write(fileSystem, Location.of("local:///paged.parquet"), schema, SIMPLE_TYPES, rows, smallPages, ImmutableMap.of());
        WrittenFile unpaged = write(fileSystem, Location.of("local:///unpaged.parquet"), schema, SIMPLE_TYPES, rows, onePage, ImmutableMap.of());
        assertThat(rowGroupRowCounts(directory.resolve("paged.parquet"))).containsExactly((long) ROWS);
        assertThat(rowGroupRowCounts(directory.resolve("unpaged.parquet"))).containsExactly((long) ROWS);

        List<QbeastColumnHandle> all = handles(schema);
        QbeastColumnHandle k = handle(all, "k");
        TupleDomain<QbeastColumnHandle> predicate = TupleDomain.withColumnDomains(ImmutableMap.of(k, Domain.create(ValueSet.ofRanges(Range.range(BIGINT, 21_000L, true, 23_990L, true)), false)));
        List<QbeastColumnHandle> columns = ImmutableList.of(handle(all, "id"), handle(all, "k"), handle(all, "s"));
        ConnectorPageSource pagedSource = open(fileSystem, paged, columns, Optional.of(schema), predicate, NO_SAMPLING);
        List<List<Object>> pagedRows = readAll(pagedSource, types(columns));
        ConnectorPageSource unpagedSource = open(fileSystem, unpaged, columns, Optional.of(schema), predicate, NO_SAMPLING);
        List<List<Object>> unpagedRows = readAll(unpagedSource, types(columns));

        // the matching rows are in both, and only the rows of their pages are read
        List<List<Object>> expected = rows.stream().filter(row -> (long) row.get(1) >= 21_000 && (long) row.get(1) <= 23_990).map(row -> project(row, 0, 1, 2)).toList();
        assertThat(expected).hasSize(300);
        assertThat(pagedRows).containsAll(expected);
        assertThat(unpagedRows).containsAll(expected);
        assertThat(unpagedSource.getCompletedPositions()).hasValue((long) ROWS);
        assertThat(pagedSource.getCompletedPositions().orElseThrow()).as("rows read with page bounds").isEqualTo(pagedRows.size()).isLessThan(ROWS / 3);
    }

    /**
     * Row groups are judged by the footer's statistics alone: a value between a row group's
     * bounds but absent from its dictionary keeps the row group (trino-parquet's own filter would
     * read and decode every row group's dictionary to drop it; see FooterRowGroupFilter), and
     * bounds that exclude the value still drop it.
     */
    @Test
    void testRowGroupsAreJudgedByStatisticsNotDictionaries()
    {
        TrinoFileSystem fileSystem = new LocalFileSystem(directory);
        Schema schema = schema(SIMPLE_COLUMNS);
        // s is "a" or "z" in every row group: dictionary-encoded, bounds a..z
        List<List<Object>> rows = weightOrderedRows(ROWS, 10).stream()
                .map(row -> row(row.get(0), row.get(1), Slices.utf8Slice((long) row.get(0) % 2 == 0 ? "a" : "z"), row.get(3), row.get(4)))
                .toList();
        WrittenFile file = write(fileSystem, Location.of("local:///dictionary.parquet"), schema, SIMPLE_TYPES, rows, smallRowGroups(), ImmutableMap.of());
        assertThat(rowGroupRowCounts(directory.resolve("dictionary.parquet"))).hasSizeGreaterThan(5);
        List<QbeastColumnHandle> all = handles(schema);
        QbeastColumnHandle s = handle(all, "s");
        List<QbeastColumnHandle> columns = ImmutableList.of(handle(all, "id"), s);

        TupleDomain<QbeastColumnHandle> between = TupleDomain.withColumnDomains(ImmutableMap.of(s, Domain.singleValue(VARCHAR, Slices.utf8Slice("m"))));
        ConnectorPageSource source = open(fileSystem, file, columns, Optional.of(schema), between, NO_SAMPLING);
        assertThat(readAll(source, types(columns))).noneMatch(row -> row.get(1).equals(Slices.utf8Slice("m")));
        // every row group was read
        assertThat(source.getCompletedPositions()).hasValue(ROWS);

        TupleDomain<QbeastColumnHandle> above = TupleDomain.withColumnDomains(ImmutableMap.of(s, Domain.singleValue(VARCHAR, Slices.utf8Slice("zz"))));
        ConnectorPageSource excluded = open(fileSystem, file, columns, Optional.of(schema), above, NO_SAMPLING);
        assertThat(readAll(excluded, types(columns))).isEmpty();
        assertThat(excluded.getCompletedPositions()).hasValue(0);
    }

    @Test
    void testSplitsReadDisjointRowGroups()
    {
        TrinoFileSystem fileSystem = new LocalFileSystem(directory);
        Schema schema = schema(SIMPLE_COLUMNS);
        List<List<Object>> rows = weightOrderedRows(ROWS, 4);
        WrittenFile file = write(fileSystem, Location.of("local:///splits.parquet"), schema, SIMPLE_TYPES, rows, smallRowGroups(), ImmutableMap.of());
        List<Long> rowGroups = rowGroupRowCounts(directory.resolve("splits.parquet"));
        assertThat(rowGroups).hasSizeGreaterThan(5);
        List<QbeastColumnHandle> columns = ImmutableList.of(handle(handles(schema), "id"));

        long middle = file.splitOffsets().get(4);
        long firstRows = rowGroups.subList(0, 4).stream().mapToLong(Long::longValue).sum();
        List<List<Object>> first = readAll(split(fileSystem, file, columns, 0, middle), types(columns));
        List<List<Object>> second = readAll(split(fileSystem, file, columns, middle, file.fileSizeInBytes() - middle), types(columns));
        assertThat(first).hasSize((int) firstRows);
        List<List<Object>> both = new ArrayList<>(first);
        both.addAll(second);
        assertThat(both).isEqualTo(rows.stream().map(row -> project(row, 0)).toList());

        // each row group counted in the one split its offset lies in, as the reader assigns them
        FileMetaData footer = readFooter(directory.resolve("splits.parquet"));
        assertThat(QbeastPageSourceFactory.rowGroupsStartingIn(footer, 0, middle)).isEqualTo(4);
        assertThat(QbeastPageSourceFactory.rowGroupsStartingIn(footer, middle, file.fileSizeInBytes() - middle)).isEqualTo(rowGroups.size() - 4);
        assertThat(QbeastPageSourceFactory.rowGroupsStartingIn(footer, middle + 1, file.splitOffsets().get(5) - middle - 1)).isZero();
    }

    /**
     * The row groups of a split carry the metadata of the read columns only, converted as
     * trino-parquet converts them (statistics, offsets, sizes, encodings, row offsets in the file).
     */
    @Test
    void testSplitBlocksHoldTheReadColumnsAsTrinoConvertsThem()
            throws Exception
    {
        TrinoFileSystem fileSystem = new LocalFileSystem(directory);
        Schema schema = schema(SIMPLE_COLUMNS);
        WrittenFile file = write(fileSystem, Location.of("local:///blocks.parquet"), schema, SIMPLE_TYPES, weightOrderedRows(ROWS, 4), smallRowGroups(), ImmutableMap.of());
        FileMetaData footer = readFooter(directory.resolve("blocks.parquet"));
        ParquetDataSourceId dataSourceId = new ParquetDataSourceId("blocks.parquet");
        ParquetMetadata trino = new ParquetMetadata(footer, dataSourceId, Optional.empty());
        MessageType fileSchema = trino.getFileMetaData().getSchema();
        MessageType requested = new MessageType(fileSchema.getName(), fileSchema.getFields().stream()
                .filter(field -> field.getName().equals("id") || field.getName().equals("s"))
                .toList());
        Map<List<String>, ColumnDescriptor> descriptors = ParquetTypeUtils.getDescriptors(fileSchema, requested);
        assertThat(descriptors).hasSize(2);

        long middle = file.splitOffsets().get(4);
        long length = file.fileSizeInBytes() - middle;
        List<BlockMetadata> expected = trino.getBlocks(middle, length);
        List<BlockMetadata> actual = FooterRowGroupFilter.blocks(footer, middle, length, descriptors, dataSourceId);
        assertThat(actual).hasSize(expected.size()).hasSize(file.splitOffsets().size() - 4);
        for (int block = 0; block < actual.size(); block++) {
            assertThat(actual.get(block).fileRowCountOffset()).isEqualTo(expected.get(block).fileRowCountOffset());
            assertThat(actual.get(block).rowCount()).isEqualTo(expected.get(block).rowCount());
            assertThat(actual.get(block).columns()).hasSize(2);
            for (ColumnChunkMetadata column : actual.get(block).columns()) {
                ColumnChunkMetadata trinoColumn = expected.get(block).columns().stream()
                        .filter(candidate -> candidate.getPath().equals(column.getPath()))
                        .findFirst()
                        .orElseThrow();
                assertThat(column.getStatistics()).isEqualTo(trinoColumn.getStatistics());
                assertThat(column.getStartingPos()).isEqualTo(trinoColumn.getStartingPos());
                assertThat(column.getFirstDataPageOffset()).isEqualTo(trinoColumn.getFirstDataPageOffset());
                assertThat(column.getDictionaryPageOffset()).isEqualTo(trinoColumn.getDictionaryPageOffset());
                assertThat(column.getValueCount()).isEqualTo(trinoColumn.getValueCount());
                assertThat(column.getTotalSize()).isEqualTo(trinoColumn.getTotalSize());
                assertThat(column.getTotalUncompressedSize()).isEqualTo(trinoColumn.getTotalUncompressedSize());
                assertThat(column.getEncodings()).isEqualTo(trinoColumn.getEncodings());
                assertThat(column.getCodec()).isEqualTo(trinoColumn.getCodec());
                assertThat(column.getPrimitiveType()).isEqualTo(trinoColumn.getPrimitiveType());
            }
        }
        // the first split's row groups start at row 0 of the file
        assertThat(FooterRowGroupFilter.blocks(footer, 0, middle, descriptors, dataSourceId).getFirst().fileRowCountOffset()).isZero();
    }

    @Test
    void testSchemaEvolution()
    {
        TrinoFileSystem fileSystem = new LocalFileSystem(directory);
        RowType oldRow = RowType.rowType(field("x", INTEGER), field("y", VARCHAR));
        Schema oldSchema = new Schema(
                NestedField.optional(1, "a", Types.LongType.get()),
                NestedField.optional(2, "b", Types.StringType.get()),
                NestedField.optional(3, "p", Types.IntegerType.get()),
                NestedField.optional(4, "r", Types.StructType.of(
                        NestedField.optional(5, "x", Types.IntegerType.get()),
                        NestedField.optional(6, "y", Types.StringType.get()))));
        List<List<Object>> rows = ImmutableList.of(
                row(1L, Slices.utf8Slice("one"), 10L, Arrays.asList(100L, Slices.utf8Slice("r1"))),
                row(2L, null, null, null),
                row(3L, Slices.utf8Slice("three"), -30L, Arrays.asList(null, Slices.utf8Slice("r3"))));
        WrittenFile file = write(fileSystem, Location.of("local:///old.parquet"), oldSchema, ImmutableList.of(BIGINT, VARCHAR, INTEGER, oldRow), rows, WRITER_OPTIONS, ImmutableMap.of());

        // later: b renamed, p widened to bigint, r.x renamed to z, r.y dropped, r.w and column c added
        Schema newSchema = new Schema(
                NestedField.optional(1, "a", Types.LongType.get()),
                NestedField.optional(2, "b_renamed", Types.StringType.get()),
                NestedField.optional(3, "p", Types.LongType.get()),
                NestedField.optional(4, "r", Types.StructType.of(
                        NestedField.optional(5, "z", Types.IntegerType.get()),
                        NestedField.optional(8, "w", Types.StringType.get()))),
                NestedField.optional(7, "c", Types.StringType.get()));
        List<QbeastColumnHandle> columns = handles(newSchema);
        List<List<Object>> actual = readAll(open(fileSystem, file, columns, Optional.of(newSchema), TupleDomain.all(), NO_SAMPLING), types(columns));
        assertThat(actual).containsExactly(
                row(1L, Slices.utf8Slice("one"), 10L, Arrays.asList(100L, null), null),
                row(2L, null, null, null, null),
                row(3L, Slices.utf8Slice("three"), -30L, Arrays.asList(null, null), null));

        // only the added column: a whole column of nulls, nothing decoded
        List<QbeastColumnHandle> added = ImmutableList.of(handle(columns, "c"));
        assertThat(readAll(open(fileSystem, file, added, Optional.of(newSchema), TupleDomain.all(), NO_SAMPLING), types(added)))
                .containsExactly(row((Object) null), row((Object) null), row((Object) null));
    }

    @Test
    void testSamplingFileWithoutWeights()
    {
        // a file written by another engine: no weight column, so rows get derived weights
        TrinoFileSystem fileSystem = new LocalFileSystem(directory);
        Schema schema = schema(ImmutableList.of(column("id", BIGINT)));
        List<List<Object>> rows = IntStream.range(0, 20_000).mapToObj(i -> row((long) i)).toList();
        WrittenFile file = write(fileSystem, Location.of("local:///unindexed.parquet"), schema, ImmutableList.of(BIGINT), rows, WRITER_OPTIONS, ImmutableMap.of());
        List<QbeastColumnHandle> columns = handles(schema);

        long quarter = Integer.MIN_VALUE + (1L << 32) / 4;
        List<List<Object>> sample = readAll(open(fileSystem, file, columns, Optional.of(schema), TupleDomain.all(), quarter), types(columns));
        assertThat(sample.size()).isBetween(4500, 5500);
        // the same rows on every read
        assertThat(readAll(open(fileSystem, file, columns, Optional.of(schema), TupleDomain.all(), quarter), types(columns))).isEqualTo(sample);
        // a larger fraction contains the smaller one
        assertThat(readAll(open(fileSystem, file, columns, Optional.of(schema), TupleDomain.all(), 0), types(columns))).containsAll(sample).hasSizeBetween(9500, 10500);
        assertThat(readAll(open(fileSystem, file, columns, Optional.of(schema), TupleDomain.all(), NO_SAMPLING), types(columns))).isEqualTo(rows);
    }

    @Test
    void testCorruptFiles()
            throws IOException
    {
        TrinoFileSystem fileSystem = new LocalFileSystem(directory);
        Schema schema = schema(SIMPLE_COLUMNS);
        List<QbeastColumnHandle> columns = handles(schema);

        Files.write(directory.resolve("garbage.parquet"), "this is not a parquet file at all".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThatThrownBy(() -> openRaw(fileSystem, "garbage.parquet", columns))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(QBEAST_BAD_DATA.toErrorCode()))
                .hasMessageContaining("garbage.parquet");

        WrittenFile file = write(fileSystem, Location.of("local:///good.parquet"), schema, SIMPLE_TYPES, weightOrderedRows(ROWS, 1), WRITER_OPTIONS, ImmutableMap.of());
        byte[] bytes = Files.readAllBytes(directory.resolve("good.parquet"));

        // footer cut off
        Files.write(directory.resolve("truncated.parquet"), Arrays.copyOf(bytes, bytes.length - 20));
        assertThatThrownBy(() -> openRaw(fileSystem, "truncated.parquet", columns))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(QBEAST_BAD_DATA.toErrorCode()));

        // data pages overwritten: the error comes while reading
        byte[] damaged = bytes.clone();
        Arrays.fill(damaged, 4, (int) (file.fileSizeInBytes() / 2), (byte) 0x55);
        Files.write(directory.resolve("damaged.parquet"), damaged);
        assertThatThrownBy(() -> readAll(openRaw(fileSystem, "damaged.parquet", columns), types(columns)))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isIn(QBEAST_BAD_DATA.toErrorCode(), QBEAST_CURSOR_ERROR.toErrorCode()));

        assertThatThrownBy(() -> PAGE_SOURCE_FACTORY.createPageSource(fileSystem.newInputFile(Location.of("local:///missing.parquet"), 100), 0, 100, 100, columns, TupleDomain.all(), NO_SAMPLING, READER_OPTIONS))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(QBEAST_FILESYSTEM_ERROR.toErrorCode()));
    }

    @Test
    void testMemoryAndProgress()
            throws IOException
    {
        TrinoFileSystem fileSystem = new LocalFileSystem(directory);
        Schema schema = schema(SIMPLE_COLUMNS);
        WrittenFile file = write(fileSystem, Location.of("local:///progress.parquet"), schema, SIMPLE_TYPES, weightOrderedRows(ROWS, 2), WRITER_OPTIONS, ImmutableMap.of());
        List<QbeastColumnHandle> columns = handles(schema);
        ConnectorPageSource source = open(fileSystem, file, columns, Optional.of(schema), TupleDomain.all(), NO_SAMPLING);
        SourcePage page = source.getNextSourcePage();
        assertThat(page).isNotNull();
        page.getPage();
        assertThat(source.getMemoryUsage()).isPositive();
        assertThat(source.getCompletedBytes()).isPositive();
        assertThat(source.isFinished()).isFalse();
        source.close();
        assertThat(source.isFinished()).isTrue();
        assertThat(source.getNextSourcePage()).isNull();
    }

    private ConnectorPageSource openRaw(TrinoFileSystem fileSystem, String name, List<QbeastColumnHandle> columns)
            throws IOException
    {
        long size = Files.size(directory.resolve(name));
        return PAGE_SOURCE_FACTORY.createPageSource(fileSystem.newInputFile(Location.of("local:///" + name), size), 0, size, size, columns, TupleDomain.all(), NO_SAMPLING, READER_OPTIONS);
    }

    private static ConnectorPageSource split(TrinoFileSystem fileSystem, WrittenFile file, List<QbeastColumnHandle> columns, long start, long length)
    {
        return PAGE_SOURCE_FACTORY.createPageSource(
                fileSystem.newInputFile(Location.of(file.path()), file.fileSizeInBytes()),
                start,
                length,
                file.fileSizeInBytes(),
                columns,
                TupleDomain.all(),
                NO_SAMPLING,
                READER_OPTIONS);
    }

    // distinct random weights in ascending order; id and k = 10 * id in random order
    private static List<List<Object>> weightOrderedRows(int count, long seed)
    {
        Random random = new Random(seed);
        long[] weights = random.ints().distinct().limit(count).sorted().asLongStream().toArray();
        List<Long> ids = new ArrayList<>(LongRange.of(count));
        java.util.Collections.shuffle(ids, random);
        List<List<Object>> rows = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            long id = ids.get(i);
            rows.add(row(id, id * 10, Slices.utf8Slice("row-" + id), weights[i], Slices.wrappedBuffer(new byte[] {1, 2, 3})));
        }
        return rows;
    }

    private static List<List<Object>> orderedByK(List<List<Object>> rows)
    {
        return rows.stream().sorted(java.util.Comparator.comparingLong(row -> (long) row.get(1))).toList();
    }

    private static List<Object> row(Object... values)
    {
        return Arrays.asList(values);
    }

    private static final class LongRange
    {
        static List<Long> of(int count)
        {
            return IntStream.range(0, count).mapToObj(i -> (long) i).toList();
        }
    }
}

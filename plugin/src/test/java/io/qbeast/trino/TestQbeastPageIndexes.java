package io.qbeast.trino;

import io.qbeast.index.Weight;
import io.trino.Session;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.internal.column.columnindex.ColumnIndex;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static io.qbeast.trino.IcebergJavaEngine.dataFiles;
import static io.qbeast.trino.handle.QbeastColumnHandle.WEIGHT_COLUMN;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The page indexes qbeast writes (trino-parquet's writer writes none): every column chunk has an
 * offset index and a column index, checked with parquet-java's reader against the values Iceberg's
 * own reader reads from the same file; a sample reads only the pages under its bound, and a range
 * query fewer rows, against the same rows written in one page per column chunk (where the index
 * cannot skip anything), with the same exact result.
 */
class TestQbeastPageIndexes
        extends AbstractTestQbeastTables
{
    private static final String CTAS = "CREATE TABLE %s WITH (indexed_columns = ARRAY['shipdate', 'quantity', 'discount'], cube_size = 10000) AS SELECT * FROM tpch.tiny.lineitem";

    @Test
    void testEveryColumnChunkHasAnOffsetIndexAndEveryFixedWidthColumnAColumnIndex()
    {
        assertUpdate(QbeastQueryRunner.oneWriterPerNode(getSession()), CTAS.formatted("lineitem_indexed"), 60175);
        Table table = tables().table("lineitem_indexed");
        Schema schema = table.schema();
        long pages = 0;
        Set<String> indexedColumns = new TreeSet<>();
        List<DataFile> files = dataFiles(table);
        assertThat(files).isNotEmpty();
        for (DataFile file : files) {
            // every column's values in file order, read by Iceberg's reader (which reads no page index)
            Map<String, List<Object>> values = new HashMap<>();
            schema.columns().forEach(field -> values.put(field.name(), new ArrayList<>()));
            try (CloseableIterable<Record> records = Parquet.read(table.io().newInputFile(file.location()))
                    .project(schema)
                    .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
                    .build()) {
                records.forEach(record -> schema.columns().forEach(field -> values.get(field.name()).add(record.getField(field.name()))));
            }
            catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            assertThat(values.get(WEIGHT_COLUMN)).hasSize((int) file.recordCount()).doesNotContainNull();

            try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(localPath(file.location())))) {
                long firstRowOfGroup = 0;
                for (BlockMetaData block : reader.getFooter().getBlocks()) {
                    for (ColumnChunkMetaData column : block.getColumns()) {
                        OffsetIndex offsetIndex = reader.readOffsetIndex(column);
                        assertThat(offsetIndex).as("offset index of %s in %s", column.getPath(), file.location()).isNotNull();
                        assertThat(offsetIndex.getFirstRowIndex(0)).isZero();
                        for (int page = 0; page < offsetIndex.getPageCount(); page++) {
                            assertThat(offsetIndex.getOffset(page)).isBetween(column.getStartingPos(), column.getStartingPos() + column.getTotalSize() - 1);
                            assertThat(offsetIndex.getLastRowIndex(page, block.getRowCount())).isLessThan(block.getRowCount());
                        }
                        ColumnIndex columnIndex = reader.readColumnIndex(column);
                        PrimitiveTypeName physical = column.getPrimitiveType().getPrimitiveTypeName();
                        assertThat(columnIndex).as("column index of %s", column.getPath()).isNotNull();
                        indexedColumns.add(column.getPath().toDotString());
                        assertThat(columnIndex.getMinValues()).hasSize(offsetIndex.getPageCount());
                        List<Object> columnValues = values.get(column.getPath().toDotString());
                        if (physical == PrimitiveTypeName.BINARY) {
                            // strings and cube ids, in unsigned byte order; bounds are cut to 64 bytes
                            for (int page = 0; page < offsetIndex.getPageCount(); page++) {
                                List<byte[]> pageValues = columnValues.subList(
                                                (int) (firstRowOfGroup + offsetIndex.getFirstRowIndex(page)),
                                                (int) (firstRowOfGroup + offsetIndex.getLastRowIndex(page, block.getRowCount()) + 1)).stream()
                                        .map(TestQbeastPageIndexes::bytes)
                                        .toList();
                                byte[] lowest = pageValues.stream().min(Arrays::compareUnsigned).orElseThrow();
                                byte[] highest = pageValues.stream().max(Arrays::compareUnsigned).orElseThrow();
                                String description = "page %s of %s in %s".formatted(page, column.getPath(), file.location());
                                assertThat(bytes(columnIndex.getMinValues().get(page))).as("lowest of %s", description)
                                        .isEqualTo(Arrays.copyOf(lowest, Math.min(lowest.length, 64)));
                                byte[] upper = bytes(columnIndex.getMaxValues().get(page));
                                assertThat(Arrays.compareUnsigned(upper, highest)).as("highest of %s", description).isGreaterThanOrEqualTo(0);
                                if (highest.length <= 64) {
                                    assertThat(upper).as("highest of %s", description).isEqualTo(highest);
                                }
                            }
                            continue;
                        }
                        for (int page = 0; page < offsetIndex.getPageCount(); page++) {
                            List<Double> pageValues = columnValues.subList(
                                            (int) (firstRowOfGroup + offsetIndex.getFirstRowIndex(page)),
                                            (int) (firstRowOfGroup + offsetIndex.getLastRowIndex(page, block.getRowCount()) + 1)).stream()
                                    .map(TestQbeastPageIndexes::number)
                                    .toList();
                            // tpch has no nulls: exact bounds, no null page, no null counted
                            assertThat(columnIndex.getNullPages().get(page)).isFalse();
                            assertThat(columnIndex.getNullCounts().get(page)).isZero();
                            String description = "page %s of %s in %s".formatted(page, column.getPath(), file.location());
                            assertThat(decode(physical, columnIndex.getMinValues().get(page))).as("lowest of %s", description)
                                    .isEqualTo(pageValues.stream().mapToDouble(Double::doubleValue).min().orElseThrow());
                            assertThat(decode(physical, columnIndex.getMaxValues().get(page))).as("highest of %s", description)
                                    .isEqualTo(pageValues.stream().mapToDouble(Double::doubleValue).max().orElseThrow());
                        }
                        if (column.getPath().toDotString().equals(WEIGHT_COLUMN)) {
                            pages += offsetIndex.getPageCount();
                        }
                    }
                    firstRowOfGroup += block.getRowCount();
                }
            }
            catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        assertThat(indexedColumns).containsExactly("_qbeast_cube", WEIGHT_COLUMN, "comment", "commitdate", "discount", "extendedprice", "linenumber", "linestatus",
                "orderkey", "partkey", "quantity", "receiptdate", "returnflag", "shipdate", "shipinstruct", "shipmode", "suppkey", "tax");
        // pages of at most a few thousand rows: a weight page is small next to a row group
        assertThat(pages).isGreaterThan(60175 / 5000);
    }

    // a value as read by Iceberg's reader, as a number in the order of its Parquet physical type
    private static double number(Object value)
    {
        return switch (value) {
            case Integer integer -> integer;
            case Long longValue -> longValue;
            case Double doubleValue -> doubleValue;
            case LocalDate date -> date.toEpochDay();
            default -> throw new IllegalArgumentException("Unexpected value " + value);
        };
    }

    private static byte[] bytes(Object value)
    {
        ByteBuffer buffer = switch (value) {
            case String string -> ByteBuffer.wrap(string.getBytes(UTF_8));
            case ByteBuffer byteBuffer -> byteBuffer.duplicate();
            default -> throw new IllegalArgumentException("Unexpected value " + value);
        };
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }

    private static double decode(PrimitiveTypeName physical, ByteBuffer bound)
    {
        ByteBuffer littleEndian = bound.order(ByteOrder.LITTLE_ENDIAN);
        return switch (physical) {
            case INT32 -> littleEndian.getInt(0);
            case INT64 -> littleEndian.getLong(0);
            case DOUBLE -> littleEndian.getDouble(0);
            default -> throw new IllegalArgumentException("Unexpected type " + physical);
        };
    }

    @Test
    void testSampleReadsOnlyThePagesUnderItsBound()
    {
        Session oneWriter = QbeastQueryRunner.oneWriterPerNode(getSession());
        assertUpdate(oneWriter, CTAS.formatted("lineitem_paged"), 60175);
        assertUpdate(wholeChunks(oneWriter), CTAS.formatted("lineitem_unpaged"), 60175);

        // footers read once (each node caches them), so that the bytes below are data and page indexes
        computeActual("SELECT count(*) FROM lineitem_paged TABLESAMPLE SYSTEM (1)");
        computeActual("SELECT count(*) FROM lineitem_unpaged TABLESAMPLE SYSTEM (1)");
        for (double percent : new double[] {0.5, 2}) {
            long bound = Weight.upperBound(percent / 100);
            String sample = "SELECT orderkey, linenumber, extendedprice FROM %s TABLESAMPLE SYSTEM (" + percent + ")";
            // exact: the rows under the bound, with or without pages skipped
            assertThat(query(sample.formatted("lineitem_paged"))).matches("SELECT orderkey, linenumber, extendedprice FROM lineitem_paged WHERE _qbeast_weight < " + bound);
            assertThat(query(sample.formatted("lineitem_unpaged"))).matches("SELECT orderkey, linenumber, extendedprice FROM lineitem_unpaged WHERE _qbeast_weight < " + bound);
            ScanStats paged = scanStats(sample.formatted("lineitem_paged"));
            ScanStats unpaged = scanStats(sample.formatted("lineitem_unpaged"));
            long sampled = (long) computeScalar("SELECT count(*) FROM lineitem_paged TABLESAMPLE SYSTEM (" + percent + ")");
            assertThat(sampled).isPositive();
            // without the index the reader reads every column chunk of the row groups whose weights
            // start under the bound (it stops decoding at the first weight past it, the rows are in
            // weight order); with it, the pages under the bound
            assertThat(paged.positions()).as("rows read at %s%%", percent).isGreaterThanOrEqualTo(sampled);
            assertThat(paged.bytes() * 2).as("bytes read at %s%%: %s with page indexes, %s without", percent, paged.bytes(), unpaged.bytes())
                    .isLessThan(unpaged.bytes());
        }
    }

    @Test
    void testRangeQueryReadsOnlyThePagesOfTheCubesItTouches()
    {
        Session oneWriter = QbeastQueryRunner.oneWriterPerNode(getSession());
        assertUpdate(oneWriter, CTAS.formatted("lineitem_ranged"), 60175);
        assertUpdate(wholeChunks(oneWriter), CTAS.formatted("lineitem_unranged"), 60175);
        // a narrow box of the three indexed columns: inside a row group (a pack of cubes, cube
        // after cube), the pages of cubes outside it are skipped by the indexed columns' bounds.
        // Not more: each node's writer builds its own tree, and the three roots (half the rows,
        // their points all over the space) are read whole; TestQbeastParquetPageSource measures
        // the skipping itself

        String range = "SELECT orderkey, linenumber, extendedprice FROM %s WHERE shipdate BETWEEN DATE '1996-06-01' AND DATE '1996-06-30' AND quantity >= 40 AND discount <= 0.02";
        String truth = "SELECT orderkey, linenumber, extendedprice FROM tpch.tiny.lineitem WHERE shipdate BETWEEN DATE '1996-06-01' AND DATE '1996-06-30' AND quantity >= 40 AND discount <= 0.02";
        assertThat(query(range.formatted("lineitem_ranged"))).matches(truth);
        assertThat(query(range.formatted("lineitem_unranged"))).matches(truth);
        ScanStats paged = scanStats(range.formatted("lineitem_ranged"));
        ScanStats unpaged = scanStats(range.formatted("lineitem_unranged"));
        long matching = (long) computeScalar("SELECT count(*) FROM tpch.tiny.lineitem WHERE shipdate BETWEEN DATE '1996-06-01' AND DATE '1996-06-30' AND quantity >= 40 AND discount <= 0.02");
        assertThat(matching).isPositive();
        assertThat(paged.positions()).as("rows read: %s with page indexes, %s in whole chunks", paged.positions(), unpaged.positions())
                .isGreaterThanOrEqualTo(matching)
                .isLessThan(unpaged.positions());
    }

    // the same rows in one page per column chunk: the page index cannot skip anything there
    private static Session wholeChunks(Session session)
    {
        return Session.builder(session)
                .setCatalogSessionProperty(QbeastQueryRunner.CATALOG, "parquet_writer_page_size", "64MB")
                .setCatalogSessionProperty(QbeastQueryRunner.CATALOG, "parquet_writer_batch_size", "1000000")
                .build();
    }

    private ScanStats scanStats(String sql)
    {
        return ScanStats.of(QbeastQueryRunner.queryStats(getDistributedQueryRunner(), getSession(), sql));
    }

    private Path localPath(String location)
    {
        // the runner's local file system maps local:///path under its root
        assertThat(location).startsWith("local:///");
        return root().resolve(location.substring("local:///".length()));
    }
}

package io.qbeast.trino;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.qbeast.iceberg.QbeastTableProperties;
import io.qbeast.iceberg.SnapshotIndex;
import io.qbeast.iceberg.SnapshotIndexReader;
import io.qbeast.trino.config.QbeastConfig;
import io.trino.testing.MaterializedResult;
import io.trino.testing.MaterializedRow;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static io.trino.spi.StandardErrorCode.ALREADY_EXISTS;
import static io.trino.spi.StandardErrorCode.INVALID_PROCEDURE_ARGUMENT;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.StandardErrorCode.TABLE_NOT_FOUND;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code CALL qbeast.system.convert_table}: a plain Iceberg table, created through the Iceberg
 * Java API on the runner's catalog and filled by Iceberg's generic Parquet writer (as another
 * engine would), becomes a qbeast table without any file being rewritten, answers every query as
 * before, and clusters what is inserted afterwards.
 */
class TestQbeastConvertTable
        extends AbstractTestQbeastTables
{
    @Override
    protected QbeastQueryRunner.Builder queryRunnerBuilder()
    {
        // small files and row groups: the inserted tpch tiny rows span many regions, as a large write does
        return super.queryRunnerBuilder().addConnectorProperty("qbeast.target-file-size", "32kB");
    }

    private static final String ORDERS_COLUMNS = "orderkey, custkey, orderstatus, totalprice, orderdate, clerk";
    private static final Schema ORDERS_SCHEMA = new Schema(
            Types.NestedField.required(1, "orderkey", Types.LongType.get()),
            Types.NestedField.optional(2, "custkey", Types.LongType.get()),
            Types.NestedField.optional(3, "orderstatus", Types.StringType.get()),
            Types.NestedField.optional(4, "totalprice", Types.DoubleType.get()),
            Types.NestedField.optional(5, "orderdate", Types.DateType.get()),
            Types.NestedField.optional(6, "clerk", Types.StringType.get()));
    // queries whose answers must not change by the conversion (each compared against tpch too)
    private static final List<String> QUERIES = ImmutableList.of(
            "SELECT %s FROM %%s".formatted(ORDERS_COLUMNS),
            "SELECT count(*), sum(totalprice), min(orderdate), max(orderdate) FROM %s",
            "SELECT orderstatus, count(*), avg(totalprice) FROM %s GROUP BY orderstatus",
            "SELECT orderkey, totalprice FROM %s WHERE orderdate BETWEEN DATE '1994-03-01' AND DATE '1994-03-31' AND totalprice > 200000",
            "SELECT count(*) FROM %s WHERE clerk = 'Clerk#000000123' OR custkey IN (1, 2, 3)");

    @Test
    void testConvertedTableAnswersAsBeforeAndClustersInserts()
    {
        // tpch tiny orders in 3 files of consecutive order dates, in 2 appends (2 snapshots), as another engine writes them
        Table table = createIcebergTable("plain_orders", ORDERS_SCHEMA, PartitionSpec.unpartitioned(), ImmutableMap.of());
        List<MaterializedRow> source = computeActual("SELECT %s FROM tpch.tiny.orders ORDER BY orderdate, orderkey".formatted(ORDERS_COLUMNS)).getMaterializedRows();
        int third = source.size() / 3;
        table.newAppend()
                .appendFile(writeParquet(table, "part-0.parquet", source.subList(0, third)))
                .appendFile(writeParquet(table, "part-1.parquet", source.subList(third, 2 * third)))
                .commit();
        table.newAppend().appendFile(writeParquet(table, "part-2.parquet", source.subList(2 * third, source.size()))).commit();

        String name = "plain_orders";
        Map<String, MaterializedResult> before = new LinkedHashMap<>();
        for (String query : QUERIES) {
            MaterializedResult result = computeActual(query.formatted(name));
            // the unconverted table already reads right through qbeast: compare with tpch itself
            assertThat(result.getMaterializedRows()).containsExactlyInAnyOrderElementsOf(computeActual(query.formatted("tpch.tiny.orders")).getMaterializedRows());
            before.put(query, result);
        }
        Table beforeConversion = tables().table(name);
        long snapshotId = beforeConversion.currentSnapshot().snapshotId();
        Set<String> plannedFiles = plannedFiles(beforeConversion);
        Set<String> storedFiles = tables().listFiles(beforeConversion.location() + "/data");
        assertThat(plannedFiles).hasSize(3).isEqualTo(storedFiles);

        assertUpdate("CALL qbeast.system.convert_table(schema_name => 'tpch', table_name => 'plain_orders', indexed_columns => ARRAY['orderdate', 'totalprice'], cube_size => 2000)");

        // no file rewritten, moved or added; the same snapshot
        Table converted = tables().table(name);
        assertThat(converted.currentSnapshot().snapshotId()).isEqualTo(snapshotId);
        assertThat(plannedFiles(converted)).isEqualTo(plannedFiles);
        assertThat(tables().listFiles(converted.location() + "/data")).isEqualTo(storedFiles);
        assertThat(QbeastTableProperties.indexedColumns(converted.properties())).containsExactly("orderdate", "totalprice");
        assertThat(QbeastTableProperties.cubeSize(converted.properties())).hasValue(2000);
        assertThat((String) computeScalar("SHOW CREATE TABLE plain_orders"))
                .contains("indexed_columns = ARRAY['orderdate','totalprice']")
                .contains("cube_size = 2000")
                .doesNotContain("_qbeast");
        // the index columns are hidden, and null in the old files
        assertThat(computeActual("SELECT * FROM plain_orders").getColumnNames()).containsExactly("orderkey", "custkey", "orderstatus", "totalprice", "orderdate", "clerk");
        assertThat(computeScalar("SELECT count(*) FROM plain_orders WHERE _qbeast_weight IS NULL AND _qbeast_cube IS NULL")).isEqualTo((long) source.size());
        SnapshotIndex index = snapshotIndex(converted);
        assertThat(index.unindexedFiles()).isEqualTo(3);
        assertThat(index.unindexedRows()).isEqualTo(source.size());
        assertThat(index.factsByRevision()).isEmpty();
        // the metadata tables and statistics work on the adopted files
        assertThat(computeActual("SELECT path, record_count FROM \"plain_orders$files\" WHERE revision_id IS NULL AND min_cube IS NULL").getRowCount()).isEqualTo(3);
        assertThat(computeActual("SELECT * FROM \"plain_orders$revisions\"").getRowCount()).isZero();
        MaterializedResult stats = computeActual("SHOW STATS FOR plain_orders");
        assertThat(stats.getMaterializedRows().getLast().getField(4)).isEqualTo((double) source.size());

        for (String query : QUERIES) {
            assertThat(computeActual(query.formatted(name)).getMaterializedRows())
                    .as(query)
                    .containsExactlyInAnyOrderElementsOf(before.get(query).getMaterializedRows());
        }

        // pruning on unindexed files falls back to column bounds: one date range, one file
        String march1994 = "SELECT count(*) FROM plain_orders WHERE orderdate BETWEEN DATE '1994-03-01' AND DATE '1994-03-31'";
        assertThat(computeScalar(march1994)).isEqualTo(computeScalar(march1994.replace("plain_orders", "tpch.tiny.orders")));
        assertThat(physicalInputPositions(march1994)).isLessThanOrEqualTo(source.size() - third - third);

        // TABLESAMPLE on unindexed files: rows get derived weights; a uniform, repeatable subset
        MaterializedResult sample = computeActual("SELECT orderkey FROM plain_orders TABLESAMPLE SYSTEM (10)");
        assertThat(sample.getRowCount()).isBetween(1200, 1800);
        assertThat(computeActual("SELECT orderkey FROM plain_orders TABLESAMPLE SYSTEM (10)").getMaterializedRows())
                .containsExactlyInAnyOrderElementsOf(sample.getMaterializedRows());
        assertThat(computeScalar("SELECT count(*) FROM (SELECT orderkey FROM plain_orders TABLESAMPLE SYSTEM (10) EXCEPT SELECT orderkey FROM tpch.tiny.orders)")).isEqualTo(0L);
        // every file contributes (derived weights are uniform per row, not per file)
        assertThat(computeScalar("SELECT count(DISTINCT year(orderdate)) FROM plain_orders TABLESAMPLE SYSTEM (10)")).isEqualTo(7L);

        // later INSERTs cluster: the new rows land in indexed files (a revision is chosen), the old files stay as they are
        String shifted = "SELECT orderkey + 1000000, custkey, orderstatus, totalprice, orderdate, clerk FROM tpch.tiny.orders";
        assertUpdate("INSERT INTO plain_orders " + shifted, source.size());
        Table inserted = tables().table(name);
        assertThat(plannedFiles(inserted)).containsAll(plannedFiles);
        SnapshotIndex afterInsert = snapshotIndex(inserted);
        assertThat(afterInsert.unindexedFiles()).isEqualTo(3);
        assertThat(afterInsert.unindexedRows()).isEqualTo(source.size());
        assertThat(afterInsert.factsByRevision()).hasSize(1);
        assertThat(afterInsert.factsByRevision().values().iterator().next()).isNotEmpty();
        // clustered: the inserted rows are spread over many cubes of the new revision
        assertThat((Long) computeScalar("SELECT count(DISTINCT _qbeast_cube) FROM plain_orders WHERE _qbeast_cube IS NOT NULL")).isGreaterThan(1L);
        assertThat(QbeastTableProperties.revisionIds(inserted.properties())).hasSize(1);
        assertThat(computeScalar("SELECT count(*) FROM plain_orders WHERE _qbeast_weight IS NOT NULL AND _qbeast_cube IS NOT NULL")).isEqualTo((long) source.size());

        String union = "(SELECT %s FROM tpch.tiny.orders UNION ALL %s)".formatted(ORDERS_COLUMNS, shifted);
        assertThat(computeActual("SELECT %s FROM plain_orders".formatted(ORDERS_COLUMNS)).getMaterializedRows())
                .containsExactlyInAnyOrderElementsOf(computeActual("SELECT * FROM " + union).getMaterializedRows());
        for (String query : QUERIES.subList(1, QUERIES.size())) {
            assertThat(computeActual(query.formatted(name)).getMaterializedRows())
                    .as(query)
                    .containsExactlyInAnyOrderElementsOf(computeActual(query.formatted(union + " u")).getMaterializedRows());
        }

        // the inserted rows are pruned by cube region: a narrow range on both indexed columns reads less than they hold
        String narrow = "SELECT count(*) FROM plain_orders WHERE orderkey > 1000000 AND orderdate BETWEEN DATE '1992-01-01' AND DATE '1992-02-15' AND totalprice < 50000";
        assertThat(computeScalar(narrow)).isEqualTo(computeScalar("SELECT count(*) FROM tpch.tiny.orders WHERE orderdate BETWEEN DATE '1992-01-01' AND DATE '1992-02-15' AND totalprice < 50000"));
        assertThat(physicalInputPositions(narrow)).isLessThan(source.size() * 2 / 3);

        // a sample now reads the weight prefix of the new files plus derived weights of the old ones
        long sampled = (long) computeScalar("SELECT count(*) FROM plain_orders TABLESAMPLE SYSTEM (10)");
        assertThat(sampled).isBetween(2 * 1200L, 2 * 1800L);
        assertThat(computeScalar("SELECT count(*) FROM plain_orders TABLESAMPLE SYSTEM (10) WHERE orderkey > 1000000")).isNotEqualTo(0L);
        assertThat(computeScalar("SELECT count(*) FROM plain_orders TABLESAMPLE SYSTEM (10) WHERE orderkey < 1000000")).isNotEqualTo(0L);

        // the table stays a valid Iceberg table: Iceberg's own generic reader sees every row, old and new
        long icebergRows = 0;
        try (CloseableIterable<Record> records = IcebergGenerics.read(tables().table(name)).select("orderkey").build()) {
            for (Record _ : records) {
                icebergRows++;
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertThat(icebergRows).isEqualTo(2L * source.size());

        // optimize indexes the adopted files into the tree of the inserted ones: nothing unindexed is
        // left, every row has a weight and a cube, and every answer stays the same
        assertUpdate("ALTER TABLE plain_orders EXECUTE optimize(mode => 'unindexed')");
        assertThat(snapshotIndex(tables().table(name)).unindexedFiles()).isZero();
        assertThat(computeScalar("SELECT count(*) FROM plain_orders WHERE _qbeast_weight IS NULL OR _qbeast_cube IS NULL")).isEqualTo(0L);
        assertThat(computeActual("SELECT %s FROM plain_orders".formatted(ORDERS_COLUMNS)).getMaterializedRows())
                .containsExactlyInAnyOrderElementsOf(computeActual("SELECT * FROM " + union).getMaterializedRows());
        for (String query : QUERIES.subList(1, QUERIES.size())) {
            assertThat(computeActual(query.formatted(name)).getMaterializedRows())
                    .as("after optimize: " + query)
                    .containsExactlyInAnyOrderElementsOf(computeActual(query.formatted(union + " u")).getMaterializedRows());
        }
        // the old rows are now pruned by cube region too
        String oldNarrow = "SELECT count(*) FROM plain_orders WHERE orderkey < 1000000 AND orderdate BETWEEN DATE '1992-01-01' AND DATE '1992-02-15' AND totalprice < 50000";
        assertThat(computeScalar(oldNarrow)).isEqualTo(computeScalar("SELECT count(*) FROM tpch.tiny.orders WHERE orderdate BETWEEN DATE '1992-01-01' AND DATE '1992-02-15' AND totalprice < 50000"));
        assertThat(physicalInputPositions(oldNarrow)).isLessThan(source.size() * 2 / 3);
    }

    @Test
    void testEmptyTableConverts()
    {
        createIcebergTable("empty_plain", ORDERS_SCHEMA, PartitionSpec.unpartitioned(), ImmutableMap.of());
        assertUpdate("CALL qbeast.system.convert_table('tpch', 'empty_plain', ARRAY['orderkey'])");
        assertThat(QbeastTableProperties.cubeSize(tables().table("empty_plain").properties())).hasValue(new QbeastConfig().getDefaultCubeSize());
        assertUpdate("INSERT INTO empty_plain SELECT %s FROM tpch.tiny.orders".formatted(ORDERS_COLUMNS), 15000);
        assertThat(computeActual("SELECT %s FROM empty_plain".formatted(ORDERS_COLUMNS)).getMaterializedRows())
                .containsExactlyInAnyOrderElementsOf(computeActual("SELECT %s FROM tpch.tiny.orders".formatted(ORDERS_COLUMNS)).getMaterializedRows());
        assertThat(snapshotIndex(tables().table("empty_plain")).unindexedFiles()).isZero();
    }

    @Test
    void testRefusals()
    {
        assertThat(query("CALL qbeast.system.convert_table('tpch', 'no_such_table', ARRAY['a'])"))
                .failure().hasErrorCode(TABLE_NOT_FOUND).hasMessageContaining("tpch.no_such_table");
        assertThat(query("CALL qbeast.system.convert_table('no_such_schema', 'no_such_table', ARRAY['a'])"))
                .failure().hasErrorCode(TABLE_NOT_FOUND);

        assertUpdate("CREATE TABLE already_qbeast WITH (indexed_columns = ARRAY['a']) AS SELECT 1 a", 1);
        assertThat(query("CALL qbeast.system.convert_table('tpch', 'already_qbeast', ARRAY['a'])"))
                .failure().hasErrorCode(ALREADY_EXISTS).hasMessageContaining("already a qbeast table");

        Schema withList = new Schema(
                Types.NestedField.optional(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "tags", Types.ListType.ofOptional(3, Types.StringType.get())));
        createIcebergTable("bad_arguments", withList, PartitionSpec.unpartitioned(), ImmutableMap.of());
        assertThat(query("CALL qbeast.system.convert_table('tpch', 'bad_arguments', ARRAY['id', 'nope'])"))
                .failure().hasErrorCode(INVALID_PROCEDURE_ARGUMENT).hasMessageContaining("names column 'nope', which table tpch.bad_arguments does not have");
        assertThat(query("CALL qbeast.system.convert_table('tpch', 'bad_arguments', ARRAY['tags'])"))
                .failure().hasErrorCode(INVALID_PROCEDURE_ARGUMENT).hasMessageContaining("Column 'tags' of type array(varchar) cannot be indexed");
        assertThat(query("CALL qbeast.system.convert_table('tpch', 'bad_arguments', ARRAY[])"))
                .failure().hasErrorCode(INVALID_PROCEDURE_ARGUMENT).hasMessageContaining("indexed_columns must name at least one column");
        assertThat(query("CALL qbeast.system.convert_table('tpch', 'bad_arguments', ARRAY['id', NULL])"))
                .failure().hasErrorCode(INVALID_PROCEDURE_ARGUMENT).hasMessageContaining("indexed_columns must not contain NULL");
        assertThat(query("CALL qbeast.system.convert_table('tpch', 'bad_arguments', ARRAY['id', 'id'])"))
                .failure().hasErrorCode(INVALID_PROCEDURE_ARGUMENT).hasMessageContaining("lists column 'id' more than once");
        assertThat(query("CALL qbeast.system.convert_table('tpch', 'bad_arguments', ARRAY['id'], 0)"))
                .failure().hasErrorCode(INVALID_PROCEDURE_ARGUMENT).hasMessageContaining("cube_size must be positive, but is 0");
        assertThat(query("CALL qbeast.system.convert_table(schema_name => 'tpch', table_name => 'bad_arguments')"))
                .failure().hasMessageContaining("INDEXED_COLUMNS");
        assertNotConverted("bad_arguments");

        Schema clash = new Schema(
                Types.NestedField.optional(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "_qbeast_weight", Types.IntegerType.get()));
        createIcebergTable("reserved_name", clash, PartitionSpec.unpartitioned(), ImmutableMap.of());
        assertThat(query("CALL qbeast.system.convert_table('tpch', 'reserved_name', ARRAY['id'])"))
                .failure().hasErrorCode(NOT_SUPPORTED).hasMessageContaining("column named _qbeast_weight");
        assertNotConverted("reserved_name");

        createIcebergTable("partitioned", ORDERS_SCHEMA, PartitionSpec.builderFor(ORDERS_SCHEMA).month("orderdate").build(), ImmutableMap.of());
        assertThat(query("CALL qbeast.system.convert_table('tpch', 'partitioned', ARRAY['orderkey'])"))
                .failure().hasErrorCode(NOT_SUPPORTED).hasMessageContaining("is partitioned");
        assertNotConverted("partitioned");

        Table orc = createIcebergTable("orc_files", ORDERS_SCHEMA, PartitionSpec.unpartitioned(), ImmutableMap.of());
        orc.newAppend().appendFile(DataFiles.builder(orc.spec())
                .withPath(orc.location() + "/data/file.orc")
                .withFormat(FileFormat.ORC)
                .withFileSizeInBytes(1000)
                .withRecordCount(10)
                .build()).commit();
        assertThat(query("CALL qbeast.system.convert_table('tpch', 'orc_files', ARRAY['orderkey'])"))
                .failure().hasErrorCode(NOT_SUPPORTED).hasMessageContaining("file.orc in format ORC");
        assertNotConverted("orc_files");

        Table deletes = createIcebergTable("with_deletes", ORDERS_SCHEMA, PartitionSpec.unpartitioned(), ImmutableMap.of(TableProperties.FORMAT_VERSION, "2"));
        deletes.newAppend().appendFile(writeParquet(deletes, "data.parquet", computeActual("SELECT %s FROM tpch.tiny.orders LIMIT 10".formatted(ORDERS_COLUMNS)).getMaterializedRows())).commit();
        deletes.newRowDelta().addDeletes(FileMetadata.deleteFileBuilder(deletes.spec())
                .ofEqualityDeletes(1)
                .withPath(deletes.location() + "/data/deletes.parquet")
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(100)
                .withRecordCount(1)
                .build()).commit();
        assertThat(query("CALL qbeast.system.convert_table('tpch', 'with_deletes', ARRAY['orderkey'])"))
                .failure().hasErrorCode(NOT_SUPPORTED).hasMessageContaining("row-level deletes");
        assertNotConverted("with_deletes");

        Schema fixed = new Schema(
                Types.NestedField.optional(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "digest", Types.FixedType.ofLength(16)));
        createIcebergTable("fixed_type", fixed, PartitionSpec.unpartitioned(), ImmutableMap.of());
        assertThat(query("CALL qbeast.system.convert_table('tpch', 'fixed_type', ARRAY['id'])"))
                .failure().hasErrorCode(NOT_SUPPORTED).hasMessageContaining("column 'digest' has Iceberg type fixed[16], which qbeast cannot write");
        assertNotConverted("fixed_type");

        Schema upper = new Schema(Types.NestedField.optional(1, "Id", Types.LongType.get()));
        createIcebergTable("upper_case", upper, PartitionSpec.unpartitioned(), ImmutableMap.of());
        assertThat(query("CALL qbeast.system.convert_table('tpch', 'upper_case', ARRAY['Id'])"))
                .failure().hasErrorCode(NOT_SUPPORTED).hasMessageContaining("column 'Id' is not lower case");
        assertNotConverted("upper_case");

        Table v3 = createIcebergTable("format_v3", ORDERS_SCHEMA, PartitionSpec.unpartitioned(), ImmutableMap.of(TableProperties.FORMAT_VERSION, "3"));
        assertThat(((HasTableOperations) v3).operations().current().formatVersion()).isEqualTo(3);
        assertThat(query("CALL qbeast.system.convert_table('tpch', 'format_v3', ARRAY['orderkey'])"))
                .failure().hasErrorCode(NOT_SUPPORTED).hasMessageContaining("format version 3");
        assertNotConverted("format_v3");
    }

    // ---- helpers ----

    private void assertNotConverted(String name)
    {
        Table table = tables().table(name);
        assertThat(QbeastTableProperties.isQbeastTable(table.properties())).isFalse();
        assertThat(table.schema().findField("_qbeast_cube")).isNull();
    }

    private Table createIcebergTable(String name, Schema schema, PartitionSpec spec, Map<String, String> properties)
    {
        return tables().catalog().buildTable(TableIdentifier.of(QbeastQueryRunner.SCHEMA, name), schema)
                .withPartitionSpec(spec)
                .withProperties(properties)
                .create();
    }

    /** One Parquet file written by Iceberg's generic writer (parquet-mr), with Iceberg's metrics. */
    private static DataFile writeParquet(Table table, String fileName, List<MaterializedRow> rows)
    {
        Schema schema = table.schema();
        try {
            DataWriter<Record> writer = Parquet.writeData(table.io().newOutputFile(table.location() + "/data/" + fileName))
                    .schema(schema)
                    .withSpec(table.spec())
                    .createWriterFunc(GenericParquetWriter::create)
                    .set(TableProperties.PARQUET_COMPRESSION, "uncompressed")
                    // several row groups per file, as larger tables have
                    .set(TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, Integer.toString(32 * 1024))
                    .build();
            try (writer) {
                for (MaterializedRow row : rows) {
                    GenericRecord record = GenericRecord.create(schema);
                    for (int field = 0; field < row.getFieldCount(); field++) {
                        record.set(field, row.getField(field));
                    }
                    writer.write(record);
                }
            }
            return writer.toDataFile();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Set<String> plannedFiles(Table table)
    {
        Set<String> files = new TreeSet<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            tasks.forEach(task -> files.add(task.file().location()));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    private static SnapshotIndex snapshotIndex(Table table)
    {
        return SnapshotIndexReader.read(table.io(), ((HasTableOperations) table).operations().current(), table.currentSnapshot().snapshotId());
    }

    private long physicalInputPositions(String sql)
    {
        return QbeastQueryRunner.queryStats(getDistributedQueryRunner(), getSession(), sql).getPhysicalInputPositions();
    }
}

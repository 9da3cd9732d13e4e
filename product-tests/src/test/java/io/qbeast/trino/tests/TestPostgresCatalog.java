package io.qbeast.trino.tests;

import io.qbeast.trino.tests.ProductTestServers.SharedPostgresCatalog;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * The qbeast catalog on a real PostgreSQL server (Iceberg JDBC catalog) with local storage, and
 * Trino's stock Iceberg connector as a second catalog {@code iceberg} on the same PostgreSQL
 * catalog (same {@code catalog_name}) and the same warehouse: what qbeast writes, the stock
 * connector reads identically, hidden index columns included, and prunes files on
 * {@code _qbeast_weight}.
 */
@TestInstance(PER_CLASS)
@Timeout(300)
public class TestPostgresCatalog
{
    private static final String SHARED_CATALOG_NAME = "lake";
    private static final String TPCH_ORDERS = "tpch.tiny.orders";
    private static final String ORDER_COLUMNS = "orderkey, custkey, orderstatus, totalprice, orderdate, orderpriority, clerk, shippriority, comment";

    private SharedPostgresCatalog servers;
    private PostgresServer postgres;
    private TrinoQueries sql;
    private Path warehouse;

    @BeforeAll
    public void start()
            throws Exception
    {
        // small files: tpch.tiny fits one row group at the default sizes, and the sample through the
        // stock connector below needs files and row groups whose _qbeast_weight bounds differ
        servers = SharedPostgresCatalog.start("postgres-catalog", SHARED_CATALOG_NAME, Map.of("qbeast.target-file-size", "64kB"));
        postgres = servers.postgres();
        warehouse = servers.warehouse();
        sql = new TrinoQueries(servers.trino());
    }

    @AfterAll
    public void stop()
            throws Exception
    {
        if (servers != null) {
            servers.close();
        }
    }

    @Test
    public void qbeastTablesLiveInPostgres()
            throws Exception
    {
        sql.execute("CREATE SCHEMA qbeast.pg");
        String table = "qbeast.pg.orders";
        sql.createFrom(table, "indexed_columns = ARRAY['custkey', 'orderdate']", TPCH_ORDERS, "orderkey % 2 = 0");
        sql.insertFrom(table, TPCH_ORDERS, "orderkey % 2 = 1");

        // the Iceberg catalog rows are in PostgreSQL, under the configured catalog name
        assertThat(postgres.psql("SELECT catalog_name || '/' || table_namespace || '/' || table_name FROM iceberg_tables ORDER BY 1"))
                .contains(SHARED_CATALOG_NAME + "/pg/orders");
        String metadataLocation = postgres.psql("SELECT metadata_location FROM iceberg_tables WHERE table_namespace = 'pg' AND table_name = 'orders'");
        assertThat(metadataLocation).startsWith("file://" + warehouse.toAbsolutePath() + "/").endsWith(".metadata.json");
        assertThat(Path.of(URI.create(metadataLocation))).isRegularFile();
        // and the data files in the local warehouse
        assertThat(parquetFiles(warehouse)).isNotEmpty();

        assertSameAsTpch("SELECT count(*), sum(orderkey), sum(custkey), sum(CAST(totalprice AS DECIMAL(12, 2))), min(orderdate), max(orderdate), count(DISTINCT clerk), sum(length(comment)) FROM %s", table);
        assertSameAsTpch("SELECT orderkey, custkey, orderdate FROM %s WHERE custkey = 370 ORDER BY orderkey", table);
        assertSameAsTpch("SELECT orderstatus, count(*), max(totalprice) FROM %s WHERE orderdate BETWEEN DATE '1994-01-01' AND DATE '1994-06-30' GROUP BY orderstatus ORDER BY orderstatus", table);
        sql.assertSameRows(table, TPCH_ORDERS);

        // two commits through the PostgreSQL catalog: two snapshots
        assertThat(sql.single("SELECT count(*) FROM iceberg.pg.\"orders$snapshots\"")).isEqualTo(2L);
    }

    @Test
    public void stockIcebergConnectorReadsQbeastTable()
            throws SQLException
    {
        sql.execute("CREATE SCHEMA qbeast.interop");
        String qbeastTable = "qbeast.interop.orders";
        String icebergTable = "iceberg.interop.orders";
        // small cubes in small files: several files and row groups whose weight bounds differ
        sql.update("CREATE TABLE " + qbeastTable + " WITH (indexed_columns = ARRAY['orderdate', 'totalprice'], cube_size = 500) AS SELECT * FROM " + TPCH_ORDERS);

        // the stock connector sees the table with the index columns as ordinary columns
        assertThat(sql.query("SELECT table_name FROM iceberg.information_schema.tables WHERE table_schema = 'interop'"))
                .containsExactly(List.of("orders"));
        assertThat(sql.query("SELECT column_name, data_type FROM iceberg.information_schema.columns WHERE table_schema = 'interop' AND table_name = 'orders' AND column_name LIKE '\\_qbeast%' ESCAPE '\\' ORDER BY column_name"))
                .containsExactly(List.of("_qbeast_cube", "varbinary"), List.of("_qbeast_weight", "integer"));
        assertThat(sql.query("SELECT count(*) FROM qbeast.information_schema.columns WHERE table_schema = 'interop' AND table_name = 'orders' AND column_name LIKE '\\_qbeast%' ESCAPE '\\'"))
                .as("hidden in qbeast")
                .containsExactly(List.of(0L));

        // every row, identical through both connectors and equal to TPC-H
        String aggregates = "SELECT count(*), sum(orderkey), sum(custkey), sum(CAST(totalprice AS DECIMAL(12, 2))), min(orderdate), max(orderdate), count(DISTINCT clerk), sum(length(comment)), " +
                "sum(CAST(_qbeast_weight AS BIGINT)), count(DISTINCT _qbeast_cube), sum(length(_qbeast_cube)) FROM %s";
        assertThat(sql.query(aggregates.formatted(icebergTable))).isEqualTo(sql.query(aggregates.formatted(qbeastTable)));
        assertThat(sql.query("SELECT count(*), sum(orderkey) FROM " + icebergTable)).containsExactly(List.of(15000L, 449_872_500L));
        for (String[] pair : new String[][] {{icebergTable, TPCH_ORDERS}, {TPCH_ORDERS, icebergTable}}) {
            assertThat(sql.query("SELECT count(*) FROM (SELECT %s FROM %s EXCEPT ALL SELECT %s FROM %s)".formatted(ORDER_COLUMNS, pair[0], ORDER_COLUMNS, pair[1])))
                    .as("%s EXCEPT ALL %s", pair[0], pair[1])
                    .containsExactly(List.of(0L));
        }
        String withIndexColumns = "SELECT orderkey, _qbeast_weight, _qbeast_cube FROM %s";
        for (String[] pair : new String[][] {{icebergTable, qbeastTable}, {qbeastTable, icebergTable}}) {
            assertThat(sql.query("SELECT count(*) FROM (%s EXCEPT ALL %s)".formatted(withIndexColumns.formatted(pair[0]), withIndexColumns.formatted(pair[1]))))
                    .as("index columns, %s EXCEPT ALL %s", pair[0], pair[1])
                    .containsExactly(List.of(0L));
        }
        String filter = "SELECT orderkey, totalprice, orderdate FROM %s WHERE orderdate BETWEEN DATE '1995-01-01' AND DATE '1995-03-31' AND totalprice > 200000 ORDER BY orderkey";
        assertThat(sql.query(filter.formatted(icebergTable))).isEqualTo(sql.query(filter.formatted(TPCH_ORDERS))).isNotEmpty();

        // a sample by weight through the stock connector: same rows as through qbeast, fewer rows read
        // (it skips the files and row groups whose _qbeast_weight minimum is above the bound)
        long files = (long) sql.single("SELECT count(*) FROM iceberg.interop.\"orders$files\"");
        assertThat(files).as("data files").isGreaterThan(2);
        int bound = Integer.MIN_VALUE + (int) (0.05 * 4294967296.0);  // ~5% of the rows
        String scan = "SELECT count(*), sum(orderkey), max(_qbeast_weight) FROM %s";
        String sample = scan + " WHERE _qbeast_weight < " + bound;
        TrinoQueries.Result full = sql.run(scan.formatted(icebergTable));
        TrinoQueries.Result sampled = sql.run(sample.formatted(icebergTable));
        assertThat(sampled.rows()).isEqualTo(sql.query(sample.formatted(qbeastTable)));
        long sampledRows = (long) sampled.rows().getFirst().getFirst();
        System.out.printf("TestPostgresCatalog: %d data files; stock Iceberg connector full scan: %d rows, %d bytes; _qbeast_weight < %d: %d rows read, %d bytes, %d rows match%n",
                files, full.stats().getProcessedRows(), full.stats().getProcessedBytes(), bound, sampled.stats().getProcessedRows(), sampled.stats().getProcessedBytes(), sampledRows);
        assertThat(sampledRows).isBetween(300L, 1500L);
        assertThat(full.stats().getProcessedRows()).isEqualTo(15000);
        assertThat(sampled.stats().getProcessedRows())
                .as("rows read by the stock connector for _qbeast_weight < %d (%d of them match)", bound, sampledRows)
                .isLessThan(full.stats().getProcessedRows() / 2);
        assertThat(sampled.stats().getProcessedBytes()).isLessThan(full.stats().getProcessedBytes() / 2);
    }

    @Test
    public void icebergGenericReaderReadsQbeastTable()
            throws Exception
    {
        sql.execute("CREATE SCHEMA qbeast.generic");
        String table = "qbeast.generic.orders";
        sql.update("CREATE TABLE " + table + " WITH (indexed_columns = ARRAY['custkey', 'orderdate'], cube_size = 2000) AS SELECT * FROM " + TPCH_ORDERS + " WHERE orderkey % 3 <> 0");
        sql.update("INSERT INTO " + table + " SELECT * FROM " + TPCH_ORDERS + " WHERE orderkey % 3 = 0");

        // Trino's rows, as strings of a few columns including the hidden weight
        Map<String, Long> trinoRows = new HashMap<>();
        for (List<Object> row : sql.query("SELECT orderkey, custkey, CAST(orderdate AS varchar), totalprice, clerk, _qbeast_weight FROM " + table)) {
            trinoRows.merge(row.stream().map(String::valueOf).collect(Collectors.joining("|")), 1L, Long::sum);
        }
        assertThat(trinoRows.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(15000L);

        // Iceberg's generic Java reader through a JdbcCatalog on the same PostgreSQL catalog (same catalog name)
        Map<String, String> properties = new HashMap<>();
        properties.put(CatalogProperties.URI, postgres.jdbcUrl());
        properties.put("jdbc.user", postgres.user());
        properties.put("jdbc.password", postgres.password());
        properties.put(CatalogProperties.WAREHOUSE_LOCATION, "file://" + warehouse.toAbsolutePath());
        // the table's file: URIs opened as they are
        properties.put(CatalogProperties.FILE_IO_IMPL, FileUriIo.class.getName());
        Map<String, Long> icebergRows = new HashMap<>();
        long files;
        try (JdbcCatalog catalog = new JdbcCatalog()) {
            catalog.initialize(SHARED_CATALOG_NAME, properties);
            Table icebergTable = catalog.loadTable(TableIdentifier.of("generic", "orders"));
            assertThat(icebergTable.snapshots()).hasSize(2);
            try (CloseableIterable<FileScanTask> tasks = icebergTable.newScan().planFiles()) {
                files = java.util.stream.StreamSupport.stream(tasks.spliterator(), false).count();
            }
            try (CloseableIterable<Record> records = IcebergGenerics.read(icebergTable).build()) {
                for (Record record : records) {
                    String key = Stream.of(record.getField("orderkey"), record.getField("custkey"), record.getField("orderdate"), record.getField("totalprice"), record.getField("clerk"), record.getField("_qbeast_weight"))
                            .map(String::valueOf)
                            .collect(Collectors.joining("|"));
                    icebergRows.merge(key, 1L, Long::sum);
                }
            }
        }
        System.out.printf("TestPostgresCatalog: Iceberg generic reader read %d rows from %d data files%n", icebergRows.values().stream().mapToLong(Long::longValue).sum(), files);
        assertThat(files).isGreaterThan(1);
        assertThat(icebergRows).isEqualTo(trinoRows);
    }

    private void assertSameAsTpch(String template, String table)
            throws SQLException
    {
        sql.assertSameResults(template, table, TPCH_ORDERS);
    }

    private static List<Path> parquetFiles(Path root)
            throws IOException
    {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(file -> file.toString().endsWith(".parquet")).toList();
        }
    }
}

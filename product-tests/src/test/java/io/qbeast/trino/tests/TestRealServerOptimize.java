package io.qbeast.trino.tests;

import org.apache.iceberg.Table;
import org.apache.iceberg.util.ByteBuffers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * Optimize in a real Trino server with the packaged plugin (its own class loader, handles
 * serialized between stages): {@code ALTER TABLE ... EXECUTE optimize} and
 * {@code CALL qbeast.system.optimize} keep exactly TPC-H's rows and report in {@code "t$snapshots"};
 * a second catalog on the same tables with {@code qbeast.security=read-only} refuses both, and
 * writes, leaving the table as it was.
 */
@TestInstance(PER_CLASS)
@Timeout(300)
public class TestRealServerOptimize
{
    private static final String SCHEMA = "qbeast.optimize_test";
    private static final String TPCH_ORDERS = "tpch.tiny.orders";
    private static final String READ_ONLY = "qbeast_read_only";

    // the table's columns, then its hidden ones, as text (dates and binary as Iceberg's reader prints them below)
    private static final List<String> COLUMNS = List.of("orderkey", "custkey", "orderstatus", "totalprice", "orderdate", "orderpriority", "clerk", "shippriority", "comment", "_qbeast_weight", "_qbeast_cube");
    private static final String TRINO_COLUMNS = "orderkey, custkey, orderstatus, totalprice, CAST(orderdate AS varchar), orderpriority, clerk, shippriority, comment, _qbeast_weight, to_hex(_qbeast_cube)";

    private Path warehouse;
    private TrinoServer trino;
    private TrinoQueries queries;

    @BeforeAll
    public void startServer()
            throws SQLException
    {
        Path work = ProductTestEnvironment.newWorkDirectory("real-server-optimize");
        warehouse = work.resolve("warehouse");
        trino = TrinoServer.builder()
                .withDirectory(work.resolve("cluster"))
                .withTpch()
                .withQbeast(warehouse)
                // the qbeast catalog's Iceberg catalog and warehouse, read-only
                .withQbeast(READ_ONLY, warehouse, Map.of("qbeast.jdbc.catalog-name", "qbeast", "qbeast.security", "read-only"))
                .start();
        queries = new TrinoQueries(trino);
        queries.execute("CREATE SCHEMA " + SCHEMA);
    }

    @AfterAll
    public void stopServer()
    {
        if (trino != null) {
            trino.close();
        }
    }

    @Test
    public void alterTableExecuteOptimize()
            throws SQLException
    {
        String table = SCHEMA + ".orders_execute";
        createFromInserts(table);
        queries.execute("ALTER TABLE " + table + " EXECUTE optimize");
        assertSameRows(table);
        assertThat(queries.query("SELECT json_extract_scalar(summary, '$[\"qbeast.optimize.rows\"]') FROM " + SCHEMA + ".\"orders_execute$snapshots\" WHERE operation = 'replace'"))
                .containsExactly(List.of("15000"));
        // nothing left to do: no new snapshot
        queries.execute("ALTER TABLE " + table + " EXECUTE optimize");
        assertThat(queries.query("SELECT count(*) FROM " + SCHEMA + ".\"orders_execute$snapshots\" WHERE operation = 'replace'"))
                .containsExactly(List.of(1L));
    }

    @Test
    public void callOptimize()
            throws SQLException
    {
        String table = SCHEMA + ".orders_call";
        createFromInserts(table);
        queries.execute("CALL qbeast.system.optimize(schema_name => 'optimize_test', table_name => 'orders_call', mode => 'all')");
        assertSameRows(table);
        assertThat(queries.query("SELECT json_extract_scalar(summary, '$[\"qbeast.optimize.mode\"]') FROM " + SCHEMA + ".\"orders_call$snapshots\" WHERE operation = 'replace'"))
                .containsExactly(List.of("all"));
    }

    @Test
    public void readOnlyCatalogRefusesOptimizeAndWrites()
            throws SQLException
    {
        String table = SCHEMA + ".orders_read_only";
        createFromInserts(table);
        String snapshots = "SELECT snapshot_id FROM " + SCHEMA + ".\"orders_read_only$snapshots\" ORDER BY sequence_number";
        List<List<Object>> snapshotsBefore = queries.query(snapshots);
        List<List<Object>> files = queries.query("SELECT path FROM " + SCHEMA + ".\"orders_read_only$files\" ORDER BY path");

        String readOnlyTable = READ_ONLY + ".optimize_test.orders_read_only";
        for (String sql : List.of(
                "ALTER TABLE " + readOnlyTable + " EXECUTE optimize(mode => 'all')",
                "CALL " + READ_ONLY + ".system.optimize(schema_name => 'optimize_test', table_name => 'orders_read_only', mode => 'all')",
                "INSERT INTO " + readOnlyTable + " SELECT * FROM " + TPCH_ORDERS,
                "DROP TABLE " + readOnlyTable,
                "CREATE TABLE " + READ_ONLY + ".optimize_test.orders_copy WITH (indexed_columns = ARRAY['orderkey']) AS SELECT * FROM " + TPCH_ORDERS)) {
            assertThatThrownBy(() -> queries.execute(sql))
                    .as(sql)
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("Access Denied: ");
        }

        assertThat(queries.query(snapshots)).isEqualTo(snapshotsBefore);
        assertThat(queries.query("SELECT path FROM " + SCHEMA + ".\"orders_read_only$files\" ORDER BY path")).isEqualTo(files);
        assertThat(queries.query("SHOW TABLES FROM qbeast.optimize_test LIKE 'orders_copy'")).isEmpty();
        // reads work, through either catalog
        assertSameRows(table);
        assertSameRows(readOnlyTable);
    }

    /**
     * Apache Iceberg's Java API alone (its JdbcCatalog on the quickstart's SQLite catalog file, its
     * generic reader, its local files on the table's file: URIs as they are) reads what Trino reads, hidden
     * columns included, before and after optimize; the manifests' column bounds hold every row.
     */
    @Test
    public void icebergJavaApiReadsTableBeforeAndAfterOptimize()
            throws Exception
    {
        String table = SCHEMA + ".orders_iceberg";
        createFromInserts(table);
        try (IcebergJavaReader iceberg = new IcebergJavaReader(warehouse, "qbeast")) {
            Table written = iceberg.load("optimize_test", "orders_iceberg");
            assertThat(written.location()).startsWith("file://" + warehouse.toAbsolutePath() + "/optimize_test/orders_iceberg-");
            assertIcebergReadsAsTrino(written, table);
        }
        // closed first: its SQLite connection would hold the file lock that Trino's commit waits for
        queries.execute("ALTER TABLE " + table + " EXECUTE optimize");
        try (IcebergJavaReader iceberg = new IcebergJavaReader(warehouse, "qbeast")) {
            Table optimized = iceberg.load("optimize_test", "orders_iceberg");
            assertThat(optimized.currentSnapshot().operation()).isEqualTo("replace");
            assertIcebergReadsAsTrino(optimized, table);
        }
    }

    private void assertIcebergReadsAsTrino(Table icebergTable, String table)
            throws SQLException
    {
        List<String> trinoRows = queries.query("SELECT " + TRINO_COLUMNS + " FROM " + table).stream()
                .map(row -> row.stream().map(String::valueOf).collect(Collectors.joining("|")))
                .sorted()
                .toList();
        List<String> icebergRows = IcebergJavaReader.rows(icebergTable).stream()
                .map(record -> COLUMNS.stream().map(column -> text(record.getField(column))).collect(Collectors.joining("|")))
                .sorted()
                .toList();
        assertThat(trinoRows).hasSize(15000);
        assertThat(icebergRows).isEqualTo(trinoRows);
        // every file has bounds of every column (hidden ones included), and they hold its rows
        assertThat(IcebergJavaReader.assertColumnBoundsHoldRows(icebergTable)).isPositive();
    }

    /** An Iceberg generic value as Trino's JDBC value prints: binary as upper-case hex (to_hex). */
    private static String text(Object value)
    {
        if (value instanceof ByteBuffer buffer) {
            return HexFormat.of().withUpperCase().formatHex(ByteBuffers.toByteArray(buffer));
        }
        return String.valueOf(value);
    }

    private void createFromInserts(String table)
            throws SQLException
    {
        queries.execute("CREATE TABLE " + table + " WITH (indexed_columns = ARRAY['custkey', 'totalprice'], cube_size = 500) AS SELECT * FROM " + TPCH_ORDERS + " WHERE orderkey % 5 = 0");
        for (int i = 1; i < 5; i++) {
            queries.update("INSERT INTO " + table + " SELECT * FROM " + TPCH_ORDERS + " WHERE orderkey % 5 = " + i);
        }
    }

    private void assertSameRows(String table)
            throws SQLException
    {
        assertThat(queries.query("SELECT count(*) FROM (SELECT * FROM " + table + " EXCEPT ALL SELECT * FROM " + TPCH_ORDERS + ")"))
                .containsExactly(List.of(0L));
        assertThat(queries.query("SELECT count(*) FROM (SELECT * FROM " + TPCH_ORDERS + " EXCEPT ALL SELECT * FROM " + table + ")"))
                .containsExactly(List.of(0L));
    }
}

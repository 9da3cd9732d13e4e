package io.qbeast.trino.tests;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.sql.SQLException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * Optimize in a real Trino 476 server with the packaged plugin (its own class loader, handles
 * serialized between stages): {@code ALTER TABLE ... EXECUTE optimize} and
 * {@code CALL qbeast.system.optimize} keep exactly TPC-H's rows and report in {@code "t$snapshots"}.
 */
@TestInstance(PER_CLASS)
@Timeout(300)
public class TestRealServerOptimize
{
    private static final String SCHEMA = "qbeast.optimize_test";
    private static final String TPCH_ORDERS = "tpch.tiny.orders";

    private TrinoServer trino;
    private TrinoQueries queries;

    @BeforeAll
    public void startServer()
            throws SQLException
    {
        trino = ProductTestServers.startQbeastServer(ProductTestEnvironment.newWorkDirectory("real-server-optimize"));
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

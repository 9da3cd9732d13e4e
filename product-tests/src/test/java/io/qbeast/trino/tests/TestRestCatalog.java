package io.qbeast.trino.tests;

import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * The qbeast catalog on an Iceberg REST catalog ({@code qbeast.catalog.type=REST}): a real REST
 * server ({@link IcebergRestCatalogServer}) over HTTP on loopback, local storage. CTAS, INSERT
 * and reads against TPC-H, and the REST server's own catalog must hold the table and its snapshots.
 */
@TestInstance(PER_CLASS)
@Timeout(300)
public class TestRestCatalog
{
    private static final String TPCH_ORDERS = "tpch.tiny.orders";

    private IcebergRestCatalogServer rest;
    private TrinoServer trino;
    private TrinoQueries sql;
    private Path warehouse;

    @BeforeAll
    public void start()
            throws Exception
    {
        Path work = ProductTestEnvironment.newWorkDirectory("rest-catalog");
        warehouse = Files.createDirectories(work.resolve("warehouse"));
        rest = IcebergRestCatalogServer.start("file://" + warehouse.toAbsolutePath() + "/rest", work.resolve("rest-catalog.db"));

        Map<String, String> qbeast = new LinkedHashMap<>();
        qbeast.put("connector.name", "qbeast");
        qbeast.put("fs.local.enabled", "true");
        qbeast.put("local.location", warehouse.toAbsolutePath().toString());
        qbeast.put("qbeast.catalog.type", "REST");
        qbeast.put("qbeast.rest.uri", rest.uri());
        trino = ProductTestServers.startUsing(rest, () -> TrinoServer.builder()
                .withDirectory(work.resolve("cluster"))
                .withHeap("1536M")
                .withTpch()
                .withQbeastPlugin()
                .withCatalog("qbeast", qbeast)
                .start());
        sql = new TrinoQueries(trino);
    }

    @AfterAll
    public void stop()
            throws Exception
    {
        ProductTestServers.closeInOrder(trino, rest);
    }

    @Test
    public void tablesThroughRestCatalog()
            throws SQLException
    {
        sql.execute("CREATE SCHEMA qbeast.r");
        assertThat(rest.backend().namespaceExists(Namespace.of("r"))).isTrue();
        String table = "qbeast.r.orders";
        sql.createFrom(table, "indexed_columns = ARRAY['custkey', 'orderdate']", TPCH_ORDERS, "orderkey % 2 = 0");
        sql.insertFrom(table, TPCH_ORDERS, "orderkey % 2 = 1");

        assertSameAsTpch("SELECT count(*), sum(orderkey), sum(custkey), sum(CAST(totalprice AS DECIMAL(12, 2))), min(orderdate), max(orderdate), count(DISTINCT clerk), sum(length(comment)) FROM %s", table);
        assertSameAsTpch("SELECT orderkey, custkey, orderdate FROM %s WHERE custkey BETWEEN 300 AND 320 ORDER BY orderkey", table);
        sql.assertSameRows(table, TPCH_ORDERS);

        // the REST server's catalog has the table, at its warehouse, with both commits
        Table backend = rest.backend().loadTable(TableIdentifier.of("r", "orders"));
        assertThat(backend.location()).startsWith("file://" + warehouse.toAbsolutePath() + "/rest/r/orders");
        assertThat(backend.snapshots()).hasSize(2);
        assertThat(backend.currentSnapshot().summary().get("total-records")).isEqualTo("15000");
        assertThat(backend.schema().findField("_qbeast_weight")).isNotNull();
        assertThat(sql.query("SHOW TABLES FROM qbeast.r")).containsExactly(List.of("orders"));

        sql.execute("DROP TABLE " + table);
        assertThat(rest.backend().tableExists(TableIdentifier.of("r", "orders"))).isFalse();
    }

    private void assertSameAsTpch(String template, String table)
            throws SQLException
    {
        sql.assertSameResults(template, table, TPCH_ORDERS).isNotEmpty();
    }
}

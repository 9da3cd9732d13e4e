package io.qbeast.trino.tests;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.sql.SQLException;
import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * The packaged plugin in a real Trino server process, driven by trino-jdbc and trino-cli:
 * CTAS, INSERT and filtered reads of qbeast tables must give exactly TPC-H's answers.
 */
@TestInstance(PER_CLASS)
@Timeout(300)
public class TestRealServerJdbc
{
    private static final String SCHEMA = "qbeast.jdbc_test";
    private static final String ORDERS = SCHEMA + ".orders";
    private static final String TPCH_ORDERS = "tpch.tiny.orders";

    private TrinoServer trino;
    private TrinoQueries queries;

    @BeforeAll
    public void startServer()
            throws SQLException
    {
        trino = ProductTestServers.startQbeastServer(ProductTestEnvironment.newWorkDirectory("real-server-jdbc"));
        queries = new TrinoQueries(trino);
        queries.execute("CREATE SCHEMA " + SCHEMA);
        long created = queries.update("CREATE TABLE " + ORDERS + " WITH (indexed_columns = ARRAY['custkey', 'orderdate']) AS SELECT * FROM " + TPCH_ORDERS);
        assertThat(created).isEqualTo(15000);
    }

    @AfterAll
    public void stopServer()
    {
        if (trino != null) {
            trino.close();
        }
    }

    @Test
    public void tpchThroughJdbc()
            throws SQLException
    {
        assertThat(queries.query("SELECT count(*), sum(orderkey) FROM " + TPCH_ORDERS))
                .containsExactly(List.of(15000L, 449_872_500L));
    }

    @Test
    public void createTableAsSelectKeepsEveryRow()
            throws SQLException
    {
        String aggregates = "SELECT count(*), sum(orderkey), sum(custkey), sum(CAST(totalprice AS DECIMAL(12, 2))), min(orderdate), max(orderdate), " +
                "count(DISTINCT clerk), sum(length(comment)), sum(shippriority) FROM %s";
        assertSameResults(aggregates);
        // row by row: nothing lost, nothing duplicated, nothing altered
        assertThat(queries.query("SELECT count(*) FROM (SELECT * FROM " + ORDERS + " EXCEPT ALL SELECT * FROM " + TPCH_ORDERS + ")"))
                .containsExactly(List.of(0L));
        assertThat(queries.query("SELECT count(*) FROM (SELECT * FROM " + TPCH_ORDERS + " EXCEPT ALL SELECT * FROM " + ORDERS + ")"))
                .containsExactly(List.of(0L));
    }

    @Test
    public void showCreateTableHasIndexedColumns()
            throws SQLException
    {
        String ddl = (String) queries.query("SHOW CREATE TABLE " + ORDERS).getFirst().getFirst();
        assertThat(ddl).contains("indexed_columns").contains("custkey").contains("orderdate");
    }

    @Test
    public void filtersOnIndexedAndOtherColumns()
            throws SQLException
    {
        // on the indexed columns
        assertSameResults("SELECT count(*), sum(orderkey) FROM %s WHERE custkey BETWEEN 100 AND 400 AND orderdate >= DATE '1995-01-01'");
        assertSameResults("SELECT orderkey, custkey, orderdate FROM %s WHERE custkey = 370 ORDER BY orderkey");
        assertSameResults("SELECT count(*) FROM %s WHERE orderdate BETWEEN DATE '1993-03-01' AND DATE '1993-03-31'");
        // on other columns, and empty results
        assertSameResults("SELECT orderkey, totalprice, orderstatus FROM %s WHERE orderkey IN (1, 7, 32, 59996, 60000) ORDER BY orderkey");
        assertSameResults("SELECT orderstatus, count(*), max(totalprice) FROM %s WHERE totalprice > 100000 GROUP BY orderstatus ORDER BY orderstatus");
        assertSameResults("SELECT count(*) FROM %s WHERE clerk LIKE 'Clerk#00000001%%' AND orderpriority = '1-URGENT'");
        assertSameResults("SELECT count(*) FROM %s WHERE custkey < 0 OR orderdate > DATE '2030-01-01'");
    }

    @Test
    public void insertAppendsToExistingTable()
            throws SQLException
    {
        String table = SCHEMA + ".orders_appended";
        long created = queries.update("CREATE TABLE " + table + " WITH (indexed_columns = ARRAY['orderkey', 'totalprice']) AS SELECT * FROM " + TPCH_ORDERS + " WHERE orderkey % 3 = 0");
        long firstCount = (long) queries.query("SELECT count(*) FROM " + TPCH_ORDERS + " WHERE orderkey % 3 = 0").getFirst().getFirst();
        assertThat(created).isEqualTo(firstCount);

        long inserted = queries.update("INSERT INTO " + table + " SELECT * FROM " + TPCH_ORDERS + " WHERE orderkey % 3 <> 0");
        assertThat(inserted).isEqualTo(15000 - firstCount);
        assertThat(queries.query("SELECT count(*), sum(orderkey), sum(CAST(totalprice AS DECIMAL(12, 2))) FROM " + table))
                .isEqualTo(queries.query("SELECT count(*), sum(orderkey), sum(CAST(totalprice AS DECIMAL(12, 2))) FROM " + TPCH_ORDERS));
        assertThat(queries.query("SELECT count(*) FROM (SELECT * FROM " + table + " EXCEPT ALL SELECT * FROM " + TPCH_ORDERS + ")"))
                .containsExactly(List.of(0L));

        // a filter after the append sees both writes
        String filter = "SELECT orderkey FROM %s WHERE orderkey BETWEEN 1000 AND 1100 AND totalprice > 50000 ORDER BY orderkey";
        assertThat(queries.query(filter.formatted(table))).isEqualTo(queries.query(filter.formatted(TPCH_ORDERS)));

        // INSERT ... VALUES of a single row
        assertThat(queries.update("INSERT INTO " + table + " (orderkey, custkey, orderstatus, totalprice, orderdate, orderpriority, clerk, shippriority, comment) " +
                "VALUES (1000000, 1, 'O', 1.5, DATE '2000-01-01', '5-LOW', 'Clerk#000000001', 0, 'a new order')")).isEqualTo(1);
        assertThat(queries.query("SELECT custkey, orderstatus, totalprice, comment FROM " + table + " WHERE orderkey = 1000000"))
                .containsExactly(List.of(1L, "O", 1.5, "a new order"));
        assertThat(queries.query("SELECT count(*) FROM " + table)).containsExactly(List.of(15001L));
    }

    @Test
    public void trinoCliReadsQbeastTable()
            throws SQLException
    {
        String sql = "SELECT orderstatus, count(*), sum(custkey) FROM %s GROUP BY orderstatus ORDER BY orderstatus";
        ProcessRunner.Result cli = TrinoCli.execute(trino.uri(), sql.formatted(ORDERS), "--output-format", "CSV");
        assertThat(cli.exitCode()).as(cli::describe).isZero();

        String expected = queries.query(sql.formatted(TPCH_ORDERS)).stream()
                .map(row -> row.stream().map(value -> "\"" + value + "\"").collect(Collectors.joining(",")))
                .collect(Collectors.joining("\n"));
        assertThat(cli.stdout().strip()).isEqualTo(expected);
        assertThat(expected).contains("\"F\",", "\"O\",", "\"P\",");
    }

    @Test
    public void trinoCliReportsFailureWithExitCode()
    {
        ProcessRunner.Result cli = TrinoCli.execute(trino.uri(), "SELECT * FROM " + SCHEMA + ".no_such_table");
        assertThat(cli.exitCode()).as(cli::describe).isNotZero();
        assertThat(cli.stderr()).contains("no_such_table").contains("does not exist");
    }

    private void assertSameResults(String template)
            throws SQLException
    {
        assertThat(queries.query(template.formatted(ORDERS)))
                .as(template)
                .isEqualTo(queries.query(template.formatted(TPCH_ORDERS)));
    }
}

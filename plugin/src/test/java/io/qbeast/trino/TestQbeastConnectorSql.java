package io.qbeast.trino;

import io.qbeast.trino.config.QbeastSessionProperties;
import io.trino.Session;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.MaterializedResult;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.trino.spi.StandardErrorCode.INVALID_SESSION_PROPERTY;
import static io.trino.spi.StandardErrorCode.INVALID_TABLE_PROPERTY;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.tpch.TpchTable.CUSTOMER;
import static io.trino.tpch.TpchTable.LINE_ITEM;
import static io.trino.tpch.TpchTable.NATION;
import static io.trino.tpch.TpchTable.ORDERS;
import static io.trino.tpch.TpchTable.REGION;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every SQL form the connector supports, results checked against TPC-H, and the errors of bad
 * table definitions.
 */
class TestQbeastConnectorSql
        extends AbstractTestQueryFramework
{
    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        return QbeastQueryRunner.builder()
                .setInitialTables(List.of(NATION, REGION, ORDERS, CUSTOMER, LINE_ITEM))
                .build();
    }

    @Test
    void testCreateTableAsSelectMatchesTpch()
    {
        // the runner copied these tables with CREATE TABLE AS; H2 holds the same TPC-H data
        assertQuery("SELECT * FROM nation");
        assertQuery("SELECT * FROM region");
        assertQuery("SELECT * FROM customer");
        assertQuery("SELECT * FROM orders");
        assertQuery("SELECT * FROM lineitem");
        assertQuery("SELECT count(*), sum(quantity), sum(extendedprice), min(shipdate), max(shipdate), count(DISTINCT orderkey) FROM lineitem");
        assertQuery("SELECT orderstatus, count(*), sum(totalprice), avg(totalprice) FROM orders GROUP BY orderstatus");
        assertQuery("SELECT n.name, count(*) FROM customer c JOIN nation n ON c.nationkey = n.nationkey GROUP BY n.name");
    }

    /** The session properties a user tunes per query change what a write does, and bad values are refused. */
    @Test
    void testWriteSessionProperties()
    {
        String source = "SELECT * FROM tpch.tiny.orders";
        // a file holds whole cubes, so cubes of 1,000 rows (~100 kB) let a small target cut files
        assertUpdate("CREATE TABLE session_default WITH (indexed_columns = ARRAY['orderkey'], cube_size = 1000) AS " + source, 15000);
        Session small = Session.builder(getSession())
                .setCatalogSessionProperty("qbeast", QbeastSessionProperties.TARGET_FILE_SIZE, "64kB")
                .setCatalogSessionProperty("qbeast", QbeastSessionProperties.COMPRESSION_CODEC, "NONE")
                .build();
        assertUpdate(small, "CREATE TABLE session_small WITH (indexed_columns = ARRAY['orderkey'], cube_size = 1000) AS " + source, 15000);
        long defaultFiles = (long) computeScalar("SELECT count(*) FROM \"session_default$files\"");
        long smallFiles = (long) computeScalar("SELECT count(*) FROM \"session_small$files\"");
        assertThat(smallFiles).as("files at a 64 kB target against the default target").isGreaterThan(defaultFiles);
        // uncompressed: more bytes for the same rows
        assertThat((long) computeScalar("SELECT sum(file_size_in_bytes) FROM \"session_small$files\""))
                .isGreaterThan((long) computeScalar("SELECT sum(file_size_in_bytes) FROM \"session_default$files\""));
        assertQuery("SELECT * FROM session_small", "SELECT * FROM orders");

        assertThat(query("SET SESSION qbeast.writer_buffer_size = '10B'"))
                .failure().hasErrorCode(INVALID_SESSION_PROPERTY).hasMessageContaining("writer_buffer_size must be between 1kB and 16GB, but is 10B");
        assertThat(query("SET SESSION qbeast.target_file_size = '10B'"))
                .failure().hasErrorCode(INVALID_SESSION_PROPERTY).hasMessageContaining("target_file_size must be at least 1kB, but is 10B");
    }

    @Test
    void testPredicatesOnAnyColumn()
    {
        // indexed columns
        assertQuery("SELECT * FROM orders WHERE orderkey BETWEEN 1000 AND 1200");
        assertQuery("SELECT * FROM orders WHERE orderkey IN (1, 7, 32, 33, 59999)");
        assertQuery("SELECT count(*) FROM orders WHERE orderdate >= DATE '1995-01-01' AND orderdate < DATE '1995-02-01'");
        assertQuery("SELECT * FROM lineitem WHERE orderkey = 7 AND shipdate > DATE '1996-01-01'");
        // other columns
        assertQuery("SELECT * FROM orders WHERE custkey = 370");
        assertQuery("SELECT * FROM orders WHERE clerk = 'Clerk#000000951'");
        assertQuery("SELECT count(*) FROM orders WHERE totalprice > 300000 OR orderpriority = '1-URGENT'");
        assertQuery("SELECT count(*) FROM lineitem WHERE discount BETWEEN 0.05 AND 0.07 AND quantity < 24");
        assertQuery("SELECT count(*) FROM customer WHERE name LIKE 'Customer#00000%'");
        assertQuery("SELECT count(*) FROM orders WHERE orderkey < 0");
        assertQuery("SELECT * FROM nation WHERE regionkey = 3 AND name > 'F'");
    }

    @Test
    void testValuesOutsideTheRevisionBounds()
    {
        // the first INSERT fixes the revision's bounds; the second lies entirely outside them, so it
        // needs a wider revision, and every row must still be found through cube pruning
        assertUpdate("CREATE TABLE test_outside_bounds (x bigint, y double) WITH (indexed_columns = ARRAY['x', 'y'], cube_size = 100)");
        assertUpdate("INSERT INTO test_outside_bounds SELECT orderkey, totalprice FROM tpch.tiny.orders", 15000);
        // several writers may each propose a revision for the first INSERT; the second cannot reuse any
        long revisionsBefore = (long) computeScalar("SELECT count(*) FROM \"test_outside_bounds$revisions\"");
        assertUpdate("INSERT INTO test_outside_bounds SELECT orderkey + 1000000000000, -totalprice FROM tpch.tiny.orders", 15000);
        assertThat((long) computeScalar("SELECT count(*) FROM \"test_outside_bounds$revisions\"")).isGreaterThan(revisionsBefore);

        assertQuery("SELECT count(*), sum(x), sum(abs(y)) FROM test_outside_bounds",
                "SELECT 2 * count(*), 2 * sum(orderkey) + 15000 * 1000000000000, 2 * sum(totalprice) FROM orders");
        assertQuery("SELECT x, y FROM test_outside_bounds WHERE x BETWEEN 1000000001000 AND 1000000001200",
                "SELECT orderkey + 1000000000000, -totalprice FROM orders WHERE orderkey BETWEEN 1000 AND 1200");
        assertQuery("SELECT x, y FROM test_outside_bounds WHERE x BETWEEN 1000 AND 1200",
                "SELECT orderkey, totalprice FROM orders WHERE orderkey BETWEEN 1000 AND 1200");
        assertQuery("SELECT count(*) FROM test_outside_bounds WHERE y < -300000 OR y > 300000",
                "SELECT 2 * count(*) FROM orders WHERE totalprice > 300000");
        assertUpdate("DROP TABLE test_outside_bounds");
    }

    @Test
    void testCreateSchemaAndShowSchemas()
    {
        assertUpdate("CREATE SCHEMA test_schema_lifecycle");
        assertThat(computeActual("SHOW SCHEMAS").getOnlyColumnAsSet()).contains("test_schema_lifecycle", "tpch");
        assertQueryFails("CREATE SCHEMA test_schema_lifecycle", ".*Schema 'qbeast.test_schema_lifecycle' already exists");
        assertUpdate("CREATE SCHEMA IF NOT EXISTS test_schema_lifecycle");

        assertUpdate("CREATE TABLE test_schema_lifecycle.t (x bigint) WITH (indexed_columns = ARRAY['x'])");
        assertQuery("SHOW TABLES FROM test_schema_lifecycle", "VALUES 't'");
        assertQueryFails("DROP SCHEMA test_schema_lifecycle", ".*Cannot drop non-empty schema 'test_schema_lifecycle'");
        assertUpdate("DROP TABLE test_schema_lifecycle.t");
        assertQuery("SHOW TABLES FROM test_schema_lifecycle", "SELECT 'x' WHERE false");
        assertUpdate("DROP SCHEMA test_schema_lifecycle");
        assertThat(computeActual("SHOW SCHEMAS").getOnlyColumnAsSet()).doesNotContain("test_schema_lifecycle");
    }

    @Test
    void testDropSchemaCascade()
    {
        assertUpdate("CREATE SCHEMA test_drop_cascade");
        assertUpdate("CREATE TABLE test_drop_cascade.t WITH (indexed_columns = ARRAY['x']) AS SELECT 1 x", 1);
        assertUpdate("DROP SCHEMA test_drop_cascade CASCADE");
        assertThat(computeActual("SHOW SCHEMAS").getOnlyColumnAsSet()).doesNotContain("test_drop_cascade");
    }

    @Test
    void testCreateInsertSelectDrop()
    {
        assertUpdate("CREATE TABLE test_lifecycle (id bigint, name varchar, price double) WITH (indexed_columns = ARRAY['id', 'price'], cube_size = 10)");
        assertThat(computeActual("SHOW TABLES").getOnlyColumnAsSet()).contains("test_lifecycle");
        assertQuery("SELECT count(*) FROM test_lifecycle", "VALUES 0");

        assertUpdate("INSERT INTO test_lifecycle VALUES (1, 'one', 1.5), (2, 'two', 2.5), (3, NULL, NULL)", 3);
        assertQuery("SELECT * FROM test_lifecycle", "VALUES (1, 'one', 1.5), (2, 'two', 2.5), (3, NULL, NULL)");
        assertUpdate("INSERT INTO test_lifecycle (id, name) VALUES (4, 'four')", 1);
        assertUpdate("INSERT INTO test_lifecycle SELECT orderkey, clerk, totalprice FROM tpch.tiny.orders", 15000);
        assertQuery("SELECT count(*), sum(id), count(name), count(price) FROM test_lifecycle",
                "SELECT 15004, sum(orderkey) + 10, 15003, 15002 FROM orders");
        assertQuery("SELECT id, name, price FROM test_lifecycle WHERE id > 4",
                "SELECT orderkey, clerk, totalprice FROM orders WHERE orderkey > 4");

        assertUpdate("DROP TABLE test_lifecycle");
        assertThat(computeActual("SHOW TABLES").getOnlyColumnAsSet()).doesNotContain("test_lifecycle");
        assertQueryFails("SELECT * FROM test_lifecycle", ".*Table 'qbeast.tpch.test_lifecycle' does not exist");
    }

    @Test
    void testInsertIntoTableCreatedByCtas()
    {
        assertUpdate("CREATE TABLE test_ctas_insert WITH (indexed_columns = ARRAY['orderkey']) AS SELECT orderkey, custkey, totalprice FROM tpch.tiny.orders WHERE orderkey < 20000", "SELECT count(*) FROM orders WHERE orderkey < 20000");
        assertUpdate("INSERT INTO test_ctas_insert SELECT orderkey, custkey, totalprice FROM tpch.tiny.orders WHERE orderkey >= 20000", "SELECT count(*) FROM orders WHERE orderkey >= 20000");
        assertQuery("SELECT * FROM test_ctas_insert", "SELECT orderkey, custkey, totalprice FROM orders");
        assertUpdate("DROP TABLE test_ctas_insert");
    }

    @Test
    void testEmptyWrites()
    {
        assertUpdate("CREATE TABLE test_empty_ctas WITH (indexed_columns = ARRAY['orderkey']) AS SELECT orderkey, comment FROM tpch.tiny.orders WHERE false", 0);
        assertQuery("SELECT count(*) FROM test_empty_ctas", "VALUES 0");
        assertUpdate("INSERT INTO test_empty_ctas SELECT orderkey, comment FROM tpch.tiny.orders WHERE orderkey < 0", 0);
        assertUpdate("INSERT INTO test_empty_ctas SELECT orderkey, comment FROM tpch.tiny.orders WHERE orderkey < 100", "SELECT count(*) FROM orders WHERE orderkey < 100");
        assertQuery("SELECT * FROM test_empty_ctas", "SELECT orderkey, comment FROM orders WHERE orderkey < 100");
        assertUpdate("DROP TABLE test_empty_ctas");
    }

    @Test
    void testShowCreateTableAndDescribe()
    {
        assertUpdate("CREATE TABLE test_show_create (a bigint NOT NULL, b varchar COMMENT 'the b', c decimal(12, 3)) COMMENT 'a table' WITH (indexed_columns = ARRAY['c', 'a'], cube_size = 5000)");
        assertThat((String) computeScalar("SHOW CREATE TABLE test_show_create")).isEqualTo("""
                CREATE TABLE qbeast.tpch.test_show_create (
                   a bigint NOT NULL,
                   b varchar COMMENT 'the b',
                   c decimal(12, 3)
                )
                COMMENT 'a table'
                WITH (
                   cube_size = 5000,
                   indexed_columns = ARRAY['c','a']
                )""");
        MaterializedResult describe = computeActual("DESCRIBE test_show_create");
        assertThat(describe.getMaterializedRows().stream().map(row -> row.getField(0) + " " + row.getField(1)).toList())
                .containsExactly("a bigint", "b varchar", "c decimal(12,3)");
        assertThat(computeActual("SHOW COLUMNS FROM test_show_create").getMaterializedRows().stream().map(row -> row.getField(0)).toList())
                .containsExactly("a", "b", "c");
        assertQueryFails("INSERT INTO test_show_create VALUES (NULL, 'x', 1)", ".*NULL value not allowed for NOT NULL column: a");
        assertUpdate("DROP TABLE test_show_create");
    }

    @Test
    void testHiddenIndexColumns()
    {
        assertUpdate("CREATE TABLE test_hidden WITH (indexed_columns = ARRAY['n']) AS SELECT nationkey n, name FROM tpch.tiny.nation", 25);
        // SELECT * leaves them out; by name they read like any column
        assertThat(computeActual("SELECT * FROM test_hidden").getColumnNames()).containsExactly("n", "name");
        assertQuery("SELECT count(_qbeast_weight), count(_qbeast_cube), count(DISTINCT _qbeast_weight) FROM test_hidden", "VALUES (25, 25, 25)");
        assertQuery("SELECT count(*) FROM test_hidden WHERE _qbeast_weight < 0 OR _qbeast_weight >= 0", "VALUES 25");
        assertThat((long) computeScalar("SELECT count(*) FROM test_hidden WHERE length(_qbeast_cube) >= 9")).isEqualTo(25L);
        assertUpdate("DROP TABLE test_hidden");
    }

    @Test
    void testBadTableDefinitions()
    {
        assertThat(query("CREATE TABLE test_bad_missing (a bigint)"))
                .failure().hasErrorCode(INVALID_TABLE_PROPERTY).hasMessageContaining("Table property 'indexed_columns' is required");
        assertThat(query("CREATE TABLE test_bad_empty (a bigint) WITH (indexed_columns = ARRAY[])"))
                .failure().hasErrorCode(INVALID_TABLE_PROPERTY).hasMessageContaining("Table property 'indexed_columns' must name at least one column");
        assertThat(query("CREATE TABLE test_bad_null (a bigint) WITH (indexed_columns = ARRAY['a', NULL])"))
                .failure().hasErrorCode(INVALID_TABLE_PROPERTY).hasMessageContaining("Table property 'indexed_columns' must not contain NULL");
        assertThat(query("CREATE TABLE test_bad_unknown (a bigint) WITH (indexed_columns = ARRAY['nope'])"))
                .failure().hasErrorCode(INVALID_TABLE_PROPERTY).hasMessageContaining("names column 'nope', which the table does not have");
        assertThat(query("CREATE TABLE test_bad_duplicate (a bigint, b bigint) WITH (indexed_columns = ARRAY['a', 'b', 'a'])"))
                .failure().hasErrorCode(INVALID_TABLE_PROPERTY).hasMessageContaining("lists column 'a' more than once");
        assertThat(query("CREATE TABLE test_bad_type (a bigint, m map(varchar, bigint)) WITH (indexed_columns = ARRAY['a', 'm'])"))
                .failure().hasErrorCode(INVALID_TABLE_PROPERTY).hasMessageContaining("Column 'm' of type map(varchar, bigint) cannot be indexed");
        // Trino 483 quotes row field names in type names
        assertThat(query("CREATE TABLE test_bad_row (a bigint, r row(x int)) WITH (indexed_columns = ARRAY['r'])"))
                .failure().hasErrorCode(INVALID_TABLE_PROPERTY).hasMessageContaining("Column 'r' of type row(\"x\" integer) cannot be indexed");
        assertThat(query("CREATE TABLE test_bad_cube_zero (a bigint) WITH (indexed_columns = ARRAY['a'], cube_size = 0)"))
                .failure().hasErrorCode(INVALID_TABLE_PROPERTY).hasMessageContaining("Table property 'cube_size' must be positive, but is 0");
        assertThat(query("CREATE TABLE test_bad_cube_negative (a bigint) WITH (indexed_columns = ARRAY['a'], cube_size = -5)"))
                .failure().hasErrorCode(INVALID_TABLE_PROPERTY).hasMessageContaining("Table property 'cube_size' must be positive, but is -5");
        // the same checks guard CREATE TABLE AS, which then creates nothing
        assertThat(query("CREATE TABLE test_bad_ctas WITH (indexed_columns = ARRAY['missing']) AS SELECT 1 a"))
                .failure().hasErrorCode(INVALID_TABLE_PROPERTY).hasMessageContaining("names column 'missing'");
        assertThat(query("CREATE TABLE test_bad_ctas_missing AS SELECT 1 a"))
                .failure().hasErrorCode(INVALID_TABLE_PROPERTY).hasMessageContaining("Table property 'indexed_columns' is required");
        assertThat(query("CREATE TABLE test_bad_reserved (_qbeast_weight integer) WITH (indexed_columns = ARRAY['_qbeast_weight'])"))
                .failure().hasErrorCode(NOT_SUPPORTED).hasMessageContaining("Column name _qbeast_weight is reserved");
        assertThat(computeActual("SHOW TABLES").getOnlyColumnAsSet())
                .noneMatch(name -> ((String) name).startsWith("test_bad_"));
    }

    @Test
    void testUnsupportedStatementsKeepTrinoMessages()
    {
        assertUpdate("CREATE TABLE test_unsupported WITH (indexed_columns = ARRAY['x']) AS SELECT 1 x", 1);
        assertQueryFails("ALTER TABLE test_unsupported ADD COLUMN y bigint", "This connector does not support adding columns");
        assertQueryFails("ALTER TABLE test_unsupported RENAME TO test_unsupported_2", "This connector does not support renaming tables");
        assertQueryFails("CREATE VIEW test_unsupported_view AS SELECT 1 x", "This connector does not support creating views");
        assertQueryFails("CREATE OR REPLACE TABLE test_unsupported WITH (indexed_columns = ARRAY['x']) AS SELECT 2 x", ".*does not support replacing tables");
        assertQuery("SELECT * FROM test_unsupported", "VALUES 1");
        assertUpdate("DROP TABLE test_unsupported");
    }
}

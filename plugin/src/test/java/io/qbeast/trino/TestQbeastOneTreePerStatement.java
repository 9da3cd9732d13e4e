package io.qbeast.trino;

import io.trino.testing.MaterializedRow;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One statement, one revision and one tree, on any number of writers: a CREATE TABLE AS routes its
 * rows to the writers in even shares ({@code QbeastSharePartitioningHandle}), each writer's tree
 * holds its share of the cube size, and writers that see the same values (string columns
 * included) propose the same revision. Counted on the table's index ({@code $revisions},
 * {@code $cubes}, {@code $files}), checked against tpch.
 */
class TestQbeastOneTreePerStatement
        extends AbstractTestQbeastTables
{
    private static final long CUBE_SIZE = 2000;

    @Test
    void testCreateTableAsOnSeveralWritersMakesOneRevisionAndOneTree()
    {
        // shipdate (2,526 days), shipmode (7 strings), shipinstruct (4 strings): every writer's share
        // holds every string, each writer proposes from its own rows
        assertUpdate("CREATE TABLE test_one_tree WITH (indexed_columns = ARRAY['shipdate', 'shipmode', 'shipinstruct'], cube_size = " + CUBE_SIZE + ") AS SELECT * FROM tpch.tiny.lineitem", 60_175);
        assertQuery("SELECT orderkey, linenumber, shipdate, shipmode, comment FROM test_one_tree", "SELECT orderkey, linenumber, shipdate, shipmode, comment FROM lineitem");

        // the writers: data files are named <query>-<writer>-<n>.parquet
        long writers = (long) computeScalar("SELECT count(DISTINCT regexp_extract(path, '-([0-9a-f]{32})-[0-9]+\\.parquet$', 1)) FROM \"test_one_tree$files\"");
        assertThat(writers).as("writers of the CTAS").isGreaterThanOrEqualTo(2);

        assertThat((long) computeScalar("SELECT count(*) FROM \"test_one_tree$revisions\"")).as("revisions").isEqualTo(1);

        // the top cube holds one cube size of rows in all (each writer's block its share), not one per writer
        List<MaterializedRow> root = computeActual("SELECT sum(rows), count(*) FROM \"test_one_tree$cubes\" WHERE depth = 0").getMaterializedRows();
        long rootRows = (long) root.getFirst().getField(0);
        assertThat(rootRows).as("rows of the top cube, over %s writers", writers).isBetween(CUBE_SIZE / 2, CUBE_SIZE * 3 / 2);

        // a uniform 5% sample still reads the top of the one tree: exactly the rows under the bound
        assertQuery("SELECT count(*) FROM test_one_tree TABLESAMPLE SYSTEM (5)",
                "SELECT " + computeScalar("SELECT count(*) FROM test_one_tree WHERE _qbeast_weight < " + (long) (0.05 * 4294967296.0 + 0.5) + " - 2147483648"));
        assertUpdate("DROP TABLE test_one_tree");
    }

    @Test
    void testFirstInsertIntoAnEmptyTableMakesOneTree()
    {
        assertUpdate("CREATE TABLE test_one_tree_insert (orderkey bigint, shipdate date, shipmode varchar, comment varchar) WITH (indexed_columns = ARRAY['shipdate', 'shipmode'], cube_size = " + CUBE_SIZE + ")");
        // no revision yet: routed in even shares, as a CREATE TABLE AS
        assertUpdate("INSERT INTO test_one_tree_insert SELECT orderkey, shipdate, shipmode, comment FROM tpch.tiny.lineitem", 60_175);
        assertQuery("SELECT orderkey, shipdate, shipmode, comment FROM test_one_tree_insert", "SELECT orderkey, shipdate, shipmode, comment FROM lineitem");
        long writers = (long) computeScalar("SELECT count(DISTINCT regexp_extract(path, '-([0-9a-f]{32})-[0-9]+\\.parquet$', 1)) FROM \"test_one_tree_insert$files\"");
        assertThat(writers).as("writers of the INSERT").isGreaterThanOrEqualTo(2);
        assertThat((long) computeScalar("SELECT count(*) FROM \"test_one_tree_insert$revisions\"")).as("revisions").isEqualTo(1);
        long rootRows = (long) computeScalar("SELECT sum(rows) FROM \"test_one_tree_insert$cubes\" WHERE depth = 0");
        assertThat(rootRows).as("rows of the top cube, over %s writers", writers).isBetween(CUBE_SIZE / 2, CUBE_SIZE * 3 / 2);
        assertUpdate("DROP TABLE test_one_tree_insert");
    }
}

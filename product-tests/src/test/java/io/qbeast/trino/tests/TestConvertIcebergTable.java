package io.qbeast.trino.tests;

import io.qbeast.trino.tests.ProductTestServers.SharedPostgresCatalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * Adoption of a table written by Trino's stock Iceberg connector: a real Trino server with the
 * {@code qbeast} catalog and the stock {@code iceberg} catalog on one PostgreSQL JDBC catalog (same
 * catalog name) and one local warehouse. The table is created and filled through {@code iceberg},
 * converted by {@code CALL qbeast.system.convert_table}, and then answers identically through both
 * catalogs, takes clustered INSERTs through qbeast that the stock connector reads, and samples.
 */
@TestInstance(PER_CLASS)
@Timeout(300)
public class TestConvertIcebergTable
{
    private static final String SHARED_CATALOG_NAME = "lake";
    private static final String TPCH_ORDERS = "tpch.tiny.orders";
    private static final String ORDER_COLUMNS = "orderkey, custkey, orderstatus, totalprice, orderdate, orderpriority, clerk, shippriority, comment";
    private static final List<String> QUERIES = List.of(
            "SELECT count(*), sum(orderkey), sum(custkey), sum(CAST(totalprice AS DECIMAL(12, 2))), min(orderdate), max(orderdate), count(DISTINCT clerk), sum(length(comment)) FROM %s",
            "SELECT orderstatus, count(*), max(totalprice), min(orderkey) FROM %s GROUP BY orderstatus ORDER BY orderstatus",
            "SELECT orderkey, custkey, orderdate, totalprice FROM %s WHERE orderdate BETWEEN DATE '1995-01-01' AND DATE '1995-03-31' AND totalprice > 200000 ORDER BY orderkey",
            "SELECT orderkey, clerk FROM %s WHERE custkey = 370 ORDER BY orderkey");

    private SharedPostgresCatalog servers;
    private TrinoQueries sql;

    @BeforeAll
    public void start()
            throws Exception
    {
        servers = SharedPostgresCatalog.start("convert-iceberg-table", SHARED_CATALOG_NAME);
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
    public void tableWrittenByStockIcebergIsConvertedAndAnswersIdentically()
            throws SQLException
    {
        // the schema through qbeast: its JDBC catalog creates the catalog tables in PostgreSQL (the stock one expects them)
        sql.execute("CREATE SCHEMA qbeast.adopt");
        String icebergTable = "iceberg.adopt.orders";
        String qbeastTable = "qbeast.adopt.orders";
        // written by the stock connector in two commits: Parquet, format v2, unpartitioned (its defaults)
        sql.update("CREATE TABLE %s AS SELECT * FROM %s WHERE orderkey %% 2 = 0".formatted(icebergTable, TPCH_ORDERS));
        sql.update("INSERT INTO %s SELECT * FROM %s WHERE orderkey %% 2 = 1".formatted(icebergTable, TPCH_ORDERS));

        Map<String, List<List<Object>>> before = new LinkedHashMap<>();
        for (String query : QUERIES) {
            List<List<Object>> expected = sql.query(query.formatted(TPCH_ORDERS));
            assertThat(sql.query(query.formatted(icebergTable))).as(query).isEqualTo(expected);
            before.put(query, expected);
        }
        List<List<Object>> files = sql.query("SELECT file_path, record_count, file_size_in_bytes FROM iceberg.adopt.\"orders$files\" ORDER BY file_path");
        List<List<Object>> snapshots = sql.query("SELECT snapshot_id FROM iceberg.adopt.\"orders$snapshots\" ORDER BY committed_at");
        assertThat(files).isNotEmpty();
        assertThat(snapshots).hasSize(2);

        sql.execute("CALL qbeast.system.convert_table(schema_name => 'adopt', table_name => 'orders', indexed_columns => ARRAY['orderdate', 'totalprice'], cube_size => 2000)");

        // no data file rewritten, moved or added, no snapshot added: a metadata change only
        assertThat(sql.query("SELECT file_path, record_count, file_size_in_bytes FROM iceberg.adopt.\"orders$files\" ORDER BY file_path")).isEqualTo(files);
        assertThat(sql.query("SELECT snapshot_id FROM iceberg.adopt.\"orders$snapshots\" ORDER BY committed_at")).isEqualTo(snapshots);
        assertThat((String) sql.single("SHOW CREATE TABLE " + qbeastTable))
                .contains("indexed_columns = ARRAY['orderdate','totalprice']")
                .contains("cube_size = 2000");
        // the stock connector sees the index columns as ordinary columns, null in the adopted files
        assertThat(sql.query("SELECT column_name, data_type FROM iceberg.information_schema.columns WHERE table_schema = 'adopt' AND table_name = 'orders' AND column_name LIKE '\\_qbeast%' ESCAPE '\\' ORDER BY column_name"))
                .containsExactly(List.of("_qbeast_cube", "varbinary"), List.of("_qbeast_weight", "integer"));
        assertThat(sql.single("SELECT count(*) FROM %s WHERE _qbeast_weight IS NULL AND _qbeast_cube IS NULL".formatted(icebergTable))).isEqualTo(15000L);

        // identical answers through both catalogs, equal to before the conversion
        for (String query : QUERIES) {
            assertThat(sql.query(query.formatted(qbeastTable))).as("qbeast: " + query).isEqualTo(before.get(query));
            assertThat(sql.query(query.formatted(icebergTable))).as("iceberg: " + query).isEqualTo(before.get(query));
        }
        sql.assertSameRows("(SELECT %s FROM %s)".formatted(ORDER_COLUMNS, qbeastTable), TPCH_ORDERS);

        // TABLESAMPLE through qbeast on the unindexed files: derived weights, a repeatable uniform subset
        List<List<Object>> sample = sql.query("SELECT orderkey FROM %s TABLESAMPLE SYSTEM (10) ORDER BY orderkey".formatted(qbeastTable));
        System.out.printf("TestConvertIcebergTable: %d adopted data files; TABLESAMPLE SYSTEM (10) returned %d of 15000 rows%n", files.size(), sample.size());
        assertThat(sample.size()).isBetween(1200, 1800);
        assertThat(sql.query("SELECT orderkey FROM %s TABLESAMPLE SYSTEM (10) ORDER BY orderkey".formatted(qbeastTable))).isEqualTo(sample);
        assertThat(sql.single("SELECT count(*) FROM (SELECT orderkey FROM %s TABLESAMPLE SYSTEM (10) EXCEPT SELECT orderkey FROM %s)".formatted(qbeastTable, TPCH_ORDERS))).isEqualTo(0L);

        // INSERT through qbeast clusters the new rows; the stock connector reads old and new
        String shifted = "SELECT orderkey + 1000000 AS orderkey, custkey, orderstatus, totalprice, orderdate, orderpriority, clerk, shippriority, comment FROM " + TPCH_ORDERS;
        assertThat(sql.update("INSERT INTO %s %s".formatted(qbeastTable, shifted))).isEqualTo(15000L);
        String union = "(SELECT * FROM %s UNION ALL %s)".formatted(TPCH_ORDERS, shifted);
        for (String query : QUERIES) {
            List<List<Object>> expected = sql.query(query.formatted(union));
            assertThat(sql.query(query.formatted(icebergTable))).as("iceberg after insert: " + query).isEqualTo(expected);
            assertThat(sql.query(query.formatted(qbeastTable))).as("qbeast after insert: " + query).isEqualTo(expected);
        }
        sql.assertSameRows("(SELECT %s FROM %s)".formatted(ORDER_COLUMNS, icebergTable), union);
        assertThat(sql.single("SELECT count(*) FROM %s WHERE _qbeast_weight IS NOT NULL AND _qbeast_cube IS NOT NULL".formatted(icebergTable))).isEqualTo(15000L);
        assertThat(sql.single("SELECT count(*) FROM %s WHERE orderkey > 1000000 AND _qbeast_weight IS NULL".formatted(icebergTable))).isEqualTo(0L);
        // the adopted files are all still there, next to the new clustered one
        List<List<Object>> filesAfter = sql.query("SELECT file_path, record_count, file_size_in_bytes FROM iceberg.adopt.\"orders$files\" ORDER BY file_path");
        assertThat(filesAfter).containsAll(files).hasSizeGreaterThan(files.size());

        // the stock connector may keep writing: its files are unindexed files to qbeast
        assertThat(sql.update("INSERT INTO %s SELECT orderkey + 2000000, custkey, orderstatus, totalprice, orderdate, orderpriority, clerk, shippriority, comment, NULL, NULL FROM %s WHERE orderkey < 1000"
                .formatted(icebergTable, TPCH_ORDERS))).isEqualTo(sql.single("SELECT count(*) FROM %s WHERE orderkey < 1000".formatted(TPCH_ORDERS)));
        assertThat(sql.query("SELECT count(*), sum(orderkey) FROM " + qbeastTable)).isEqualTo(sql.query("SELECT count(*), sum(orderkey) FROM " + icebergTable));
        long sampled = (long) sql.single("SELECT count(*) FROM %s TABLESAMPLE SYSTEM (10)".formatted(qbeastTable));
        assertThat(sampled).isBetween(2400L, 3700L);

        // optimize indexes every unindexed file (the adopted ones and the stock connector's insert):
        // both catalogs still answer the same, and no row is left without a weight
        List<List<Object>> beforeOptimize = sql.query("SELECT count(*), sum(orderkey), sum(CAST(totalprice AS decimal(12, 2))) FROM " + icebergTable);
        sql.execute("ALTER TABLE %s EXECUTE optimize(mode => 'unindexed')".formatted(qbeastTable));
        assertThat(sql.query("SELECT count(*), sum(orderkey), sum(CAST(totalprice AS decimal(12, 2))) FROM " + qbeastTable)).isEqualTo(beforeOptimize);
        assertThat(sql.query("SELECT count(*), sum(orderkey), sum(CAST(totalprice AS decimal(12, 2))) FROM " + icebergTable)).isEqualTo(beforeOptimize);
        assertThat(sql.single("SELECT count(*) FROM %s WHERE _qbeast_weight IS NULL".formatted(icebergTable))).isEqualTo(0L);
        for (String query : QUERIES) {
            assertThat(sql.query(query.formatted(icebergTable))).as("iceberg after optimize: " + query).isEqualTo(sql.query(query.formatted(qbeastTable)));
        }

        // converting twice is refused
        assertThatThrownBy(() -> sql.execute("CALL qbeast.system.convert_table('adopt', 'orders', ARRAY['orderkey'])"))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("already a qbeast table");
    }

    @Test
    public void tablesQbeastCannotServeAreRefusedUnchanged()
            throws SQLException
    {
        sql.execute("CREATE SCHEMA qbeast.refused");

        // partitioned by the stock connector
        sql.update("CREATE TABLE iceberg.refused.partitioned WITH (partitioning = ARRAY['orderstatus']) AS SELECT * FROM " + TPCH_ORDERS);
        assertThatThrownBy(() -> sql.execute("CALL qbeast.system.convert_table('refused', 'partitioned', ARRAY['orderkey'])"))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("is partitioned");

        // a row-level DELETE by the stock connector writes position delete files
        sql.update("CREATE TABLE iceberg.refused.deleted AS SELECT * FROM " + TPCH_ORDERS);
        sql.update("DELETE FROM iceberg.refused.deleted WHERE orderkey < 100");
        assertThatThrownBy(() -> sql.execute("CALL qbeast.system.convert_table('refused', 'deleted', ARRAY['orderkey'])"))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("row-level deletes");

        // ORC data files
        sql.update("CREATE TABLE iceberg.refused.orc WITH (format = 'ORC') AS SELECT * FROM " + TPCH_ORDERS);
        assertThatThrownBy(() -> sql.execute("CALL qbeast.system.convert_table('refused', 'orc', ARRAY['orderkey'])"))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("in format ORC");

        // an unknown indexed column
        sql.update("CREATE TABLE iceberg.refused.plain AS SELECT * FROM " + TPCH_ORDERS);
        assertThatThrownBy(() -> sql.execute("CALL qbeast.system.convert_table('refused', 'plain', ARRAY['orderkey', 'no_such_column'])"))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("names column 'no_such_column'");

        // each left as it was: no index columns, still read and written by the stock connector
        for (String table : List.of("partitioned", "deleted", "orc", "plain")) {
            assertThat(sql.single("SELECT count(*) FROM iceberg.information_schema.columns WHERE table_schema = 'refused' AND table_name = '%s' AND column_name LIKE '\\_qbeast%%' ESCAPE '\\'".formatted(table)))
                    .as(table)
                    .isEqualTo(0L);
        }
        assertThat(sql.update("INSERT INTO iceberg.refused.plain SELECT * FROM %s WHERE orderkey < 100".formatted(TPCH_ORDERS))).isPositive();
    }
}

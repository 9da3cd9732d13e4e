package io.qbeast.trino.tests;

import io.qbeast.trino.tests.ProductTestServers.SharedPostgresCatalog;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static io.qbeast.trino.tests.IcebergJavaDeletes.commitEqualityDelete;
import static io.qbeast.trino.tests.IcebergJavaDeletes.commitPositionDeletes;
import static io.qbeast.trino.tests.IcebergJavaDeletes.positionsWhere;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * Row-level changes of a qbeast table by other engines, and by qbeast for other engines, on a
 * real Trino server: the {@code qbeast} catalog and Trino's stock Iceberg connector as catalog
 * {@code iceberg} on one PostgreSQL JDBC catalog and one local warehouse, and Apache Iceberg's own
 * Java API (a {@link JdbcCatalog} on the same PostgreSQL catalog) as a third engine.
 * <ul>
 * <li>The stock connector DELETEs, UPDATEs and MERGEs rows of a qbeast table (position delete
 * files, new data files); qbeast reads exactly the live rows, before and after its optimize.
 * <li>Iceberg's Java API commits a position delete file and an equality delete file; qbeast reads
 * exactly the rows Iceberg's generic reader reads, before and after its optimize.
 * <li>qbeast DELETEs (whole files, metadata only, then row by row), UPDATEs, MERGEs and TRUNCATEs;
 * the stock connector and Iceberg's generic reader read exactly the rows qbeast reads.
 * </ul>
 * Every read is compared with independent truth: the same statements' effect computed from
 * {@code tpch.tiny.orders} by SQL, and the other engine's own reader. A {@code TABLESAMPLE SYSTEM}
 * through qbeast must be exactly the live rows whose stored {@code _qbeast_weight} (as the stock
 * connector reads it) is under the sample's bound.
 */
@TestInstance(PER_CLASS)
@Timeout(300)
public class TestRowLevelChangesAcrossEngines
{
    private static final String SHARED_CATALOG_NAME = "lake";
    private static final String SCHEMA = "shared";
    private static final String TPCH_ORDERS = "tpch.tiny.orders";
    private static final String COLUMNS = "orderkey, custkey, orderstatus, totalprice, orderdate, orderpriority, clerk, shippriority, comment";
    private static final List<String> COLUMN_NAMES = List.of(COLUMNS.split(", "));

    // the changes DELETE, UPDATE and MERGE make, through either connector
    private static final String DELETED = "orderkey % 7 = 3";
    private static final String UPDATED = "custkey % 5 = 0";
    // the existing keys MERGE matches: the even ones it deletes, the odd ones it updates
    private static final String MERGED = "orderkey % 11 = 0";
    // the keys MERGE inserts: above every tpch tiny orderkey (at most 60,000)
    private static final long NEW_KEYS = 1_000_000;
    private static final String INSERTED = "SELECT orderkey + %s AS orderkey, custkey, orderstatus, totalprice, orderdate, orderpriority, clerk, shippriority, comment FROM %s WHERE orderkey < 3000"
            .formatted(NEW_KEYS, TPCH_ORDERS);

    private SharedPostgresCatalog servers;
    private TrinoQueries sql;

    @BeforeAll
    public void start()
            throws Exception
    {
        // small files: the deleted rows lie in many files, and some files can be deleted whole
        servers = SharedPostgresCatalog.start("row-level-changes-across-engines", SHARED_CATALOG_NAME, Map.of("qbeast.target-file-size", "64kB"));
        sql = new TrinoQueries(servers.trino());
        sql.execute("CREATE SCHEMA qbeast." + SCHEMA);
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
    public void qbeastReadsTheChangesOfTheStockIcebergConnector()
            throws SQLException
    {
        String name = "stock_changed";
        create(name);
        Map<Long, Integer> weightsBefore = storedWeights(name);

        deleteUpdateMerge(iceberg(name), "true");

        // merge-on-read: the stock connector wrote position delete files, it did not rewrite the table
        assertThat(deleteFiles(name)).as("delete files written by the stock connector").isPositive();
        String truth = truthAfterDeleteUpdateMerge("true");
        assertLiveRows(name, truth);
        // the stock connector's UPDATE and MERGE copy the stored weight into the new versions of the rows
        assertWeightsKept(name, weightsBefore);
        // MERGE's inserted rows have no stored weight: qbeast samples them by a derived one
        assertThat(sql.single("SELECT count(*) FROM %s WHERE _qbeast_weight IS NULL".formatted(iceberg(name))))
                .isEqualTo(sql.single("SELECT count(*) FROM (%s)".formatted(INSERTED)));

        // qbeast's optimize rewrites the live rows only and drops the delete files; the rows get
        // fresh weights (README), which the sample checks of assertLiveRows read anew
        sql.execute("ALTER TABLE %s EXECUTE optimize(mode => 'all')".formatted(qbeast(name)));
        assertLiveRows(name, truth);
        assertThat(deleteFiles(name)).as("delete files after optimize").isZero();
        assertThat(sql.single("SELECT count(*) FROM %s WHERE _qbeast_weight IS NULL".formatted(iceberg(name)))).isEqualTo(0L);
    }

    @Test
    public void qbeastReadsTheDeletesOfIcebergJavaApi()
            throws Exception
    {
        String name = "java_deleted";
        create(name);
        Map<Long, Integer> weightsBefore = storedWeights(name);
        long custkey = (long) sql.single("SELECT custkey FROM %s WHERE orderkey %% 97 <> 0 GROUP BY custkey ORDER BY count(*) DESC, custkey LIMIT 1".formatted(TPCH_ORDERS));
        String truth = "SELECT %s FROM %s WHERE orderkey %% 97 <> 0 AND custkey <> %s".formatted(COLUMNS, TPCH_ORDERS, custkey);

        try (JdbcCatalog catalog = servers.icebergJavaCatalog(SHARED_CATALOG_NAME)) {
            TableIdentifier identifier = TableIdentifier.of(SCHEMA, name);
            // a position delete file of the rows with orderkey % 97 = 0, in several data files
            Map<String, List<Long>> positions = positionsWhere(catalog.loadTable(identifier), row -> (long) row.getField("orderkey") % 97 == 0);
            assertThat(positions).as("data files with deleted rows").hasSizeGreaterThan(1);
            assertThat(commitPositionDeletes(catalog.loadTable(identifier), positions))
                    .isEqualTo(sql.single("SELECT count(*) FROM %s WHERE orderkey %% 97 = 0".formatted(TPCH_ORDERS)));
            // an equality delete file: every row of the customer with most orders
            commitEqualityDelete(catalog.loadTable(identifier), "custkey", custkey);
            assertThat(deleteFiles(name)).isEqualTo(2L);

            assertLiveRows(name, truth);
            assertIcebergReadsTheSameRows(catalog.loadTable(identifier), name, truth);
            assertWeightsKept(name, weightsBefore);

            // qbeast's optimize of every file: the live rows only, in new files
            sql.execute("ALTER TABLE %s EXECUTE optimize(mode => 'all')".formatted(qbeast(name)));
            assertLiveRows(name, truth);
            assertIcebergReadsTheSameRows(catalog.loadTable(identifier), name, truth);
            // the position delete file named only rewritten files, the equality delete file is older
            // than every data file now: both removed in the optimize's commit
            assertThat(deleteFiles(name)).as("delete files after optimize").isEqualTo(0L);
        }
    }

    @Test
    public void otherEnginesReadTheChangesOfQbeast()
            throws Exception
    {
        String name = "qbeast_changed";
        create(name);
        Map<Long, Integer> weightsBefore = storedWeights(name);

        // a DELETE of two whole data files: removed from the table, no delete file written
        List<String> files = strings("SELECT file_path FROM iceberg.%s.\"%s$files\" WHERE content = 0 ORDER BY file_path".formatted(SCHEMA, name));
        assertThat(files).hasSizeGreaterThan(3);
        String inFiles = "\"$path\" IN ('%s')".formatted(String.join("', '", files.subList(0, 2)));
        // which rows those files hold, by the stock connector's $path
        List<Long> removedKeys = longs("SELECT orderkey FROM %s WHERE %s".formatted(iceberg(name), inFiles));
        assertThat(removedKeys).isNotEmpty();
        assertThat(sql.update("DELETE FROM %s WHERE %s".formatted(qbeast(name), inFiles))).isEqualTo(removedKeys.size());
        assertThat(strings("SELECT file_path FROM iceberg.%s.\"%s$files\" WHERE content = 0 ORDER BY file_path".formatted(SCHEMA, name)))
                .isEqualTo(files.subList(2, files.size()));
        assertThat(deleteFiles(name)).as("delete files after a DELETE of whole files").isZero();
        String alive = "orderkey NOT IN (%s)".formatted(removedKeys.stream().map(String::valueOf).collect(Collectors.joining(", ")));

        try (JdbcCatalog catalog = servers.icebergJavaCatalog(SHARED_CATALOG_NAME)) {
            TableIdentifier identifier = TableIdentifier.of(SCHEMA, name);
            String truth = "SELECT %s FROM %s WHERE %s".formatted(COLUMNS, TPCH_ORDERS, alive);
            assertLiveRows(name, truth);
            assertIcebergReadsTheSameRows(catalog.loadTable(identifier), name, truth);

            // row-level DELETE, UPDATE and MERGE through qbeast
            deleteUpdateMerge(qbeast(name), alive);
            assertThat(deleteFiles(name)).as("position delete files written by qbeast").isPositive();
            truth = truthAfterDeleteUpdateMerge(alive);
            assertLiveRows(name, truth);
            assertIcebergReadsTheSameRows(catalog.loadTable(identifier), name, truth);
            assertWeightsKept(name, weightsBefore);
            // MERGE's inserts get a weight as an INSERT's
            assertThat(sql.single("SELECT count(*) FROM %s WHERE _qbeast_weight IS NULL".formatted(iceberg(name)))).isEqualTo(0L);

            sql.execute("TRUNCATE TABLE " + qbeast(name));
            assertThat(sql.single("SELECT count(*) FROM " + iceberg(name))).isEqualTo(0L);
            assertThat(IcebergJavaReader.rows(catalog.loadTable(identifier))).isEmpty();
        }
    }

    // ---- the statements and their truth ----

    /** CTAS of tpch tiny orders into qbeast: small cubes in many small files. */
    private void create(String name)
            throws SQLException
    {
        assertThat(sql.update("CREATE TABLE %s WITH (indexed_columns = ARRAY['orderdate', 'totalprice'], cube_size = 1000) AS SELECT %s FROM %s".formatted(qbeast(name), COLUMNS, TPCH_ORDERS)))
                .isEqualTo(15000L);
        assertThat((long) sql.single("SELECT count(*) FROM iceberg.%s.\"%s$files\"".formatted(SCHEMA, name))).isGreaterThan(3);
    }

    /**
     * A DELETE, an UPDATE and a MERGE (deleting, updating and inserting) of {@code table}, each
     * checked to change as many rows as tpch says; {@code alive} is the predicate on tpch's rows
     * that the table holds before.
     */
    private void deleteUpdateMerge(String table, String alive)
            throws SQLException
    {
        assertThat(sql.update("DELETE FROM %s WHERE %s".formatted(table, DELETED)))
                .isEqualTo(count("(%s) AND (%s)".formatted(alive, DELETED)));
        assertThat(sql.update("UPDATE %s SET orderstatus = 'U', totalprice = totalprice + 1 WHERE %s".formatted(table, UPDATED)))
                .isEqualTo(count("(%s) AND NOT (%s) AND (%s)".formatted(alive, DELETED, UPDATED)));
        String source = "SELECT %s FROM %s WHERE (%s) AND NOT (%s) AND (%s) UNION ALL %s".formatted(COLUMNS, TPCH_ORDERS, alive, DELETED, MERGED, INSERTED);
        String values = COLUMN_NAMES.stream().map(column -> "s." + column).collect(Collectors.joining(", "));
        assertThat(sql.update("MERGE INTO %s t USING (%s) s ON t.orderkey = s.orderkey ".formatted(table, source) +
                "WHEN MATCHED AND s.orderkey % 2 = 0 THEN DELETE " +
                "WHEN MATCHED THEN UPDATE SET clerk = 'merged' " +
                "WHEN NOT MATCHED THEN INSERT (%s) VALUES (%s)".formatted(COLUMNS, values)))
                .isEqualTo(sql.single("SELECT count(*) FROM (%s)".formatted(source)));
    }

    /** The rows {@link #deleteUpdateMerge} leaves, computed from tpch alone. */
    private static String truthAfterDeleteUpdateMerge(String alive)
    {
        return ("SELECT orderkey, custkey, IF(%3$s, 'U', orderstatus) AS orderstatus, IF(%3$s, totalprice + 1, totalprice) AS totalprice, " +
                "orderdate, orderpriority, IF(%4$s, 'merged', clerk) AS clerk, shippriority, comment " +
                "FROM %1$s WHERE (%5$s) AND NOT (%2$s) AND NOT ((%4$s) AND orderkey %% 2 = 0) " +
                "UNION ALL %6$s")
                .formatted(TPCH_ORDERS, DELETED, UPDATED, MERGED, alive, INSERTED);
    }

    // ---- checks ----

    /**
     * qbeast and the stock connector read exactly {@code truth}'s rows: every row (both ways,
     * duplicates counted), counts and checksums of every column, filtered reads (on an indexed
     * column, by pushed-down expressions, grouped), the index columns, and samples.
     */
    private void assertLiveRows(String name, String truth)
            throws SQLException
    {
        // qbeast first: a qbeast that returned deleted rows fails here
        for (String table : List.of(qbeast(name), iceberg(name))) {
            assertSameRows("SELECT %s FROM %s".formatted(COLUMNS, table), truth);
        }
        List<String> templates = List.of(
                "SELECT count(*) FROM %s",
                "SELECT count(*), " + COLUMN_NAMES.stream().map(column -> "checksum(" + column + ")").collect(Collectors.joining(", ")) + " FROM %s",
                "SELECT orderkey, totalprice, clerk FROM %s WHERE orderdate BETWEEN DATE '1994-01-01' AND DATE '1994-12-31' ORDER BY orderkey",
                "SELECT count(*), sum(orderkey) FROM %s WHERE orderkey %% 7 = 3 OR orderkey %% 11 = 0 OR orderkey %% 97 = 0",
                "SELECT orderstatus, count(*), sum(CAST(totalprice AS DECIMAL(14, 2))) FROM %s WHERE custkey < 300 GROUP BY orderstatus ORDER BY orderstatus");
        for (String template : templates) {
            List<List<Object>> expected = sql.query(template.formatted("(" + truth + ")"));
            assertThat(sql.query(template.formatted(qbeast(name)))).as("qbeast: " + template).isEqualTo(expected);
            assertThat(sql.query(template.formatted(iceberg(name)))).as("iceberg: " + template).isEqualTo(expected);
        }
        // the index columns as qbeast reads them are the stored ones
        String indexColumns = "SELECT orderkey, _qbeast_weight, _qbeast_cube FROM %s";
        assertSameRows(indexColumns.formatted(qbeast(name)), indexColumns.formatted(iceberg(name)));
        assertSamples(name);
    }

    /**
     * {@code TABLESAMPLE SYSTEM (p)} through qbeast holds no row twice and only live rows; of the
     * rows with a stored weight exactly those under the bound (as {@code WHERE _qbeast_weight <
     * bound} through the stock connector selects them); of the rows without one (another engine's
     * inserts) about p% and the same on every read.
     */
    private void assertSamples(String name)
            throws SQLException
    {
        Map<Long, Integer> weights = storedWeights(name);
        long unweighted = weights.values().stream().filter(weight -> weight == null).count();
        for (double percent : new double[] {10, 50}) {
            long bound = Integer.MIN_VALUE + Math.round(percent / 100 * 0x1p32);
            String sampleSql = "SELECT orderkey FROM %s TABLESAMPLE SYSTEM (%s)".formatted(qbeast(name), percent);
            List<Long> sample = longs(sampleSql);
            assertThat(sample).as(sampleSql).doesNotHaveDuplicates();
            assertThat(sample.stream().filter(key -> !weights.containsKey(key)).limit(10).toList()).as("%s: rows that are not live", sampleSql).isEmpty();

            Set<Long> expected = new HashSet<>(longs("SELECT orderkey FROM %s WHERE _qbeast_weight < %s".formatted(iceberg(name), bound)));
            assertThat(expected).isEqualTo(weights.entrySet().stream()
                    .filter(entry -> entry.getValue() != null && entry.getValue() < bound)
                    .map(Map.Entry::getKey)
                    .collect(Collectors.toSet()));
            assertThat(sample.stream().filter(key -> weights.get(key) != null).collect(Collectors.toSet()))
                    .as("%s: the rows with a stored weight", sampleSql)
                    .isEqualTo(expected);

            List<Long> sampledUnweighted = sample.stream().filter(key -> weights.get(key) == null).toList();
            double fraction = percent / 100;
            assertThat(Math.abs(sampledUnweighted.size() - unweighted * fraction))
                    .as("%s: %s of %s rows without a stored weight", sampleSql, sampledUnweighted.size(), unweighted)
                    .isLessThanOrEqualTo(5 * Math.sqrt(unweighted * fraction * (1 - fraction)) + 1);
            assertThat(longs(sampleSql)).as("%s again", sampleSql).containsExactlyInAnyOrderElementsOf(sample);
        }
    }

    /**
     * Iceberg's generic Java reader (which applies every delete file) reads the same rows as
     * qbeast, stored weights included, and they are {@code truth}'s.
     */
    private void assertIcebergReadsTheSameRows(Table table, String name, String truth)
            throws SQLException
    {
        List<String> withWeight = new ArrayList<>(COLUMN_NAMES);
        withWeight.add("_qbeast_weight");
        Map<String, Long> iceberg = new HashMap<>();
        Map<String, Long> icebergColumns = new HashMap<>();
        for (Record record : IcebergJavaReader.rows(table)) {
            iceberg.merge(key(withWeight.stream().map(record::getField).toList()), 1L, Long::sum);
            icebergColumns.merge(key(COLUMN_NAMES.stream().map(record::getField).toList()), 1L, Long::sum);
        }
        assertSameMultiset("Iceberg's generic reader", iceberg, "qbeast", multiset("SELECT %s, _qbeast_weight FROM %s".formatted(COLUMNS, qbeast(name))));
        assertSameMultiset("Iceberg's generic reader", icebergColumns, "tpch", multiset(truth));
    }

    /** Every live row of a tpch orderkey still has the weight it had before the changes (the stock connector's reads). */
    private void assertWeightsKept(String name, Map<Long, Integer> before)
            throws SQLException
    {
        List<String> changed = new ArrayList<>();
        storedWeights(name).forEach((key, weight) -> {
            if (key < NEW_KEYS && !before.get(key).equals(weight)) {
                changed.add("orderkey %s: %s, was %s".formatted(key, weight, before.get(key)));
            }
        });
        assertThat(changed.stream().limit(10).toList()).as("rows whose weight changed (first 10 of %s)", changed.size()).isEmpty();
    }

    /** The stored {@code _qbeast_weight} of every live row by orderkey (null for none), read by the stock connector. */
    private Map<Long, Integer> storedWeights(String name)
            throws SQLException
    {
        Map<Long, Integer> weights = new HashMap<>();
        for (List<Object> row : sql.query("SELECT orderkey, _qbeast_weight FROM " + iceberg(name))) {
            Long key = (Long) row.get(0);
            assertThat(weights.containsKey(key)).as("orderkey %s twice", key).isFalse();
            weights.put(key, (Integer) row.get(1));
        }
        return weights;
    }

    /** The current snapshot's delete files (position and equality), as the stock connector lists them. */
    private long deleteFiles(String name)
            throws SQLException
    {
        return (long) sql.single("SELECT count(*) FROM iceberg.%s.\"%s$files\" WHERE content <> 0".formatted(SCHEMA, name));
    }

    /** Both queries give the same rows, duplicates counted; the failure shows up to 10 rows only one of them gives. */
    private void assertSameRows(String actual, String expected)
            throws SQLException
    {
        assertThat(sql.query("(SELECT 'only actual', * FROM ((%1$s) EXCEPT ALL (%2$s))) UNION ALL (SELECT 'only expected', * FROM ((%2$s) EXCEPT ALL (%1$s))) LIMIT 10".formatted(actual, expected)))
                .as("actual: %s, expected: %s", actual, expected)
                .isEmpty();
    }

    private static void assertSameMultiset(String actualName, Map<String, Long> actual, String expectedName, Map<String, Long> expected)
    {
        List<String> onlyActual = difference(actual, expected);
        List<String> onlyExpected = difference(expected, actual);
        assertThat(onlyActual).as("rows %s reads and %s does not", actualName, expectedName).isEmpty();
        assertThat(onlyExpected).as("rows %s reads and %s does not", expectedName, actualName).isEmpty();
    }

    // rows (with their surplus count) of left that right has fewer times; at most 10
    private static List<String> difference(Map<String, Long> left, Map<String, Long> right)
    {
        return left.entrySet().stream()
                .filter(entry -> entry.getValue() > right.getOrDefault(entry.getKey(), 0L))
                .map(entry -> entry.getKey() + " x" + (entry.getValue() - right.getOrDefault(entry.getKey(), 0L)))
                .limit(10)
                .toList();
    }

    private Map<String, Long> multiset(String query)
            throws SQLException
    {
        Map<String, Long> rows = new HashMap<>();
        for (List<Object> row : sql.query(query)) {
            rows.merge(key(row), 1L, Long::sum);
        }
        return rows;
    }

    // JDBC's values (a date as its ISO string) and Iceberg's generic values (LocalDate) print alike
    private static String key(List<Object> values)
    {
        return values.stream().map(String::valueOf).collect(Collectors.joining("|"));
    }

    private long count(String tpchPredicate)
            throws SQLException
    {
        return (long) sql.single("SELECT count(*) FROM %s WHERE %s".formatted(TPCH_ORDERS, tpchPredicate));
    }

    private List<Long> longs(String query)
            throws SQLException
    {
        return sql.query(query).stream().map(row -> (Long) row.getFirst()).toList();
    }

    private List<String> strings(String query)
            throws SQLException
    {
        return sql.query(query).stream().map(row -> (String) row.getFirst()).toList();
    }

    private static String qbeast(String name)
    {
        return "qbeast.%s.%s".formatted(SCHEMA, name);
    }

    private static String iceberg(String name)
    {
        return "iceberg.%s.%s".formatted(SCHEMA, name);
    }
}

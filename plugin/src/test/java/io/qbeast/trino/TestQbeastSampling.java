package io.qbeast.trino;

import io.qbeast.index.Weight;
import io.trino.Session;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.MaterializedResult;
import io.trino.testing.MaterializedRow;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Reads that use the index: {@code TABLESAMPLE SYSTEM} pushed down as a weight bound, cube-region
 * pruning of files, and table statistics from manifests. Tables are tpch tiny copies with small
 * cubes, so the trees are several levels deep.
 */
class TestQbeastSampling
        extends AbstractTestQueryFramework
{
    private static final String NULLS_SOURCE = "(SELECT orderkey, IF(orderkey % 7 = 0, NULL, custkey) k, IF(orderkey % 5 = 0, NULL, totalprice) d FROM tpch.tiny.orders)";

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        // small files: tpch tiny then spans several files per writer, as a large table spans many
        DistributedQueryRunner queryRunner = QbeastQueryRunner.builder()
                .addConnectorProperty("qbeast.target-file-size", "32kB")
                .build();
        Session oneWriter = QbeastQueryRunner.oneWriterPerNode(queryRunner.getDefaultSession());
        queryRunner.execute(oneWriter, "CREATE TABLE lineitem_s WITH (indexed_columns = ARRAY['orderkey', 'partkey', 'shipdate'], cube_size = 2000) AS SELECT * FROM tpch.tiny.lineitem");
        queryRunner.execute(oneWriter, "CREATE TABLE orders_s WITH (indexed_columns = ARRAY['custkey', 'totalprice', 'clerk'], cube_size = 1000) AS SELECT * FROM tpch.tiny.orders");
        queryRunner.execute(oneWriter, "CREATE TABLE orders_p WITH (indexed_columns = ARRAY['custkey', 'totalprice'], cube_size = 250) AS SELECT * FROM tpch.tiny.orders");
        queryRunner.execute(oneWriter, "CREATE TABLE nulls_s WITH (indexed_columns = ARRAY['k', 'd'], cube_size = 1000) AS SELECT * FROM " + NULLS_SOURCE);
        return queryRunner;
    }

    // ---- TABLESAMPLE ----

    @Test
    void testSampleIsExactlyTheWeightPrefix()
    {
        for (double percent : new double[] {1, 10, 37.5}) {
            long bound = Weight.upperBound(percent / 100);
            MaterializedResult sample = computeActual("SELECT orderkey, linenumber, _qbeast_weight FROM lineitem_s TABLESAMPLE SYSTEM (%s)".formatted(percent));
            MaterializedResult expected = computeActual("SELECT orderkey, linenumber, _qbeast_weight FROM lineitem_s WHERE _qbeast_weight < %s".formatted(bound));
            assertThat(expected.getRowCount()).isGreaterThan(0).isLessThan(60175);
            assertThat(sample.getMaterializedRows()).containsExactlyInAnyOrderElementsOf(expected.getMaterializedRows());
        }
    }

    @Test
    void testRepeatedSamplesAreIdentical()
    {
        String sql = "SELECT orderkey, custkey, totalprice FROM orders_s TABLESAMPLE SYSTEM (10)";
        MaterializedResult first = computeActual(sql);
        assertThat(first.getRowCount()).isGreaterThan(0);
        for (int i = 0; i < 3; i++) {
            assertThat(computeActual(sql).getMaterializedRows()).containsExactlyInAnyOrderElementsOf(first.getMaterializedRows());
        }
    }

    @Test
    void testSampleEstimatesWithinFourStandardErrors()
    {
        assertEstimates("lineitem_s", "extendedprice");
        assertEstimates("lineitem_s", "quantity");
        assertEstimates("orders_s", "totalprice");
    }

    private void assertEstimates(String table, String column)
    {
        double p = 0.1;
        MaterializedRow totals = computeActual("SELECT count(*), sum(CAST(%1$s AS double)), sum(CAST(%1$s AS double) * CAST(%1$s AS double)) FROM %2$s".formatted(column, table)).getMaterializedRows().getFirst();
        MaterializedRow sample = computeActual("SELECT count(*), coalesce(sum(CAST(%1$s AS double)), 0) FROM %2$s TABLESAMPLE SYSTEM (10)".formatted(column, table)).getMaterializedRows().getFirst();
        long n = (Long) totals.getField(0);
        double sum = (Double) totals.getField(1);
        double sumOfSquares = (Double) totals.getField(2);
        // each row is in the sample independently with probability p (its weight is uniform):
        // Var(count / p) = N (1 - p) / p, Var(sum / p) = (1 - p) / p * sum(x^2)
        double countError = Math.sqrt(n * (1 - p) / p);
        double sumError = Math.sqrt((1 - p) / p * sumOfSquares);
        double countEstimate = (Long) sample.getField(0) / p;
        double sumEstimate = (Double) sample.getField(1) / p;
        assertThat(Math.abs(countEstimate - n)).as("count estimate %s of %s (SE %s)", countEstimate, n, countError).isLessThanOrEqualTo(4 * countError);
        assertThat(Math.abs(sumEstimate - sum)).as("sum estimate %s of %s (SE %s)", sumEstimate, sum, sumError).isLessThanOrEqualTo(4 * sumError);
    }

    @Test
    void testSampleZeroAndHundred()
    {
        assertThat(computeActual("SELECT count(*) FROM lineitem_s TABLESAMPLE SYSTEM (0)").getOnlyValue()).isEqualTo(0L);
        assertThat(rows("SELECT orderkey, linenumber FROM lineitem_s TABLESAMPLE SYSTEM (0)")).isEmpty();
        assertThat(rows("SELECT count(*), sum(orderkey) FROM lineitem_s TABLESAMPLE SYSTEM (100)"))
                .isEqualTo(rows("SELECT count(*), sum(orderkey) FROM tpch.tiny.lineitem"));
    }

    @Test
    void testExplainShowsSample()
    {
        String plan = (String) computeActual("EXPLAIN SELECT count(*) FROM orders_s TABLESAMPLE SYSTEM (10)").getOnlyValue();
        assertThat(plan).contains("sample 0.1 (_qbeast_weight < " + Weight.upperBound(0.1) + ")");
        assertThat(plan).doesNotContain("Sample[");
    }

    /**
     * README documents the bound of {@code TABLESAMPLE SYSTEM (p)} as
     * {@code ⌊p/100 · 2^32 + ½⌋ − 2^31} (p/100 · 2^32 rounded to the nearest integer, halves up):
     * computed here exactly, with BigDecimal, and compared to the bound EXPLAIN prints. The
     * percentages include ones where rounding, flooring and ceiling all give different bounds.
     */
    @Test
    void testExplainedBoundIsTheDocumentedFormula()
    {
        Pattern bound = Pattern.compile("_qbeast_weight < (-?\\d+)\\)");
        for (String percent : List.of("1", "33.3", "50", "0.001", "20", "0.1", "99.9999")) {
            BigDecimal exact = new BigDecimal(percent).divide(BigDecimal.valueOf(100)).multiply(BigDecimal.valueOf(2).pow(32));
            BigInteger documented = exact.setScale(0, RoundingMode.HALF_UP).toBigIntegerExact().subtract(BigInteger.TWO.pow(31));
            String plan = (String) computeActual("EXPLAIN SELECT count(*) FROM orders_s TABLESAMPLE SYSTEM (" + percent + ")").getOnlyValue();
            Matcher matcher = bound.matcher(plan);
            assertThat(matcher.find()).as("weight bound in the plan of SYSTEM (%s): %s", percent, plan).isTrue();
            assertThat(new BigInteger(matcher.group(1))).as("bound of SYSTEM (%s)", percent).isEqualTo(documented);
        }
        // the percentages tell the formulas apart: 1 (x.96) and 20 (x.2) round differently from
        // flooring and from ceiling respectively
        assertThat(new BigDecimal("0.01").multiply(BigDecimal.valueOf(2).pow(32)).remainder(BigDecimal.ONE)).isGreaterThan(new BigDecimal("0.5"));
        assertThat(new BigDecimal("0.2").multiply(BigDecimal.valueOf(2).pow(32)).remainder(BigDecimal.ONE)).isLessThan(new BigDecimal("0.5")).isPositive();
    }

    /**
     * A predicate of the shapes the connector takes over (arithmetic and modulus, {@code LIKE},
     * comparisons of two columns, {@code OR} of an expression and a domain) leaves no filter
     * between the sample and the scan, so the sample is pushed down: the rows are exactly those of
     * the weight bound and the predicate, the latter evaluated by the engine on tpch's rows (an
     * independent truth), and the same on every run.
     */
    @Test
    void testSampleWithExpressionPredicateIsTheWeightPrefix()
    {
        long bound = Weight.upperBound(0.1);
        for (String predicate : List.of(
                "orderkey % 7 = 3",
                "clerk LIKE '%00_1%'",
                "custkey > orderkey / 40",
                "orderkey % 7 = 3 OR custkey = 370",
                "NOT (orderkey % 3 = 0) AND comment LIKE '%furious%' AND custkey > 100")) {
            String sample = "SELECT orderkey, custkey FROM orders_s TABLESAMPLE SYSTEM (10) WHERE " + predicate;
            assertThat((String) computeActual("EXPLAIN " + sample).getOnlyValue()).as(predicate)
                    .contains("sample 0.1 (_qbeast_weight < " + bound + ")")
                    .doesNotContain("Sample[")
                    .doesNotContain("ScanFilter");
            List<MaterializedRow> expected = rows(("SELECT orderkey, custkey FROM tpch.tiny.orders WHERE (%s) " +
                    "AND orderkey IN (SELECT orderkey FROM orders_s WHERE _qbeast_weight < %s)").formatted(predicate, bound));
            assertThat(expected).as(predicate).isNotEmpty();
            assertThat(rows(sample)).as(predicate).containsExactlyInAnyOrderElementsOf(expected);
            assertThat(rows(sample)).as(predicate).containsExactlyInAnyOrderElementsOf(rows("SELECT orderkey, custkey FROM orders_s WHERE _qbeast_weight < %s AND (%s)".formatted(bound, predicate)));
        }
    }

    /** SQL's NULLs in a taken-over predicate of a sample: a NULL predicate drops the row, as the engine's filter does. */
    @Test
    void testSampleWithExpressionOnNullableColumns()
    {
        long bound = Weight.upperBound(0.3);
        for (String predicate : List.of("k % 3 = 1", "NOT (k % 3 = 1)", "k > orderkey / 100 OR d < 100000", "k IS NULL OR d * 2 > k")) {
            String sample = "SELECT orderkey FROM nulls_s TABLESAMPLE SYSTEM (30) WHERE " + predicate;
            assertThat((String) computeActual("EXPLAIN " + sample).getOnlyValue()).as(predicate).doesNotContain("Sample[");
            List<MaterializedRow> expected = rows("SELECT orderkey FROM %s WHERE (%s) AND orderkey IN (SELECT orderkey FROM nulls_s WHERE _qbeast_weight < %s)".formatted(NULLS_SOURCE, predicate, bound));
            assertThat(expected).as(predicate).isNotEmpty();
            assertThat(rows(sample)).as(predicate).containsExactlyInAnyOrderElementsOf(expected);
        }
    }

    /** A division by zero in a taken-over predicate of a sample raises the engine's error, not an empty sample. */
    @Test
    void testSampleWithDivisionByZeroFails()
    {
        String predicate = "orderkey % (custkey - custkey) = 0";
        String sample = "SELECT count(*) FROM orders_s TABLESAMPLE SYSTEM (10) WHERE " + predicate;
        assertThat((String) computeActual("EXPLAIN " + sample).getOnlyValue()).doesNotContain("Sample[");
        assertQueryFails("SELECT count(*) FROM tpch.tiny.orders WHERE " + predicate, "Division by zero");
        assertQueryFails(sample, "Division by zero");
    }

    /**
     * The documented limit that stays: a predicate shape the connector does not take over (here a
     * function call) leaves Trino's own split sampling in the plan, with correct rows (a subset of
     * the predicate's) but not the weight prefix; the written weight bound is the exact sample.
     */
    @Test
    void testSampleWithOtherPredicateIsLeftToTrino()
    {
        String sql = "SELECT orderkey FROM orders_s TABLESAMPLE SYSTEM (50) WHERE length(comment) > 50";
        assertThat((String) computeActual("EXPLAIN " + sql).getOnlyValue()).contains("Sample[type = SYSTEM");
        Set<MaterializedRow> all = new HashSet<>(rows("SELECT orderkey FROM tpch.tiny.orders WHERE length(comment) > 50"));
        assertThat(all).containsAll(rows(sql));
        long bound = Weight.upperBound(0.5);
        assertThat(rows("SELECT orderkey FROM orders_s WHERE _qbeast_weight < %s AND length(comment) > 50".formatted(bound)))
                .containsExactlyInAnyOrderElementsOf(rows("SELECT orderkey FROM orders_s TABLESAMPLE SYSTEM (50)").stream()
                        .filter(row -> all.contains(row))
                        .toList())
                .isNotEmpty();
    }

    @Test
    void testSampleWithFilterProjectionJoinAndLimit()
    {
        long bound = Weight.upperBound(0.2);
        // filter and projection
        assertThat(rows("SELECT orderkey, linenumber, quantity * 2 FROM lineitem_s TABLESAMPLE SYSTEM (20) WHERE orderkey BETWEEN 1000 AND 30000 AND quantity > 20"))
                .containsExactlyInAnyOrderElementsOf(rows("SELECT orderkey, linenumber, quantity * 2 FROM lineitem_s WHERE _qbeast_weight < %s AND orderkey BETWEEN 1000 AND 30000 AND quantity > 20".formatted(bound)))
                .isNotEmpty();
        // join: the sample of one side, all of the other
        assertThat(rows("SELECT o.orderkey, l.linenumber FROM orders_s o TABLESAMPLE SYSTEM (20) JOIN lineitem_s l ON o.orderkey = l.orderkey"))
                .containsExactlyInAnyOrderElementsOf(rows("SELECT o.orderkey, l.linenumber FROM orders_s o JOIN lineitem_s l ON o.orderkey = l.orderkey WHERE o._qbeast_weight < %s".formatted(bound)))
                .isNotEmpty();
        // both sides sampled
        assertThat(rows("SELECT o.orderkey, l.linenumber FROM orders_s o TABLESAMPLE SYSTEM (20) JOIN lineitem_s l TABLESAMPLE SYSTEM (20) ON o.orderkey = l.orderkey"))
                .containsExactlyInAnyOrderElementsOf(rows("SELECT o.orderkey, l.linenumber FROM orders_s o JOIN lineitem_s l ON o.orderkey = l.orderkey WHERE o._qbeast_weight < %1$s AND l._qbeast_weight < %1$s".formatted(bound)));
        // limit
        MaterializedResult limited = computeActual("SELECT orderkey, _qbeast_weight FROM orders_s TABLESAMPLE SYSTEM (20) LIMIT 50");
        assertThat(limited.getRowCount()).isEqualTo(50);
        for (MaterializedRow row : limited.getMaterializedRows()) {
            assertThat((long) (Integer) row.getField(1)).isLessThan(bound);
        }
        // a sample of a sample: the second is refused by the connector (the engine samples splits), rows stay in the first
        Set<MaterializedRow> half = new HashSet<>(rows("SELECT orderkey FROM orders_s TABLESAMPLE SYSTEM (50)"));
        assertThat(half).containsAll(rows("SELECT orderkey FROM (SELECT * FROM orders_s TABLESAMPLE SYSTEM (50)) TABLESAMPLE SYSTEM (50)"));
    }

    @Test
    void testSampleReadsLess()
    {
        ScanStats full = scanStats("SELECT sum(extendedprice) FROM lineitem_s");
        ScanStats ten = scanStats("SELECT sum(extendedprice) FROM lineitem_s TABLESAMPLE SYSTEM (10)");
        ScanStats one = scanStats("SELECT sum(extendedprice) FROM lineitem_s TABLESAMPLE SYSTEM (1)");
        System.out.printf("lineitem_s full: %s%n10%%: %s%n1%%: %s%n", full, ten, one);
        assertThat(full.positions()).isEqualTo(60175);
        assertThat(ten.splits()).isLessThan(full.splits());
        assertThat(one.splits()).isLessThan(ten.splits());
        assertThat(ten.positions()).isLessThan(full.positions() / 3);
        assertThat(one.positions()).isLessThan(ten.positions());
        // the files of tpch tiny are smaller than a Parquet footer read, so a file that is opened is
        // read whole: bytes shrink with the number of files opened, which only 1% cuts deeply enough
        // on every layout the three writers can produce
        assertThat(one.bytes()).isLessThan(full.bytes() / 2);
    }

    // ---- cube-region pruning ----

    @Test
    void testPruningNeverDropsMatchingRows()
    {
        Random random = new Random(20261202);
        List<String> failures = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            String predicate = randomOrdersPredicate(random);
            List<MaterializedRow> actual = rows("SELECT orderkey FROM orders_s WHERE " + predicate);
            List<MaterializedRow> expected = rows("SELECT orderkey FROM tpch.tiny.orders WHERE " + predicate);
            if (!new HashSet<>(actual).equals(new HashSet<>(expected)) || actual.size() != expected.size()) {
                failures.add(predicate + ": " + actual.size() + " rows, expected " + expected.size());
            }
        }
        for (int i = 0; i < 20; i++) {
            String predicate = randomNullsPredicate(random);
            List<MaterializedRow> actual = rows("SELECT orderkey FROM nulls_s WHERE " + predicate);
            List<MaterializedRow> expected = rows("SELECT orderkey FROM " + NULLS_SOURCE + " WHERE " + predicate);
            if (!new HashSet<>(actual).equals(new HashSet<>(expected)) || actual.size() != expected.size()) {
                failures.add(predicate + ": " + actual.size() + " rows, expected " + expected.size());
            }
        }
        assertThat(failures).isEmpty();
    }

    private static String randomOrdersPredicate(Random random)
    {
        int custLow = 1 + random.nextInt(1500);
        int custHigh = custLow + random.nextInt(300);
        double priceLow = 1000 + random.nextDouble() * 400000;
        double priceHigh = priceLow + random.nextDouble() * 50000;
        String clerk = "Clerk#%09d".formatted(1 + random.nextInt(1000));
        String clerk2 = "Clerk#%09d".formatted(1 + random.nextInt(1000));
        return switch (random.nextInt(9)) {
            case 0 -> "custkey BETWEEN %s AND %s".formatted(custLow, custHigh);
            case 1 -> "custkey > %s AND totalprice < %s".formatted(custLow, priceHigh);
            case 2 -> "custkey IN (%s, %s, %s)".formatted(custLow, custHigh, 1 + random.nextInt(1500));
            case 3 -> "(totalprice < %s OR totalprice > %s)".formatted(priceLow, priceHigh + 300000);
            case 4 -> "totalprice BETWEEN %s AND %s AND custkey < %s".formatted(priceLow, priceHigh, custHigh);
            case 5 -> "clerk = '%s'".formatted(clerk);
            case 6 -> "clerk BETWEEN '%s' AND '%s'".formatted(clerk.compareTo(clerk2) < 0 ? clerk : clerk2, clerk.compareTo(clerk2) < 0 ? clerk2 : clerk);
            case 7 -> "(custkey < %s OR custkey BETWEEN %s AND %s) AND clerk > '%s'".formatted(custLow / 4, custHigh, custHigh + 50, clerk);
            default -> "totalprice = (SELECT totalprice FROM tpch.tiny.orders WHERE orderkey = %s)".formatted(1 + 32 * random.nextInt(1800));
        };
    }

    private static String randomNullsPredicate(Random random)
    {
        int low = 1 + random.nextInt(1500);
        double price = 1000 + random.nextDouble() * 400000;
        return switch (random.nextInt(5)) {
            case 0 -> "k IS NULL";
            case 1 -> "(k IS NULL OR k < %s)".formatted(low);
            case 2 -> "d IS NULL AND k BETWEEN %s AND %s".formatted(low, low + 100);
            case 3 -> "d IS NOT NULL AND d > %s".formatted(price);
            default -> "(k IS NULL OR k IN (%s, %s)) AND (d IS NULL OR d < %s)".formatted(low, low + 1, price);
        };
    }

    @Test
    void testPruningReadsLessWithSelectivity()
    {
        ScanStats full = scanStats("SELECT count(*) FROM orders_p WHERE custkey > 0");
        ScanStats wide = scanStats("SELECT count(*) FROM orders_p WHERE custkey BETWEEN 1 AND 750");
        ScanStats narrow = scanStats("SELECT count(*) FROM orders_p WHERE custkey BETWEEN 100 AND 150 AND totalprice < 100000");
        ScanStats point = scanStats("SELECT count(*) FROM orders_p WHERE custkey IN (370, 371)");
        ScanStats narrowSample = scanStats("SELECT count(*) FROM orders_p TABLESAMPLE SYSTEM (10) WHERE custkey BETWEEN 100 AND 150 AND totalprice < 100000");
        System.out.printf("orders_p full: %s%nhalf range: %s%nnarrow: %s%nIN: %s%nnarrow 10%%: %s%n", full, wide, narrow, point, narrowSample);
        assertThat(full.positions()).isEqualTo(15000);
        assertThat(wide.splits()).isLessThan(full.splits());
        assertThat(narrow.splits()).isLessThan(wide.splits());
        // files holding the top cubes (root and first level) span the whole space and are opened
        // by any predicate: narrow opened 11-12 of 25-27 files over three layouts (weights are
        // random), so half the files is no bound; a pruning that is broken opens all of them
        assertThat(narrow.splits()).isLessThan(full.splits() * 2 / 3);
        // two keys open no more files than half the key range, and read fewer rows (the files of
        // a random layout may all touch both ranges: splits alone can tie)
        assertThat(point.splits()).isLessThanOrEqualTo(wide.splits());
        assertThat(point.positions()).isLessThan(wide.positions());
        assertThat(narrow.positions()).isLessThan(full.positions() / 4);
        assertThat(narrowSample.splits()).isLessThanOrEqualTo(narrow.splits());
        assertThat(narrowSample.positions()).isLessThan(narrow.positions());
        // and the same rows as without the index
        assertThat(rows("SELECT orderkey FROM orders_p WHERE custkey BETWEEN 100 AND 150 AND totalprice < 100000"))
                .containsExactlyInAnyOrderElementsOf(rows("SELECT orderkey FROM tpch.tiny.orders WHERE custkey BETWEEN 100 AND 150 AND totalprice < 100000"));
    }

    // ---- statistics ----

    @Test
    void testStatisticsMatchBruteForce()
    {
        Map<String, MaterializedRow> stats = showStats("lineitem_s");
        assertThat(stats.get(null).getField(4)).isEqualTo(60175.0);
        MaterializedRow truth = computeActual("SELECT min(orderkey), max(orderkey), min(quantity), max(quantity), min(shipdate), max(shipdate), min(extendedprice), max(extendedprice) FROM tpch.tiny.lineitem").getMaterializedRows().getFirst();
        assertThat(stats.get("orderkey").getField(5)).isEqualTo(String.valueOf(truth.getField(0)));
        assertThat(stats.get("orderkey").getField(6)).isEqualTo(String.valueOf(truth.getField(1)));
        assertThat(Double.parseDouble((String) stats.get("quantity").getField(5))).isEqualTo((Double) truth.getField(2));
        assertThat(Double.parseDouble((String) stats.get("quantity").getField(6))).isEqualTo((Double) truth.getField(3));
        assertThat(stats.get("shipdate").getField(5)).isEqualTo(String.valueOf(truth.getField(4)));
        assertThat(stats.get("shipdate").getField(6)).isEqualTo(String.valueOf(truth.getField(5)));
        assertThat(Double.parseDouble((String) stats.get("extendedprice").getField(5))).isEqualTo((Double) truth.getField(6));
        assertThat(Double.parseDouble((String) stats.get("extendedprice").getField(6))).isEqualTo((Double) truth.getField(7));
        assertThat(stats.get("orderkey").getField(3)).isEqualTo(0.0);
        assertThat((Double) stats.get("comment").getField(1)).isGreaterThan(0.0);

        Map<String, MaterializedRow> nulls = showStats("nulls_s");
        MaterializedRow nullTruth = computeActual("SELECT count(*), count_if(k IS NULL), count_if(d IS NULL), min(k), max(k) FROM " + NULLS_SOURCE).getMaterializedRows().getFirst();
        double rows = (Long) nullTruth.getField(0);
        assertThat(nulls.get(null).getField(4)).isEqualTo(rows);
        assertThat((Double) nulls.get("k").getField(3)).isCloseTo((Long) nullTruth.getField(1) / rows, within(1e-9));
        assertThat((Double) nulls.get("d").getField(3)).isCloseTo((Long) nullTruth.getField(2) / rows, within(1e-9));
        assertThat(nulls.get("k").getField(5)).isEqualTo(String.valueOf(nullTruth.getField(3)));
        assertThat(nulls.get("k").getField(6)).isEqualTo(String.valueOf(nullTruth.getField(4)));
    }

    private Map<String, MaterializedRow> showStats(String table)
    {
        Map<String, MaterializedRow> stats = new java.util.HashMap<>();
        for (MaterializedRow row : rows("SHOW STATS FOR " + table)) {
            stats.put((String) row.getField(0), row);
        }
        return stats;
    }

    // ---- metadata tables ----

    @Test
    void testMetadataTables()
    {
        MaterializedRow files = computeActual("SELECT count(*), sum(record_count), count(DISTINCT revision_id), min(min_weight), max(max_weight), count_if(min_cube IS NULL) FROM \"lineitem_s$files\"").getMaterializedRows().getFirst();
        assertThat((Long) files.getField(0)).isGreaterThan(1L).isLessThanOrEqualTo(scanStats("SELECT sum(extendedprice) FROM lineitem_s").splits());
        assertThat(files.getField(1)).isEqualTo(60175L);
        assertThat(files.getField(5)).isEqualTo(0L);
        MaterializedRow weights = computeActual("SELECT min(_qbeast_weight), max(_qbeast_weight) FROM lineitem_s").getMaterializedRows().getFirst();
        assertThat(files.getField(3)).isEqualTo((long) (Integer) weights.getField(0));
        assertThat(files.getField(4)).isEqualTo((long) (Integer) weights.getField(1));
        // the root cube's readable id is the revision and no levels
        String minCube = (String) computeActual("SELECT min_cube FROM \"lineitem_s$files\" ORDER BY min_weight LIMIT 1").getOnlyValue();
        assertThat(minCube).matches("\\d+:?");
        MaterializedResult revisions = computeActual("SELECT revision_id, json FROM \"lineitem_s$revisions\"");
        assertThat(revisions.getRowCount()).isGreaterThanOrEqualTo(1).isGreaterThanOrEqualTo((int) (long) (Long) files.getField(2));
        assertThat(computeActual("SELECT count(*) FROM \"lineitem_s$revisions\" r JOIN \"lineitem_s$files\" f ON r.revision_id = f.revision_id").getOnlyValue())
                .isEqualTo(files.getField(0));
        assertThat((String) revisions.getMaterializedRows().getFirst().getField(1)).contains("\"cubeSize\":2000");
    }

    // ---- helpers ----

    private List<MaterializedRow> rows(String sql)
    {
        return computeActual(sql).getMaterializedRows();
    }

    private ScanStats scanStats(String sql)
    {
        return ScanStats.of(QbeastQueryRunner.queryStats(getDistributedQueryRunner(), getSession(), sql));
    }
}

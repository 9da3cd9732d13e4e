package io.qbeast.trino;

import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.MaterializedRow;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The expressions the connector takes over from the engine ({@code RowPredicateTranslator}) and
 * evaluates in the page source ({@code RowPredicateFilter}), without sampling: every predicate's
 * rows on qbeast copies equal the engine's own evaluation of the same predicate on the source
 * (tpch, or an inline {@code VALUES} table), and the plan shows the predicate in the table scan
 * and no filter above it. Errors are the engine's.
 */
class TestQbeastRowPredicates
        extends AbstractTestQueryFramework
{
    private static final List<String> COMPARISONS = List.of("=", "<>", "<", "<=", ">", ">=");
    private static final String NULLS_SOURCE = "(SELECT orderkey, IF(orderkey % 7 = 0, NULL, custkey) k, IF(orderkey % 5 = 0, NULL, totalprice) d, " +
            "IF(orderkey % 3 = 0, NULL, clerk) c, IF(orderkey % 11 = 0, NULL, CAST(shippriority AS integer) + CAST(orderkey % 100 AS integer)) i FROM tpch.tiny.orders)";
    private static final String STRINGS_SOURCE = "(SELECT * FROM (VALUES (1, 'abc'), (2, 'añb'), (3, 'a€b'), (4, 'a\uD83D\uDE00b'), (5, 'ab'), (6, ''), (7, 'a_b'), (8, 'a%b'), (9, 'xaby'), " +
            "(10, 'aab'), (11, 'b'), (12, NULL), (13, 'a\nb'), (14, 'abab'), (15, 'añ')) t(id, s))";

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        DistributedQueryRunner queryRunner = QbeastQueryRunner.builder()
                .addConnectorProperty("qbeast.target-file-size", "64kB")
                .build();
        queryRunner.execute("CREATE TABLE orders_e WITH (indexed_columns = ARRAY['custkey', 'totalprice'], cube_size = 2000) AS SELECT * FROM tpch.tiny.orders");
        queryRunner.execute("CREATE TABLE lineitem_e WITH (indexed_columns = ARRAY['orderkey', 'shipdate'], cube_size = 5000) AS SELECT * FROM tpch.tiny.lineitem");
        queryRunner.execute("CREATE TABLE nulls_e WITH (indexed_columns = ARRAY['k', 'd'], cube_size = 1000) AS SELECT * FROM " + NULLS_SOURCE);
        queryRunner.execute("CREATE TABLE strings_e WITH (indexed_columns = ARRAY['id'], cube_size = 100) AS SELECT * FROM " + STRINGS_SOURCE);
        return queryRunner;
    }

    @Test
    void testIntegerArithmeticAndComparisonsMatchTheEngine()
    {
        assertTakenAndExact("orders_e", "tpch.tiny.orders", "orderkey, custkey", List.of(
                "orderkey % 7 = 3",
                "orderkey % 7 <> 3",
                "-orderkey % 7 = -3",
                "orderkey / 9 = custkey / 10",
                "orderkey * 2 + 1 > custkey * 31",
                "orderkey - custkey <= 1000",
                "custkey > orderkey / 40",
                "orderkey % 10 IN (1, 3, 8)",
                "NOT (orderkey % 3 = 0)",
                "orderkey % 7 = 3 OR custkey = 370",
                "(orderkey % 2 = 0 AND custkey % 3 = 1) OR (orderkey % 5 = 4 AND custkey < 500)"));
        // integer columns (linenumber), date columns, integer-to-bigint casts and two-column comparisons
        assertTakenAndExact("lineitem_e", "tpch.tiny.lineitem", "orderkey, linenumber", List.of(
                "linenumber % 2 = 0",
                "linenumber * 1000 > suppkey",
                "linenumber + 1 = partkey % 8",
                "shipdate < commitdate",
                "receiptdate >= commitdate AND linenumber > 3",
                "shipdate = commitdate OR receiptdate = commitdate"));
    }

    @Test
    void testDoubleAndVarcharPredicatesMatchTheEngine()
    {
        assertTakenAndExact("lineitem_e", "tpch.tiny.lineitem", "orderkey, linenumber", List.of(
                "extendedprice * (1 - discount) > 50000",
                "discount = tax",
                "discount < tax OR extendedprice / quantity > 2000",
                "returnflag <> linestatus",
                "shipinstruct < shipmode",
                "shipmode IN ('AIR', 'RAIL') OR comment LIKE '%furious%'",
                "comment LIKE '%ly _ar%' AND NOT (shipmode LIKE 'A%')",
                "comment LIKE 'the%' OR comment LIKE '%s'"));
        assertTakenAndExact("orders_e", "tpch.tiny.orders", "orderkey", List.of(
                "clerk LIKE '%00_1%'",
                "clerk LIKE 'Clerk#0000009__'",
                "orderpriority LIKE '_-%' AND orderkey % 2 = 1"));
    }

    @Test
    void testLikeOnMultiByteCharactersAndEscapesMatchesTheEngine()
    {
        assertTakenAndExact("strings_e", STRINGS_SOURCE, "id", List.of(
                "s LIKE 'a_b'",
                "s LIKE '_'",
                "s LIKE '%'",
                "s LIKE ''",
                "s LIKE 'a%b'",
                "s LIKE '%a%b%'",
                "s LIKE 'a__'",
                "s LIKE '%ab'",
                "s LIKE 'ab%ab'",
                "s LIKE 'a%a%'",
                "s LIKE '%b%' AND NOT (s LIKE 'a%')",
                "s LIKE 'a\\_b' ESCAPE '\\'",
                "s LIKE 'a\\%%' ESCAPE '\\'",
                "s LIKE '%ñ%'",
                "s LIKE 'a_'",
                "s < 'ab'",
                "s >= 'añ'"));
    }

    /**
     * SQL's three values: a predicate that is NULL drops the row, NOT of NULL is NULL, OR and AND
     * absorb NULL as the engine does.
     */
    @Test
    void testNullSemanticsMatchTheEngine()
    {
        assertTakenAndExact("nulls_e", NULLS_SOURCE, "orderkey", List.of(
                "k % 3 = 1",
                "NOT (k % 3 = 1)",
                "k > orderkey / 100 OR d < 1000",
                "NOT (k > orderkey / 100 OR d < 100000)",
                "k IS NULL OR k % 2 = 0",
                "d * 2 > k",
                "i + 1 > 50 OR c LIKE '%9%'",
                "NOT (c LIKE '%9%') AND k % 2 = 0",
                "k % 4 IN (1, 3) OR i % 4 = 3",
                "c < 'Clerk#000000500' OR i = 7"));
    }

    /**
     * Random predicate trees of the taken shapes over nullable columns: each one's rows equal the
     * engine's evaluation of it on the source (seeded, so a failure repeats).
     */
    @Test
    void testRandomPredicatesMatchTheEngine()
    {
        Random random = new Random(20261207);
        List<String> predicates = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            predicates.add(condition(random, 3));
        }
        assertSame("nulls_e", NULLS_SOURCE, "orderkey", predicates);
        // most are taken over whole (the rest: shapes the engine plans with a shared value, or domains)
        long taken = predicates.stream().filter(predicate -> !explain("SELECT orderkey FROM nulls_e WHERE " + predicate).contains("ScanFilter")).count();
        assertThat(taken).isGreaterThan(predicates.size() / 2);
    }

    private static String condition(Random random, int depth)
    {
        int choice = random.nextInt(depth <= 0 ? 5 : 8);
        return switch (choice) {
            case 0 -> "(%s %s %s)".formatted(integer(random, 2), COMPARISONS.get(random.nextInt(COMPARISONS.size())), integer(random, 2));
            case 1 -> "(d %s %s)".formatted(COMPARISONS.get(random.nextInt(COMPARISONS.size())), random.nextBoolean() ? "k * 20.0" : String.valueOf(random.nextInt(500_000)) + ".5e0");
            case 2 -> "(c LIKE '%s')".formatted(List.of("%1%", "Clerk#0000005%", "%0_9", "_lerk%", "%00%1").get(random.nextInt(5)));
            case 3 -> "(%s IS NULL)".formatted(List.of("k", "d", "c", "i", "k % 3").get(random.nextInt(5)));
            case 4 -> "(%s IN (%d, %d, %d))".formatted(integer(random, 1), random.nextInt(7), random.nextInt(7), random.nextInt(7));
            case 5 -> "(NOT %s)".formatted(condition(random, depth - 1));
            case 6 -> "(%s AND %s)".formatted(condition(random, depth - 1), condition(random, depth - 1));
            default -> "(%s OR %s)".formatted(condition(random, depth - 1), condition(random, depth - 1));
        };
    }

    // small values and non-zero constant divisors: no overflow or division by zero
    private static String integer(Random random, int depth)
    {
        int choice = random.nextInt(depth <= 0 ? 2 : 5);
        return switch (choice) {
            case 0 -> List.of("k", "orderkey", "i").get(random.nextInt(3));
            case 1 -> String.valueOf(random.nextInt(30) - 5);
            case 2 -> "(%s %% %d)".formatted(integer(random, depth - 1), random.nextInt(9) + 1);
            case 3 -> "(%s / %d)".formatted(integer(random, depth - 1), random.nextInt(9) + 1);
            default -> "(%s %s %s)".formatted(integer(random, depth - 1), List.of("+", "-", "*").get(random.nextInt(3)), integer(random, depth - 1));
        };
    }

    /** A division by zero raises the engine's error (the engine raises it too when it evaluates the same predicate). */
    @Test
    void testDivisionByZeroAndOverflowRaiseTheEnginesErrors()
    {
        for (String predicate : List.of("orderkey / (custkey - custkey) > 0", "orderkey % (custkey - custkey) = 0")) {
            assertThat(explain("SELECT orderkey FROM orders_e WHERE " + predicate)).contains("filter ").doesNotContain("ScanFilter");
            assertThatThrownBy(() -> computeActual("SELECT orderkey FROM tpch.tiny.orders WHERE " + predicate)).hasMessage("Division by zero");
            assertThatThrownBy(() -> computeActual("SELECT orderkey FROM orders_e WHERE " + predicate)).hasMessage("Division by zero");
        }
        String overflow = "orderkey * 4611686018427387904 > 0";
        assertThat(explain("SELECT orderkey FROM orders_e WHERE " + overflow)).contains("filter ").doesNotContain("ScanFilter");
        assertThatThrownBy(() -> computeActual("SELECT orderkey FROM tpch.tiny.orders WHERE " + overflow)).hasMessageStartingWith("bigint multiplication overflow: ");
        assertThatThrownBy(() -> computeActual("SELECT orderkey FROM orders_e WHERE " + overflow)).hasMessageStartingWith("bigint multiplication overflow: ");
        // a predicate that may fail is left to the engine when another one is too (the engine's order of evaluation stays);
        // the engine's error is then raised by the engine
        String guarded = "SELECT orderkey FROM orders_e WHERE orderkey / (custkey - custkey) > 0 AND length(comment) > 0";
        assertThat(explain(guarded)).contains("ScanFilter");
        assertThatThrownBy(() -> computeActual(guarded)).hasMessage("Division by zero");
    }

    @Test
    void testShapesNotTakenStayWithTheEngine()
    {
        for (String predicate : List.of("length(comment) > 60", "regexp_like(clerk, '0{3}1')", "CAST(orderkey AS varchar) LIKE '%77%'", "abs(orderkey - 5000) < 100", "orderkey % 10 BETWEEN 2 AND 5")) {
            String sql = "SELECT orderkey FROM orders_e WHERE " + predicate;
            assertThat(explain(sql)).contains("ScanFilter");
            assertThat(rows(sql)).containsExactlyInAnyOrderElementsOf(rows("SELECT orderkey FROM tpch.tiny.orders WHERE " + predicate)).isNotEmpty();
        }
        // a conjunct taken beside one left: both filter, each where it can
        String mixed = "orderkey % 7 = 3 AND length(comment) > 60";
        assertThat(explain("SELECT orderkey FROM orders_e WHERE " + mixed)).contains("filter ((orderkey % 7) = 3)", "ScanFilter");
        assertThat(rows("SELECT orderkey FROM orders_e WHERE " + mixed)).containsExactlyInAnyOrderElementsOf(rows("SELECT orderkey FROM tpch.tiny.orders WHERE " + mixed)).isNotEmpty();
    }

    private void assertSame(String table, String source, String columns, List<String> predicates)
    {
        for (String predicate : predicates) {
            List<MaterializedRow> expected = rows("SELECT %s FROM %s WHERE %s".formatted(columns, source, predicate));
            assertThat(rows("SELECT %s FROM %s WHERE %s".formatted(columns, table, predicate))).as(predicate).containsExactlyInAnyOrderElementsOf(expected);
        }
    }

    private void assertTakenAndExact(String table, String source, String columns, List<String> predicates)
    {
        for (String predicate : predicates) {
            String sql = "SELECT %s FROM %s WHERE %s".formatted(columns, table, predicate);
            // taken over (some shapes, such as LIKE without wildcards, are column domains): no filter is left on the scan
            assertThat(explain(sql)).as(predicate).doesNotContain("ScanFilter").doesNotContain("Filter[");
            List<MaterializedRow> expected = rows("SELECT %s FROM %s WHERE %s".formatted(columns, source, predicate));
            assertThat(rows(sql)).as(predicate).containsExactlyInAnyOrderElementsOf(expected);
        }
    }

    private String explain(String sql)
    {
        return (String) computeActual("EXPLAIN " + sql).getOnlyValue();
    }

    private List<MaterializedRow> rows(String sql)
    {
        return computeActual(sql).getMaterializedRows();
    }
}

package io.qbeast.trino;

import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.Test;

import java.util.List;

import static java.util.stream.Collectors.joining;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every column type round-trips through a qbeast table (NULLs, NaN, infinities and nested types
 * included), and special values in indexed columns are written, indexed and found by predicates.
 */
class TestQbeastTypes
        extends AbstractTestQueryFramework
{
    // name, declared type, type the table stores it as (tinyint and smallint become integer,
    // bounded varchar becomes varchar, as Iceberg stores it; char is refused)
    private static final List<List<String>> COLUMNS = List.of(
            List.of("c_boolean", "boolean", "boolean"),
            List.of("c_tinyint", "tinyint", "integer"),
            List.of("c_smallint", "smallint", "integer"),
            List.of("c_integer", "integer", "integer"),
            List.of("c_bigint", "bigint", "bigint"),
            List.of("c_real", "real", "real"),
            List.of("c_double", "double", "double"),
            List.of("c_short_decimal", "decimal(10, 2)", "decimal(10, 2)"),
            List.of("c_long_decimal", "decimal(30, 5)", "decimal(30, 5)"),
            List.of("c_date", "date", "date"),
            List.of("c_time", "time(6)", "time(6)"),
            List.of("c_timestamp", "timestamp(6)", "timestamp(6)"),
            List.of("c_timestamptz", "timestamp(6) with time zone", "timestamp(6) with time zone"),
            List.of("c_varchar", "varchar", "varchar"),
            List.of("c_bounded_varchar", "varchar(10)", "varchar"),
            List.of("c_varbinary", "varbinary", "varbinary"),
            List.of("c_uuid", "uuid", "uuid"),
            List.of("c_array", "array(integer)", "array(integer)"),
            List.of("c_map", "map(varchar, bigint)", "map(varchar, bigint)"),
            List.of("c_row", "row(x integer, y varchar)", "row(x integer, y varchar)"),
            List.of("c_nested", "array(row(m map(varchar, array(double)), t timestamp(6)))", "array(row(m map(varchar, array(double)), t timestamp(6)))"));

    private static final String ALL_TYPES_COLUMNS = COLUMNS.stream()
            .map(column -> column.get(0) + " " + column.get(1))
            .collect(joining(", "));

    private static final String ROWS = """
            (true, TINYINT '-128', SMALLINT '32767', -2147483648, 9223372036854775807,
             REAL '3.25', DOUBLE '-1.5e300', DECIMAL '-12345678.91', DECIMAL '1234567890123456789012345.12345',
             DATE '1970-01-01', TIME '23:59:59.999999', TIMESTAMP '2024-02-29 12:34:56.123456', TIMESTAMP '2024-02-29 12:34:56.123456 UTC',
             'héllo wörld ✓', 'bounded', X'00ff10', UUID '12151fd2-7586-11e9-8f9e-2a86e4085a59',
             ARRAY[1, NULL, 3], MAP(ARRAY['a', 'b'], ARRAY[BIGINT '1', NULL]), ROW(7, 'seven'),
             ARRAY[ROW(MAP(ARRAY['k'], ARRAY[ARRAY[DOUBLE '1.0', nan()]]), TIMESTAMP '2001-01-01 00:00:00.000001')]),
            (false, TINYINT '127', SMALLINT '-32768', 2147483647, -9223372036854775808,
             nan(), infinity(), DECIMAL '0.01', DECIMAL '-0.00001',
             DATE '-0001-01-01', TIME '00:00:00.000000', TIMESTAMP '1900-01-01 00:00:00.000000', TIMESTAMP '1969-12-31 23:59:59.999999 America/New_York',
             '', '', X'', UUID '00000000-0000-0000-0000-000000000000',
             ARRAY[], MAP(), ROW(NULL, NULL),
             ARRAY[]),
            (NULL, NULL, NULL, NULL, NULL,
             -infinity(), nan(), NULL, NULL,
             NULL, NULL, NULL, NULL,
             NULL, NULL, NULL, NULL,
             NULL, NULL, NULL,
             NULL)""";

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        return QbeastQueryRunner.builder().build();
    }

    @Test
    void testAllTypesRoundTrip()
    {
        assertUpdate("CREATE TABLE test_all_types (" + ALL_TYPES_COLUMNS + ") WITH (indexed_columns = ARRAY['c_bigint', 'c_double', 'c_varchar', 'c_timestamptz', 'c_long_decimal'])");
        assertUpdate("INSERT INTO test_all_types " + source(), 3);
        // tinyint/smallint are stored as integer, bounded varchar as varchar (as Iceberg stores it)
        assertThat(query("SELECT * FROM test_all_types")).matches(expected());
        assertUpdate("DROP TABLE test_all_types");
    }

    @Test
    void testAllTypesCreateTableAs()
    {
        assertUpdate("CREATE TABLE test_all_types_ctas WITH (indexed_columns = ARRAY['c_boolean', 'c_real', 'c_date', 'c_uuid', 'c_short_decimal', 'c_time', 'c_varbinary']) AS " +
                source(), 3);
        assertThat(query("SELECT * FROM test_all_types_ctas")).matches(expected());
        // predicates on the index columns and others, special values included
        assertQuery("SELECT count(*) FROM test_all_types_ctas WHERE is_nan(c_real)", "VALUES 1");
        assertQuery("SELECT count(*) FROM test_all_types_ctas WHERE c_real = -infinity()", "VALUES 1");
        assertQuery("SELECT count(*) FROM test_all_types_ctas WHERE c_date IS NULL", "VALUES 1");
        assertQuery("SELECT count(*) FROM test_all_types_ctas WHERE c_date < DATE '1000-01-01'", "VALUES 1");
        assertQuery("SELECT count(*) FROM test_all_types_ctas WHERE c_uuid = UUID '12151fd2-7586-11e9-8f9e-2a86e4085a59'", "VALUES 1");
        assertQuery("SELECT count(*) FROM test_all_types_ctas WHERE c_varbinary = X''", "VALUES 1");
        assertQuery("SELECT count(*) FROM test_all_types_ctas WHERE c_boolean", "VALUES 1");
        assertQuery("SELECT count(*) FROM test_all_types_ctas WHERE c_short_decimal > 0", "VALUES 1");
        assertQuery("SELECT count(*) FROM test_all_types_ctas WHERE c_time > TIME '12:00:00'", "VALUES 1");
        assertQuery("SELECT count(*) FROM test_all_types_ctas WHERE c_timestamptz < TIMESTAMP '2000-01-01 00:00:00 UTC'", "VALUES 1");
        assertQuery("SELECT count(*) FROM test_all_types_ctas WHERE c_row.x = 7", "VALUES 1");
        assertUpdate("DROP TABLE test_all_types_ctas");
    }

    @Test
    void testSpecialValuesInIndexedColumns()
    {
        assertUpdate("CREATE TABLE test_special_indexed (d double, r real, s varchar, b varbinary, i bigint) " +
                "WITH (indexed_columns = ARRAY['d', 'r', 's', 'b', 'i'], cube_size = 4)");
        String longString = "x".repeat(100_000);
        assertUpdate("INSERT INTO test_special_indexed VALUES " +
                "(nan(), nan(), '', X'', NULL), " +
                "(infinity(), infinity(), NULL, NULL, 9223372036854775807), " +
                "(-infinity(), -infinity(), '" + longString + "', to_utf8('" + longString + "'), -9223372036854775808), " +
                "(NULL, NULL, 'a', X'61', 0), " +
                "(-0.0, REAL '-0.0', '\u0000', X'00', 1), " +
                "(4.9e-324, REAL '1.4e-45', 'zzzz', X'ffff', -1)", 6);
        // a second write widens or keeps the revision chosen by the first one
        assertUpdate("INSERT INTO test_special_indexed SELECT CAST(orderkey AS double), CAST(totalprice AS real), clerk, to_utf8(comment), custkey FROM tpch.tiny.orders", 15000);

        assertQuery("SELECT count(*) FROM test_special_indexed", "VALUES 15006");
        assertQuery("SELECT count(*) FROM test_special_indexed WHERE is_nan(d)", "VALUES 1");
        assertQuery("SELECT count(*) FROM test_special_indexed WHERE is_nan(r)", "VALUES 1");
        assertQuery("SELECT count(*) FROM test_special_indexed WHERE d = infinity()", "VALUES 1");
        assertQuery("SELECT count(*) FROM test_special_indexed WHERE d = -infinity()", "VALUES 1");
        assertQuery("SELECT count(*) FROM test_special_indexed WHERE d IS NULL", "VALUES 1");
        assertQuery("SELECT count(*) FROM test_special_indexed WHERE d = 0", "VALUES 1");
        assertQuery("SELECT count(*) FROM test_special_indexed WHERE r > 1e30", "VALUES 1");
        assertQuery("SELECT count(*) FROM test_special_indexed WHERE s = ''", "VALUES 1");
        assertQuery("SELECT count(*) FROM test_special_indexed WHERE s IS NULL", "VALUES 1");
        assertQuery("SELECT length(s), length(b) FROM test_special_indexed WHERE length(s) > 1000", "VALUES (100000, 100000)");
        assertQuery("SELECT count(*) FROM test_special_indexed WHERE s = '" + longString + "'", "VALUES 1");
        assertQuery("SELECT count(*) FROM test_special_indexed WHERE b = X''", "VALUES 1");
        assertQuery("SELECT count(*) FROM test_special_indexed WHERE i = 9223372036854775807", "VALUES 1");
        assertQuery("SELECT count(*) FROM test_special_indexed WHERE i = -9223372036854775808", "VALUES 1");
        assertQuery("SELECT count(*) FROM test_special_indexed WHERE s BETWEEN 'Clerk#000000100' AND 'Clerk#000000200'",
                "SELECT count(*) FROM orders WHERE clerk BETWEEN 'Clerk#000000100' AND 'Clerk#000000200'");
        assertQuery("SELECT count(*) FROM test_special_indexed WHERE d BETWEEN 1000 AND 2000", "SELECT count(*) FROM orders WHERE orderkey BETWEEN 1000 AND 2000");
        assertUpdate("DROP TABLE test_special_indexed");
    }

    @Test
    void testAllNullIndexedColumn()
    {
        assertUpdate("CREATE TABLE test_all_null (a bigint, b varchar) WITH (indexed_columns = ARRAY['a', 'b'], cube_size = 2)");
        assertUpdate("INSERT INTO test_all_null SELECT CAST(NULL AS bigint), CAST(NULL AS varchar) FROM tpch.tiny.nation", 25);
        assertUpdate("INSERT INTO test_all_null VALUES (1, 'x'), (2, 'y')", 2);
        assertQuery("SELECT count(*), count(a), count(b) FROM test_all_null", "VALUES (27, 2, 2)");
        assertQuery("SELECT a, b FROM test_all_null WHERE a IS NOT NULL", "VALUES (1, 'x'), (2, 'y')");
        assertUpdate("DROP TABLE test_all_null");
    }

    /** The test rows with each column of its declared type. */
    private static String source()
    {
        return "SELECT " + COLUMNS.stream().map(column -> "CAST(%s AS %s) %s".formatted(column.get(0), column.get(1), column.get(0))).collect(joining(", ")) +
                " FROM (VALUES " + ROWS + ") AS t(" + COLUMNS.stream().map(List::getFirst).collect(joining(", ")) + ")";
    }

    /**
     * The test rows as the table returns them: each column of its stored type; timestamps with
     * time zone are instants in Iceberg, so they come back in UTC.
     */
    private static String expected()
    {
        return "SELECT " + COLUMNS.stream()
                .map(column -> "CAST(%s AS %s)%s".formatted(column.get(0), column.get(2), column.get(2).endsWith("with time zone") ? " AT TIME ZONE 'UTC'" : ""))
                .collect(joining(", ")) +
                " FROM (" + source() + ")";
    }
}

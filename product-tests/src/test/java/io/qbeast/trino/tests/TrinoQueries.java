package io.qbeast.trino.tests;

import io.trino.jdbc.QueryStats;
import io.trino.jdbc.TrinoResultSet;
import org.assertj.core.api.ListAssert;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;

/** JDBC helpers for the product tests: statements, update counts, rows, final query statistics. */
public final class TrinoQueries
{
    private final TrinoServer trino;

    public TrinoQueries(TrinoServer trino)
    {
        this.trino = requireNonNull(trino);
    }

    public void execute(String sql)
            throws SQLException
    {
        try (Connection connection = trino.connect();
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    public long update(String sql)
            throws SQLException
    {
        try (Connection connection = trino.connect();
                Statement statement = connection.createStatement()) {
            return statement.executeLargeUpdate(sql);
        }
    }

    /** All rows, each a list of JDBC objects (numbers and strings compare with equals; byte arrays as hex). */
    public List<List<Object>> query(String sql)
            throws SQLException
    {
        return run(sql).rows();
    }

    public Object single(String sql)
            throws SQLException
    {
        List<List<Object>> rows = query(sql);
        if (rows.size() != 1 || rows.getFirst().size() != 1) {
            throw new AssertionError("one value expected from %s, got %s".formatted(sql, rows));
        }
        return rows.getFirst().getFirst();
    }

    /** The rows and the query's statistics once every row was read (processed rows and bytes of the scans). */
    public Result run(String sql)
            throws SQLException
    {
        try (Connection connection = trino.connect();
                Statement statement = connection.createStatement();
                ResultSet resultSet = statement.executeQuery(sql)) {
            ResultSetMetaData metadata = resultSet.getMetaData();
            List<List<Object>> rows = new ArrayList<>();
            while (resultSet.next()) {
                List<Object> row = new ArrayList<>();
                for (int column = 1; column <= metadata.getColumnCount(); column++) {
                    Object value = resultSet.getObject(column);
                    if (value instanceof byte[] bytes) {
                        value = java.util.HexFormat.of().formatHex(bytes);
                    }
                    row.add(value instanceof Number || value instanceof String || value == null ? value : Objects.toString(value));
                }
                rows.add(row);
            }
            QueryStats stats = resultSet.unwrap(TrinoResultSet.class).getStats();
            return new Result(rows, stats);
        }
    }

    /**
     * {@code CREATE TABLE table WITH (properties) AS SELECT * FROM source WHERE predicate}, asserting it
     * writes as many rows as {@code source} has matching {@code predicate}.
     */
    public void createFrom(String table, String properties, String source, String predicate)
            throws SQLException
    {
        assertThat(update("CREATE TABLE " + table + " WITH (" + properties + ") AS SELECT * FROM " + source + " WHERE " + predicate))
                .isEqualTo(single("SELECT count(*) FROM " + source + " WHERE " + predicate));
    }

    /** {@code INSERT INTO table SELECT * FROM source WHERE predicate}, asserting it writes as many rows as match. */
    public void insertFrom(String table, String source, String predicate)
            throws SQLException
    {
        assertThat(update("INSERT INTO " + table + " SELECT * FROM " + source + " WHERE " + predicate))
                .isEqualTo(single("SELECT count(*) FROM " + source + " WHERE " + predicate));
    }

    /** Asserts {@code template} (with a {@code %s} for the table) gives the same rows on {@code table} as on {@code expected}. */
    public ListAssert<List<Object>> assertSameResults(String template, String table, String expected)
            throws SQLException
    {
        return assertThat(query(template.formatted(table))).as(template).isEqualTo(query(template.formatted(expected)));
    }

    /** Asserts {@code table} and {@code expected} hold the same rows, duplicates counted, both ways. */
    public void assertSameRows(String table, String expected)
            throws SQLException
    {
        assertThat(query("SELECT count(*) FROM (SELECT * FROM " + table + " EXCEPT ALL SELECT * FROM " + expected + ")")).containsExactly(List.of(0L));
        assertThat(query("SELECT count(*) FROM (SELECT * FROM " + expected + " EXCEPT ALL SELECT * FROM " + table + ")")).containsExactly(List.of(0L));
    }

    public record Result(List<List<Object>> rows, QueryStats stats) {}
}

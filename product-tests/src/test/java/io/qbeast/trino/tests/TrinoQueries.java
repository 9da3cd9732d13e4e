package io.qbeast.trino.tests;

import io.trino.jdbc.QueryStats;
import io.trino.jdbc.TrinoResultSet;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import static java.util.Objects.requireNonNull;

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

    public record Result(List<List<Object>> rows, QueryStats stats) {}
}

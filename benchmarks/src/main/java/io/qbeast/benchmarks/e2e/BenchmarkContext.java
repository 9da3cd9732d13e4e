package io.qbeast.benchmarks.e2e;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/** What the suites share: the cluster, the options, staged source tables, progress output. */
public final class BenchmarkContext
{
    public static final String SCHEMA = "bench";

    private final BenchmarkCluster cluster;
    private final BenchmarkOptions options;
    private final Set<String> staged = new HashSet<>();
    private final Instant start = Instant.now();

    public BenchmarkContext(BenchmarkCluster cluster, BenchmarkOptions options)
    {
        this.cluster = requireNonNull(cluster);
        this.options = requireNonNull(options);
    }

    public BenchmarkCluster cluster()
    {
        return cluster;
    }

    public BenchmarkOptions options()
    {
        return options;
    }

    public void log(String format, Object... args)
    {
        Duration elapsed = Duration.between(start, Instant.now());
        System.out.printf("[bench %02d:%02d] %s%n", elapsed.toMinutes(), elapsed.toSecondsPart(), format.formatted(args));
        System.out.flush();
    }

    /**
     * TPC-H lineitem of a scale factor copied once into an unclustered Iceberg table: every write
     * measurement reads the same Parquet source, so that the tpch generator's CPU (as large as the
     * Parquet writer's) does not dilute the comparison of the writers.
     */
    public String stagedLineitem(double scaleFactor)
            throws SQLException
    {
        String table = "iceberg.%s.lineitem_sf%s".formatted(SCHEMA, BenchmarkOptions.scaleLabel(scaleFactor).replace('.', '_'));
        if (staged.add(table)) {
            log("staging %s from tpch.%s.lineitem", table, BenchmarkOptions.tpchSchema(scaleFactor));
            cluster.execute("DROP TABLE IF EXISTS " + table);
            cluster.execute("CREATE TABLE %s AS SELECT * FROM tpch.%s.lineitem".formatted(table, BenchmarkOptions.tpchSchema(scaleFactor)));
        }
        return table;
    }

    /**
     * Data files, bytes, rows and row groups of a table, from Iceberg's own {@code $files} table
     * (stock connector); the row groups are the files' split offsets, where that connector may cut a file.
     */
    public TableFiles files(String table)
            throws SQLException
    {
        String name = table.substring(table.lastIndexOf('.') + 1);
        List<Object> row = cluster.row("SELECT count(*), coalesce(sum(file_size_in_bytes), 0), coalesce(sum(record_count), 0), coalesce(sum(cardinality(split_offsets)), 0) FROM iceberg.%s.\"%s$files\"".formatted(SCHEMA, name));
        return new TableFiles(((Number) row.get(0)).longValue(), ((Number) row.get(1)).longValue(), ((Number) row.get(2)).longValue(), ((Number) row.get(3)).longValue());
    }

    public void drop(String table)
            throws SQLException
    {
        cluster.execute("DROP TABLE IF EXISTS " + table);
    }

    public record TableFiles(long files, long bytes, long rows, long rowGroups) {}
}

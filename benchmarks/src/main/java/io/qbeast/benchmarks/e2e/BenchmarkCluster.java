package io.qbeast.benchmarks.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.qbeast.trino.tests.PostgresServer;
import io.qbeast.trino.tests.TrinoServer;
import io.trino.jdbc.TrinoStatement;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import static io.qbeast.trino.tests.ProductTestServers.icebergCatalogOn;
import static io.qbeast.trino.tests.ProductTestServers.qbeastCatalogOn;
import static java.util.Objects.requireNonNull;

/**
 * One real Trino cluster (the version of the root pom's dep.trino.version) (by default a single node: the machine has 2 cores; {@code workers}
 * more nodes on request, each its own JVM with the same heap) with the catalogs
 * {@code tpch}, {@code qbeast} (the packaged plugin), {@code qbeast_small} (the same plugin and
 * Iceberg catalog with tiny target files, to make many-file tables cheaply) and {@code iceberg}
 * (Trino's stock Iceberg connector), all on one Iceberg JDBC catalog in PostgreSQL and one local
 * warehouse: every table is visible through both connectors.
 */
public final class BenchmarkCluster
        implements AutoCloseable
{
    /** Iceberg's {@code catalog_name}, the same in both connectors so they share tables. */
    private static final String SHARED_CATALOG = "bench";

    private final PostgresServer postgres;
    private final TrinoServer trino;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper mapper = new ObjectMapper();

    private BenchmarkCluster(PostgresServer postgres, TrinoServer trino)
    {
        this.postgres = postgres;
        this.trino = trino;
    }

    public static BenchmarkCluster start(Path work, String heap, String queryMemory, int workers)
    {
        Path warehouse = work.resolve("warehouse");
        PostgresServer postgres = PostgresServer.start("iceberg_catalog");
        try {
            Map<String, String> qbeast = qbeastCatalogOn(postgres, SHARED_CATALOG);
            Map<String, String> qbeastSmall = new LinkedHashMap<>(qbeast);
            // one file per small cube group: a cheap way to a table of thousands of files
            qbeastSmall.put("qbeast.target-file-size", "1kB");

            Map<String, String> iceberg = icebergCatalogOn(postgres, SHARED_CATALOG, warehouse);

            TrinoServer.Builder builder = TrinoServer.builder();
            String recording = System.getenv("BENCH_JFR");
            if (recording != null && !recording.isBlank()) {
                // a profile of the server for the whole run, written when it stops (SIGTERM)
                builder.withJvmOption("-XX:StartFlightRecording=settings=profile,dumponexit=true,filename=" + Path.of(recording).toAbsolutePath());
            }
            TrinoServer trino = builder
                    .withDirectory(work.resolve("cluster"))
                    .withHeap(heap)
                    .withWorkers(workers)
                    .withQueryMemory(queryMemory, queryMemory)
                    // the query JSON of every measured query must still be there when it is read
                    .withCoordinatorConfig("query.min-expire-age", "30m")
                    .withCoordinatorConfig("query.max-history", "1000")
                    .withTpch()
                    .withQbeast("qbeast", warehouse, qbeast)
                    .withQbeast("qbeast_small", warehouse, qbeastSmall)
                    .withIcebergPlugin()
                    .withCatalog("iceberg", iceberg)
                    .withStartupTimeout(Duration.ofMinutes(5))
                    .start();
            return new BenchmarkCluster(postgres, trino);
        }
        catch (RuntimeException | Error e) {
            postgres.close();
            throw e;
        }
    }

    /** Runs a statement to its end (all rows read) and returns what Trino recorded about it. */
    public QueryMetrics measure(String sql)
            throws SQLException
    {
        return run(sql).metrics();
    }

    /** Runs a statement to its end and returns its rows and what Trino recorded about it. */
    public Measured run(String sql)
            throws SQLException
    {
        List<List<Object>> rows = new ArrayList<>();
        String queryId = runForQueryId(sql, rows);
        return new Measured(rows, QueryMetrics.fromQueryInfo(queryInfo(queryId)));
    }

    public record Measured(List<List<Object>> rows, QueryMetrics metrics) {}

    /** Runs a statement and returns its rows. */
    public List<List<Object>> query(String sql)
            throws SQLException
    {
        List<List<Object>> rows = new ArrayList<>();
        runForQueryId(sql, rows);
        return rows;
    }

    public void execute(String sql)
            throws SQLException
    {
        runForQueryId(sql, new ArrayList<>());
    }

    /** The single value of a one-row, one-column query, as a double. */
    public double number(String sql)
            throws SQLException
    {
        List<List<Object>> rows = query(sql);
        if (rows.size() != 1 || rows.getFirst().size() != 1) {
            throw new IllegalStateException("one value expected from %s, got %s".formatted(sql, rows));
        }
        Object value = rows.getFirst().getFirst();
        return value == null ? Double.NaN : ((Number) value).doubleValue();
    }

    public List<Object> row(String sql)
            throws SQLException
    {
        List<List<Object>> rows = query(sql);
        if (rows.size() != 1) {
            throw new IllegalStateException("one row expected from %s, got %s".formatted(sql, rows));
        }
        return rows.getFirst();
    }

    private String runForQueryId(String sql, List<List<Object>> rows)
            throws SQLException
    {
        AtomicReference<String> queryId = new AtomicReference<>();
        try (Connection connection = trino.connect();
                Statement statement = connection.createStatement()) {
            statement.unwrap(TrinoStatement.class).setProgressMonitor(stats -> queryId.set(stats.getQueryId()));
            if (statement.execute(sql)) {
                try (ResultSet resultSet = statement.getResultSet()) {
                    ResultSetMetaData metadata = resultSet.getMetaData();
                    while (resultSet.next()) {
                        List<Object> row = new ArrayList<>(metadata.getColumnCount());
                        for (int column = 1; column <= metadata.getColumnCount(); column++) {
                            row.add(resultSet.getObject(column));
                        }
                        rows.add(row);
                    }
                }
            }
        }
        return requireNonNull(queryId.get(), () -> "no query id for " + sql);
    }

    /** The coordinator's JSON of a query, once the query is final (stats of finished tasks included). */
    public JsonNode queryInfo(String queryId)
    {
        HttpRequest request = HttpRequest.newBuilder(URI.create(trino.uri() + "/v1/query/" + queryId))
                .header("X-Trino-User", "test")
                .timeout(Duration.ofSeconds(30))
                .build();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            try {
                HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() != 200) {
                    throw new IllegalStateException("GET /v1/query/%s: HTTP %d %s".formatted(queryId, response.statusCode(), response.body()));
                }
                JsonNode info = mapper.readTree(response.body());
                if (info.path("finalQueryInfo").asBoolean(false) || System.nanoTime() > deadline) {
                    return info;
                }
                Thread.sleep(100);
            }
            catch (IOException e) {
                throw new IllegalStateException("cannot read the stats of query " + queryId, e);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    public TrinoServer trino()
    {
        return trino;
    }

    @Override
    public void close()
    {
        try {
            trino.close();
        }
        finally {
            postgres.close();
        }
    }
}

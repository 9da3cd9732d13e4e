package io.qbeast.trino.tests;

import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * A coordinator and two workers (three JVMs) sharing the local warehouse: qbeast writes and
 * reads run on the workers, and the cluster keeps answering after a worker is killed.
 */
@TestInstance(PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(300)
public class TestMultiNodeCluster
{
    private TrinoServer trino;
    private Path warehouse;

    @BeforeAll
    public void startCluster()
    {
        Path work = ProductTestEnvironment.newWorkDirectory("multi-node");
        warehouse = work.resolve("warehouse");
        trino = TrinoServer.builder()
                .withDirectory(work.resolve("cluster"))
                .withTpch()
                .withQbeast(warehouse)
                .withWorkers(2)
                .withCoordinatorScheduling(false)
                .withHeap("1G")
                .start();
    }

    @AfterAll
    public void stopCluster()
    {
        if (trino != null) {
            trino.close();
        }
    }

    @Test
    @Order(1)
    public void workersRunTheQueries()
            throws SQLException
    {
        assertThat(trino.activeNodes()).isEqualTo(3);
        assertThat(trino.nodes()).hasSize(3).allMatch(TrinoServer.Node::isAlive);
        assertThat(scalar("SELECT count(*) FROM tpch.tiny.lineitem")).isEqualTo(60175L);

        assertThat(scalar("SELECT count(*) FROM system.runtime.nodes WHERE coordinator = false AND state = 'active'")).isEqualTo(2L);
    }

    @Test
    @Order(2)
    public void qbeastWriteAndReadAcrossWorkers()
            throws SQLException
    {
        execute("CREATE SCHEMA qbeast.cluster");
        execute("CREATE TABLE qbeast.cluster.lineitem WITH (indexed_columns = ARRAY['orderkey', 'partkey']) AS SELECT * FROM tpch.tiny.lineitem");
        assertThat(scalar("SELECT count(*) FROM qbeast.cluster.lineitem")).isEqualTo(60175L);
        assertThat(scalar("SELECT sum(partkey) FROM qbeast.cluster.lineitem WHERE orderkey < 10000"))
                .isEqualTo(scalar("SELECT sum(partkey) FROM tpch.tiny.lineitem WHERE orderkey < 10000"));
    }

    @Test
    @Order(3)
    public void distributedInsertWithSeveralWriters()
            throws Exception
    {
        // the first half makes the revision the INSERT routes by: rows go to writers by region
        // bucket, and Trino spreads the buckets over both workers. (Into an empty table the rows
        // are not routed, and Trino's arbitrary distribution may hand every page of this small
        // input to the one writer task that asks first: a CI run on 483 had one writer node.)
        // (cube_size 2000: a tree of many cubes, so the routing has several regions to cut)
        execute("CREATE TABLE qbeast.cluster.lineitem_writers WITH (indexed_columns = ARRAY['orderkey', 'partkey'], cube_size = 2000) AS SELECT * FROM tpch.tiny.lineitem WHERE linenumber % 2 = 0");
        long firstHalf = (long) scalar("SELECT count(*) FROM tpch.tiny.lineitem WHERE linenumber % 2 = 0");
        long filesBefore = dataFiles(latestMetadata("lineitem_writers"));
        String marker = "several" + "-writers";
        try (Connection connection = severalWritersSession();
                Statement statement = connection.createStatement()) {
            assertThat(statement.executeLargeUpdate("INSERT /* " + marker + " */ INTO qbeast.cluster.lineitem_writers SELECT * FROM tpch.tiny.lineitem WHERE linenumber % 2 = 1"))
                    .isEqualTo(60175L - firstHalf);
        }
        String queryId = (String) scalar("SELECT query_id FROM system.runtime.queries WHERE strpos(query, '" + "several' || '-writers" + "') > 0 AND query LIKE 'INSERT%'");
        // system.runtime.tasks is gathered from the nodes the coordinator sees as active when it is
        // read; on a loaded machine a worker can miss a heartbeat and its tasks are absent for a
        // moment (a fresh-clone CI run once counted 1 node), so ask again until both workers
        // answer; the tasks' figures themselves are final, the INSERT has finished
        String writers = "FROM system.runtime.tasks WHERE query_id = '" + queryId + "' AND physical_written_bytes > 0";
        long writerNodes = (long) scalar("SELECT count(DISTINCT node_id) " + writers);
        for (long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos(); writerNodes != 2 && System.nanoTime() < deadline; ) {
            System.out.printf("TestMultiNodeCluster: %d active nodes; tasks of %s: %s%n", trino.activeNodes(), queryId,
                    scalar("SELECT array_join(array_agg(node_id || ':' || task_id || ':' || state || ':' || CAST(physical_written_bytes AS varchar)), ', ') FROM system.runtime.tasks WHERE query_id = '" + queryId + "'"));
            Thread.sleep(1000);
            writerNodes = (long) scalar("SELECT count(DISTINCT node_id) " + writers);
        }
        long writerTasks = (long) scalar("SELECT count(*) " + writers);
        long files = dataFiles(latestMetadata("lineitem_writers"));
        System.out.printf("TestMultiNodeCluster: INSERT %s written by %d tasks on %d nodes, %d data files%n", queryId, writerTasks, writerNodes, files);
        assertThat(writerNodes).as("nodes whose tasks wrote data").isEqualTo(2);
        assertThat(files - filesBefore).as("data files the INSERT added").isGreaterThan(1);

        String table = "qbeast.cluster.lineitem_writers";
        assertThat(scalar("SELECT count(*) FROM (SELECT * FROM " + table + " EXCEPT ALL SELECT * FROM tpch.tiny.lineitem)")).isEqualTo(0L);
        assertThat(scalar("SELECT count(*) FROM (SELECT * FROM tpch.tiny.lineitem EXCEPT ALL SELECT * FROM " + table + ")")).isEqualTo(0L);
    }

    @Test
    @Order(4)
    public void workerKilledDuringInsert()
            throws Exception
    {
        String table = "qbeast.cluster.killed";
        execute("CREATE TABLE " + table + " WITH (indexed_columns = ARRAY['orderkey', 'partkey']) AS SELECT orderkey, partkey, suppkey, quantity FROM tpch.tiny.lineitem");
        TableMetadata before = latestMetadata("killed");
        long metadataFilesBefore = metadataFiles("killed").size();
        assertThat(before.snapshots()).hasSize(1);
        assertThat(scalar("SELECT count(*) FROM " + table)).isEqualTo(60175L);

        // far too long to finish before the kill (tpch.sf100.lineitem: 600M rows generated on the workers);
        // the query fails once the coordinator gives up on the killed worker (about a minute)
        String insert = "INSERT /* kill" + "-me */ INTO " + table + " SELECT orderkey, partkey, suppkey, quantity FROM tpch.sf100.lineitem";
        long started = System.nanoTime();
        CompletableFuture<Long> running = CompletableFuture.supplyAsync(() -> {
            try (Connection connection = severalWritersSession();
                    Statement statement = connection.createStatement()) {
                return statement.executeLargeUpdate(insert);
            }
            catch (SQLException e) {
                throw new CompletionException(e);
            }
        });

        // wait until the INSERT runs and a worker's tasks have read input, then SIGKILL that worker
        TrinoServer.Node victim = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (victim == null) {
            assertThat(running).as("INSERT finished before a worker could be killed").isNotDone();
            assertThat(System.nanoTime()).as("INSERT running on a worker").isLessThan(deadline);
            List<Object> busiest = firstRow("SELECT n.http_uri, sum(t.processed_input_rows) FROM system.runtime.tasks t JOIN system.runtime.queries q ON t.query_id = q.query_id " +
                    "JOIN system.runtime.nodes n ON t.node_id = n.node_id " +
                    "WHERE strpos(q.query, 'kill' || '-me') > 0 AND q.query LIKE 'INSERT%' AND q.state = 'RUNNING' AND t.state = 'RUNNING' AND n.coordinator = false " +
                    "GROUP BY n.http_uri HAVING sum(t.processed_input_rows) > 100000 ORDER BY 2 DESC");
            if (busiest != null) {
                int port = URI.create((String) busiest.get(0)).getPort();
                victim = trino.workers().stream().filter(worker -> worker.port() == port).findFirst().orElseThrow();
                System.out.printf("TestMultiNodeCluster: killing worker on port %d after %d ms, its running tasks read %s rows%n",
                        port, Duration.ofNanos(System.nanoTime() - started).toMillis(), busiest.get(1));
                victim.kill();
            }
            else {
                Thread.sleep(200);
            }
        }
        assertThat(victim.isAlive()).isFalse();

        // the INSERT fails
        assertThatThrownBy(() -> running.get(3, TimeUnit.MINUTES))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(SQLException.class);
        System.out.printf("TestMultiNodeCluster: INSERT failed %d ms after it started: %s%n",
                Duration.ofNanos(System.nanoTime() - started).toMillis(), running.exceptionNow().getMessage());
        trino.awaitActiveNodes(2, Duration.ofMinutes(2));

        // nothing was committed, the table still reads
        assertThat(scalar("SELECT count(*) FROM " + table)).isEqualTo(60175L);
        assertThat(metadataFiles("killed")).as("table metadata files").hasSize((int) metadataFilesBefore);
        TableMetadata after = latestMetadata("killed");
        assertThat(after.currentSnapshot().snapshotId()).isEqualTo(before.currentSnapshot().snapshotId());
        assertThat(after.snapshots()).hasSize(1);
        assertThat(dataFiles(after)).isEqualTo(dataFiles(before));
        assertThat(scalar("SELECT sum(partkey) FROM " + table + " WHERE orderkey < 10000"))
                .isEqualTo(scalar("SELECT sum(partkey) FROM tpch.tiny.lineitem WHERE orderkey < 10000"));

        // the remaining worker answers, and the next INSERT succeeds
        assertThat(scalar("SELECT count(*) FROM tpch.tiny.orders")).isEqualTo(15000L);
        assertThat(scalar("SELECT count(*) FROM qbeast.cluster.lineitem")).isEqualTo(60175L);
        try (Connection connection = severalWritersSession();
                Statement statement = connection.createStatement()) {
            assertThat(statement.executeLargeUpdate("INSERT INTO " + table + " SELECT orderkey, partkey, suppkey, quantity FROM tpch.tiny.lineitem WHERE orderkey < 10000"))
                    .isEqualTo(scalar("SELECT count(*) FROM tpch.tiny.lineitem WHERE orderkey < 10000"));
        }
        assertThat(scalar("SELECT count(*) FROM " + table))
                .isEqualTo(60175L + (long) scalar("SELECT count(*) FROM tpch.tiny.lineitem WHERE orderkey < 10000"));
        TableMetadata next = latestMetadata("killed");
        assertThat(next.snapshots()).hasSize(2);
        assertThat(next.currentSnapshot().parentId()).isEqualTo(before.currentSnapshot().snapshotId());
        assertThat(Long.parseLong(next.currentSnapshot().summary().get("total-records"))).isEqualTo(scalar("SELECT count(*) FROM " + table));
    }

    /** A connection whose writes are spread over every worker and several writers per task. */
    private Connection severalWritersSession()
            throws SQLException
    {
        Connection connection = trino.connect();
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET SESSION scale_writers = false");
            statement.execute("SET SESSION redistribute_writes = true");
            statement.execute("SET SESSION task_min_writer_count = 2");
        }
        return connection;
    }

    /** The table's metadata files in the warehouse ({@code cluster/<table>-<uuid>/metadata/NNNNN-<uuid>.metadata.json}). */
    private List<Path> metadataFiles(String table)
            throws IOException
    {
        try (Stream<Path> files = Files.walk(warehouse.resolve("cluster"))) {
            return files.filter(file -> file.getFileName().toString().endsWith(".metadata.json"))
                    .filter(file -> file.getParent().getParent().getFileName().toString().matches(Pattern.quote(table) + "-[0-9a-f]{32}"))
                    .sorted(Comparator.comparing(file -> file.getFileName().toString()))
                    .toList();
        }
    }

    /** The newest Iceberg metadata of the table (the one its catalog entry points to). */
    private TableMetadata latestMetadata(String table)
            throws IOException
    {
        List<Path> files = metadataFiles(table);
        assertThat(files).as("metadata of %s", table).isNotEmpty();
        return TableMetadataParser.read(org.apache.iceberg.Files.localInput(files.getLast().toFile()));
    }

    private static long dataFiles(TableMetadata metadata)
    {
        return Long.parseLong(metadata.currentSnapshot().summary().get("total-data-files"));
    }

    private List<Object> firstRow(String sql)
            throws SQLException
    {
        try (Connection connection = trino.connect();
                Statement statement = connection.createStatement();
                ResultSet resultSet = statement.executeQuery(sql)) {
            if (!resultSet.next()) {
                return null;
            }
            List<Object> row = new ArrayList<>();
            for (int column = 1; column <= resultSet.getMetaData().getColumnCount(); column++) {
                row.add(resultSet.getObject(column));
            }
            while (resultSet.next()) {
                // drain
            }
            return row;
        }
    }

    private void execute(String sql)
            throws SQLException
    {
        try (Connection connection = trino.connect();
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private Object scalar(String sql)
            throws SQLException
    {
        try (Connection connection = trino.connect();
                Statement statement = connection.createStatement();
                ResultSet resultSet = statement.executeQuery(sql)) {
            assertThat(resultSet.next()).isTrue();
            return resultSet.getObject(1);
        }
    }
}

package io.qbeast.trino.tests;

import org.apache.iceberg.TableMetadata;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * Writes under stress on a real one-node server with the quickstart's catalog (embedded SQLite
 * JDBC catalog in a local warehouse): concurrent INSERTs, INSERTs racing both forms of optimize,
 * and the server SIGKILLed in the middle of an INSERT and of an optimize, then restarted on the
 * same warehouse. Every check compares against TPC-H (the rows each statement was given) or
 * against the table's files on disk read through its Iceberg metadata ({@link TableFiles}).
 */
@TestInstance(PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(300)
public class TestConcurrentWritesAndCrashes
{
    private static final String SCHEMA = "probe";
    private static final String TINY_ORDERS = "tpch.tiny.orders";
    /** {@code QBEAST_COMMIT_ERROR}: the connector's codes are {@code 0x0520_0000 + ordinal} (QbeastErrorCode). */
    private static final int QBEAST_COMMIT_ERROR = 0x0520_0000 + 3;
    /** SIGKILL (9) as the exit status Java reports for a process it killed: 128 + signal. */
    private static final int KILLED_BY_SIGKILL = 128 + 9;

    private Path work;
    private Path warehouse;
    private TrinoServer trino;
    private TrinoQueries queries;

    @BeforeAll
    public void startServer()
            throws SQLException
    {
        work = ProductTestEnvironment.newWorkDirectory("concurrent-writes-and-crashes");
        warehouse = work.resolve("warehouse");
        startOnWarehouse();
        queries.execute("CREATE SCHEMA qbeast." + SCHEMA);
    }

    @AfterAll
    public void stopServer()
    {
        if (trino != null) {
            trino.close();
        }
    }

    @Test
    @Order(1)
    public void concurrentInsertsAllCommit()
            throws Exception
    {
        String name = "orders_concurrent";
        String table = qualified(name);
        queries.execute("CREATE TABLE " + table + " WITH (indexed_columns = ARRAY['custkey', 'totalprice'], cube_size = 500) AS SELECT * FROM " + TINY_ORDERS + " WHERE false");
        Set<Object> snapshotsBefore = snapshotIds(name);

        int inserts = 8;
        List<String> statements = new ArrayList<>();
        for (int slice = 0; slice < inserts; slice++) {
            statements.add("INSERT INTO " + table + " SELECT * FROM " + TINY_ORDERS + " WHERE orderkey % " + inserts + " = " + slice);
        }
        List<Outcome> outcomes = runTogether(statements);

        for (int slice = 0; slice < inserts; slice++) {
            outcomes.get(slice).assertSucceeded();
            assertThat(outcomes.get(slice).rows())
                    .as("rows written by %s", statements.get(slice))
                    .isEqualTo(queries.single("SELECT count(*) FROM " + TINY_ORDERS + " WHERE orderkey % " + inserts + " = " + slice));
        }
        queries.assertSameRows(table, TINY_ORDERS);

        // one append per statement, no merge: each new snapshot added exactly one slice's rows
        List<List<Object>> newSnapshots = queries.query("SELECT snapshot_id, operation, CAST(json_extract_scalar(summary, '$[\"added-records\"]') AS bigint) FROM " + snapshots(name));
        newSnapshots.removeIf(row -> snapshotsBefore.contains(row.get(0)));
        assertThat(newSnapshots).as("snapshots of the INSERTs").hasSize(inserts).allSatisfy(row -> assertThat(row.get(1)).isEqualTo("append"));
        assertThat(newSnapshots.stream().map(row -> (Long) row.get(2)).sorted().toList())
                .isEqualTo(queries.query("SELECT count(*) FROM " + TINY_ORDERS + " GROUP BY orderkey % " + inserts).stream().map(row -> (Long) row.getFirst()).sorted().toList());

        assertFilesConsistent(name);
        assertThat(tableFiles(name).orphans()).as("files in the data folder no snapshot references").isEmpty();
    }

    @Test
    @Order(2)
    public void insertsRacingBothOptimizesKeepEveryRow()
            throws Exception
    {
        String name = "orders_race";
        String table = qualified(name);
        // two writes before the race, so that both optimizes have files to rewrite
        queries.createFrom(table, "indexed_columns = ARRAY['custkey', 'totalprice'], cube_size = 500", TINY_ORDERS, "orderkey % 6 = 0");
        queries.insertFrom(table, TINY_ORDERS, "orderkey % 6 = 1");

        List<String> statements = new ArrayList<>();
        for (int slice = 2; slice < 6; slice++) {
            statements.add("INSERT INTO " + table + " SELECT * FROM " + TINY_ORDERS + " WHERE orderkey % 6 = " + slice);
        }
        String execute = "ALTER TABLE " + table + " EXECUTE optimize(mode => 'all')";
        String call = "CALL qbeast.system.optimize(schema_name => '" + SCHEMA + "', table_name => '" + name + "', mode => 'all')";
        statements.add(execute);
        statements.add(call);
        List<Outcome> outcomes = runTogether(statements);

        for (int slice = 2; slice < 6; slice++) {
            Outcome insert = outcomes.get(slice - 2);
            insert.assertSucceeded();
            assertThat(insert.rows()).isEqualTo(queries.single("SELECT count(*) FROM " + TINY_ORDERS + " WHERE orderkey % 6 = " + slice));
        }
        int optimized = 0;
        for (Outcome optimize : outcomes.subList(4, 6)) {
            System.out.printf("TestConcurrentWritesAndCrashes: %s -> %s%n", optimize.sql(), optimize.failure() == null ? "committed" : optimize.failure().getMessage());
            if (optimize.failure() == null) {
                optimized++;
            }
            else {
                // the only acceptable failure: it lost the race to the other optimize, and said so
                assertThat(optimize.failure().getErrorCode()).as("error code of %s: %s", optimize.sql(), optimize.failure()).isEqualTo(QBEAST_COMMIT_ERROR);
                assertThat(optimize.failure().getMessage()).contains("nothing was changed");
            }
        }
        // a losing optimize conflicts only with a winning one, never with an INSERT
        assertThat(optimized).as("optimizes that committed").isPositive();
        assertThat(queries.single("SELECT count(*) FROM " + snapshots(name) + " WHERE operation = 'replace'")).isEqualTo((long) optimized);

        queries.assertSameRows(table, TINY_ORDERS);
        assertFilesConsistent(name);
        // a failed optimize deletes what it wrote; everything else is referenced by some snapshot
        assertThat(tableFiles(name).orphans()).as("files in the data folder no snapshot references").isEmpty();
    }

    @Test
    @Order(3)
    // a hang guard: two server starts on a loaded 2-core machine
    @Timeout(600)
    public void serverKilledDuringInsert()
            throws Exception
    {
        String name = "orders_killed_insert";
        String table = qualified(name);
        String source = "tpch.sf1.orders";
        queries.createFrom(table, "indexed_columns = ARRAY['custkey', 'totalprice']", TINY_ORDERS, "orderkey % 2 = 0");

        Set<String> orphans = killDuring(name, "INSERT INTO " + table + " SELECT * FROM " + source);

        queries.assertSameRows(table, "(SELECT * FROM " + TINY_ORDERS + " WHERE orderkey % 2 = 0)");
        System.out.printf("TestConcurrentWritesAndCrashes: SIGKILL during INSERT left %d orphan files%n", orphans.size());
        removeOrphans(name, orphans);

        // the restarted server writes to the table again
        queries.insertFrom(table, TINY_ORDERS, "orderkey % 2 = 1");
        queries.assertSameRows(table, TINY_ORDERS);
        assertFilesConsistent(name);
        assertThat(tableFiles(name).orphans()).as("orphans after the next INSERT").isEmpty();
    }

    @Test
    @Order(4)
    // a hang guard: two server starts on a loaded 2-core machine
    @Timeout(600)
    public void serverKilledDuringOptimize()
            throws Exception
    {
        String name = "orders_killed_optimize";
        String table = qualified(name);
        String source = "tpch.sf1.orders";
        String predicate = "orderkey % 4 = 0";
        queries.createFrom(table, "indexed_columns = ARRAY['custkey', 'totalprice'], cube_size = 5000", source, predicate);
        // the truth, computed once: comparing row by row (EXCEPT ALL) regenerates sf1 each time
        List<Object> truth = countAndChecksum(source, predicate);
        assertThat(countAndChecksum(table, "true")).as("the table before the optimize").isEqualTo(truth);

        Set<String> orphans = killDuring(name, "ALTER TABLE " + table + " EXECUTE optimize(mode => 'all')");

        assertThat(countAndChecksum(table, "true")).as("the table after the restart").isEqualTo(truth);
        System.out.printf("TestConcurrentWritesAndCrashes: SIGKILL during optimize left %d orphan files%n", orphans.size());
        removeOrphans(name, orphans);

        String inserted = "orderkey % 4 = 1";
        queries.insertFrom(table, TINY_ORDERS, inserted);
        assertThat(countAndChecksum(table, predicate)).as("the rows before the INSERT").isEqualTo(truth);
        assertThat(countAndChecksum(table, inserted)).as("the inserted rows").isEqualTo(countAndChecksum(TINY_ORDERS, inserted));
        assertThat(queries.single("SELECT count(*) FROM " + table))
                .isEqualTo((long) truth.getFirst() + (long) queries.single("SELECT count(*) FROM " + TINY_ORDERS + " WHERE " + inserted));
        assertFilesConsistent(name);
        assertThat(tableFiles(name).orphans()).as("orphans after the next INSERT").isEmpty();
    }

    /**
     * Runs {@code sql} (a long write on {@code table}), SIGKILLs the server once the query runs and
     * the first files it writes are in the table's data folder, restarts the server on the same
     * warehouse and checks the table is exactly as before the statement: same snapshot, same
     * files. Returns the orphans the kill left: exactly the files that appeared during the
     * statement.
     */
    private Set<String> killDuring(String name, String sql)
            throws Exception
    {
        TableFiles files = tableFiles(name);
        TableMetadata before = files.currentMetadata();
        Set<String> folderBefore = files.dataFolderFiles();
        assertThat(files.orphans()).isEmpty();

        String marker = "kill-" + name;
        String marked = sql.replaceFirst(" ", " /* " + marker + " */ ");
        long started = System.nanoTime();
        ExecutorService client = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "killed-statement");
            thread.setDaemon(true);
            return thread;
        });
        Future<?> statement = client.submit(() -> {
            queries.execute(marked);
            return null;
        });
        client.shutdown();

        String queryId = awaitRunning(marker, statement);
        Set<String> written = awaitNewFiles(files, folderBefore, statement);
        long elapsed = Duration.ofNanos(System.nanoTime() - started).toMillis();
        TrinoServer.Node coordinator = trino.coordinator();
        coordinator.kill();
        assertThat(coordinator.exitCode()).as("exit status of the killed server").contains(KILLED_BY_SIGKILL);
        System.out.printf("TestConcurrentWritesAndCrashes: killed the server %d ms into %s, %d new files in the data folder%n", elapsed, marked, written.size());

        trino.close();
        startOnWarehouse();

        TableMetadata after = files.currentMetadata();
        assertThat(after.currentSnapshot().snapshotId()).as("current snapshot").isEqualTo(before.currentSnapshot().snapshotId());
        assertThat(after.snapshots()).hasSameSizeAs(before.snapshots());
        assertFilesConsistent(name);
        Set<String> orphans = files.orphans();
        Set<String> appeared = new TreeSet<>(files.dataFolderFiles());
        appeared.removeAll(folderBefore);
        assertThat(orphans).as("orphans: the files written during the killed statement").isEqualTo(appeared).isNotEmpty()
                // the connector names a statement's files <query id>-<writer>-<n>.parquet
                .allSatisfy(orphan -> assertThat(orphan.substring(orphan.lastIndexOf('/') + 1)).startsWith(queryId + "-"));
        return orphans;
    }

    /** Waits until the statement marked {@code marker} is RUNNING; returns its query id. */
    private String awaitRunning(String marker, Future<?> statement)
            throws Exception
    {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            List<List<Object>> running = queries.query("SELECT query_id FROM system.runtime.queries WHERE state = 'RUNNING' AND strpos(query, '" + marker + "') > 0 AND strpos(query, 'system.runtime') = 0");
            if (!running.isEmpty()) {
                return (String) running.getFirst().getFirst();
            }
            assertNotFinished(statement, "before it was seen running");
            assertThat(System.nanoTime()).as("statement %s running within 60 s", marker).isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    /** Polls the data folder until files not in {@code before} appear; the statement must still be running. */
    private static Set<String> awaitNewFiles(TableFiles files, Set<String> before, Future<?> statement)
            throws Exception
    {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (true) {
            Set<String> written = new TreeSet<>(files.dataFolderFiles());
            written.removeAll(before);
            if (!written.isEmpty()) {
                return written;
            }
            assertNotFinished(statement, "before it wrote a file");
            assertThat(System.nanoTime()).as("first data file written within 2 minutes").isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    private static void assertNotFinished(Future<?> statement, String when)
            throws InterruptedException
    {
        if (statement.isDone()) {
            try {
                statement.get();
                throw new AssertionError("the statement to kill finished " + when + "; make it bigger");
            }
            catch (ExecutionException e) {
                throw new AssertionError("the statement to kill failed " + when, e.getCause());
            }
        }
    }

    /** The files Trino's {@code "t$files"} lists are the current snapshot's files in the Iceberg metadata, and all exist. */
    private void assertFilesConsistent(String name)
            throws SQLException
    {
        TableFiles files = tableFiles(name);
        Set<String> listed = new TreeSet<>();
        queries.query("SELECT path FROM " + SCHEMA_QUALIFIER + "\"" + name + "$files\"").forEach(row -> listed.add((String) row.getFirst()));
        assertThat(listed).as("\"%s$files\"", name).isEqualTo(files.currentDataFiles());
        assertThat(files.dataFolderFiles()).as("data folder of %s", name).containsAll(files.referencedDataFiles());
    }

    private static final String SCHEMA_QUALIFIER = "qbeast." + SCHEMA + ".";

    /** Count and order-insensitive checksum of every orders column of {@code relation}'s rows matching {@code predicate}. */
    private List<Object> countAndChecksum(String relation, String predicate)
            throws SQLException
    {
        return queries.query("SELECT count(*), checksum(ROW(orderkey, custkey, orderstatus, totalprice, orderdate, orderpriority, clerk, shippriority, comment)) FROM "
                + relation + " WHERE " + predicate).getFirst();
    }

    /** Starts the statements on one thread and one connection each, released together; waits for all. */
    private List<Outcome> runTogether(List<String> statements)
            throws Exception
    {
        CyclicBarrier start = new CyclicBarrier(statements.size());
        ExecutorService executor = Executors.newFixedThreadPool(statements.size());
        try {
            List<CompletableFuture<Outcome>> futures = new ArrayList<>();
            for (String sql : statements) {
                futures.add(CompletableFuture.supplyAsync(() -> {
                    try (Connection connection = trino.connect();
                            Statement statement = connection.createStatement()) {
                        start.await(60, TimeUnit.SECONDS);
                        try {
                            return new Outcome(sql, statement.executeLargeUpdate(sql), null);
                        }
                        catch (SQLException e) {
                            return new Outcome(sql, -1, e);
                        }
                    }
                    catch (Exception e) {
                        throw new CompletionException(e);
                    }
                }, executor));
            }
            List<Outcome> outcomes = new ArrayList<>();
            for (CompletableFuture<Outcome> future : futures) {
                outcomes.add(future.get(4, TimeUnit.MINUTES));
            }
            return outcomes;
        }
        catch (TimeoutException e) {
            throw new AssertionError("concurrent statements did not finish within 4 minutes: " + statements, e);
        }
        finally {
            executor.shutdownNow();
        }
    }

    /** A statement's update count, or the error it failed with. */
    private record Outcome(String sql, long rows, SQLException failure)
    {
        void assertSucceeded()
        {
            if (failure != null) {
                throw new AssertionError(sql + " failed", failure);
            }
        }
    }

    private void startOnWarehouse()
    {
        trino = TrinoServer.builder()
                .withDirectory(work.resolve("cluster"))
                .withTpch()
                // the maintenance test below removes orphans with a zero threshold
                .withQbeast("qbeast", warehouse, Map.of("qbeast.remove-orphan-files.min-retention", "0s"))
                .start();
        queries = new TrinoQueries(trino);
    }

    /** remove_orphan_files with a zero threshold (the catalog allows it) removes what the kill left. */
    private void removeOrphans(String name, Set<String> orphans)
            throws SQLException
    {
        assertThat(orphans).as("files the killed statement left").isNotEmpty();
        queries.execute("ALTER TABLE " + qualified(name) + " EXECUTE remove_orphan_files(retention_threshold => '0s')");
        assertThat(tableFiles(name).orphans()).as("orphans after remove_orphan_files").isEmpty();
    }

    private TableFiles tableFiles(String name)
    {
        return new TableFiles(warehouse, SCHEMA, name);
    }

    private Set<Object> snapshotIds(String name)
            throws SQLException
    {
        Set<Object> ids = new HashSet<>();
        queries.query("SELECT snapshot_id FROM " + snapshots(name)).forEach(row -> ids.add(row.getFirst()));
        return ids;
    }

    private static String qualified(String name)
    {
        return SCHEMA_QUALIFIER + name;
    }

    private static String snapshots(String name)
    {
        return SCHEMA_QUALIFIER + "\"" + name + "$snapshots\"";
    }
}

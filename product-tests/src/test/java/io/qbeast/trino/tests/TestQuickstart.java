package io.qbeast.trino.tests;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * The quickstart as a newcomer runs it: {@code bin/trino-qbeast} installs Trino, the qbeast and
 * tpch plugins and the repository's {@code etc/} into a work directory (a temporary one here,
 * via {@code --work-dir}, so the user's {@code .trino/} is never touched), starts the server and
 * runs SQL through the Trino CLI.
 */
@TestInstance(PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
public class TestQuickstart
{
    private Path workDir;
    private int port;

    @BeforeAll
    public void setUp()
    {
        workDir = ProductTestEnvironment.newWorkDirectory("quickstart");
        port = ProductTestEnvironment.freePort();
    }

    @AfterAll
    public void tearDown()
    {
        if (workDir == null) {
            return;
        }
        try {
            quickstart("stop");
        }
        finally {
            // whatever the script did, no server of this work directory may survive the test
            String marker = workDir.toString();
            ProcessHandle.allProcesses()
                    .filter(process -> process.info().commandLine().map(line -> line.contains(marker)).orElse(false))
                    .forEach(ProcessRunner::destroyTree);
        }
    }

    @Test
    @Order(1)
    @Timeout(600)
    public void detachedServerServesSeveralCallsUntilStopped()
    {
        // the first call fetches Trino through Maven, installs everything and starts the server
        ProcessRunner.Result detach = quickstart("--port", String.valueOf(port), "--detach");
        assertThat(detach.exitCode()).as(detach::describe).isZero();
        assertThat(detach.stdout()).contains("http://localhost:" + port).contains("stop");
        assertThat(ProductTestEnvironment.portOpen(port)).as("server left running on port %d", port).isTrue();

        assertThat(workDir.resolve("server/plugin/qbeast")).isDirectory();
        assertThat(workDir.resolve("server/plugin/tpch")).isDirectory();
        assertThat(workDir.resolve("warehouse")).isDirectory();
        assertThat(ProductTestEnvironment.readProperties(workDir.resolve("etc/catalog/qbeast.properties")))
                .containsEntry("connector.name", "qbeast")
                .containsEntry("local.location", workDir.resolve("warehouse").toString())
                // new tables get standard file: URIs, which any Iceberg engine opens
                .containsEntry("qbeast.warehouse", "file://" + workDir.resolve("warehouse"));
        assertThat(ProductTestEnvironment.readProperties(workDir.resolve("etc/config.properties")))
                .containsEntry("http-server.http.port", String.valueOf(port))
                .containsEntry("discovery.uri", "http://localhost:" + port);

        ProcessRunner.Result status = quickstart("status");
        assertThat(status.exitCode()).as(status::describe).isZero();
        assertThat(status.stdout()).contains("running on http://localhost:" + port);

        // without --port: the calls find the running server
        ProcessRunner.Result create = quickstart("--execute",
                "CREATE SCHEMA qbeast.demo; " +
                "CREATE TABLE qbeast.demo.nation WITH (indexed_columns = ARRAY['nationkey', 'regionkey']) AS SELECT * FROM tpch.tiny.nation");
        assertThat(create.exitCode()).as(create::describe).isZero();

        ProcessRunner.Result select = quickstart("--execute",
                "SELECT count(*), sum(nationkey) FROM qbeast.demo.nation; SELECT count(*), sum(nationkey) FROM tpch.tiny.nation");
        assertThat(select.exitCode()).as(select::describe).isZero();
        assertThat(csv(select.stdout())).as(select::describe).containsExactly(List.of("25", "300"), List.of("25", "300"));

        // a failing statement makes the call fail, and the server keeps running
        ProcessRunner.Result failing = quickstart("--execute", "SELECT * FROM qbeast.demo.no_such_table");
        assertThat(failing.exitCode()).as(failing::describe).isNotZero();
        assertThat(failing.stderr()).contains("no_such_table");
        assertThat(ProductTestEnvironment.portOpen(port)).isTrue();

        // -f FILE; CLI options after --; unqualified names resolve in the session catalog qbeast
        Path sql = workDir.resolve("query.sql");
        writeString(sql, "SELECT name FROM demo.nation WHERE regionkey = 0 ORDER BY name;\n");
        ProcessRunner.Result file = quickstart("-f", sql.toString(), "--", "--output-format", "TSV");
        assertThat(file.exitCode()).as(file::describe).isZero();
        assertThat(file.stdout().strip().lines()).containsExactly("ALGERIA", "ETHIOPIA", "KENYA", "MOROCCO", "MOZAMBIQUE");

        ProcessRunner.Result stop = quickstart("stop");
        assertThat(stop.exitCode()).as(stop::describe).isZero();
        assertThat(ProductTestEnvironment.portOpen(port)).as("port %d closed after stop", port).isFalse();
        assertThat(quickstart("status").exitCode()).isEqualTo(3);
    }

    @Test
    @Order(2)
    @Timeout(300)
    public void executeStartsServerRunsSqlAndStopsServer()
    {
        // no server running: one is started for the call and stopped after it; the table written
        // by the previous server is still there
        ProcessRunner.Result result = quickstart("--port", String.valueOf(port), "--execute",
                "SELECT count(*) FROM tpch.tiny.nation; SELECT count(*), sum(nationkey) FROM qbeast.demo.nation");
        assertThat(result.exitCode()).as(result::describe).isZero();
        assertThat(csv(result.stdout())).as(result::describe).containsExactly(List.of("25"), List.of("25", "300"));
        assertThat(ProductTestEnvironment.portOpen(port)).as("port %d closed after --execute", port).isFalse();
        assertThat(quickstart("status").exitCode()).isEqualTo(3);
    }

    @Test
    @Order(3)
    @Timeout(60)
    public void helpAndBadArguments()
    {
        ProcessRunner.Result help = quickstart("--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.stdout()).contains("--execute", "--detach", "--port", "--work-dir", "stop");

        ProcessRunner.Result bad = quickstart("--port", "not-a-port", "--execute", "SELECT 1");
        assertThat(bad.exitCode()).isNotZero();
        assertThat(bad.stderr()).contains("--port");
    }

    private ProcessRunner.Result quickstart(String... arguments)
    {
        Path root = ProductTestEnvironment.repoRoot();
        List<String> command = new ArrayList<>();
        command.add(root.resolve("bin/trino-qbeast").toString());
        command.add("--work-dir");
        command.add(workDir.toString());
        command.addAll(List.of(arguments));
        return ProcessRunner.run(
                command,
                // any working directory: the script must not depend on it
                workDir,
                Map.of(
                        "JAVA_HOME", ProductTestEnvironment.javaHome().toString(),
                        "QBEAST_PLUGIN_ZIP", ProductTestEnvironment.qbeastPluginZip().toString()),
                Duration.ofMinutes(8));
    }

    /** The CLI's default CSV output (quoted values) as rows of strings. */
    private static List<List<String>> csv(String output)
    {
        return output.strip().lines()
                .map(line -> {
                    List<String> values = new ArrayList<>();
                    for (String value : line.split(",", -1)) {
                        values.add(value.startsWith("\"") && value.endsWith("\"") && value.length() >= 2 ? value.substring(1, value.length() - 1) : value);
                    }
                    return values;
                })
                .toList();
    }

    private static void writeString(Path file, String content)
    {
        try {
            Files.writeString(file, content);
        }
        catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}

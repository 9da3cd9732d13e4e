package io.qbeast.trino.tests;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

/**
 * A real Trino cluster for product tests: one coordinator and any number of workers, each its
 * own JVM started from the distribution the trino-dist modules assemble from Maven artifacts with
 * {@code java -cp lib/* io.qbeast.trino.server.TrinoServerMain}, the command Trino's
 * {@code bin/launcher} builds, with our main class in place of {@code io.trino.server.TrinoServer}
 * (trino-server-main is not published after 476). Every node gets a directory with {@code etc/} (config, node, log and catalog files
 * written from the builder's maps), its data directory and a {@code server.log} holding the
 * process's stdout and stderr. The JVM options are the repository's {@code etc/jvm.config} with
 * the heap replaced by {@link Builder#withHeap}.
 *
 * <pre>{@code
 * try (TrinoServer trino = TrinoServer.builder()
 *         .withTpch()
 *         .withQbeast(warehouse)
 *         .withWorkers(2)
 *         .start()) {
 *     try (Connection connection = trino.connect()) { ... }
 *     trino.workers().get(0).kill();
 * }
 * }</pre>
 */
public final class TrinoServer
        implements AutoCloseable
{
    private static final List<Node> LIVE_NODES = new CopyOnWriteArrayList<>();

    static {
        // never leave servers behind when the test JVM exits without closing them
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE_NODES.forEach(Node::kill), "kill-trino-servers"));
    }

    private final Builder settings;
    private final Path directory;
    private final Node coordinator;
    private final List<Node> workers = new CopyOnWriteArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private int nextWorker = 1;

    public static Builder builder()
    {
        return new Builder();
    }

    private TrinoServer(Builder settings)
    {
        this.settings = settings;
        this.directory = settings.directory != null ? settings.directory : ProductTestEnvironment.newWorkDirectory("trino");
        try {
            layOutPlugins();
            int coordinatorPort = ProductTestEnvironment.freePort();
            this.coordinator = new Node(this, "coordinator", true, coordinatorPort, coordinatorPort);
            coordinator.launch();
            for (int i = 0; i < settings.workers; i++) {
                launchWorker();
            }
            awaitReady(coordinator);
            for (Node worker : workers) {
                awaitReady(worker);
            }
            awaitActiveNodes(1 + settings.workers);
            awaitCatalogs();
            awaitQueryable();
        }
        catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    /** The JDBC URL of the coordinator, e.g. {@code jdbc:trino://127.0.0.1:45678}. */
    public String jdbcUrl()
    {
        return "jdbc:trino://127.0.0.1:" + coordinator.port();
    }

    /** The HTTP address of the coordinator, for the CLI and REST calls. */
    public URI uri()
    {
        return URI.create("http://127.0.0.1:" + coordinator.port());
    }

    public int port()
    {
        return coordinator.port();
    }

    public Connection connect()
            throws SQLException
    {
        return connect(null, null);
    }

    /** A JDBC connection as user {@code test}, with an optional session catalog and schema. */
    public Connection connect(String catalog, String schema)
            throws SQLException
    {
        Properties properties = new Properties();
        properties.setProperty("user", "test");
        String url = jdbcUrl() + (catalog == null ? "" : "/" + catalog + (schema == null ? "" : "/" + schema));
        return DriverManager.getConnection(url, properties);
    }

    public Node coordinator()
    {
        return coordinator;
    }

    public List<Node> workers()
    {
        return Collections.unmodifiableList(workers);
    }

    public List<Node> nodes()
    {
        List<Node> nodes = new ArrayList<>();
        nodes.add(coordinator);
        nodes.addAll(workers);
        return nodes;
    }

    /** The cluster's directory: one sub-directory per node, and {@code plugin/}. */
    public Path directory()
    {
        return directory;
    }

    /** Waits until the coordinator sees exactly {@code count} active nodes (e.g. after killing a worker). */
    public void awaitActiveNodes(int count)
    {
        awaitActiveNodes(count, settings.startupTimeout);
    }

    public void awaitActiveNodes(int count, Duration timeout)
    {
        long[] seen = {-1};
        await(() -> "%d active nodes (last seen: %d)".formatted(count, seen[0]), timeout, () -> {
            seen[0] = activeNodes();
            return seen[0] == count;
        });
    }

    /** The number of nodes the coordinator lists as active in {@code system.runtime.nodes}. */
    public long activeNodes()
    {
        try (Connection connection = connect();
                Statement statement = connection.createStatement()) {
            // right after a worker dies the coordinator may still schedule this query on it:
            // give up quickly instead of waiting for Trino's one-minute page transport timeout
            statement.setQueryTimeout(10);
            try (ResultSet resultSet = statement.executeQuery("SELECT count(*) FROM system.runtime.nodes WHERE state = 'active'")) {
                long count = resultSet.next() ? resultSet.getLong(1) : -1;
                while (resultSet.next()) {
                    // drain: closing an unfinished result set cancels the query
                }
                return count;
            }
        }
        catch (SQLException e) {
            return -1;
        }
    }

    /** Stops every node (SIGTERM, then SIGKILL after a grace period). Idempotent. */
    public void stop()
    {
        List<Node> nodes = new ArrayList<>(workers);
        if (coordinator != null) {
            nodes.add(coordinator);
        }
        nodes.forEach(Node::signalStop);
        nodes.forEach(Node::awaitStopped);
    }

    @Override
    public void close()
    {
        stop();
    }

    private Node launchWorker()
    {
        Node worker = new Node(this, "worker-" + nextWorker++, false, ProductTestEnvironment.freePort(), coordinator.port());
        workers.add(worker);
        worker.launch();
        return worker;
    }

    private void layOutPlugins()
    {
        Path pluginDirectory = directory.resolve("plugin");
        try {
            Files.createDirectories(directory);
            Files.createDirectories(pluginDirectory);
            for (Map.Entry<String, Path> plugin : settings.plugins.entrySet()) {
                Path link = pluginDirectory.resolve(plugin.getKey());
                if (!Files.exists(link)) {
                    Files.createSymbolicLink(link, plugin.getValue());
                }
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void awaitReady(Node node)
    {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.port() + "/v1/info"))
                .timeout(Duration.ofSeconds(5))
                .build();
        await(() -> node.name() + " to report \"starting\":false on /v1/info", settings.startupTimeout, () -> {
            if (!node.isAlive()) {
                throw new IllegalStateException("Trino %s exited with %s during startup; log %s:%n%s".formatted(
                        node.name(), node.exitCode().map(String::valueOf).orElse("?"), node.log(), node.logExcerpt()));
            }
            try {
                HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
                return response.statusCode() == 200 && response.body().replace(" ", "").contains("\"starting\":false");
            }
            catch (IOException e) {
                return false;
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RuntimeException(e);
            }
        });
    }

    private void awaitCatalogs()
    {
        Set<String> expected = new LinkedHashSet<>(settings.catalogs.keySet());
        Set<String> actual = new LinkedHashSet<>();
        try (Connection connection = connect();
                Statement statement = connection.createStatement();
                ResultSet resultSet = statement.executeQuery("SELECT catalog_name FROM system.metadata.catalogs")) {
            while (resultSet.next()) {
                actual.add(resultSet.getString(1));
            }
        }
        catch (SQLException e) {
            throw new IllegalStateException("cannot list catalogs of " + jdbcUrl(), e);
        }
        if (!actual.containsAll(expected)) {
            throw new IllegalStateException("catalogs %s expected, the server has %s; log %s:%n%s".formatted(expected, actual, coordinator.log(), coordinator.logExcerpt()));
        }
    }

    /**
     * A node is active a few seconds before the coordinator knows which catalogs it has; until
     * then queries that need nodes for a catalog fail ("nodes is empty"). Waits until a TPC-H
     * scan runs, when a tpch catalog is configured.
     */
    private void awaitQueryable()
    {
        Optional<String> tpch = settings.catalogs.entrySet().stream()
                .filter(catalog -> "tpch".equals(catalog.getValue().get("connector.name")))
                .map(Map.Entry::getKey)
                .findFirst();
        if (tpch.isEmpty()) {
            return;
        }
        String sql = "SELECT count(*) FROM " + tpch.get() + ".tiny.region";
        SQLException[] last = {null};
        await(() -> "a query to run (%s); last failure: %s".formatted(sql, last[0]), settings.startupTimeout, () -> {
            try (Connection connection = connect();
                    Statement statement = connection.createStatement()) {
                statement.setQueryTimeout(30);
                try (ResultSet resultSet = statement.executeQuery(sql)) {
                    while (resultSet.next()) {
                        // drain
                    }
                }
                return true;
            }
            catch (SQLException e) {
                last[0] = e;
                return false;
            }
        });
    }

    private void await(Supplier<String> what, Duration timeout, BooleanSupplier condition)
    {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out after %s waiting for %s; coordinator log %s:%n%s".formatted(
                        timeout, what.get(), coordinator.log(), coordinator.logExcerpt()));
            }
            try {
                Thread.sleep(250);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RuntimeException(e);
            }
        }
    }

    /** One Trino JVM. */
    public static final class Node
    {
        private final TrinoServer cluster;
        private final String name;
        private final boolean coordinator;
        private final int port;
        private final int discoveryPort;
        private final Path directory;
        private volatile Process process;

        private Node(TrinoServer cluster, String name, boolean coordinator, int port, int discoveryPort)
        {
            this.cluster = cluster;
            this.name = name;
            this.coordinator = coordinator;
            this.port = port;
            this.discoveryPort = discoveryPort;
            this.directory = cluster.directory.resolve(name);
        }

        public String name()
        {
            return name;
        }

        public boolean isCoordinator()
        {
            return coordinator;
        }

        public int port()
        {
            return port;
        }

        /** The node's directory: {@code etc/}, {@code data/}, {@code server.log}. */
        public Path directory()
        {
            return directory;
        }

        /** stdout and stderr of the JVM (Trino logs to the console). */
        public Path log()
        {
            return directory.resolve("server.log");
        }

        public boolean isAlive()
        {
            Process process = this.process;
            return process != null && process.isAlive();
        }

        public Optional<Integer> exitCode()
        {
            Process process = this.process;
            return process == null || process.isAlive() ? Optional.empty() : Optional.of(process.exitValue());
        }

        public long pid()
        {
            return process.pid();
        }

        /** Kills the JVM at once (SIGKILL), like a machine failure, and waits until it is gone. */
        public void kill()
        {
            Process process = this.process;
            if (process == null) {
                return;
            }
            ProcessRunner.destroyTree(process.toHandle());
            try {
                process.waitFor(30, TimeUnit.SECONDS);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            LIVE_NODES.remove(this);
        }

        /** Graceful stop: SIGTERM, then SIGKILL if the JVM is still there after 30 seconds. */
        public void stop()
        {
            signalStop();
            awaitStopped();
        }

        private void signalStop()
        {
            Process process = this.process;
            if (process != null && process.isAlive()) {
                process.destroy();
            }
        }

        private void awaitStopped()
        {
            Process process = this.process;
            if (process == null) {
                return;
            }
            try {
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    kill();
                }
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                kill();
            }
            LIVE_NODES.remove(this);
        }

        /** Where the error is: the first ERROR lines, or else the end of the log. */
        public String logExcerpt()
        {
            try {
                if (!Files.exists(log())) {
                    return "(no log)";
                }
                List<String> lines = Files.readAllLines(log(), UTF_8);
                for (int i = 0; i < lines.size(); i++) {
                    if (lines.get(i).contains("\tERROR\t")) {
                        return String.join("\n", lines.subList(i, Math.min(lines.size(), i + 40)));
                    }
                }
                return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
            }
            catch (IOException | UncheckedIOException e) {
                return "(cannot read log: " + e + ")";
            }
        }

        private void launch()
        {
            try {
                Path etc = directory.resolve("etc");
                Path catalogs = etc.resolve("catalog");
                Path data = directory.resolve("data");
                Files.createDirectories(catalogs);
                Files.createDirectories(data);

                Map<String, String> config = new LinkedHashMap<>();
                config.put("coordinator", String.valueOf(coordinator));
                if (coordinator) {
                    config.put("node-scheduler.include-coordinator", String.valueOf(cluster.settings.includeCoordinator || cluster.settings.workers == 0));
                }
                config.put("http-server.http.port", String.valueOf(port));
                config.put("discovery.uri", "http://127.0.0.1:" + discoveryPort);
                config.put("plugin.dir", cluster.directory.resolve("plugin").toString());
                config.put("catalog.config-dir", catalogs.toString());
                // small machine, several JVMs: modest per-node query memory
                config.put("query.max-memory-per-node", cluster.settings.queryMaxMemoryPerNode);
                config.put("query.max-memory", cluster.settings.queryMaxMemory);
                config.putAll(cluster.settings.config);
                config.putAll(coordinator ? cluster.settings.coordinatorConfig : cluster.settings.workerConfig);
                writeProperties(etc.resolve("config.properties"), config);

                Map<String, String> node = new LinkedHashMap<>();
                node.put("node.environment", cluster.settings.environment);
                node.put("node.id", name);
                node.put("node.data-dir", data.toString());
                node.put("node.internal-address", "127.0.0.1");
                writeProperties(etc.resolve("node.properties"), node);

                writeProperties(etc.resolve("log.properties"), cluster.settings.logLevels);
                for (Map.Entry<String, Map<String, String>> catalog : cluster.settings.catalogs.entrySet()) {
                    writeProperties(catalogs.resolve(catalog.getKey() + ".properties"), catalog.getValue());
                }

                List<String> jvm = jvmOptions();
                try (Writer writer = Files.newBufferedWriter(etc.resolve("jvm.config"), UTF_8)) {
                    for (String option : jvm) {
                        writer.write(option + "\n");
                    }
                }

                // the command bin/launcher builds: java <jvm.config> -cp lib/* <node.properties as -D> -Dconfig=... <main class>
                List<String> command = new ArrayList<>();
                command.add(ProductTestEnvironment.javaExecutable().toString());
                command.addAll(jvm);
                command.add("-cp");
                command.add(ProductTestEnvironment.trinoServer().resolve("lib") + "/*");
                node.forEach((key, value) -> command.add("-D" + key + "=" + value));
                command.add("-Dconfig=" + etc.resolve("config.properties"));
                command.add("-Dlog.levels-file=" + etc.resolve("log.properties"));
                command.add(ProductTestEnvironment.TRINO_SERVER_MAIN_CLASS);

                ProcessBuilder builder = new ProcessBuilder(command)
                        .directory(directory.toFile())
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(log().toFile()))
                        .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
                builder.environment().put("JAVA_HOME", ProductTestEnvironment.javaHome().toString());
                Files.writeString(directory.resolve("command.txt"), String.join(" ", command) + "\n", UTF_8);
                process = builder.start();
                LIVE_NODES.add(this);
            }
            catch (IOException e) {
                throw new UncheckedIOException("cannot start Trino " + name, e);
            }
        }

        private List<String> jvmOptions()
        {
            List<String> options = new ArrayList<>();
            for (String option : ProductTestEnvironment.repoJvmConfig()) {
                if (option.startsWith("-Xmx") || option.startsWith("-Xms")
                        || option.startsWith("-XX:InitialRAMPercentage") || option.startsWith("-XX:MaxRAMPercentage")
                        || option.startsWith("-XX:+HeapDumpOnOutOfMemoryError")) {
                    continue;
                }
                options.add(option);
            }
            options.add("-Xmx" + cluster.settings.heap);
            options.addAll(cluster.settings.jvmOptions);
            return options;
        }

        @Override
        public String toString()
        {
            return "%s(port %d, %s)".formatted(name, port, isAlive() ? "alive" : "stopped");
        }
    }

    private static void writeProperties(Path file, Map<String, String> properties)
            throws IOException
    {
        try (Writer writer = Files.newBufferedWriter(file, UTF_8)) {
            for (Map.Entry<String, String> entry : properties.entrySet()) {
                // values are written raw (Trino reads them with java.util.Properties): no escaping needed for paths
                writer.write(entry.getKey() + "=" + entry.getValue() + "\n");
            }
        }
    }

    public static final class Builder
    {
        private final Map<String, Path> plugins = new LinkedHashMap<>();
        private final Map<String, Map<String, String>> catalogs = new LinkedHashMap<>();
        private final Map<String, String> config = new LinkedHashMap<>();
        private final Map<String, String> coordinatorConfig = new LinkedHashMap<>();
        private final Map<String, String> workerConfig = new LinkedHashMap<>();
        private final Map<String, String> logLevels = new LinkedHashMap<>(Map.of("io.trino", "INFO"));
        private final List<String> jvmOptions = new ArrayList<>();
        private int workers;
        private boolean includeCoordinator = true;
        private String heap = "2G";
        private String queryMaxMemoryPerNode = "512MB";
        private String queryMaxMemory = "1GB";
        private String environment = "test";
        private Duration startupTimeout = Duration.ofMinutes(3);
        private Path directory;

        private Builder() {}

        /** Adds the tpch plugin and the catalog {@code tpch} (from the repository's etc/catalog/tpch.properties). */
        public Builder withTpch()
        {
            withPlugin("tpch", ProductTestEnvironment.tpchPlugin());
            return withCatalog("tpch", ProductTestEnvironment.repoCatalog("tpch"));
        }

        /**
         * Adds the packaged qbeast plugin and the catalog {@code qbeast}: the repository's
         * etc/catalog/qbeast.properties with {@code local.location} set to {@code warehouse} and
         * {@code qbeast.warehouse} to its {@code file:} URI, as {@code bin/trino-qbeast} sets them.
         */
        public Builder withQbeast(Path warehouse)
        {
            return withQbeast("qbeast", warehouse, Map.of());
        }

        public Builder withQbeast(String catalogName, Path warehouse, Map<String, String> overrides)
        {
            try {
                Files.createDirectories(warehouse);
            }
            catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            withQbeastPlugin();
            Map<String, String> catalog = new LinkedHashMap<>(ProductTestEnvironment.repoCatalog("qbeast"));
            catalog.put("local.location", warehouse.toAbsolutePath().toString());
            catalog.put("qbeast.warehouse", "file://" + warehouse.toAbsolutePath());
            catalog.putAll(overrides);
            return withCatalog(catalogName, catalog);
        }

        public Builder withQbeastPlugin()
        {
            return withPlugin("qbeast", ProductTestEnvironment.qbeastPlugin());
        }

        /** Adds Trino's own Iceberg plugin (no catalog: add one with {@link #withCatalog}). */
        public Builder withIcebergPlugin()
        {
            return withPlugin("iceberg", ProductTestEnvironment.icebergPlugin());
        }

        /** A plugin directory (its jars, flat) installed as plugin/{name}. */
        public Builder withPlugin(String name, Path directory)
        {
            plugins.put(requireNonNull(name), requireNonNull(directory).toAbsolutePath());
            return this;
        }

        /** etc/catalog/{name}.properties on every node. */
        public Builder withCatalog(String name, Map<String, String> properties)
        {
            catalogs.put(requireNonNull(name), new LinkedHashMap<>(properties));
            return this;
        }

        /** A config.properties entry on every node. */
        public Builder withConfig(String key, String value)
        {
            config.put(key, value);
            return this;
        }

        public Builder withCoordinatorConfig(String key, String value)
        {
            coordinatorConfig.put(key, value);
            return this;
        }

        public Builder withWorkerConfig(String key, String value)
        {
            workerConfig.put(key, value);
            return this;
        }

        public Builder withLogLevel(String logger, String level)
        {
            logLevels.put(logger, level);
            return this;
        }

        /** Worker JVMs besides the coordinator. */
        public Builder withWorkers(int workers)
        {
            this.workers = workers;
            return this;
        }

        /** Whether the coordinator also runs tasks when there are workers (default true). */
        public Builder withCoordinatorScheduling(boolean includeCoordinator)
        {
            this.includeCoordinator = includeCoordinator;
            return this;
        }

        /** Heap of every node, e.g. {@code 2G} (default). */
        public Builder withHeap(String heap)
        {
            this.heap = heap;
            return this;
        }

        public Builder withQueryMemory(String maxMemoryPerNode, String maxMemory)
        {
            this.queryMaxMemoryPerNode = maxMemoryPerNode;
            this.queryMaxMemory = maxMemory;
            return this;
        }

        public Builder withJvmOption(String option)
        {
            jvmOptions.add(option);
            return this;
        }

        public Builder withEnvironment(String environment)
        {
            this.environment = environment;
            return this;
        }

        public Builder withStartupTimeout(Duration startupTimeout)
        {
            this.startupTimeout = startupTimeout;
            return this;
        }

        /** Where the cluster lives (default: a new directory under target/product-test-work). */
        public Builder withDirectory(Path directory)
        {
            this.directory = directory;
            return this;
        }

        /** Starts every node and returns once all are up, registered and have their catalogs. */
        public TrinoServer start()
        {
            return new TrinoServer(this);
        }
    }
}

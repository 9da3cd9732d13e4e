package io.qbeast.trino.tests;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * Where the pieces of a real Trino installation are: the repository (its {@code etc/} and
 * {@code bin/}), the Trino server distribution assembled from Maven artifacts by the
 * {@code trino-dist} modules ({@code trino-dist/target/trino-server-V}), the Trino CLI, and the
 * packaged qbeast plugin. All paths come from system properties set by the
 * product-tests POM, with defaults that work when a test is run from an IDE after one Maven build.
 */
public final class ProductTestEnvironment
{
    private static final Object PLUGIN_LOCK = new Object();
    private static Path unpackedQbeastPlugin;
    private static FileTime unpackedQbeastPluginTime;

    private ProductTestEnvironment() {}

    /** The Trino version of the server: the root POM's {@code dep.trino.version}. */
    public static String trinoVersion()
    {
        String version = System.getProperty("qbeast.trino.version");
        return version != null ? version : rootPomProperty("dep.trino.version");
    }

    /** The Trino CLI's version: the root POM's {@code dep.trino-cli.version} (trino-cli is not published after 476). */
    public static String trinoCliVersion()
    {
        String version = System.getProperty("qbeast.trino.cli.version");
        return version != null ? version : rootPomProperty("dep.trino-cli.version");
    }

    // for runs outside Maven (an IDE): the property's literal value in the repository's pom.xml
    private static String rootPomProperty(String name)
    {
        Path pom = repoRoot().resolve("pom.xml");
        try {
            Matcher matcher = Pattern.compile("<" + Pattern.quote(name) + ">\\s*([^<\\s]+)\\s*</").matcher(Files.readString(pom, UTF_8));
            if (!matcher.find()) {
                throw new IllegalStateException("no <%s> in %s".formatted(name, pom));
            }
            return matcher.group(1);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The repository root: {@code etc/}, {@code bin/trino-qbeast}, {@code plugin/}. */
    public static Path repoRoot()
    {
        String root = System.getProperty("qbeast.repo.root");
        Path path = root != null ? Path.of(root) : Path.of("..");
        return path.toAbsolutePath().normalize();
    }

    private static Path target()
    {
        return repoRoot().resolve("product-tests/target");
    }

    /**
     * Scratch space of the tests (under target/). What earlier test runs left there (servers,
     * warehouses, logs: kept for post-mortems) is deleted the first time a test run asks for it.
     */
    public static synchronized Path workRoot()
    {
        String work = System.getProperty("qbeast.test.work");
        Path path = (work != null ? Path.of(work) : target().resolve("product-test-work")).toAbsolutePath().normalize();
        try {
            Files.createDirectories(path);
            if (!workRootCleaned) {
                workRootCleaned = true;
                try (Stream<Path> children = Files.list(path)) {
                    for (Path child : children.toList()) {
                        // unpacked plugin zips are reused while the zip does not change
                        if (!child.getFileName().toString().startsWith("qbeast-plugin-")) {
                            deleteRecursively(child);
                        }
                    }
                }
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return path;
    }

    private static boolean workRootCleaned;

    static void deleteRecursively(Path path)
            throws IOException
    {
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
            try (Stream<Path> children = Files.list(path)) {
                for (Path child : children.toList()) {
                    deleteRecursively(child);
                }
            }
        }
        Files.delete(path);
    }

    /** A new empty directory under {@link #workRoot()}. */
    public static Path newWorkDirectory(String prefix)
    {
        try {
            return Files.createTempDirectory(workRoot(), prefix + "-");
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The Trino server distribution assembled by the trino-dist modules: {@code lib/} (trino-main, its
     * runtime dependencies and {@link #TRINO_SERVER_MAIN_CLASS}), {@code plugin/tpch}, {@code plugin/iceberg}.
     */
    public static Path trinoServer()
    {
        return existing("qbeast.trino.server", distribution(),
                "the Trino server distribution (built by the trino-dist modules)");
    }

    public static Path tpchPlugin()
    {
        return existing("qbeast.trino.plugin.tpch", distribution().resolve("plugin/tpch"),
                "the tpch plugin");
    }

    /** Trino's own Iceberg connector, for interoperability tests. */
    public static Path icebergPlugin()
    {
        return existing("qbeast.trino.plugin.iceberg", distribution().resolve("plugin/iceberg"),
                "the Trino Iceberg plugin");
    }

    public static Path trinoCliJar()
    {
        return existing("qbeast.trino.cli", target().resolve("trino/trino-cli-" + trinoCliVersion() + "-executable.jar"),
                "the Trino CLI");
    }

    /**
     * The main class of a Trino node in the assembled distribution: it replaces
     * {@code io.trino.server.TrinoServer}, whose artifact (trino-server-main) is not published after 476.
     */
    public static final String TRINO_SERVER_MAIN_CLASS = "io.qbeast.trino.server.TrinoServerMain";

    private static Path distribution()
    {
        return repoRoot().resolve("trino-dist/target/trino-server-" + trinoVersion());
    }

    public static Path qbeastPluginZip()
    {
        String zip = System.getProperty("qbeast.plugin.zip");
        Path path;
        if (zip != null) {
            path = Path.of(zip);
        }
        else {
            try (var files = Files.list(repoRoot().resolve("plugin/target"))) {
                path = files.filter(file -> file.getFileName().toString().matches("qbeast-trino-.*\\.zip"))
                        .findFirst()
                        .orElse(repoRoot().resolve("plugin/target/qbeast-trino.zip"));
            }
            catch (IOException e) {
                path = repoRoot().resolve("plugin/target/qbeast-trino.zip");
            }
        }
        if (!Files.isRegularFile(path)) {
            throw new IllegalStateException("The qbeast plugin zip %s does not exist; build it first: ./mvnw -DskipTests package -pl plugin -am".formatted(path));
        }
        return path.toAbsolutePath().normalize();
    }

    /**
     * The qbeast plugin zip unpacked into a plugin directory (its jars, flat), redone when the
     * zip changes.
     */
    public static Path qbeastPlugin()
    {
        Path zip = qbeastPluginZip();
        synchronized (PLUGIN_LOCK) {
            try {
                FileTime modified = Files.getLastModifiedTime(zip);
                if (unpackedQbeastPlugin == null || !modified.equals(unpackedQbeastPluginTime)) {
                    Path destination = workRoot().resolve("qbeast-plugin-" + modified.toMillis());
                    if (!Files.isDirectory(destination)) {
                        Path staging = Files.createTempDirectory(workRoot(), "staging-qbeast-plugin-");
                        unpackSingleTopFolder(zip, staging);
                        try {
                            Files.move(staging, destination, StandardCopyOption.ATOMIC_MOVE);
                        }
                        catch (IOException e) {
                            // another test JVM unpacked the same zip first
                            if (!Files.isDirectory(destination)) {
                                throw e;
                            }
                        }
                    }
                    try (Stream<Path> children = Files.list(workRoot())) {
                        for (Path child : children.toList()) {
                            String name = child.getFileName().toString();
                            if (name.startsWith("qbeast-plugin-") && !child.equals(destination)) {
                                deleteRecursively(child);
                            }
                        }
                    }
                    unpackedQbeastPlugin = destination;
                    unpackedQbeastPluginTime = modified;
                }
                return unpackedQbeastPlugin;
            }
            catch (IOException e) {
                throw new UncheckedIOException("Cannot unpack " + zip, e);
            }
        }
    }

    /** Unpacks a plugin zip with one top folder so that its files land directly in {@code destination}. */
    private static void unpackSingleTopFolder(Path zip, Path destination)
            throws IOException
    {
        int files = 0;
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(zip))) {
            for (ZipEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
                String name = entry.getName();
                int slash = name.indexOf('/');
                if (slash < 0) {
                    throw new IOException("%s: entry %s is not inside a top folder".formatted(zip, name));
                }
                String relative = name.substring(slash + 1);
                if (relative.isEmpty()) {
                    continue;
                }
                Path target = destination.resolve(relative).normalize();
                if (!target.startsWith(destination)) {
                    throw new IOException("%s: bad entry %s".formatted(zip, name));
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(target);
                }
                else {
                    Files.createDirectories(target.getParent());
                    Files.copy(in, target);
                    files++;
                }
            }
        }
        if (files == 0) {
            throw new IOException(zip + " is empty");
        }
    }

    /** The lines of the repository's {@code etc/jvm.config}, without comments and blank lines. */
    public static List<String> repoJvmConfig()
    {
        try {
            List<String> options = new ArrayList<>();
            for (String line : Files.readAllLines(repoRoot().resolve("etc/jvm.config"), UTF_8)) {
                String option = line.strip();
                if (!option.isEmpty() && !option.startsWith("#")) {
                    options.add(option);
                }
            }
            return options;
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A catalog file of the repository's {@code etc/catalog/}, as an ordered map. */
    public static Map<String, String> repoCatalog(String name)
    {
        return readProperties(repoRoot().resolve("etc/catalog/" + name + ".properties"));
    }

    public static Map<String, String> readProperties(Path file)
    {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file, UTF_8)) {
            properties.load(reader);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> map = new LinkedHashMap<>();
        properties.stringPropertyNames().stream().sorted().forEach(key -> map.put(key, properties.getProperty(key)));
        return map;
    }

    /** The java executable of the JVM running the tests (a JDK >= 24, like the servers need). */
    public static Path javaExecutable()
    {
        return Path.of(System.getProperty("java.home"), "bin", "java");
    }

    public static Path javaHome()
    {
        return Path.of(System.getProperty("java.home"));
    }

    public static int freePort()
    {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static boolean portOpen(int port)
    {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            return true;
        }
        catch (IOException e) {
            return false;
        }
    }

    private static Path existing(String property, Path fallback, String what)
    {
        String value = System.getProperty(property);
        Path path = value != null ? Path.of(value) : fallback;
        if (!Files.exists(path)) {
            throw new IllegalStateException("%s is missing at %s (system property %s); run the product tests through Maven (./mvnw verify -pl product-tests), which unpacks it in generate-test-resources".formatted(what, path, property));
        }
        return path.toAbsolutePath().normalize();
    }

    static String readAll(InputStream in)
            throws IOException
    {
        return new String(in.readAllBytes(), UTF_8);
    }
}

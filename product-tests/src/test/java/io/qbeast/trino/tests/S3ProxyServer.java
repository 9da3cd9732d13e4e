package io.qbeast.trino.tests;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * A real S3 API server on loopback: S3Proxy ({@code org.gaul:s3proxy}, the
 * {@code jar-with-dependencies} the POM copies to {@code target/trino/}) in its own JVM, backed by
 * the jclouds {@code filesystem} blob store: bucket {@code b} is the directory
 * {@code <directory>/blobs/b}, an object its file. Requests must be signed (AWS signature v2 or
 * v4) with {@link #ACCESS_KEY}/{@link #SECRET_KEY}; path-style addressing
 * ({@code http://127.0.0.1:<port>/<bucket>/<key>}). {@code close()} kills the JVM; the directory
 * stays for post-mortems (it is under the test work directory).
 */
public final class S3ProxyServer
        implements AutoCloseable
{
    public static final String ACCESS_KEY = "qbeast-access-key";
    public static final String SECRET_KEY = "qbeast-secret-key";
    public static final String REGION = "us-east-1";

    private final Path directory;
    private final int port;
    private final Process process;

    private S3ProxyServer(Path directory, int port, Process process)
    {
        this.directory = directory;
        this.port = port;
        this.process = process;
    }

    /** Starts S3Proxy with the given (empty) buckets. */
    public static S3ProxyServer start(Path directory, String... buckets)
    {
        int port = ProductTestEnvironment.freePort();
        Process process;
        try {
            Path blobs = directory.resolve("blobs");
            Files.createDirectories(blobs);
            for (String bucket : buckets) {
                // the filesystem blob store's containers are the base directory's sub-directories
                Files.createDirectories(blobs.resolve(bucket));
            }
            Map<String, String> properties = new LinkedHashMap<>();
            properties.put("s3proxy.endpoint", "http://127.0.0.1:" + port);
            properties.put("s3proxy.authorization", "aws-v2-or-v4");
            properties.put("s3proxy.identity", ACCESS_KEY);
            properties.put("s3proxy.credential", SECRET_KEY);
            properties.put("jclouds.provider", "filesystem");
            properties.put("jclouds.filesystem.basedir", blobs.toString());
            StringBuilder text = new StringBuilder();
            properties.forEach((key, value) -> text.append(key).append('=').append(value).append('\n'));
            Path configuration = directory.resolve("s3proxy.conf");
            Files.writeString(configuration, text, UTF_8);

            List<String> command = new ArrayList<>();
            command.add(ProductTestEnvironment.javaExecutable().toString());
            command.add("-Xmx256m");
            command.add("-XX:+UseSerialGC");
            command.add("-XX:TieredStopAtLevel=1");
            command.add("-jar");
            command.add(jar().toString());
            command.add("--properties");
            command.add(configuration.toString());
            Files.writeString(directory.resolve("command.txt"), String.join(" ", command) + "\n", UTF_8);
            process = new ProcessBuilder(command)
                    .directory(directory.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(directory.resolve("s3proxy.log").toFile()))
                    .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                    .start();
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot start S3Proxy", e);
        }
        S3ProxyServer server = new S3ProxyServer(directory, port, process);
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly, "kill-s3proxy"));
        try {
            server.awaitListening(Duration.ofMinutes(1));
            return server;
        }
        catch (RuntimeException | Error e) {
            server.close();
            throw e;
        }
    }

    private static Path jar()
    {
        String property = System.getProperty("qbeast.s3proxy.jar");
        Path path = property != null ? Path.of(property) : ProductTestEnvironment.repoRoot().resolve("product-tests/target/trino/s3proxy-jar-with-dependencies.jar");
        if (!Files.isRegularFile(path)) {
            throw new IllegalStateException("S3Proxy is missing at %s; run the tests through Maven, which copies it in generate-test-resources".formatted(path));
        }
        return path;
    }

    private void awaitListening(Duration timeout)
    {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!ProductTestEnvironment.portOpen(port)) {
            if (!process.isAlive()) {
                throw new IllegalStateException("S3Proxy exited with %d; log:%n%s".formatted(process.exitValue(), logText()));
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("S3Proxy did not listen on port %d within %s; log:%n%s".formatted(port, timeout, logText()));
            }
            try {
                Thread.sleep(200);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RuntimeException(e);
            }
        }
    }

    public String endpoint()
    {
        return "http://127.0.0.1:" + port;
    }

    public int port()
    {
        return port;
    }

    /** The directory that holds the objects of {@code bucket} (one file per object, keys as paths). */
    public Path bucketDirectory(String bucket)
    {
        return directory.resolve("blobs").resolve(bucket);
    }

    /** The keys of every object in {@code bucket} that starts with {@code prefix}. */
    public List<String> objectKeys(String bucket, String prefix)
    {
        Path root = bucketDirectory(bucket);
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile)
                    .map(file -> root.relativize(file).toString())
                    .filter(key -> key.startsWith(prefix))
                    .sorted()
                    .toList();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The Trino catalog properties of an S3 file system on this server. */
    public Map<String, String> trinoFileSystemProperties()
    {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("fs.native-s3.enabled", "true");
        properties.put("s3.endpoint", endpoint());
        properties.put("s3.region", REGION);
        properties.put("s3.path-style-access", "true");
        properties.put("s3.aws-access-key", ACCESS_KEY);
        properties.put("s3.aws-secret-key", SECRET_KEY);
        return properties;
    }

    public String logText()
    {
        try {
            Path log = directory.resolve("s3proxy.log");
            return Files.exists(log) ? Files.readString(log, UTF_8) : "(no log)";
        }
        catch (IOException e) {
            return "(cannot read log: " + e + ")";
        }
    }

    @Override
    public void close()
    {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}

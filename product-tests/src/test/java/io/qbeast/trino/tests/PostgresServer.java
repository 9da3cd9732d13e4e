package io.qbeast.trino.tests;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * A throw-away PostgreSQL server from this machine's Debian binaries
 * ({@code /usr/lib/postgresql/<version>/bin}): {@code initdb} into a new directory under
 * {@code /tmp}, {@code pg_ctl start} on a free loopback port (unix socket in the same directory,
 * {@code fsync=off}), one database created with {@code psql}; {@code close()} stops the server
 * ({@code pg_ctl stop -m immediate}) and deletes the directory.
 *
 * <p>PostgreSQL refuses to run as root: when the tests run as root every command runs as the OS
 * user {@code postgres} ({@code runuser -u postgres --}, the Debian package creates the user), and
 * the directory is in {@code /tmp} (owned by that user) because the repository may not be
 * readable for it. TCP connections need the password ({@code scram-sha-256}).
 */
public final class PostgresServer
        implements AutoCloseable
{
    public static final String USER = "qbeast";
    public static final String PASSWORD = "qbeast-secret";
    private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(2);

    private final Path binaries;
    private final Path directory;
    private final int port;
    private final String database;
    private volatile boolean running;

    private PostgresServer(Path binaries, Path directory, int port, String database)
    {
        this.binaries = binaries;
        this.directory = directory;
        this.port = port;
        this.database = database;
    }

    /** Starts a server with the database {@code database}, owned by {@link #USER}. */
    public static PostgresServer start(String database)
    {
        Path binaries = findBinaries();
        Path directory;
        try {
            directory = Files.createTempDirectory(Path.of("/tmp"), "qbeast-postgres-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            if (runningAsRoot()) {
                run(List.of("chown", "postgres:", directory.toString()), true);
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        PostgresServer server = new PostgresServer(binaries, directory, ProductTestEnvironment.freePort(), database);
        try {
            server.initAndStart();
            return server;
        }
        catch (RuntimeException | Error e) {
            server.close();
            throw e;
        }
    }

    private void initAndStart()
    {
        Path data = directory.resolve("data");
        Path passwordFile = directory.resolve("password");
        writeAsServerUser(passwordFile, PASSWORD + "\n");
        postgresCommand(binaries.resolve("initdb").toString(), "-D", data.toString(), "-U", USER, "--pwfile=" + passwordFile,
                "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync");
        running = true;
        postgresCommand(binaries.resolve("pg_ctl").toString(), "-D", data.toString(), "-l", log().toString(), "-w", "-t", "60",
                "-o", "-p %d -h 127.0.0.1 -k %s -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=100".formatted(port, directory),
                "start");
        // through the unix socket: local connections are trusted
        postgresCommand(binaries.resolve("psql").toString(), "-h", directory.toString(), "-p", String.valueOf(port), "-U", USER,
                "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-c", "CREATE DATABASE \"%s\" OWNER %s".formatted(database, USER));
    }

    public int port()
    {
        return port;
    }

    public String database()
    {
        return database;
    }

    public String jdbcUrl()
    {
        return "jdbc:postgresql://127.0.0.1:%d/%s".formatted(port, database);
    }

    public String user()
    {
        return USER;
    }

    public String password()
    {
        return PASSWORD;
    }

    public Path directory()
    {
        return directory;
    }

    public Path log()
    {
        return directory.resolve("postgres.log");
    }

    /** Runs SQL with psql over the unix socket and returns its unaligned, tuples-only output. */
    public String psql(String sql)
    {
        return postgresCommand(binaries.resolve("psql").toString(), "-h", directory.toString(), "-p", String.valueOf(port), "-U", USER,
                "-d", database, "-v", "ON_ERROR_STOP=1", "-At", "-c", sql).stdout().strip();
    }

    @Override
    public void close()
    {
        try {
            if (running) {
                running = false;
                ProcessRunner.Result result = runCommand(List.of(binaries.resolve("pg_ctl").toString(), "-D", directory.resolve("data").toString(), "-m", "immediate", "-w", "-t", "30", "stop"));
                if (result.exitCode() != 0) {
                    System.err.println("pg_ctl stop failed: " + result.describe());
                }
            }
        }
        finally {
            try {
                deleteTree(directory);
            }
            catch (IOException e) {
                System.err.println("cannot delete " + directory + ": " + e);
            }
        }
    }

    private ProcessRunner.Result postgresCommand(String... command)
    {
        ProcessRunner.Result result = runCommand(List.of(command));
        if (result.exitCode() != 0) {
            String log = "";
            try {
                if (Files.exists(log())) {
                    log = Files.readString(log(), UTF_8);
                }
            }
            catch (IOException ignored) {
                // best effort
            }
            throw new IllegalStateException(result.describe() + "\n--- postgres.log ---\n" + log);
        }
        return result;
    }

    private ProcessRunner.Result runCommand(List<String> command)
    {
        List<String> full = new ArrayList<>();
        if (runningAsRoot()) {
            full.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        full.addAll(command);
        return ProcessRunner.run(full, directory, Map.of("LC_ALL", "C", "PGPASSWORD", PASSWORD), COMMAND_TIMEOUT);
    }

    private static ProcessRunner.Result run(List<String> command, boolean check)
    {
        ProcessRunner.Result result = ProcessRunner.run(command, Path.of("/tmp"), Map.of(), COMMAND_TIMEOUT);
        if (check && result.exitCode() != 0) {
            throw new IllegalStateException(result.describe());
        }
        return result;
    }

    private void writeAsServerUser(Path file, String content)
    {
        try {
            Files.writeString(file, content, UTF_8);
            if (runningAsRoot()) {
                run(List.of("chown", "postgres:", file.toString()), true);
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static boolean runningAsRoot()
    {
        return "root".equals(System.getProperty("user.name"));
    }

    /** The newest {@code /usr/lib/postgresql/<version>/bin} that has initdb. */
    static Path findBinaries()
    {
        Path root = Path.of("/usr/lib/postgresql");
        try (Stream<Path> versions = Files.list(root)) {
            return versions.map(version -> version.resolve("bin"))
                    .filter(bin -> Files.isExecutable(bin.resolve("initdb")) && Files.isExecutable(bin.resolve("pg_ctl")))
                    .max(Comparator.comparing(bin -> versionNumber(bin.getParent().getFileName().toString())))
                    .orElseThrow(() -> new IllegalStateException("no PostgreSQL binaries in " + root + " (apt-get install postgresql)"));
        }
        catch (IOException e) {
            throw new IllegalStateException("no PostgreSQL installation at " + root + " (apt-get install postgresql)", e);
        }
    }

    private static int versionNumber(String name)
    {
        try {
            return Integer.parseInt(name);
        }
        catch (NumberFormatException e) {
            return -1;
        }
    }

    private static void deleteTree(Path path)
            throws IOException
    {
        if (!Files.exists(path)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(path)) {
            for (Path file : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }
}

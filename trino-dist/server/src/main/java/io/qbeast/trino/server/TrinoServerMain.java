package io.qbeast.trino.server;

import io.trino.server.Server;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The main class of the assembled Trino server ({@code java -cp 'lib/*' io.qbeast.trino.server.TrinoServerMain}).
 * It does what Trino's own {@code io.trino.server.TrinoServer} does: that class lives in the
 * {@code io.trino:trino-server-main} artifact, which Trino no longer publishes to Maven Central after
 * 476 (nor the server tarball that contained it), while {@code io.trino:trino-main} with
 * {@link Server} still is. The version reported by the server ({@code /v1/info}, {@code node_version})
 * is trino-main's {@code Implementation-Version}, or else the {@code dep.trino.version} this jar was
 * built with.
 */
public final class TrinoServerMain
{
    private static final int MINIMUM_JAVA_VERSION = 25;

    private TrinoServerMain() {}

    public static void main(String[] args)
    {
        int javaVersion = Runtime.version().feature();
        if (javaVersion < MINIMUM_JAVA_VERSION) {
            System.err.printf("ERROR: Trino requires Java %d+ (found %s)%n", MINIMUM_JAVA_VERSION, Runtime.version());
            System.exit(100);
        }
        new Server().start(trinoVersion());
    }

    static String trinoVersion()
    {
        String version = Server.class.getPackage().getImplementationVersion();
        if (version != null) {
            return version;
        }
        Properties properties = new Properties();
        try (InputStream input = TrinoServerMain.class.getResourceAsStream("trino-version.properties")) {
            if (input != null) {
                properties.load(input);
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return properties.getProperty("trino.version", "unknown");
    }
}

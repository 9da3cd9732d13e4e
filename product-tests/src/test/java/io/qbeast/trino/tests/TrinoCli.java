package io.qbeast.trino.tests;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runs the Trino CLI executable jar as a separate process: {@code io.trino:trino-cli:476:jar:executable}
 * ({@code dep.trino-cli.version}), the last one published to Maven Central; it speaks the client
 * protocol of later servers too.
 */
public final class TrinoCli
{
    private TrinoCli() {}

    /** {@code java -jar trino-cli.jar --server URI --user test --execute SQL [arguments]}. */
    public static ProcessRunner.Result execute(URI server, String sql, String... arguments)
    {
        List<String> command = new ArrayList<>(List.of(
                ProductTestEnvironment.javaExecutable().toString(),
                "--enable-native-access=ALL-UNNAMED",
                "-Dorg.jline.terminal.dumb=true",
                "-jar", ProductTestEnvironment.trinoCliJar().toString(),
                "--server", server.toString(),
                "--user", "test",
                "--execute", sql));
        command.addAll(List.of(arguments));
        return ProcessRunner.run(command, ProductTestEnvironment.workRoot(), Map.of(), Duration.ofMinutes(2));
    }
}

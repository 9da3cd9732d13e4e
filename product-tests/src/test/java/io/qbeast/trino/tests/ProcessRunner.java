package io.qbeast.trino.tests;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static java.nio.charset.StandardCharsets.UTF_8;

/** Runs a command to completion with a time limit, capturing its output in files (no pipe deadlocks). */
public final class ProcessRunner
{
    private ProcessRunner() {}

    public record Result(List<String> command, int exitCode, String stdout, String stderr)
    {
        public Result
        {
            command = List.copyOf(command);
        }

        /** A readable account for assertion messages. */
        public String describe()
        {
            return "command %s exited with %d%n--- stdout ---%n%s%n--- stderr ---%n%s".formatted(command, exitCode, stdout, stderr);
        }
    }

    public static Result run(List<String> command, Path workingDirectory, Map<String, String> environment, Duration timeout)
    {
        try {
            Path outputDirectory = ProductTestEnvironment.workRoot().resolve("process-output");
            Files.createDirectories(outputDirectory);
            Path stdout = Files.createTempFile(outputDirectory, "stdout-", ".txt");
            Path stderr = Files.createTempFile(outputDirectory, "stderr-", ".txt");
            ProcessBuilder builder = new ProcessBuilder(command)
                    .directory(workingDirectory.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                    .redirectOutput(stdout.toFile())
                    .redirectError(stderr.toFile());
            builder.environment().putAll(environment);
            Process process = builder.start();
            boolean exited;
            try {
                exited = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                destroyTree(process.toHandle());
                throw new RuntimeException("interrupted while running " + command, e);
            }
            if (!exited) {
                destroyTree(process.toHandle());
                process.waitFor(10, TimeUnit.SECONDS);
                throw new AssertionError("%s did not finish within %s%n--- stdout ---%n%s%n--- stderr ---%n%s".formatted(
                        command, timeout, Files.readString(stdout, UTF_8), Files.readString(stderr, UTF_8)));
            }
            Result result = new Result(command, process.exitValue(), Files.readString(stdout, UTF_8), Files.readString(stderr, UTF_8));
            Files.deleteIfExists(stdout);
            Files.deleteIfExists(stderr);
            return result;
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command, e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeException(e);
        }
    }

    /** Kills a process and everything it started (SIGKILL). */
    public static void destroyTree(ProcessHandle process)
    {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }
}

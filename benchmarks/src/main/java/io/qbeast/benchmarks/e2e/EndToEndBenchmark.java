package io.qbeast.benchmarks.e2e;

import io.qbeast.trino.tests.ProductTestEnvironment;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * {@code benchmarks/run}: starts a real Trino server (PostgreSQL Iceberg catalog shared by
 * the qbeast plugin and Trino's stock Iceberg connector), runs the chosen suites and writes
 * {@code <output>/<date>-<suite>.md}, {@code .csv} and {@code .svg} charts, plus
 * {@code <date>-summary.md} with every suite's headline.
 */
public final class EndToEndBenchmark
{
    private EndToEndBenchmark() {}

    public static void main(String[] args)
            throws Exception
    {
        List<Path> written = run(args);
        System.out.println("results:");
        written.forEach(path -> System.out.println("  " + path));
        // the fixtures' shutdown hook stops any server left behind
        System.exit(0);
    }

    /** Runs the harness; returns the markdown files written. */
    public static List<Path> run(String[] args)
            throws Exception
    {
        Path repoRoot = ProductTestEnvironment.repoRoot();
        BenchmarkOptions options = BenchmarkOptions.parse(args, repoRoot);
        Path work = ProductTestEnvironment.newWorkDirectory("bench");
        String environment = environment(options, repoRoot);
        List<Path> written = new ArrayList<>();
        List<SuiteReport> reports = new ArrayList<>();
        Instant start = Instant.now();
        try (BenchmarkCluster cluster = BenchmarkCluster.start(work, options.heap(), options.smoke() ? "1GB" : "3GB", options.workers())) {
            BenchmarkContext context = new BenchmarkContext(cluster, options);
            cluster.execute("CREATE SCHEMA IF NOT EXISTS qbeast." + BenchmarkContext.SCHEMA);
            context.log("server up (%s); suites %s, scale %s, %d repetitions", cluster.trino().jdbcUrl(), options.suites(), options.scale(), options.repetitions());
            for (String suite : options.suites()) {
                Instant suiteStart = Instant.now();
                SuiteReport report = switch (suite) {
                    case "write" -> WriteSuite.run(context);
                    case "query" -> QuerySuite.run(context);
                    case "sample" -> SampleSuite.run(context);
                    case "scale" -> ScaleSuite.run(context);
                    case "planning" -> PlanningSuite.run(context);
                    case "delete" -> DeleteSuite.run(context);
                    default -> throw new IllegalArgumentException(suite);
                };
                report.note("suite run time: %s".formatted(format(Duration.between(suiteStart, Instant.now()))));
                Path file = report.write(options.output(), options.date(), environment);
                reports.add(report);
                written.add(file);
                context.log("%s done: %s", suite, file);
            }
        }
        Path summary = writeSummary(options, environment, reports, Duration.between(start, Instant.now()));
        written.add(summary);
        return written;
    }

    private static Path writeSummary(BenchmarkOptions options, String environment, List<SuiteReport> reports, Duration elapsed)
            throws IOException
    {
        StringBuilder md = new StringBuilder("# Benchmark summary, %s%s\n\n".formatted(options.date(), options.smoke() ? " (smoke run: tiny data, not a measurement)" : ""));
        md.append(environment).append("\n\n");
        md.append("Command: `benchmarks/run --scale %s --suite %s%s`, %s in total.\n\n".formatted(
                BenchmarkOptions.scaleLabel(options.scale()), String.join(",", options.suites()), options.smoke() ? " --smoke" : "", format(elapsed)));
        for (SuiteReport report : reports) {
            String file = options.date() + "-" + report.suite() + ".md";
            md.append("## [").append(report.suite()).append("](").append(file).append(")\n\n");
            for (String line : report.headlines()) {
                md.append("- ").append(line).append('\n');
            }
            md.append('\n');
        }
        Files.createDirectories(options.output());
        Path summary = options.output().resolve(options.date() + "-summary.md");
        Files.writeString(summary, md.toString(), UTF_8);
        return summary;
    }

    private static String environment(BenchmarkOptions options, Path repoRoot)
    {
        String cpu = "unknown CPU";
        try {
            cpu = Files.readAllLines(Path.of("/proc/cpuinfo"), UTF_8).stream()
                    .filter(line -> line.startsWith("model name"))
                    .map(line -> line.substring(line.indexOf(':') + 1).strip())
                    .findFirst().orElse(cpu);
        }
        catch (IOException | RuntimeException e) {
            // not Linux: leave it unknown
        }
        long memory = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getTotalMemorySize();
        String nodes = options.workers() == 0 ? "one Trino %s node".formatted(ProductTestEnvironment.trinoVersion())
                : "%d Trino %s nodes (coordinator and %d workers, all running tasks)".formatted(options.workers() + 1, ProductTestEnvironment.trinoVersion(), options.workers());
        return "Machine: %d cores (%s), %.0f GB RAM; %s, heap %s each, Java %s; qbeast %s.".formatted(
                Runtime.getRuntime().availableProcessors(), cpu, memory / 1e9, nodes, options.heap(),
                System.getProperty("java.version"), gitRevision(repoRoot));
    }

    private static String gitRevision(Path repoRoot)
    {
        try {
            Process process = new ProcessBuilder("git", "-C", repoRoot.toString(), "rev-parse", "--short", "HEAD").redirectErrorStream(true).start();
            String revision = new String(process.getInputStream().readAllBytes(), UTF_8).strip();
            return process.waitFor() == 0 ? "commit " + revision : "(no git revision)";
        }
        catch (IOException e) {
            return "(no git revision)";
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "(no git revision)";
        }
    }

    static String format(Duration duration)
    {
        return "%d min %02d s".formatted(duration.toMinutes(), duration.toSecondsPart());
    }
}

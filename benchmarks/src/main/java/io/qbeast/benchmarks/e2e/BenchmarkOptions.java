package io.qbeast.benchmarks.e2e;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * Command line of {@code benchmarks/run}:
 * {@code [--scale SF] [--suite write|query|sample|scale|planning|delete|all] [--smoke] [--repetitions N]
 * [--output DIR] [--date YYYY-MM-DD] [--scale-sizes 0.1,0.3,1,3] [--series-scale SF] [--planning-files N]
 * [--heap 6G] [--workers N]}.
 */
public record BenchmarkOptions(
        double scale,
        Set<String> suites,
        boolean smoke,
        int repetitions,
        Path output,
        String date,
        List<Double> scaleSizes,
        double seriesScale,
        String heap,
        int planningFiles,
        int workers)
{
    public static final List<String> ALL_SUITES = List.of("write", "query", "sample", "planning", "scale", "delete");

    public BenchmarkOptions
    {
        requireNonNull(suites);
        requireNonNull(output);
        requireNonNull(date);
        requireNonNull(scaleSizes);
        requireNonNull(heap);
        if (workers < 0) {
            throw new IllegalArgumentException("--workers must be at least 0");
        }
        if (repetitions < 1) {
            throw new IllegalArgumentException("--repetitions must be at least 1");
        }
        if (!smoke && repetitions < 3) {
            throw new IllegalArgumentException("--repetitions must be at least 3 (only --smoke runs once)");
        }
    }

    public static BenchmarkOptions parse(String[] args, Path repoRoot)
    {
        Double scale = null;
        Set<String> suites = new LinkedHashSet<>();
        boolean smoke = false;
        Integer repetitions = null;
        Path output = null;
        String date = LocalDate.now(ZoneOffset.UTC).toString();
        List<Double> scaleSizes = null;
        String heap = null;
        Integer planningFiles = null;
        Double seriesScale = null;
        int workers = 0;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--scale" -> scale = Double.parseDouble(value(args, ++i, arg));
                case "--suite" -> {
                    String suite = value(args, ++i, arg).toLowerCase(Locale.ROOT);
                    if (suite.equals("all")) {
                        suites.addAll(ALL_SUITES);
                    }
                    else if (ALL_SUITES.contains(suite)) {
                        suites.add(suite);
                    }
                    else {
                        throw new IllegalArgumentException("unknown suite %s; one of %s or all".formatted(suite, ALL_SUITES));
                    }
                }
                case "--smoke" -> smoke = true;
                case "--repetitions" -> repetitions = Integer.parseInt(value(args, ++i, arg));
                case "--output" -> output = Path.of(value(args, ++i, arg));
                case "--date" -> date = value(args, ++i, arg);
                case "--scale-sizes" -> {
                    scaleSizes = new ArrayList<>();
                    for (String size : value(args, ++i, arg).split(",")) {
                        scaleSizes.add(Double.parseDouble(size.strip()));
                    }
                }
                case "--heap" -> heap = value(args, ++i, arg);
                case "--series-scale" -> seriesScale = Double.parseDouble(value(args, ++i, arg));
                case "--planning-files" -> planningFiles = Integer.parseInt(value(args, ++i, arg));
                case "--workers" -> workers = Integer.parseInt(value(args, ++i, arg));
                default -> throw new IllegalArgumentException("unknown argument %s; usage: benchmarks/run [--scale SF] [--suite write|query|sample|scale|planning|delete|all] [--smoke] [--repetitions N] [--output DIR] [--scale-sizes 0.1,0.3,1,3] [--series-scale SF] [--planning-files N] [--heap 6G] [--workers N]".formatted(arg));
            }
        }
        if (suites.isEmpty()) {
            suites.addAll(ALL_SUITES);
        }
        if (smoke) {
            return new BenchmarkOptions(
                    scale != null ? scale : 0.01,
                    suites,
                    true,
                    repetitions != null ? repetitions : 1,
                    output != null ? output : repoRoot.resolve("benchmarks/target/smoke-results"),
                    date,
                    scaleSizes != null ? scaleSizes : List.of(0.005, 0.01),
                    seriesScale != null ? seriesScale : 0.01,
                    heap != null ? heap : "2G",
                    planningFiles != null ? planningFiles : 200,
                    workers);
        }
        return new BenchmarkOptions(
                scale != null ? scale : 1,
                suites,
                false,
                repetitions != null ? repetitions : 3,
                output != null ? output : repoRoot.resolve("benchmarks/results"),
                date,
                scaleSizes != null ? scaleSizes : List.of(0.1, 0.3, 1.0, 3.0),
                // the column and cube-size series: 27 writes at the main scale
                seriesScale != null ? seriesScale : (scale != null ? scale : 1),
                heap != null ? heap : "6G",
                planningFiles != null ? planningFiles : 10_000,
                workers);
    }

    private static String value(String[] args, int index, String name)
    {
        if (index >= args.length) {
            throw new IllegalArgumentException(name + " needs a value");
        }
        return args[index];
    }

    /** The tpch connector schema of a scale factor, as SQL: {@code tiny} for 0.01, else {@code sf<number>}. */
    public static String tpchSchema(double scaleFactor)
    {
        if (scaleFactor == 0.01) {
            return "tiny";
        }
        if (scaleFactor == Math.rint(scaleFactor)) {
            return "sf" + (long) scaleFactor;
        }
        // a quoted identifier: "sf0.1"
        return "\"sf" + plain(scaleFactor) + "\"";
    }

    /** How a scale factor is named in reports and table names. */
    public static String scaleLabel(double scaleFactor)
    {
        return scaleFactor == Math.rint(scaleFactor) ? String.valueOf((long) scaleFactor) : plain(scaleFactor);
    }

    private static String plain(double value)
    {
        return new BigDecimal(Double.toString(value)).stripTrailingZeros().toPlainString();
    }
}

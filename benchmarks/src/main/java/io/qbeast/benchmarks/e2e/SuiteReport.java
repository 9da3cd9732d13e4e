package io.qbeast.benchmarks.e2e;

import io.qbeast.benchmarks.e2e.ResultTable.Metric;
import io.qbeast.benchmarks.e2e.ResultTable.Stats;
import io.qbeast.benchmarks.e2e.ResultTable.Unit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

/**
 * The result of one suite: headline lines, notes and result tables, written as
 * {@code <date>-<suite>.md} (tables of median, min–max and ratio to the baseline), a CSV of every
 * repetition and one SVG bar chart per charted metric.
 */
public final class SuiteReport
{
    private final String suite;
    private final String title;
    private final List<String> setup = new ArrayList<>();
    private final List<String> headlines = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private final List<ResultTable> tables = new ArrayList<>();

    public SuiteReport(String suite, String title)
    {
        this.suite = requireNonNull(suite);
        this.title = requireNonNull(title);
    }

    public String suite()
    {
        return suite;
    }

    public SuiteReport setup(String line)
    {
        setup.add(line);
        return this;
    }

    public SuiteReport headline(String line)
    {
        headlines.add(line);
        return this;
    }

    public SuiteReport note(String line)
    {
        notes.add(line);
        return this;
    }

    public ResultTable table(ResultTable table)
    {
        tables.add(table);
        return table;
    }

    public List<ResultTable> tables()
    {
        return List.copyOf(tables);
    }

    public List<String> headlines()
    {
        return List.copyOf(headlines);
    }

    /** Writes the markdown, CSV and SVG files into {@code directory}; returns the markdown file. */
    public Path write(Path directory, String date, String environment)
            throws IOException
    {
        Files.createDirectories(directory);
        String base = date + "-" + suite;
        StringBuilder md = new StringBuilder();
        md.append("# ").append(title).append("\n\n");
        md.append(environment).append("\n\n");
        for (String line : setup) {
            md.append("- ").append(line).append('\n');
        }
        if (!setup.isEmpty()) {
            md.append('\n');
        }
        if (!headlines.isEmpty()) {
            md.append("## Headline\n\n");
            for (String line : headlines) {
                md.append("- ").append(line).append('\n');
            }
            md.append('\n');
        }
        md.append("Raw values of every repetition: [`").append(base).append(".csv`](").append(base).append(".csv). ")
                .append("Cells are median (min–max) over the repetitions; ratios are median ÷ median of the baseline column.\n\n");

        int tableNumber = 0;
        for (ResultTable table : tables) {
            tableNumber++;
            md.append("## ").append(table.name()).append("\n\n");
            if (!table.description().isEmpty()) {
                md.append(table.description()).append("\n\n");
            }
            for (String metric : table.chartMetrics()) {
                String chartFile = "%s-%d-%s.svg".formatted(base, tableNumber, metric);
                Metric declared = table.metrics().stream().filter(m -> m.name().equals(metric)).findFirst().orElseThrow();
                Files.writeString(directory.resolve(chartFile), SvgBarChart.render(table, declared), UTF_8);
                md.append("![").append(table.name()).append(": ").append(declared.label()).append("](").append(chartFile).append(")\n\n");
            }
            for (Metric metric : table.metrics()) {
                if (table.items().stream().noneMatch(item -> table.variants().stream().anyMatch(variant -> !table.values(item, variant, metric.name()).isEmpty()))) {
                    continue;
                }
                appendMetricTable(md, table, metric);
            }
        }
        if (!notes.isEmpty()) {
            md.append("## Notes\n\n");
            for (String line : notes) {
                md.append("- ").append(line).append('\n');
            }
            md.append('\n');
        }
        Path markdown = directory.resolve(base + ".md");
        Files.writeString(markdown, md.toString(), UTF_8);
        Files.writeString(directory.resolve(base + ".csv"), csv(), UTF_8);
        return markdown;
    }

    private static void appendMetricTable(StringBuilder md, ResultTable table, Metric metric)
    {
        List<String> variants = table.variants();
        md.append("**").append(metric.label()).append("**\n\n");
        md.append("| case");
        for (String variant : variants) {
            md.append(" | ").append(variant);
        }
        for (String variant : variants) {
            if (!variant.equals(table.baseline())) {
                md.append(" | ").append(variant).append(" ÷ ").append(table.baseline());
            }
        }
        md.append(" |\n|---");
        md.append("|---:".repeat(variants.size() * 2 - 1));
        md.append("|\n");
        for (String item : table.items()) {
            md.append("| ").append(item);
            for (String variant : variants) {
                Optional<Stats> stats = table.stats(item, variant, metric.name());
                md.append(" | ").append(stats.map(value -> formatStats(value, metric.unit())).orElse("—"));
            }
            for (String variant : variants) {
                if (!variant.equals(table.baseline())) {
                    md.append(" | ").append(table.ratio(item, variant, metric.name()).map(SuiteReport::formatRatio).orElse("—"));
                }
            }
            md.append(" |\n");
        }
        md.append('\n');
    }

    static String formatStats(Stats stats, Unit unit)
    {
        String median = format(stats.median(), unit);
        if (stats.count() == 1 || stats.min() == stats.max()) {
            return median;
        }
        return "%s (%s–%s)".formatted(median, format(stats.min(), unit), format(stats.max(), unit));
    }

    static String formatRatio(double ratio)
    {
        if (ratio != 0 && Math.abs(ratio) < 0.01) {
            return String.format(Locale.ROOT, "%.4f×", ratio);
        }
        return String.format(Locale.ROOT, "%.2f×", ratio);
    }

    static String format(double value, Unit unit)
    {
        if (Double.isNaN(value)) {
            return "n/a";
        }
        return switch (unit) {
            case MILLIS -> value >= 10_000 ? String.format(Locale.ROOT, "%.1f s", value / 1000) : String.format(Locale.ROOT, "%.0f ms", value);
            case BYTES -> bytes(value);
            case COUNT -> value == Math.rint(value) ? String.format(Locale.ROOT, "%,.0f", value) : String.format(Locale.ROOT, "%,.1f", value);
            case FRACTION -> String.format(Locale.ROOT, value != 0 && Math.abs(value) < 0.001 ? "%.2e" : "%.4f", value);
            case PERCENT -> String.format(Locale.ROOT, "%.2f%%", value);
            case RATE -> String.format(Locale.ROOT, "%,.0f", value);
        };
    }

    static String bytes(double value)
    {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        int unit = 0;
        double scaled = value;
        while (Math.abs(scaled) >= 1024 && unit < units.length - 1) {
            scaled /= 1024;
            unit++;
        }
        return unit == 0 ? String.format(Locale.ROOT, "%.0f B", scaled) : String.format(Locale.ROOT, "%.1f %s", scaled, units[unit]);
    }

    /** suite,table,item,variant,metric,repetition,value: every measured value. */
    String csv()
    {
        StringBuilder csv = new StringBuilder("suite,table,item,variant,metric,repetition,value\n");
        for (ResultTable table : tables) {
            for (Map.Entry<List<String>, List<Double>> cell : table.allValues().entrySet()) {
                List<Double> values = cell.getValue();
                for (int repetition = 0; repetition < values.size(); repetition++) {
                    csv.append(String.join(",", quote(suite), quote(table.name()), quote(cell.getKey().get(0)), quote(cell.getKey().get(1)), quote(cell.getKey().get(2))))
                            .append(',').append(repetition + 1).append(',').append(values.get(repetition)).append('\n');
                }
            }
        }
        return csv.toString();
    }

    private static String quote(String value)
    {
        if (value.contains(",") || value.contains("\"") || value.contains("\n")) {
            return "\"" + value.replace("\"", "\"\"") + "\"";
        }
        return value;
    }
}

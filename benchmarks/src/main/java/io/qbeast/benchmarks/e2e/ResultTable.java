package io.qbeast.benchmarks.e2e;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * Repeated measurements of one experiment: items (rows of the table, e.g. queries) × variants
 * (columns, e.g. qbeast and the Iceberg baselines) × metrics, each cell the values of all
 * repetitions. Every non-baseline variant is reported beside the baseline as a ratio of medians.
 */
public final class ResultTable
{
    private final String name;
    private final String description;
    private final String baseline;
    private final Set<String> items = new LinkedHashSet<>();
    private final Set<String> variants = new LinkedHashSet<>();
    private final Map<String, Metric> metrics = new LinkedHashMap<>();
    private final Map<List<String>, List<Double>> values = new LinkedHashMap<>();
    private final List<String> chartMetrics = new ArrayList<>();
    private boolean logScaleCharts;

    public ResultTable(String name, String description, String baseline)
    {
        this.name = requireNonNull(name);
        this.description = requireNonNull(description);
        this.baseline = requireNonNull(baseline);
        variants.add(baseline);
    }

    public record Metric(String name, String label, Unit unit) {}

    public enum Unit
    {
        MILLIS, BYTES, COUNT, FRACTION, PERCENT, RATE
    }

    /** Declares a metric (in reporting order). */
    public ResultTable metric(String metric, String label, Unit unit)
    {
        metrics.put(metric, new Metric(metric, label, unit));
        return this;
    }

    /** Draws an SVG bar chart of this metric (medians with min–max whiskers). */
    public ResultTable chart(String metric)
    {
        chartMetrics.add(metric);
        return this;
    }

    public ResultTable logScaleCharts()
    {
        this.logScaleCharts = true;
        return this;
    }

    public ResultTable variants(String... names)
    {
        variants.addAll(List.of(names));
        return this;
    }

    public void add(String item, String variant, String metric, double value)
    {
        if (!metrics.containsKey(metric)) {
            throw new IllegalArgumentException("undeclared metric %s in %s".formatted(metric, name));
        }
        items.add(item);
        variants.add(variant);
        values.computeIfAbsent(List.of(item, variant, metric), _ -> new ArrayList<>()).add(value);
    }

    /** Adds the metrics of one query run that this table declares. */
    public void add(String item, String variant, QueryMetrics query)
    {
        query.asMap().forEach((metric, value) -> {
            if (metrics.containsKey(metric)) {
                add(item, variant, metric, value);
            }
        });
    }

    public List<Double> values(String item, String variant, String metric)
    {
        return values.getOrDefault(List.of(item, variant, metric), List.of());
    }

    public Optional<Stats> stats(String item, String variant, String metric)
    {
        List<Double> cell = values(item, variant, metric);
        return cell.isEmpty() ? Optional.empty() : Optional.of(Stats.of(cell));
    }

    /** Median of {@code variant} ÷ median of the baseline, for one item and metric. */
    public Optional<Double> ratio(String item, String variant, String metric)
    {
        Optional<Stats> value = stats(item, variant, metric);
        Optional<Stats> base = stats(item, baseline, metric);
        if (value.isEmpty() || base.isEmpty() || base.get().median() == 0) {
            return Optional.empty();
        }
        return Optional.of(value.get().median() / base.get().median());
    }

    public String name()
    {
        return name;
    }

    public String description()
    {
        return description;
    }

    public String baseline()
    {
        return baseline;
    }

    public List<String> items()
    {
        return List.copyOf(items);
    }

    /** Variants that have values, the baseline first. */
    public List<String> variants()
    {
        return variants.stream().filter(variant -> values.keySet().stream().anyMatch(key -> key.get(1).equals(variant))).toList();
    }

    public List<Metric> metrics()
    {
        return List.copyOf(metrics.values());
    }

    public List<String> chartMetrics()
    {
        return List.copyOf(chartMetrics);
    }

    public boolean isLogScaleCharts()
    {
        return logScaleCharts;
    }

    public Map<List<String>, List<Double>> allValues()
    {
        return values;
    }

    /** Median and spread of the repetitions of one cell. */
    public record Stats(double median, double min, double max, int count)
    {
        public static Stats of(List<Double> values)
        {
            List<Double> sorted = values.stream().sorted().toList();
            int size = sorted.size();
            double median = size % 2 == 1 ? sorted.get(size / 2) : (sorted.get(size / 2 - 1) + sorted.get(size / 2)) / 2;
            return new Stats(median, sorted.getFirst(), sorted.getLast(), size);
        }
    }
}

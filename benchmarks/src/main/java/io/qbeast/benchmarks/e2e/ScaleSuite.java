package io.qbeast.benchmarks.e2e;

import io.qbeast.benchmarks.e2e.BenchmarkContext.TableFiles;
import io.qbeast.benchmarks.e2e.ResultTable.Unit;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static io.qbeast.benchmarks.e2e.BenchmarkContext.SCHEMA;

/**
 * Suite 4: qbeast write throughput (rows per CPU second, i.e. per core) against data size,
 * indexed-column count and cube size, each beside the stock Iceberg unclustered write of the
 * same source in the same repetition.
 */
public final class ScaleSuite
{
    static final String ICEBERG = "iceberg unclustered";
    static final String QBEAST = "qbeast";
    static final List<String> COLUMNS = List.of("shipdate", "partkey", "quantity", "discount", "suppkey", "extendedprice", "tax", "commitdate");

    private ScaleSuite() {}

    public static SuiteReport run(BenchmarkContext context)
            throws SQLException
    {
        BenchmarkOptions options = context.options();
        String scale = BenchmarkOptions.scaleLabel(options.seriesScale());
        List<Integer> columnCounts = List.of(1, 2, 4, 8);
        List<Long> cubeSizes = options.smoke() ? List.of(500L, 5_000L) : List.of(50_000L, 200_000L, 1_000_000L, 5_000_000L);

        SuiteReport report = new SuiteReport("scale", "Scale: qbeast write throughput against data size, indexed columns and cube size");
        report.setup("every point is `CREATE TABLE ... AS SELECT * FROM` a staged unclustered Iceberg copy of TPC-H lineitem, beside the stock Iceberg unclustered CTAS of the same source in the same repetition (%d repetitions)".formatted(options.repetitions()));
        report.setup("rows per CPU second = rows ÷ the query's total CPU time: throughput per core; CPU per row shows whether cost grows linearly with data");
        report.setup("indexed columns, in order: %s; the column and cube-size series use lineitem sf%s, the default series `indexed_columns = ['shipdate', 'partkey']`, cube_size 1,000,000".formatted(COLUMNS, scale));

        ResultTable size = report.table(throughputTable("data size", "Indexed on shipdate, partkey; default cube size."));
        ResultTable columns = report.table(throughputTable("indexed columns (sf" + scale + ")", "Default cube size (1,000,000). The Iceberg column is the same unclustered write in every row."));
        ResultTable cubes = report.table(throughputTable("cube size (sf" + scale + ")", "Indexed on shipdate, partkey. The Iceberg column is the same unclustered write in every row."));

        List<Double> sizes = new ArrayList<>(options.scaleSizes());
        for (int repetition = 1; repetition <= options.repetitions(); repetition++) {
            for (double sf : sizes) {
                String source = context.stagedLineitem(sf);
                String item = "sf " + BenchmarkOptions.scaleLabel(sf);
                measure(context, size, item, ICEBERG, source, "iceberg.%s.x_iceberg".formatted(SCHEMA), "", repetition);
                measure(context, size, item, QBEAST, source, "qbeast.%s.x_qbeast".formatted(SCHEMA), "WITH (indexed_columns = ARRAY['shipdate', 'partkey'])", repetition);
            }
            String source = context.stagedLineitem(options.seriesScale());
            Measurement iceberg = measure(context, null, null, ICEBERG, source, "iceberg.%s.x_iceberg".formatted(SCHEMA), "", repetition);
            for (int count : columnCounts) {
                String item = count + (count == 1 ? " column" : " columns");
                iceberg.addTo(columns, item, ICEBERG);
                String list = COLUMNS.subList(0, count).stream().map(column -> "'" + column + "'").reduce((a, b) -> a + ", " + b).orElseThrow();
                measure(context, columns, item, QBEAST, source, "qbeast.%s.x_qbeast".formatted(SCHEMA), "WITH (indexed_columns = ARRAY[%s])".formatted(list), repetition);
            }
            for (long cubeSize : cubeSizes) {
                String item = "cube %,d".formatted(cubeSize);
                iceberg.addTo(cubes, item, ICEBERG);
                measure(context, cubes, item, QBEAST, source, "qbeast.%s.x_qbeast".formatted(SCHEMA),
                        "WITH (indexed_columns = ARRAY['shipdate', 'partkey'], cube_size = %d)".formatted(cubeSize), repetition);
            }
        }

        // linearity: CPU per row at every size, and the largest over the smallest
        List<String> perRow = new ArrayList<>();
        for (String item : size.items()) {
            perRow.add("%s %.0f ns".formatted(item, size.stats(item, QBEAST, "cpu_ns_per_row").orElseThrow().median()));
        }
        List<String> items = size.items();
        double first = size.stats(items.getFirst(), QBEAST, "cpu_ns_per_row").orElseThrow().median();
        double last = size.stats(items.getLast(), QBEAST, "cpu_ns_per_row").orElseThrow().median();
        report.headline(String.format(Locale.ROOT, "qbeast CPU per row by data size: %s (largest ÷ smallest %.2f; 1.00 = linear cost)", String.join(", ", perRow), last / first));
        List<String> ratios = new ArrayList<>();
        for (String item : size.items()) {
            ratios.add(item + " " + size.ratio(item, QBEAST, "cpu_ms").map(SuiteReport::formatRatio).orElse("—"));
        }
        report.headline("qbeast write CPU ÷ Iceberg unclustered by data size: " + String.join(", ", ratios));
        double oneColumn = columns.stats(columns.items().getFirst(), QBEAST, "rows_per_cpu_s").orElseThrow().median();
        double eightColumns = columns.stats(columns.items().getLast(), QBEAST, "rows_per_cpu_s").orElseThrow().median();
        report.headline(String.format(Locale.ROOT, "from 1 to 8 indexed columns, qbeast throughput per core changes by %+.0f%% (CPU per row %+.0f%%; the seed reports +16%% cost)",
                100 * (eightColumns / oneColumn - 1), 100 * (oneColumn / eightColumns - 1)));
        List<String> cubeLines = new ArrayList<>();
        for (String item : cubes.items()) {
            cubeLines.add("%s %s".formatted(item, cubes.ratio(item, QBEAST, "cpu_ms").map(SuiteReport::formatRatio).orElse("—")));
        }
        report.headline("qbeast write CPU ÷ Iceberg by cube size: " + String.join(", ", cubeLines));
        if (!options.smoke() && !options.scaleSizes().contains(3.0)) {
            report.note("cut: sf 3 is not in this run's data-size series; `--scale-sizes 0.1,0.3,1,3` (the default) adds it");
        }
        if (!options.smoke() && options.seriesScale() < options.scale()) {
            report.note("cut: the column and cube-size series (27 writes) ran on sf %s instead of sf %s; `--series-scale %s` runs them there"
                    .formatted(scale, BenchmarkOptions.scaleLabel(options.scale()), BenchmarkOptions.scaleLabel(options.scale())));
        }
        return report;
    }

    private static ResultTable throughputTable(String name, String description)
    {
        return new ResultTable(name, description, ICEBERG)
                .variants(QBEAST)
                .metric("rows_per_cpu_s", "rows per CPU second (per core)", Unit.RATE)
                .metric("cpu_ns_per_row", "CPU ns per row", Unit.COUNT)
                .metric("cpu_ms", "CPU time", Unit.MILLIS)
                .metric("wall_ms", "wall time", Unit.MILLIS)
                .metric("files", "data files", Unit.COUNT)
                .chart("rows_per_cpu_s");
    }

    private record Measurement(QueryMetrics metrics, TableFiles files)
    {
        void addTo(ResultTable table, String item, String variant)
        {
            table.add(item, variant, metrics);
            table.add(item, variant, "rows_per_cpu_s", files.rows() / (metrics.cpuMillis() / 1000));
            table.add(item, variant, "cpu_ns_per_row", metrics.cpuMillis() * 1e6 / files.rows());
            table.add(item, variant, "files", files.files());
        }
    }

    private static Measurement measure(BenchmarkContext context, ResultTable table, String item, String variant, String source, String target, String with, int repetition)
            throws SQLException
    {
        context.drop(target);
        context.log("scale: %s %s %s, repetition %d", variant, source, with, repetition);
        QueryMetrics metrics = context.cluster().measure("CREATE TABLE %s %s AS SELECT * FROM %s".formatted(target, with, source));
        TableFiles files = context.files(target);
        context.drop(target);
        Measurement measurement = new Measurement(metrics, files);
        if (table != null) {
            measurement.addTo(table, item, variant);
        }
        return measurement;
    }
}

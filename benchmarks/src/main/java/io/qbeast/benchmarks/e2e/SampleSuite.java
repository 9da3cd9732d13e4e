package io.qbeast.benchmarks.e2e;

import io.qbeast.benchmarks.e2e.BenchmarkContext.TableFiles;
import io.qbeast.benchmarks.e2e.ResultTable.Unit;
import io.qbeast.index.Weight;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static io.qbeast.benchmarks.e2e.BenchmarkContext.SCHEMA;

/**
 * Suite 3: {@code TABLESAMPLE} on TPC-H lineitem: qbeast SYSTEM (weight-bounded, pushed into the
 * connector) against the stock Iceberg connector's SYSTEM (Trino drops whole splits) and
 * BERNOULLI (Trino filters rows after reading everything): bytes read as a fraction of the
 * table and relative errors of COUNT, SUM and AVG. A qbeast sample is fixed per snapshot, so the
 * trials vary the predicate instead, in two families: T slices of {@code suppkey} (a column domain
 * on a column neither layout clusters) and {@code orderkey % T = k} (an expression, which the
 * connector takes over as a row predicate, so Trino still offers it the sample; before, Trino
 * sampled whole splits itself for such a predicate). Every qbeast sample of either family is
 * checked against the explicit weight filter it is defined as.
 *
 * <p>Also the read-side goals of issue #4 on the same data: bytes and splits of SYSTEM 1% and
 * 10% (goal ≤ 1.5 × the fraction of table bytes) and of three multi-column range queries (goal
 * ≤ 2 × selectivity × table bytes + one file), next to stock Iceberg unclustered and sorted.
 */
public final class SampleSuite
{
    static final String QBEAST = "qbeast";
    static final String ICEBERG = "iceberg unclustered";
    static final String SORTED = "iceberg sorted_by";
    static final String GOAL = "goal";
    static final String INDEXED = "ARRAY['shipdate', 'quantity', 'discount']";
    /** Appended to the items of the modulus trials ({@code "1% modulus"}). */
    static final String MODULUS_ITEM = " modulus";

    private SampleSuite() {}

    public static SuiteReport run(BenchmarkContext context)
            throws SQLException
    {
        BenchmarkOptions options = context.options();
        BenchmarkCluster cluster = context.cluster();
        String scale = BenchmarkOptions.scaleLabel(options.scale());
        String source = context.stagedLineitem(options.scale());
        long cubeSize = options.smoke() ? 500 : 50_000;
        int trials = options.smoke() ? 2 : 10;

        String qbeast = "qbeast.%s.s_qbeast".formatted(SCHEMA);
        String plain = "iceberg.%s.s_iceberg".formatted(SCHEMA);
        String sorted = "iceberg.%s.s_sorted".formatted(SCHEMA);
        for (String table : List.of(qbeast, plain, sorted)) {
            context.drop(table);
        }
        context.log("sample: loading the three tables");
        cluster.execute("CREATE TABLE %s WITH (indexed_columns = %s, cube_size = %d) AS SELECT * FROM %s".formatted(qbeast, INDEXED, cubeSize, source));
        cluster.execute("CREATE TABLE %s AS SELECT * FROM %s".formatted(plain, source));
        cluster.execute("CREATE TABLE %s WITH (sorted_by = %s) AS SELECT * FROM %s".formatted(sorted, INDEXED, source));
        Map<String, TableFiles> files = new LinkedHashMap<>();
        files.put(QBEAST, context.files(qbeast));
        files.put(ICEBERG, context.files(plain));
        files.put(SORTED, context.files(sorted));

        SuiteReport report = new SuiteReport("sample", "Sample: TABLESAMPLE on TPC-H lineitem sf%s, and the read-side goals".formatted(scale));
        report.setup("data: `%s` (staged copy of `tpch.%s.lineitem`) written three ways".formatted(source, BenchmarkOptions.tpchSchema(options.scale())));
        files.forEach((variant, table) -> report.setup("%s: %d files, %s, %,d rows".formatted(variant, table.files(), SuiteReport.bytes(table.bytes()), table.rows())));
        report.setup("qbeast: `indexed_columns = %s, cube_size = %d`; sorted: `sorted_by = %s`".formatted(INDEXED, cubeSize, INDEXED));

        samples(context, report, qbeast, plain, files, trials);
        goals(context, report, qbeast, plain, sorted, files);
        return report;
    }

    /** One family of trials: the {@code WHERE} of trial k, and how items of the family are labelled. */
    private record Trials(String label, String description, List<String> predicates) {}

    private static void samples(BenchmarkContext context, SuiteReport report, String qbeast, String plain, Map<String, TableFiles> files, int trials)
            throws SQLException
    {
        BenchmarkCluster cluster = context.cluster();
        String bernoulli = "iceberg BERNOULLI";
        String icebergSystem = "iceberg SYSTEM";
        String qbeastSystem = "qbeast SYSTEM";
        String weightFilter = "qbeast weight filter";
        // suppkey runs 1..10,000·sf: T slices of equal width
        long slice = Math.max(1, (long) Math.ceil(cluster.number("SELECT max(suppkey) FROM " + plain) / trials));
        List<String> slices = new ArrayList<>();
        List<String> moduli = new ArrayList<>();
        for (int k = 0; k < trials; k++) {
            slices.add("suppkey BETWEEN %d AND %d".formatted(k * slice + 1, (k + 1) * slice));
            moduli.add("orderkey %% %d = %d".formatted(trials, k));
        }
        List<Trials> families = List.of(
                new Trials("", "`WHERE suppkey BETWEEN k·%d + 1 AND (k + 1)·%d`, a column domain on a column no layout clusters".formatted(slice, slice), slices),
                new Trials(MODULUS_ITEM, "`WHERE orderkey %% %d = k`, an expression the connector evaluates itself".formatted(trials), moduli));
        ResultTable table = report.table(new ResultTable("TABLESAMPLE: bytes read and error",
                ("Each cell holds one value per trial (%d trials, k = 0..%d: %s; items marked `%s`: %s). "
                        + "Estimates: COUNT and SUM scaled by 1/p, AVG as is; error = |estimate − exact| ÷ exact, exact from the unsampled query. "
                        + "*Bytes fraction* = physical input bytes ÷ those of the same query unsampled on the same table (column projection makes that less than the table); "
                        + "*table fraction* = physical input bytes ÷ the table's data file bytes. "
                        + "`%s` is `WHERE _qbeast_weight < ⌊p·2^32 + ½⌋ − 2^31` on the qbeast table: the rows a qbeast SYSTEM sample is defined to return.")
                        .formatted(trials, trials - 1, families.get(0).description(), MODULUS_ITEM.strip(), families.get(1).description(), weightFilter),
                bernoulli)
                .variants(icebergSystem, qbeastSystem, weightFilter)
                .metric("bytes_fraction", "bytes read ÷ bytes read unsampled", Unit.FRACTION)
                .metric("table_fraction", "bytes read ÷ table bytes", Unit.FRACTION)
                .metric("count_error", "relative error of COUNT(*) (%)", Unit.PERCENT)
                .metric("sum_error", "relative error of SUM(extendedprice) (%)", Unit.PERCENT)
                .metric("avg_error", "relative error of AVG(extendedprice) (%)", Unit.PERCENT)
                .metric("wall_ms", "wall time", Unit.MILLIS)
                .chart("bytes_fraction")
                .chart("sum_error")
                .logScaleCharts());
        String aggregate = "SELECT count(*), sum(extendedprice), avg(extendedprice) FROM %s %s WHERE %s";
        double[] percents = {0.1, 1, 10};
        for (Trials family : families) {
            List<double[]> exact = new ArrayList<>();
            List<Double> plainBytes = new ArrayList<>();
            List<Double> qbeastBytes = new ArrayList<>();
            for (String predicate : family.predicates()) {
                BenchmarkCluster.Measured measured = cluster.run(aggregate.formatted(plain, "", predicate));
                List<Object> row = measured.rows().getFirst();
                exact.add(new double[] {((Number) row.get(0)).doubleValue(), ((Number) row.get(1)).doubleValue(), ((Number) row.get(2)).doubleValue()});
                plainBytes.add(measured.metrics().physicalInputBytes());
                qbeastBytes.add(cluster.measure(aggregate.formatted(qbeast, "", predicate)).physicalInputBytes());
            }
            int checks = 0;
            List<String> wrongSamples = new ArrayList<>();
            for (double percent : percents) {
                String item = "%s%%%s".formatted(percent == Math.rint(percent) ? String.valueOf((long) percent) : String.valueOf(percent), family.label());
                context.log("sample: %s", item);
                double fraction = percent / 100;
                // the bound the connector pushes down for SYSTEM (p): p·2^32 rounded, halves up (README)
                long bound = Weight.upperBound(fraction);
                for (int k = 0; k < family.predicates().size(); k++) {
                    String predicate = family.predicates().get(k);
                    Long expectedCount = null;
                    Long sampledCount = null;
                    for (String[] method : new String[][] {
                            {bernoulli, plain, "TABLESAMPLE BERNOULLI (%s)".formatted(percent), ""},
                            {icebergSystem, plain, "TABLESAMPLE SYSTEM (%s)".formatted(percent), ""},
                            {qbeastSystem, qbeast, "TABLESAMPLE SYSTEM (%s)".formatted(percent), ""},
                            {weightFilter, qbeast, "", " AND _qbeast_weight < " + bound}}) {
                        BenchmarkCluster.Measured measured = cluster.run(aggregate.formatted(method[1], method[2], predicate) + method[3]);
                        QueryMetrics metrics = measured.metrics();
                        List<Object> row = measured.rows().getFirst();
                        double count = ((Number) row.get(0)).doubleValue() / fraction;
                        double sum = row.get(1) == null ? 0 : ((Number) row.get(1)).doubleValue() / fraction;
                        double avg = row.get(2) == null ? 0 : ((Number) row.get(2)).doubleValue();
                        double[] truth = exact.get(k);
                        boolean onQbeast = method[1].equals(qbeast);
                        table.add(item, method[0], "bytes_fraction", metrics.physicalInputBytes() / (onQbeast ? qbeastBytes : plainBytes).get(k));
                        table.add(item, method[0], "table_fraction", metrics.physicalInputBytes() / files.get(onQbeast ? QBEAST : ICEBERG).bytes());
                        table.add(item, method[0], "count_error", 100 * Math.abs(count - truth[0]) / truth[0]);
                        table.add(item, method[0], "sum_error", 100 * Math.abs(sum - truth[1]) / truth[1]);
                        table.add(item, method[0], "avg_error", 100 * Math.abs(avg - truth[2]) / truth[2]);
                        table.add(item, method[0], "wall_ms", metrics.wallMillis());
                        if (method[0].equals(qbeastSystem)) {
                            sampledCount = ((Number) row.get(0)).longValue();
                        }
                        if (method[0].equals(weightFilter)) {
                            expectedCount = ((Number) row.get(0)).longValue();
                        }
                    }
                    checks++;
                    if (!sampledCount.equals(expectedCount)) {
                        wrongSamples.add("%s k=%d: %d rows instead of %d".formatted(item, k, sampledCount, expectedCount));
                    }
                }
                report.headline(String.format(Locale.ROOT, "SYSTEM %s: qbeast reads %s of the unsampled query's bytes (%s of the table; Iceberg SYSTEM %s, BERNOULLI %s); mean SUM error qbeast %.2f%% (weight filter %.2f%%), Iceberg SYSTEM %.2f%%, BERNOULLI %.2f%%",
                        item,
                        SuiteReport.format(table.stats(item, qbeastSystem, "bytes_fraction").orElseThrow().median(), Unit.FRACTION),
                        SuiteReport.format(table.stats(item, qbeastSystem, "table_fraction").orElseThrow().median(), Unit.FRACTION),
                        SuiteReport.format(table.stats(item, icebergSystem, "bytes_fraction").orElseThrow().median(), Unit.FRACTION),
                        SuiteReport.format(table.stats(item, bernoulli, "bytes_fraction").orElseThrow().median(), Unit.FRACTION),
                        mean(table.values(item, qbeastSystem, "sum_error")), mean(table.values(item, weightFilter, "sum_error")),
                        mean(table.values(item, icebergSystem, "sum_error")), mean(table.values(item, bernoulli, "sum_error"))));
            }
            String trialsName = family.label().isEmpty() ? "suppkey domain trials" : "modulus trials (`orderkey % T = k`)";
            if (wrongSamples.isEmpty()) {
                report.note("checked, %s: every qbeast SYSTEM sample returned exactly the rows with `_qbeast_weight` under the bound (%d trials)".formatted(trialsName, checks));
            }
            else {
                report.headline("**qbeast sampling bug**, %s: %d of %d sampled queries with a predicate returned other rows than `WHERE _qbeast_weight < bound` (qbeast SYSTEM errors include it; `%s` shows the sample as designed): %s"
                        .formatted(trialsName, wrongSamples.size(), checks, weightFilter, String.join("; ", wrongSamples.subList(0, Math.min(6, wrongSamples.size())))));
            }
        }
        report.note("a qbeast SYSTEM sample is the same rows for every query of one snapshot (rows with the lowest stored weights); its error over the trials comes from the different predicates, as for the other methods");
        report.note("Trino's SYSTEM sampling on the stock connector keeps or drops whole splits: with few large files it often returns nothing at small fractions (error 100%)");
    }

    private static double mean(List<Double> values)
    {
        return values.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
    }

    private static void goals(BenchmarkContext context, SuiteReport report, String qbeast, String plain, String sorted, Map<String, TableFiles> files)
            throws SQLException
    {
        BenchmarkCluster cluster = context.cluster();
        BenchmarkOptions options = context.options();
        TableFiles qbeastFiles = files.get(QBEAST);
        double averageFile = (double) qbeastFiles.bytes() / qbeastFiles.files();
        Map<String, String> ranges = new LinkedHashMap<>();
        ranges.put("R1 Q6: 1994, discount 0.05–0.07, quantity < 24", "shipdate >= DATE '1994-01-01' AND shipdate < DATE '1995-01-01' AND discount BETWEEN 0.05 AND 0.07 AND quantity < 24");
        ranges.put("R2: 1995 Q1, quantity 10–20", "shipdate BETWEEN DATE '1995-01-01' AND DATE '1995-03-31' AND quantity BETWEEN 10 AND 20");
        ranges.put("R3: June 1996, discount ≤ 0.02, quantity ≥ 40", "shipdate BETWEEN DATE '1996-06-01' AND DATE '1996-06-30' AND discount <= 0.02 AND quantity >= 40");

        ResultTable table = report.table(new ResultTable("Read-side goals (issue #4)",
                ("Goal for `TABLESAMPLE SYSTEM (p)`: ≤ 1.5 × p × the qbeast table's bytes (files: 1.5 × p × files, at least one). "
                        + "Goal for a range query of selectivity s: ≤ 2 × s × table bytes + one average file (%s); files: 2 × s × files + 1; "
                        + "rows read (physical input rows, issue #25 part 4): ≤ 4 × s × rows. "
                        + "Queries read `count(*), sum(extendedprice * discount)`, so column projection also cuts bytes; the goal is over whole rows. "
                        + "Ratios are measured ÷ goal: ≤ 1 meets the goal.").formatted(SuiteReport.bytes(averageFile)),
                GOAL)
                .variants(QBEAST, ICEBERG, SORTED)
                .metric("input_bytes", "physical input bytes", Unit.BYTES)
                .metric("splits", "table-scan splits (files opened)", Unit.COUNT)
                .metric("input_rows", "physical input rows", Unit.COUNT)
                .metric("selectivity", "selectivity (matching rows ÷ rows)", Unit.FRACTION)
                .chart("input_bytes")
                .logScaleCharts());
        Map<String, String> tables = new LinkedHashMap<>();
        tables.put(QBEAST, qbeast);
        tables.put(ICEBERG, plain);
        tables.put(SORTED, sorted);
        for (double percent : new double[] {1, 10}) {
            String item = "SYSTEM %d%%".formatted((long) percent);
            table.add(item, GOAL, "input_bytes", 1.5 * percent / 100 * qbeastFiles.bytes());
            table.add(item, GOAL, "splits", Math.max(1, Math.ceil(1.5 * percent / 100 * qbeastFiles.files())));
            String sql = "SELECT count(*), sum(extendedprice * discount) FROM %s TABLESAMPLE SYSTEM (" + percent + ")";
            for (int repetition = 1; repetition <= options.repetitions(); repetition++) {
                table.add(item, QBEAST, cluster.measure(sql.formatted(qbeast)));
            }
        }
        double rows = qbeastFiles.rows();
        for (Map.Entry<String, String> range : ranges.entrySet()) {
            String item = range.getKey();
            double selectivity = cluster.number("SELECT count(*) FROM %s WHERE %s".formatted(plain, range.getValue())) / rows;
            table.add(item, GOAL, "selectivity", selectivity);
            table.add(item, GOAL, "input_bytes", 2 * selectivity * qbeastFiles.bytes() + averageFile);
            table.add(item, GOAL, "splits", Math.ceil(2 * selectivity * qbeastFiles.files()) + 1);
            table.add(item, GOAL, "input_rows", 4 * selectivity * rows);
            String sql = "SELECT count(*), sum(extendedprice * discount) FROM %s WHERE " + range.getValue();
            for (int repetition = 1; repetition <= options.repetitions(); repetition++) {
                for (Map.Entry<String, String> variant : tables.entrySet()) {
                    table.add(item, variant.getKey(), cluster.measure(sql.formatted(variant.getValue())));
                }
            }
        }
        List<String> lines = new ArrayList<>();
        for (String item : table.items()) {
            lines.add("%s %s (splits %s, rows %s)".formatted(item,
                    table.ratio(item, QBEAST, "input_bytes").map(SuiteReport::formatRatio).orElse("—"),
                    table.ratio(item, QBEAST, "splits").map(SuiteReport::formatRatio).orElse("—"),
                    table.ratio(item, QBEAST, "input_rows").map(SuiteReport::formatRatio).orElse("—")));
        }
        report.headline("read-side goals, qbeast bytes ÷ goal (≤ 1.00× meets it): " + String.join("; ", lines));
    }
}

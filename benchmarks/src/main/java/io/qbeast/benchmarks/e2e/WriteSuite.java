package io.qbeast.benchmarks.e2e;

import io.qbeast.benchmarks.e2e.BenchmarkContext.TableFiles;
import io.qbeast.benchmarks.e2e.ResultTable.Unit;

import java.sql.SQLException;
import java.util.List;
import java.util.Locale;

import static io.qbeast.benchmarks.e2e.BenchmarkContext.SCHEMA;

/**
 * Suite 1: {@code CREATE TABLE AS SELECT} of TPC-H lineitem into qbeast indexed on two columns,
 * stock Iceberg unclustered and stock Iceberg {@code sorted_by} the same two columns.
 */
public final class WriteSuite
{
    static final String INDEXED = "shipdate, partkey";
    static final String QBEAST = "qbeast (2 columns)";
    static final String ICEBERG = "iceberg unclustered";
    static final String SORTED = "iceberg sorted_by";

    private WriteSuite() {}

    public static SuiteReport run(BenchmarkContext context)
            throws SQLException
    {
        BenchmarkOptions options = context.options();
        String scale = BenchmarkOptions.scaleLabel(options.scale());
        String source = context.stagedLineitem(options.scale());
        TableFiles sourceFiles = context.files(source);
        String indexedArray = "ARRAY['shipdate', 'partkey']";

        SuiteReport report = new SuiteReport("write", "Write: TPC-H lineitem sf%s into qbeast vs stock Iceberg".formatted(scale));
        report.setup("source: `%s` (%,d rows, %d files, %s), an unclustered Iceberg copy of `tpch.%s.lineitem`, so every writer reads the same Parquet input".formatted(
                source, sourceFiles.rows(), sourceFiles.files(), SuiteReport.bytes(sourceFiles.bytes()), BenchmarkOptions.tpchSchema(options.scale())));
        report.setup("qbeast: `CREATE TABLE qbeast.%s.t WITH (indexed_columns = %s) AS SELECT * FROM source` (default cube_size, 1,000,000)".formatted(SCHEMA, indexedArray));
        report.setup("iceberg: `CREATE TABLE iceberg.%s.t AS SELECT * FROM source`; sorted: `WITH (sorted_by = %s)`; both ZSTD Parquet like qbeast".formatted(SCHEMA, indexedArray));
        report.setup("%d repetitions, variants interleaved in each repetition; CPU is the query's total CPU time (reading the source, writing, committing)".formatted(options.repetitions()));

        ResultTable table = report.table(new ResultTable("CTAS of lineitem sf" + scale, "", ICEBERG)
                .variants(QBEAST, SORTED)
                .metric("cpu_ms", "CPU time", Unit.MILLIS)
                .metric("wall_ms", "wall time", Unit.MILLIS)
                .metric("rows_per_cpu_s", "rows per CPU second (per core)", Unit.RATE)
                .metric("written_bytes", "bytes written (query stats)", Unit.BYTES)
                .metric("files", "data files", Unit.COUNT)
                .metric("table_bytes", "data file bytes ($files)", Unit.BYTES)
                .chart("cpu_ms")
                .chart("wall_ms")
                .chart("files"));
        String item = "lineitem sf" + scale;
        List<String[]> layouts = List.of(
                new String[] {ICEBERG, "iceberg.%s.w_iceberg".formatted(SCHEMA), ""},
                new String[] {QBEAST, "qbeast.%s.w_qbeast".formatted(SCHEMA), "WITH (indexed_columns = %s) ".formatted(indexedArray)},
                new String[] {SORTED, "iceberg.%s.w_sorted".formatted(SCHEMA), "WITH (sorted_by = %s) ".formatted(indexedArray)});
        if (!options.smoke()) {
            // JIT warm-up of every write path on a small source, not measured
            String warmUp = context.stagedLineitem(Math.min(options.scale(), 0.1));
            for (String[] layout : layouts) {
                context.log("write: warm-up %s", layout[0]);
                context.drop(layout[1]);
                context.cluster().execute("CREATE TABLE %s %sAS SELECT * FROM %s".formatted(layout[1], layout[2], warmUp));
                context.drop(layout[1]);
            }
        }
        for (int repetition = 1; repetition <= options.repetitions(); repetition++) {
            for (String[] layout : layouts) {
                String variant = layout[0];
                String target = layout[1];
                context.drop(target);
                context.log("write %s, repetition %d", variant, repetition);
                QueryMetrics metrics = context.cluster().measure("CREATE TABLE %s %sAS SELECT * FROM %s".formatted(target, layout[2], source));
                TableFiles files = context.files(target);
                if (files.rows() != sourceFiles.rows()) {
                    throw new IllegalStateException("%s holds %d rows, the source %d".formatted(target, files.rows(), sourceFiles.rows()));
                }
                table.add(item, variant, metrics);
                table.add(item, variant, "rows_per_cpu_s", files.rows() / (metrics.cpuMillis() / 1000));
                table.add(item, variant, "files", files.files());
                table.add(item, variant, "table_bytes", files.bytes());
                context.drop(target);
            }
        }
        table.ratio(item, QBEAST, "cpu_ms").ifPresent(ratio -> report.headline(
                "qbeast write CPU = **%s** of unclustered Iceberg (goal ≤ 1.15×; the Spark original adds ~48%%, i.e. 1.48×)".formatted(SuiteReport.formatRatio(ratio))));
        table.ratio(item, SORTED, "cpu_ms").ifPresent(ratio -> report.headline(
                "Iceberg sorted_by write CPU = %s of unclustered Iceberg".formatted(SuiteReport.formatRatio(ratio))));
        table.ratio(item, QBEAST, "wall_ms").ifPresent(ratio -> report.headline(
                "qbeast write wall time = %s of unclustered Iceberg".formatted(SuiteReport.formatRatio(ratio))));
        table.ratio(item, QBEAST, "table_bytes").ifPresent(ratio -> report.headline(String.format(Locale.ROOT,
                "qbeast data bytes = %s of unclustered Iceberg (includes the two hidden index columns)", SuiteReport.formatRatio(ratio))));
        return report;
    }
}

package io.qbeast.benchmarks.e2e;

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
 * Suite 6: row-level {@code DELETE} of TPC-H lineitem, qbeast (merge-on-read with Iceberg v2
 * position delete files; a data file every row of which goes is removed instead) against the
 * stock Iceberg connector (format version 2, position deletes), and the queries after it. Each
 * case deletes from a fresh copy of the staged source: 1% and 10% of the rows by a predicate the
 * layouts do not cluster ({@code orderkey % 100 = 0}, {@code orderkey % 10 = 0}), and 1% by a range
 * of an indexed column ({@code shipdate}), where clustering lets the DELETE read and touch less.
 * Measured: the DELETE (CPU, wall, bytes read, delete files and bytes written, data files
 * touched and removed), four queries after it, an optimize (which rewrites the live rows and
 * drops the delete files) and the same queries after that. Every query result is checked against
 * the same query over the source without the deleted rows before anything is reported.
 */
public final class DeleteSuite
{
    static final String QBEAST = "qbeast";
    static final String ICEBERG = "iceberg unclustered";
    static final String INDEXED = "ARRAY['shipdate', 'quantity', 'discount']";
    /** The item of the queries on a fresh copy, before any DELETE. */
    static final String NO_DELETE = "no DELETE";
    static final String SAMPLE_QUERY = "SYSTEM (1)";

    /** One DELETE: how it is named in the reports and its {@code WHERE}. */
    record Case(String name, String predicate) {}

    /** A query after the DELETE ({@code %s}: the table); {@code qbeastOnly}: a sample, checked against the weight filter instead. */
    record Query(String name, String sql, boolean qbeastOnly) {}

    static final List<Case> CASES = List.of(
            new Case("orderkey % 100 = 0 (1%)", "orderkey % 100 = 0"),
            new Case("orderkey % 10 = 0 (10%)", "orderkey % 10 = 0"),
            // 25 of the 2,526 shipdates: ~1% of the rows
            new Case("shipdate 25 days (1%)", "shipdate >= DATE '1995-03-01' AND shipdate < DATE '1995-03-26'"));

    static final List<Query> QUERIES = List.of(
            new Query("count(*)", "SELECT count(*) FROM %s", false),
            new Query("revenue by returnflag", "SELECT returnflag, sum(extendedprice * (1 - discount)), count(*) FROM %s GROUP BY returnflag ORDER BY returnflag", false),
            // two months around the deleted shipdate range
            new Query("shipdate 2 months", "SELECT count(*), sum(quantity) FROM %s WHERE shipdate >= DATE '1995-02-15' AND shipdate < DATE '1995-04-15'", false),
            new Query(SAMPLE_QUERY, "SELECT count(*), sum(extendedprice) FROM %s TABLESAMPLE SYSTEM (1)", true));

    private DeleteSuite() {}

    /** The data and delete files of a table, from the stock connector's {@code $files} ({@code content} 0: data, else deletes). */
    record FileCounts(long dataFiles, long dataBytes, long deleteFiles, long deleteBytes, long deleteRecords) {}

    /** The phase of the queries after the optimize that followed a case's DELETE. */
    static String optimized(String caseName)
    {
        return caseName + " + optimize";
    }

    static String item(String phase, String query)
    {
        return phase + " · " + query;
    }

    public static SuiteReport run(BenchmarkContext context)
            throws SQLException
    {
        BenchmarkOptions options = context.options();
        BenchmarkCluster cluster = context.cluster();
        String scale = BenchmarkOptions.scaleLabel(options.scale());
        String source = context.stagedLineitem(options.scale());
        long cubeSize = options.smoke() ? 500 : 50_000;
        long sourceRows = (long) cluster.number("SELECT count(*) FROM " + source);

        Map<String, String> tables = new LinkedHashMap<>();
        tables.put(ICEBERG, "iceberg.%s.d_iceberg".formatted(SCHEMA));
        tables.put(QBEAST, "qbeast.%s.d_qbeast".formatted(SCHEMA));
        Map<String, String> create = new LinkedHashMap<>();
        create.put(ICEBERG, "CREATE TABLE %s WITH (format_version = 2) AS SELECT * FROM %s");
        create.put(QBEAST, "CREATE TABLE %%s WITH (indexed_columns = %s, cube_size = %d) AS SELECT * FROM %%s".formatted(INDEXED, cubeSize));
        Map<String, String> optimize = new LinkedHashMap<>();
        // Trino's Iceberg optimize rewrites the files that have deletes (and those under 100 MB)
        optimize.put(ICEBERG, "ALTER TABLE %s EXECUTE optimize");
        // qbeast's default mode rewrites only fragmented cubes; 'all' rewrites the live rows and drops every delete file
        optimize.put(QBEAST, "ALTER TABLE %s EXECUTE optimize(mode => 'all')");

        SuiteReport report = new SuiteReport("delete", "Delete: row-level DELETE of TPC-H lineitem sf%s in qbeast vs stock Iceberg, and queries after it".formatted(scale));
        report.setup("source: `%s` (%,d rows), the staged unclustered Iceberg copy of `tpch.%s.lineitem`; every case deletes from a fresh CTAS copy of it (not cumulative)".formatted(source, sourceRows, BenchmarkOptions.tpchSchema(options.scale())));
        report.setup("%s: `%s`; %s: `%s` (the sample suite's layout)".formatted(ICEBERG, create.get(ICEBERG).formatted("t", "source"), QBEAST, create.get(QBEAST).formatted("t", "source")));
        report.setup("optimize after the DELETE: %s `%s`, %s `%s`".formatted(ICEBERG, optimize.get(ICEBERG).formatted("t"), QBEAST, optimize.get(QBEAST).formatted("t")));

        // the truth: every query over the source less the rows a case deletes
        Map<String, Long> expectedCounts = new LinkedHashMap<>();
        Map<String, List<List<Object>>> expected = new LinkedHashMap<>();
        List<String> phases = new ArrayList<>();
        phases.add(NO_DELETE);
        for (Case deletion : CASES) {
            phases.add(deletion.name());
        }
        for (String phase : phases) {
            String live = phase.equals(NO_DELETE) ? source : "(SELECT * FROM %s WHERE NOT (%s))".formatted(source, predicate(phase));
            for (Query query : QUERIES) {
                if (!query.qbeastOnly()) {
                    expected.put(item(phase, query.name()), cluster.query(query.sql().formatted(live)));
                }
            }
            expectedCounts.put(phase, ((Number) expected.get(item(phase, "count(*)")).getFirst().getFirst()).longValue());
        }
        for (Case deletion : CASES) {
            long deleted = sourceRows - expectedCounts.get(deletion.name());
            report.setup("`DELETE FROM t WHERE %s`: %,d rows (%.2f%% of the table)".formatted(deletion.predicate(), deleted, 100.0 * deleted / sourceRows));
        }
        report.setup("queries after it: %s".formatted(String.join("; ", QUERIES.stream().map(query -> "%s `%s`".formatted(query.name(), query.sql().formatted("t"))).toList())));
        report.setup("%d repetitions; in each, every case on both variants in turn; the queries also run once per repetition on a fresh copy (item `%s`)".formatted(options.repetitions(), NO_DELETE));

        ResultTable deletes = report.table(new ResultTable("DELETE",
                "*Data files touched*: data files holding a deleted row (`count(DISTINCT \"$path\")` of the predicate, before the DELETE). "
                        + "Delete files and their bytes and records (positions) are those in `$files` (`content` ≠ 0) after the DELETE; "
                        + "*data files removed*: data files gone from `$files` (a file every row of which was deleted). "
                        + "Bytes read and written are the query's physical input and written bytes.",
                ICEBERG)
                .variants(QBEAST)
                .metric("cpu_ms", "CPU time", Unit.MILLIS)
                .metric("wall_ms", "wall time", Unit.MILLIS)
                .metric("input_bytes", "bytes read", Unit.BYTES)
                .metric("written_bytes", "bytes written (query stats)", Unit.BYTES)
                .metric("splits", "table-scan splits", Unit.COUNT)
                .metric("row_groups_read", "row groups read (qbeast)", Unit.COUNT)
                .metric("data_files", "data files before", Unit.COUNT)
                .metric("files_touched", "data files touched", Unit.COUNT)
                .metric("data_files_removed", "data files removed", Unit.COUNT)
                .metric("delete_files", "delete files written", Unit.COUNT)
                .metric("delete_bytes", "delete file bytes", Unit.BYTES)
                .metric("delete_records", "delete file records (positions)", Unit.COUNT)
                .chart("cpu_ms")
                .chart("input_bytes")
                .chart("delete_files"));
        ResultTable afterDelete = report.table(new ResultTable("Queries after the DELETE",
                "Physical input bytes, splits and CPU of each query on the table the case deleted from (`%s`: a fresh copy); `%s` on qbeast only, checked equal to `WHERE _qbeast_weight < bound` on the same table.".formatted(NO_DELETE, SAMPLE_QUERY),
                ICEBERG)
                .variants(QBEAST)
                .metric("input_bytes", "physical input bytes", Unit.BYTES)
                .metric("splits", "table-scan splits", Unit.COUNT)
                .metric("cpu_ms", "CPU time", Unit.MILLIS)
                .metric("wall_ms", "wall time", Unit.MILLIS)
                .chart("input_bytes")
                .chart("cpu_ms")
                .logScaleCharts());
        ResultTable optimizes = report.table(new ResultTable("Optimize after the DELETE", "Data and delete files in `$files` after the optimize.", ICEBERG)
                .variants(QBEAST)
                .metric("cpu_ms", "CPU time", Unit.MILLIS)
                .metric("wall_ms", "wall time", Unit.MILLIS)
                .metric("written_bytes", "bytes written (query stats)", Unit.BYTES)
                .metric("data_files_after", "data files after", Unit.COUNT)
                .metric("delete_files_after", "delete files after", Unit.COUNT)
                .chart("cpu_ms"));
        ResultTable afterOptimize = report.table(new ResultTable("Queries after the optimize", "The same queries once the optimize rewrote the table.", ICEBERG)
                .variants(QBEAST)
                .metric("input_bytes", "physical input bytes", Unit.BYTES)
                .metric("splits", "table-scan splits", Unit.COUNT)
                .metric("cpu_ms", "CPU time", Unit.MILLIS)
                .metric("wall_ms", "wall time", Unit.MILLIS)
                .chart("input_bytes")
                .logScaleCharts());

        if (!options.smoke()) {
            // JIT warm-up of both DELETE, optimize and read paths on a small source, not measured
            String warmUp = context.stagedLineitem(Math.min(options.scale(), 0.1));
            for (String variant : tables.keySet()) {
                context.log("delete: warm-up %s", variant);
                String table = tables.get(variant);
                context.drop(table);
                cluster.execute(create.get(variant).formatted(table, warmUp));
                cluster.execute("DELETE FROM %s WHERE %s".formatted(table, CASES.getFirst().predicate()));
                for (Query query : QUERIES) {
                    cluster.query(query.sql().formatted(table));
                }
                cluster.execute(optimize.get(variant).formatted(table));
                context.drop(table);
            }
        }

        long weightBound = Weight.upperBound(0.01);
        int checked = 0;
        for (int repetition = 1; repetition <= options.repetitions(); repetition++) {
            for (Case deletion : CASES) {
                for (Map.Entry<String, String> variant : tables.entrySet()) {
                    String name = variant.getKey();
                    String table = variant.getValue();
                    context.log("delete: %s on %s, repetition %d", deletion.name(), name, repetition);
                    context.drop(table);
                    cluster.execute(create.get(name).formatted(table, source));
                    if (deletion == CASES.getFirst()) {
                        checked += queries(cluster, afterDelete, NO_DELETE, NO_DELETE, name, table, expected, weightBound);
                    }
                    FileCounts before = files(cluster, table);
                    long touched = (long) cluster.number("SELECT count(DISTINCT \"$path\") FROM %s WHERE %s".formatted(table, deletion.predicate()));
                    QueryMetrics metrics = cluster.measure("DELETE FROM %s WHERE %s".formatted(table, deletion.predicate()));
                    FileCounts after = files(cluster, table);
                    deletes.add(deletion.name(), name, metrics);
                    deletes.add(deletion.name(), name, "data_files", before.dataFiles());
                    deletes.add(deletion.name(), name, "files_touched", touched);
                    deletes.add(deletion.name(), name, "data_files_removed", before.dataFiles() - after.dataFiles());
                    deletes.add(deletion.name(), name, "delete_files", after.deleteFiles() - before.deleteFiles());
                    deletes.add(deletion.name(), name, "delete_bytes", after.deleteBytes() - before.deleteBytes());
                    deletes.add(deletion.name(), name, "delete_records", after.deleteRecords() - before.deleteRecords());
                    checked += queries(cluster, afterDelete, deletion.name(), deletion.name(), name, table, expected, weightBound);

                    QueryMetrics optimized = cluster.measure(optimize.get(name).formatted(table));
                    FileCounts rewritten = files(cluster, table);
                    optimizes.add(deletion.name(), name, optimized);
                    optimizes.add(deletion.name(), name, "data_files_after", rewritten.dataFiles());
                    optimizes.add(deletion.name(), name, "delete_files_after", rewritten.deleteFiles());
                    checked += queries(cluster, afterOptimize, optimized(deletion.name()), deletion.name(), name, table, expected, weightBound);
                    context.drop(table);
                }
            }
        }
        report.note("checked: all %d query results (both variants, after each DELETE and after each optimize) equal the same query over the source without the deleted rows (counts %s); every qbeast `%s` equals `WHERE _qbeast_weight < %d` on the same table".formatted(
                checked, expectedCounts.values().stream().map("%,d"::formatted).toList(), SAMPLE_QUERY, weightBound));

        for (Case deletion : CASES) {
            String item = deletion.name();
            report.headline(String.format(Locale.ROOT, "DELETE %s: qbeast CPU %s (%s of Iceberg), wall %s, bytes read %s; delete files %s vs %s, data files touched %s vs %s, removed %s vs %s",
                    item,
                    median(deletes, item, QBEAST, "cpu_ms", Unit.MILLIS), ratio(deletes, item, "cpu_ms"),
                    ratio(deletes, item, "wall_ms"), ratio(deletes, item, "input_bytes"),
                    median(deletes, item, QBEAST, "delete_files", Unit.COUNT), median(deletes, item, ICEBERG, "delete_files", Unit.COUNT),
                    median(deletes, item, QBEAST, "files_touched", Unit.COUNT), median(deletes, item, ICEBERG, "files_touched", Unit.COUNT),
                    median(deletes, item, QBEAST, "data_files_removed", Unit.COUNT), median(deletes, item, ICEBERG, "data_files_removed", Unit.COUNT)));
        }
        for (String phase : phases) {
            List<String> perQuery = new ArrayList<>();
            for (Query query : QUERIES) {
                if (!query.qbeastOnly()) {
                    String item = item(phase, query.name());
                    perQuery.add("%s bytes %s, CPU %s".formatted(query.name(), ratio(afterDelete, item, "input_bytes"), ratio(afterDelete, item, "cpu_ms")));
                }
            }
            report.headline("queries after %s, qbeast ÷ Iceberg: %s; qbeast %s reads %s".formatted(
                    phase.equals(NO_DELETE) ? "no DELETE" : "DELETE " + phase, String.join("; ", perQuery),
                    SAMPLE_QUERY, median(afterDelete, item(phase, SAMPLE_QUERY), QBEAST, "input_bytes", Unit.BYTES)));
        }
        for (Case deletion : CASES) {
            String item = deletion.name();
            List<String> perQuery = new ArrayList<>();
            for (Query query : QUERIES) {
                if (!query.qbeastOnly()) {
                    String queryItem = item(optimized(item), query.name());
                    perQuery.add("%s bytes %s, CPU %s".formatted(query.name(), ratio(afterOptimize, queryItem, "input_bytes"), ratio(afterOptimize, queryItem, "cpu_ms")));
                }
            }
            report.headline("optimize after %s: qbeast CPU %s (%s of Iceberg's optimize), delete files left %s vs %s; queries after it, qbeast ÷ Iceberg: %s".formatted(item,
                    median(optimizes, item, QBEAST, "cpu_ms", Unit.MILLIS), ratio(optimizes, item, "cpu_ms"),
                    median(optimizes, item, QBEAST, "delete_files_after", Unit.COUNT), median(optimizes, item, ICEBERG, "delete_files_after", Unit.COUNT),
                    String.join("; ", perQuery)));
        }
        return report;
    }

    /**
     * Runs every query on {@code target}, checks its rows against those expected of {@code expectedPhase} and records its
     * metrics under {@code phase}; returns how many results were checked.
     */
    private static int queries(BenchmarkCluster cluster, ResultTable table, String phase, String expectedPhase, String variant, String target, Map<String, List<List<Object>>> expected, long weightBound)
            throws SQLException
    {
        int checked = 0;
        for (Query query : QUERIES) {
            if (query.qbeastOnly() && !variant.equals(QBEAST)) {
                continue;
            }
            String item = item(phase, query.name());
            BenchmarkCluster.Measured measured = cluster.run(query.sql().formatted(target));
            List<List<Object>> truth = query.qbeastOnly()
                    ? cluster.query("SELECT count(*), sum(extendedprice) FROM %s WHERE _qbeast_weight < %d".formatted(target, weightBound))
                    : expected.get(item(expectedPhase, query.name()));
            if (!QuerySuite.sameRows(truth, measured.rows())) {
                throw new IllegalStateException("%s on %s (%s) returned %s, expected %s".formatted(query.name(), variant, phase, measured.rows(), truth));
            }
            checked++;
            table.add(item, variant, measured.metrics());
        }
        return checked;
    }

    private static String predicate(String caseName)
    {
        return CASES.stream().filter(deletion -> deletion.name().equals(caseName)).findFirst().orElseThrow().predicate();
    }

    static FileCounts files(BenchmarkCluster cluster, String table)
            throws SQLException
    {
        String name = table.substring(table.lastIndexOf('.') + 1);
        long dataFiles = 0;
        long dataBytes = 0;
        long deleteFiles = 0;
        long deleteBytes = 0;
        long deleteRecords = 0;
        for (List<Object> row : cluster.query("SELECT content, count(*), sum(file_size_in_bytes), sum(record_count) FROM iceberg.%s.\"%s$files\" GROUP BY content".formatted(SCHEMA, name))) {
            long files = ((Number) row.get(1)).longValue();
            long bytes = ((Number) row.get(2)).longValue();
            if (((Number) row.get(0)).intValue() == 0) {
                dataFiles += files;
                dataBytes += bytes;
            }
            else {
                deleteFiles += files;
                deleteBytes += bytes;
                deleteRecords += ((Number) row.get(3)).longValue();
            }
        }
        return new FileCounts(dataFiles, dataBytes, deleteFiles, deleteBytes, deleteRecords);
    }

    private static String median(ResultTable table, String item, String variant, String metric, Unit unit)
    {
        return table.stats(item, variant, metric).map(stats -> SuiteReport.format(stats.median(), unit)).orElse("—");
    }

    private static String ratio(ResultTable table, String item, String metric)
    {
        return table.ratio(item, QBEAST, metric).map(SuiteReport::formatRatio).orElse("—");
    }
}

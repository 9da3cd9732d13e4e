package io.qbeast.benchmarks.e2e;

import io.qbeast.benchmarks.e2e.BenchmarkContext.TableFiles;
import io.qbeast.benchmarks.e2e.ResultTable.Unit;

import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;

import static io.qbeast.benchmarks.e2e.BenchmarkContext.SCHEMA;

/**
 * Planning overhead (issue #4): one qbeast table of many small files (written through the
 * catalog {@code qbeast_small}, whose target file size is 1 kB), planned and read through the
 * qbeast connector and through Trino's stock Iceberg connector, which reads the same table from
 * the same Iceberg catalog.
 */
public final class PlanningSuite
{
    static final String ICEBERG = "iceberg (stock connector)";
    static final String QBEAST = "qbeast";

    private PlanningSuite() {}

    public static SuiteReport run(BenchmarkContext context)
            throws SQLException
    {
        BenchmarkOptions options = context.options();
        BenchmarkCluster cluster = context.cluster();
        int targetFiles = options.planningFiles();
        int repetitions = Math.max(5, options.repetitions());
        String name = "many_files";
        String writer = "qbeast_small.%s.%s".formatted(SCHEMA, name);

        // rows per 1 kB file, measured on a small sample of the same data
        context.drop(writer);
        cluster.execute("CREATE TABLE %s WITH (indexed_columns = ARRAY['orderdate', 'custkey'], cube_size = 1000) AS SELECT * FROM tpch.sf1.orders WHERE orderkey <= 8000".formatted(writer));
        TableFiles probe = context.files(writer);
        double rowsPerFile = (double) probe.rows() / probe.files();
        long rows = Math.round(targetFiles * rowsPerFile);
        context.drop(writer);
        context.log("planning: writing about %d files (%d rows, %.1f rows per file)", targetFiles, rows, rowsPerFile);
        QueryMetrics load = cluster.measure("CREATE TABLE %s WITH (indexed_columns = ARRAY['orderdate', 'custkey'], cube_size = 1000) AS SELECT * FROM tpch.sf1.orders ORDER BY orderkey LIMIT %d".formatted(writer, rows));
        TableFiles files = context.files(writer);

        SuiteReport report = new SuiteReport("planning", "Planning: a qbeast table of %,d files through qbeast and the stock Iceberg connector".formatted(files.files()));
        report.setup("table: `CREATE TABLE ... WITH (indexed_columns = ARRAY['orderdate', 'custkey'], cube_size = 1000) AS SELECT * FROM tpch.sf1.orders ORDER BY orderkey LIMIT %,d` through a qbeast catalog with `qbeast.target-file-size=1kB`: %,d files, %,d row groups, %s, %,d rows; written in %s wall, %s CPU".formatted(
                rows, files.files(), files.rowGroups(), SuiteReport.bytes(files.bytes()), files.rows(), SuiteReport.format(load.wallMillis(), Unit.MILLIS), SuiteReport.format(load.cpuMillis(), Unit.MILLIS)));
        report.setup("the same table is read as `qbeast.%s.%s` and as `iceberg.%s.%s` (stock connector, same PostgreSQL Iceberg catalog); one warm-up per statement and catalog, then %d repetitions, catalogs interleaved".formatted(SCHEMA, name, SCHEMA, name, repetitions));
        report.setup("planning time is Trino's `queryStats.planningTime` (analysis, optimizer rules, table statistics, pushdown); split enumeration over the manifests happens after planning and is part of the wall time");

        ResultTable table = report.table(new ResultTable("planning and split enumeration", "", ICEBERG)
                .variants(QBEAST)
                .metric("planning_ms", "planning time (query stats)", Unit.MILLIS)
                .metric("wall_ms", "wall time", Unit.MILLIS)
                .metric("splits", "table-scan splits", Unit.COUNT)
                .metric("row_groups", "row groups of the table (Iceberg split offsets)", Unit.COUNT)
                .chart("planning_ms")
                .chart("wall_ms"));
        Map<String, String> statements = new LinkedHashMap<>();
        statements.put("EXPLAIN point query", "EXPLAIN SELECT count(*) FROM %s WHERE custkey = 1234");
        statements.put("count(*) full scan", "SELECT count(*) FROM %s WHERE totalprice > 0");
        statements.put("range on orderdate", "SELECT count(*) FROM %s WHERE orderdate BETWEEN DATE '1995-01-01' AND DATE '1995-01-31'");
        Map<String, String> catalogs = new LinkedHashMap<>();
        catalogs.put(ICEBERG, "iceberg.%s.%s".formatted(SCHEMA, name));
        catalogs.put(QBEAST, "qbeast.%s.%s".formatted(SCHEMA, name));
        for (Map.Entry<String, String> statement : statements.entrySet()) {
            for (String table1 : catalogs.values()) {
                cluster.execute(statement.getValue().formatted(table1));
            }
        }
        for (int repetition = 1; repetition <= repetitions; repetition++) {
            context.log("planning: repetition %d", repetition);
            for (Map.Entry<String, String> statement : statements.entrySet()) {
                for (Map.Entry<String, String> catalog : catalogs.entrySet()) {
                    QueryMetrics metrics = cluster.measure(statement.getValue().formatted(catalog.getValue()));
                    table.add(statement.getKey(), catalog.getKey(), metrics);
                }
            }
        }
        // a fact of the table, not a measurement: where the stock connector may cut a file
        table.add("count(*) full scan", ICEBERG, "row_groups", files.rowGroups());
        for (String item : table.items()) {
            report.headline("%s: qbeast planning time = **%s** of the stock Iceberg connector (goal ≤ 1.5×), wall time %s".formatted(item,
                    table.ratio(item, QBEAST, "planning_ms").map(SuiteReport::formatRatio).orElse("—"),
                    table.ratio(item, QBEAST, "wall_ms").map(SuiteReport::formatRatio).orElse("—")));
        }
        report.note("the table is written through `qbeast_small` (1 kB target files) only to make many files cheaply; both readers use their default settings");
        return report;
    }
}

package io.qbeast.benchmarks.e2e;

import io.qbeast.benchmarks.e2e.BenchmarkContext.TableFiles;
import io.qbeast.benchmarks.e2e.ResultTable.Unit;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import static io.qbeast.benchmarks.e2e.BenchmarkContext.SCHEMA;

/**
 * Suite 2: an SSB-shaped flat table built from TPC-H with SQL (anchors §4.2: lineorder ⋈
 * customer ⋈ supplier ⋈ part with nations and regions; cities are 9 characters of the nation
 * plus a digit, categories and brands derived from the TPC-H brand), the 13 SSB queries in
 * their flat form with explicit date ranges, on qbeast (indexed on the SSB filter columns),
 * Iceberg unclustered and Iceberg sorted_by the same columns. A second qbeast table is written in
 * two statements, a CTAS of half the orders and an INSERT of the other half, which the connector
 * routes to writers by region of the first half's revision.
 */
public final class QuerySuite
{
    static final String ICEBERG = "iceberg unclustered";
    static final String QBEAST = "qbeast";
    static final String SORTED = "iceberg sorted_by";
    static final String QBEAST_INSERT = "qbeast CTAS + INSERT";
    static final List<String> INDEXED = List.of("lo_orderdate", "lo_discount", "lo_quantity", "c_city", "s_city", "p_brand");

    private QuerySuite() {}

    static String flatTableSql(String tpch)
    {
        return """
                SELECT
                    l.orderkey AS lo_orderkey,
                    l.linenumber AS lo_linenumber,
                    o.custkey AS lo_custkey,
                    l.partkey AS lo_partkey,
                    l.suppkey AS lo_suppkey,
                    o.orderdate AS lo_orderdate,
                    o.orderpriority AS lo_orderpriority,
                    CAST(l.quantity AS integer) AS lo_quantity,
                    l.extendedprice AS lo_extendedprice,
                    CAST(round(l.discount * 100) AS integer) AS lo_discount,
                    l.extendedprice * (1 - l.discount) AS lo_revenue,
                    0.6 * p.retailprice AS lo_supplycost,
                    CAST(round(l.tax * 100) AS integer) AS lo_tax,
                    l.commitdate AS lo_commitdate,
                    l.shipmode AS lo_shipmode,
                    c.name AS c_name,
                    rpad(substr(cn.name, 1, 9), 9, ' ') || CAST(c.custkey %% 10 AS varchar) AS c_city,
                    cn.name AS c_nation,
                    cr.name AS c_region,
                    c.mktsegment AS c_mktsegment,
                    s.name AS s_name,
                    rpad(substr(sn.name, 1, 9), 9, ' ') || CAST(s.suppkey %% 10 AS varchar) AS s_city,
                    sn.name AS s_nation,
                    sr.name AS s_region,
                    p.name AS p_name,
                    'MFGR#' || substr(p.brand, 7, 1) AS p_mfgr,
                    'MFGR#' || substr(p.brand, 7, 2) AS p_category,
                    'MFGR#' || substr(p.brand, 7, 2) || CAST(1 + p.partkey %% 40 AS varchar) AS p_brand,
                    p.type AS p_type,
                    p.size AS p_size,
                    p.container AS p_container
                FROM tpch.%1$s.lineitem l
                JOIN tpch.%1$s.orders o ON l.orderkey = o.orderkey
                JOIN tpch.%1$s.customer c ON o.custkey = c.custkey
                JOIN tpch.%1$s.supplier s ON l.suppkey = s.suppkey
                JOIN tpch.%1$s.part p ON l.partkey = p.partkey
                JOIN tpch.%1$s.nation cn ON c.nationkey = cn.nationkey
                JOIN tpch.%1$s.region cr ON cn.regionkey = cr.regionkey
                JOIN tpch.%1$s.nation sn ON s.nationkey = sn.nationkey
                JOIN tpch.%1$s.region sr ON sn.regionkey = sr.regionkey
                """.formatted(tpch);
    }

    /** The 13 SSB queries on the flat table ({@code %s}); years as explicit date ranges so they reach the connectors. */
    static Map<String, String> queries()
    {
        Map<String, String> queries = new LinkedHashMap<>();
        queries.put("Q1.1", "SELECT sum(lo_extendedprice * lo_discount) AS revenue FROM %s WHERE lo_orderdate >= DATE '1993-01-01' AND lo_orderdate < DATE '1994-01-01' AND lo_discount BETWEEN 1 AND 3 AND lo_quantity < 25");
        queries.put("Q1.2", "SELECT sum(lo_extendedprice * lo_discount) AS revenue FROM %s WHERE lo_orderdate BETWEEN DATE '1994-01-01' AND DATE '1994-01-31' AND lo_discount BETWEEN 4 AND 6 AND lo_quantity BETWEEN 26 AND 35");
        queries.put("Q1.3", "SELECT sum(lo_extendedprice * lo_discount) AS revenue FROM %s WHERE lo_orderdate BETWEEN DATE '1994-02-07' AND DATE '1994-02-13' AND lo_discount BETWEEN 5 AND 7 AND lo_quantity BETWEEN 26 AND 35");
        queries.put("Q2.1", "SELECT year(lo_orderdate) AS year, p_brand, sum(lo_revenue) AS revenue FROM %s WHERE p_category = 'MFGR#12' AND s_region = 'AMERICA' GROUP BY year(lo_orderdate), p_brand ORDER BY year, p_brand");
        queries.put("Q2.2", "SELECT year(lo_orderdate) AS year, p_brand, sum(lo_revenue) AS revenue FROM %s WHERE p_brand BETWEEN 'MFGR#2221' AND 'MFGR#2228' AND s_region = 'ASIA' GROUP BY year(lo_orderdate), p_brand ORDER BY year, p_brand");
        queries.put("Q2.3", "SELECT year(lo_orderdate) AS year, p_brand, sum(lo_revenue) AS revenue FROM %s WHERE p_brand = 'MFGR#2239' AND s_region = 'EUROPE' GROUP BY year(lo_orderdate), p_brand ORDER BY year, p_brand");
        queries.put("Q3.1", "SELECT c_nation, s_nation, year(lo_orderdate) AS year, sum(lo_revenue) AS revenue FROM %s WHERE c_region = 'ASIA' AND s_region = 'ASIA' AND lo_orderdate >= DATE '1992-01-01' AND lo_orderdate < DATE '1998-01-01' GROUP BY c_nation, s_nation, year(lo_orderdate) ORDER BY year ASC, revenue DESC");
        queries.put("Q3.2", "SELECT c_city, s_city, year(lo_orderdate) AS year, sum(lo_revenue) AS revenue FROM %s WHERE c_nation = 'UNITED STATES' AND s_nation = 'UNITED STATES' AND lo_orderdate >= DATE '1992-01-01' AND lo_orderdate < DATE '1998-01-01' GROUP BY c_city, s_city, year(lo_orderdate) ORDER BY year ASC, revenue DESC");
        queries.put("Q3.3", "SELECT c_city, s_city, year(lo_orderdate) AS year, sum(lo_revenue) AS revenue FROM %s WHERE c_city IN ('UNITED KI1', 'UNITED KI5') AND s_city IN ('UNITED KI1', 'UNITED KI5') AND lo_orderdate >= DATE '1992-01-01' AND lo_orderdate < DATE '1998-01-01' GROUP BY c_city, s_city, year(lo_orderdate) ORDER BY year ASC, revenue DESC");
        queries.put("Q3.4", "SELECT c_city, s_city, year(lo_orderdate) AS year, sum(lo_revenue) AS revenue FROM %s WHERE c_city IN ('UNITED KI1', 'UNITED KI5') AND s_city IN ('UNITED KI1', 'UNITED KI5') AND lo_orderdate BETWEEN DATE '1997-12-01' AND DATE '1997-12-31' GROUP BY c_city, s_city, year(lo_orderdate) ORDER BY year ASC, revenue DESC");
        queries.put("Q4.1", "SELECT year(lo_orderdate) AS year, c_nation, sum(lo_revenue - lo_supplycost) AS profit FROM %s WHERE c_region = 'AMERICA' AND s_region = 'AMERICA' AND p_mfgr IN ('MFGR#1', 'MFGR#2') GROUP BY year(lo_orderdate), c_nation ORDER BY year, c_nation");
        queries.put("Q4.2", "SELECT year(lo_orderdate) AS year, s_nation, p_category, sum(lo_revenue - lo_supplycost) AS profit FROM %s WHERE c_region = 'AMERICA' AND s_region = 'AMERICA' AND lo_orderdate >= DATE '1997-01-01' AND lo_orderdate < DATE '1999-01-01' AND p_mfgr IN ('MFGR#1', 'MFGR#2') GROUP BY year(lo_orderdate), s_nation, p_category ORDER BY year, s_nation, p_category");
        queries.put("Q4.3", "SELECT year(lo_orderdate) AS year, s_city, p_brand, sum(lo_revenue - lo_supplycost) AS profit FROM %s WHERE c_region = 'AMERICA' AND s_nation = 'UNITED STATES' AND lo_orderdate >= DATE '1997-01-01' AND lo_orderdate < DATE '1999-01-01' AND p_category = 'MFGR#14' GROUP BY year(lo_orderdate), s_city, p_brand ORDER BY year, s_city, p_brand");
        return queries;
    }

    public static SuiteReport run(BenchmarkContext context)
            throws SQLException
    {
        BenchmarkOptions options = context.options();
        BenchmarkCluster cluster = context.cluster();
        String scale = BenchmarkOptions.scaleLabel(options.scale());
        String tpch = BenchmarkOptions.tpchSchema(options.scale());
        long cubeSize = options.smoke() ? 2_000 : 50_000;

        String plain = "iceberg.%s.ssb_flat".formatted(SCHEMA);
        String qbeast = "qbeast.%s.ssb_qbeast".formatted(SCHEMA);
        String sorted = "iceberg.%s.ssb_sorted".formatted(SCHEMA);
        String inserted = "qbeast.%s.ssb_qbeast_insert".formatted(SCHEMA);
        String indexedArray = INDEXED.stream().map(column -> "'" + column + "'").reduce((a, b) -> a + ", " + b).map(list -> "ARRAY[" + list + "]").orElseThrow();

        context.log("query: building the SSB-shaped flat table from tpch.%s", tpch);
        context.drop(plain);
        context.drop(qbeast);
        context.drop(sorted);
        context.drop(inserted);
        cluster.execute("CREATE TABLE " + plain + " AS " + flatTableSql(tpch));
        context.log("query: qbeast copy");
        QueryMetrics qbeastLoad = cluster.measure("CREATE TABLE %s WITH (indexed_columns = %s, cube_size = %d) AS SELECT * FROM %s".formatted(qbeast, indexedArray, cubeSize, plain));
        context.log("query: sorted copy");
        QueryMetrics sortedLoad = cluster.measure("CREATE TABLE %s WITH (sorted_by = %s) AS SELECT * FROM %s".formatted(sorted, indexedArray, plain));
        context.log("query: qbeast copy in two writes");
        QueryMetrics firstHalf = cluster.measure("CREATE TABLE %s WITH (indexed_columns = %s, cube_size = %d) AS SELECT * FROM %s WHERE lo_orderkey %% 2 = 0".formatted(inserted, indexedArray, cubeSize, plain));
        long firstRevisions = revisions(cluster, inserted);
        QueryMetrics secondHalf = cluster.measure("INSERT INTO %s SELECT * FROM %s WHERE lo_orderkey %% 2 = 1".formatted(inserted, plain));
        TableFiles plainFiles = context.files(plain);
        TableFiles qbeastFiles = context.files(qbeast);
        TableFiles sortedFiles = context.files(sorted);
        TableFiles insertedFiles = context.files(inserted);

        SuiteReport report = new SuiteReport("query", "Query: the 13 SSB queries on an SSB-shaped flat table from TPC-H sf" + scale);
        report.setup("flat table: lineitem ⋈ orders ⋈ customer ⋈ supplier ⋈ part ⋈ nation² ⋈ region² of `tpch.%s` with SQL (anchors §4.2), 31 columns, %,d rows; not official SSB data (TPC-H cardinalities), so compare the variants, not published SSB timings".formatted(tpch, plainFiles.rows()));
        report.setup("%s: `%s` as written by the stock connector (CTAS of the join): %d files, %s".formatted(ICEBERG, plain, plainFiles.files(), SuiteReport.bytes(plainFiles.bytes())));
        report.setup("%s: `WITH (indexed_columns = %s, cube_size = %d)`: %d files, %s, %d revisions; CTAS CPU %s, wall %s".formatted(QBEAST, indexedArray, cubeSize, qbeastFiles.files(), SuiteReport.bytes(qbeastFiles.bytes()), revisions(cluster, qbeast),
                SuiteReport.format(qbeastLoad.cpuMillis(), Unit.MILLIS), SuiteReport.format(qbeastLoad.wallMillis(), Unit.MILLIS)));
        report.setup("%s: the same properties, CTAS of the even `lo_orderkey` (CPU %s, wall %s, %d revisions) then INSERT of the odd ones, routed by region (CPU %s, wall %s): %d files, %s, %d revisions".formatted(QBEAST_INSERT,
                SuiteReport.format(firstHalf.cpuMillis(), Unit.MILLIS), SuiteReport.format(firstHalf.wallMillis(), Unit.MILLIS), firstRevisions,
                SuiteReport.format(secondHalf.cpuMillis(), Unit.MILLIS), SuiteReport.format(secondHalf.wallMillis(), Unit.MILLIS),
                insertedFiles.files(), SuiteReport.bytes(insertedFiles.bytes()), revisions(cluster, inserted)));
        report.setup("%s: `WITH (sorted_by = %s)`: %d files, %s; CTAS CPU %s, wall %s".formatted(SORTED, indexedArray, sortedFiles.files(), SuiteReport.bytes(sortedFiles.bytes()),
                SuiteReport.format(sortedLoad.cpuMillis(), Unit.MILLIS), SuiteReport.format(sortedLoad.wallMillis(), Unit.MILLIS)));
        report.setup("queries: the flat (ClickHouse) form of SSB with year/month/week predicates written as date ranges; one warm-up run per query and table, then %d measured repetitions, variants interleaved".formatted(options.repetitions()));

        ResultTable table = report.table(new ResultTable("SSB queries", "Physical input is what the connector read from storage (Parquet pages, footers); splits are the table-scan splits (data files or file pieces opened); files and row groups are qbeast's own counts of the data files its split source kept and the row groups its readers read (the stock connector reports neither: 0).", ICEBERG)
                .variants(QBEAST, SORTED, QBEAST_INSERT)
                .metric("input_bytes", "physical input bytes", Unit.BYTES)
                .metric("input_rows", "physical input rows", Unit.COUNT)
                .metric("splits", "table-scan splits", Unit.COUNT)
                .metric("files_scanned", "data files scanned (qbeast)", Unit.COUNT)
                .metric("row_groups_read", "row groups read (qbeast)", Unit.COUNT)
                .metric("wall_ms", "wall time", Unit.MILLIS)
                .metric("cpu_ms", "CPU time", Unit.MILLIS)
                .chart("input_bytes")
                .chart("splits")
                .chart("wall_ms")
                .logScaleCharts());
        Map<String, String> tables = new LinkedHashMap<>();
        tables.put(ICEBERG, plain);
        tables.put(QBEAST, qbeast);
        tables.put(SORTED, sorted);
        tables.put(QBEAST_INSERT, inserted);
        List<String> mismatches = new ArrayList<>();
        for (Map.Entry<String, String> query : queries().entrySet()) {
            List<List<Object>> expected = null;
            for (Map.Entry<String, String> variant : tables.entrySet()) {
                List<List<Object>> rows = cluster.query(query.getValue().formatted(variant.getValue()));
                if (expected == null) {
                    expected = rows;
                }
                else if (!sameRows(expected, rows)) {
                    mismatches.add(query.getKey() + " on " + variant.getKey());
                }
            }
        }
        if (!mismatches.isEmpty()) {
            throw new IllegalStateException("different results than unclustered Iceberg: " + mismatches);
        }
        report.note("every query returned the same rows on all four tables (checked before measuring)");
        for (int repetition = 1; repetition <= options.repetitions(); repetition++) {
            context.log("query: repetition %d", repetition);
            for (Map.Entry<String, String> query : queries().entrySet()) {
                for (Map.Entry<String, String> variant : tables.entrySet()) {
                    table.add(query.getKey(), variant.getKey(), cluster.measure(query.getValue().formatted(variant.getValue())));
                }
            }
        }

        for (String variant : List.of(QBEAST, SORTED, QBEAST_INSERT)) {
            double sumBytes = 0;
            double sumBase = 0;
            List<String> perQuery = new ArrayList<>();
            for (String item : table.items()) {
                sumBytes += table.stats(item, variant, "input_bytes").orElseThrow().median();
                sumBase += table.stats(item, ICEBERG, "input_bytes").orElseThrow().median();
                perQuery.add(item + " " + table.ratio(item, variant, "input_bytes").map(SuiteReport::formatRatio).orElse("—"));
            }
            report.headline("%s bytes read, all 13 queries: **%s** of unclustered Iceberg; per query: %s".formatted(variant, SuiteReport.formatRatio(sumBytes / sumBase), String.join(", ", perQuery)));
        }
        for (String variant : List.of(QBEAST, SORTED, QBEAST_INSERT)) {
            double sumWall = 0;
            double sumBase = 0;
            for (String item : table.items()) {
                sumWall += table.stats(item, variant, "wall_ms").orElseThrow().median();
                sumBase += table.stats(item, ICEBERG, "wall_ms").orElseThrow().median();
            }
            report.headline(String.format(Locale.ROOT, "%s total wall time of the 13 queries: %s vs %s unclustered (%s)", variant,
                    SuiteReport.format(sumWall, Unit.MILLIS), SuiteReport.format(sumBase, Unit.MILLIS), SuiteReport.formatRatio(sumWall / sumBase)));
        }
        return report;
    }

    /** Revisions of a qbeast table ({@code $revisions}). */
    private static long revisions(BenchmarkCluster cluster, String table)
            throws SQLException
    {
        int dot = table.lastIndexOf('.');
        return (long) cluster.number("SELECT count(*) FROM %s.\"%s$revisions\"".formatted(table.substring(0, dot), table.substring(dot + 1)));
    }

    /** Equal rows, double values within a relative 1e-9 (their sums depend on the order rows are added in). */
    static boolean sameRows(List<List<Object>> expected, List<List<Object>> actual)
    {
        if (expected.size() != actual.size()) {
            return false;
        }
        for (int row = 0; row < expected.size(); row++) {
            List<Object> left = expected.get(row);
            List<Object> right = actual.get(row);
            for (int column = 0; column < left.size(); column++) {
                Object a = left.get(column);
                Object b = right.get(column);
                if (a instanceof Double x && b instanceof Double y) {
                    // double sums depend on the order rows are added in
                    if (Math.abs(x - y) > 1e-9 * Math.max(1, Math.abs(x))) {
                        return false;
                    }
                }
                else if (!Objects.equals(a, b)) {
                    return false;
                }
            }
        }
        return true;
    }
}

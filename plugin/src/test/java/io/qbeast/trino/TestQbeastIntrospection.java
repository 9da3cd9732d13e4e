package io.qbeast.trino;

import com.google.common.collect.ImmutableMap;
import io.qbeast.index.CubeId;
import io.qbeast.index.Weight;
import io.qbeast.trino.parquet.QbeastParquetPageSource;
import io.qbeast.trino.read.QbeastSplitSource;
import io.trino.Session;
import io.trino.execution.QueryStats;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.MaterializedRow;
import io.trino.testing.QueryRunner;
import org.apache.parquet.format.Util;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static io.trino.spi.type.TimestampWithTimeZoneType.TIMESTAMP_TZ_MILLIS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Introspection of the index: the {@code "t$cubes"} metadata table against a brute-force
 * {@code GROUP BY _qbeast_cube}, the pruning counts {@code EXPLAIN ANALYZE VERBOSE} shows against
 * {@code "t$files"}, and how little of each file a sample reads (rows in a file are ordered by
 * weight and cut into row groups).
 */
class TestQbeastIntrospection
        extends AbstractTestQueryFramework
{
    private Path root;

    private static final Pattern METRIC = Pattern.compile("'(qbeast_[a-z_]+)' = LongCount\\{total=(\\d+)}");

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        QbeastQueryRunner.Builder builder = QbeastQueryRunner.builder();
        DistributedQueryRunner queryRunner = builder.build();
        root = builder.getRoot();
        Session oneWriter = QbeastQueryRunner.oneWriterPerNode(queryRunner.getDefaultSession());
        // orders_c is written through a second catalog on the same Iceberg catalog with small files,
        // so tpch tiny spans many files per writer as a large table does at the default size
        queryRunner.createCatalog("qbeast_small_files", QbeastConnectorFactory.CONNECTOR_NAME, ImmutableMap.of(
                "fs.local.enabled", "true",
                "local.location", root.toString(),
                "qbeast.warehouse", "local:///warehouse",
                "qbeast.jdbc.catalog-name", QbeastQueryRunner.CATALOG,
                "qbeast.target-file-size", "32kB"));
        queryRunner.execute(oneWriter, "CREATE TABLE qbeast_small_files.tpch.orders_c WITH (indexed_columns = ARRAY['custkey', 'totalprice'], cube_size = 500) AS SELECT * FROM tpch.tiny.orders");
        queryRunner.execute(oneWriter, "CREATE TABLE lineitem_c WITH (indexed_columns = ARRAY['orderkey', 'shipdate'], cube_size = 20000) AS SELECT * FROM tpch.tiny.lineitem");
        return queryRunner;
    }

    // ---- "t$cubes" ----

    @Test
    void testCubesMatchBruteForce()
    {
        for (String table : List.of("orders_c", "lineitem_c")) {
            // the truth: every row's stored cube and weight
            Map<String, long[]> truth = new HashMap<>();
            for (MaterializedRow row : rows("SELECT _qbeast_cube, count(*), min(_qbeast_weight), max(_qbeast_weight) FROM " + table + " GROUP BY 1")) {
                String cube = CubeId.fromBytes((byte[]) row.getField(0)).toString();
                truth.put(cube, new long[] {(Long) row.getField(1), (Integer) row.getField(2), (Integer) row.getField(3)});
            }
            Map<String, long[]> listed = new HashMap<>();
            long fileRefs = 0;
            for (MaterializedRow row : rows("SELECT cube_id, rows, min_weight, max_weight, files, revision, depth, min_weight_fraction, max_weight_fraction FROM \"" + table + "$cubes\"")) {
                String cube = (String) row.getField(0);
                listed.put(cube, new long[] {(Long) row.getField(1), (Long) row.getField(2), (Long) row.getField(3)});
                fileRefs += (Long) row.getField(4);
                CubeId id = CubeId.parse(cube, 2);
                assertThat(row.getField(5)).isEqualTo(id.revisionId());
                assertThat(row.getField(6)).isEqualTo(id.depth());
                assertThat((Double) row.getField(7)).isCloseTo(Weight.fraction((int) (long) (Long) row.getField(2)), within(1e-12));
                assertThat((Double) row.getField(8)).isCloseTo(Weight.fraction((int) (long) (Long) row.getField(3)), within(1e-12));
            }
            assertThat(listed.keySet()).as(table).containsExactlyInAnyOrderElementsOf(truth.keySet());
            truth.forEach((cube, expected) -> assertThat(listed.get(cube)).as("%s cube %s: rows, min and max weight", table, cube).containsExactly(expected));

            // files: a single-cube file counts once, a group file once for each cube it holds rows of
            MaterializedRow files = computeActual("SELECT count(*), count_if(min_cube <> max_cube) FROM \"" + table + "$files\"").getMaterializedRows().getFirst();
            assertThat(fileRefs).isGreaterThanOrEqualTo((Long) files.getField(0));
            if (table.equals("orders_c")) {
                // the case that needs the group files read: several cubes per file
                assertThat((Long) files.getField(1)).isGreaterThan(0L);
                assertThat(fileRefs).isGreaterThan((Long) files.getField(0));
            }
        }
    }

    @Test
    void testCubeRegionsAreTheTreeBoxes()
    {
        List<MaterializedRow> regions = rows("SELECT cube_id, depth, r.\"column\", r.low, r.high, r.ordinality FROM \"orders_c$cubes\" CROSS JOIN UNNEST(region) WITH ORDINALITY AS r(\"column\", low, high, ordinality)");
        assertThat(regions).isNotEmpty();
        for (MaterializedRow row : regions) {
            CubeId cube = CubeId.parse((String) row.getField(0), 2);
            int dimension = (int) (long) (Long) row.getField(5) - 1;
            assertThat(row.getField(2)).isEqualTo(List.of("custkey", "totalprice").get(dimension));
            double low = (Double) row.getField(3);
            double high = (Double) row.getField(4);
            assertThat(low).isEqualTo(cube.lowerBound(dimension));
            assertThat(high).isEqualTo(cube.upperBound(dimension));
            // a level halves every dimension
            assertThat(high - low).isCloseTo(Math.scalb(1.0, -(Integer) row.getField(1)), within(1e-15));
        }
        assertThat(computeActual("SELECT count(*) FROM \"orders_c$cubes\" WHERE cardinality(region) <> 2").getOnlyValue()).isEqualTo(0L);
        assertThat(computeActual("SELECT sum(rows) FROM \"orders_c$cubes\"").getOnlyValue()).isEqualTo(15000L);
    }

    // ---- file metadata columns ----

    @Test
    void testPathIsTheFileOfEachRow()
    {
        // the truth: the manifests' files and row counts
        Map<String, Long> files = new HashMap<>();
        for (MaterializedRow row : rows("SELECT path, record_count FROM \"orders_c$files\"")) {
            files.put((String) row.getField(0), (Long) row.getField(1));
        }
        assertThat(files).hasSizeGreaterThan(2);
        Map<String, Long> grouped = new HashMap<>();
        for (MaterializedRow row : rows("SELECT \"$path\", count(*) FROM orders_c GROUP BY 1")) {
            grouped.put((String) row.getField(0), (Long) row.getField(1));
        }
        assertThat(grouped).isEqualTo(files);
        // a join with "$files" on it, and the other hidden columns beside it
        assertThat(computeScalar("SELECT count(*) FROM orders_c o JOIN \"orders_c$files\" f ON o.\"$path\" = f.path WHERE o._qbeast_weight >= f.min_weight AND o._qbeast_weight <= f.max_weight"))
                .isEqualTo(15000L);
        // hidden: not in SELECT * nor DESCRIBE, as in Trino's Iceberg connector
        assertThat(computeActual("SELECT * FROM orders_c LIMIT 1").getColumnNames()).doesNotContain("$path", "$file_modified_time");
        assertThat(rows("DESCRIBE orders_c").stream().map(row -> row.getField(0)).toList()).contains("orderkey").doesNotContain("$path", "$file_modified_time", "_qbeast_weight");
        // a source of a CTAS and an INSERT, as any column
        assertUpdate("CREATE TABLE file_rows WITH (indexed_columns = ARRAY['n']) AS SELECT \"$path\" AS path, count(*) AS n FROM orders_c GROUP BY 1", files.size());
        assertUpdate("INSERT INTO file_rows SELECT \"$path\", count(*) FROM orders_c WHERE custkey < 100 GROUP BY 1", (Long) computeScalar("SELECT count(DISTINCT \"$path\") FROM orders_c WHERE custkey < 100"));
        assertThat(computeScalar("SELECT count(*) FROM file_rows r JOIN \"orders_c$files\" f ON r.path = f.path AND r.n = f.record_count")).isEqualTo((long) files.size());
    }

    @Test
    void testWherePathReadsOnlyThatFile()
    {
        MaterializedRow file = rows("SELECT path, record_count FROM \"orders_c$files\" ORDER BY record_count DESC, path LIMIT 1").getFirst();
        String path = (String) file.getField(0);
        long total = (Long) computeScalar("SELECT count(*) FROM \"orders_c$files\"");
        String query = "SELECT \"$path\", count(*), count(DISTINCT orderkey) FROM orders_c WHERE \"$path\" = '" + path + "' GROUP BY 1";
        MaterializedRow row = rows(query).getFirst();
        assertThat(row.getField(0)).isEqualTo(path);
        assertThat(row.getField(1)).isEqualTo(file.getField(1));
        assertThat(row.getField(2)).isEqualTo(file.getField(1));
        Map<String, Long> metrics = explainAnalyzeMetrics(query);
        assertThat(metrics.get(QbeastSplitSource.FILES_SCANNED)).isEqualTo(1L);
        assertThat(metrics.get(QbeastSplitSource.FILES_PRUNED_BY_FILE_METADATA)).isEqualTo(total - 1);
        // the rows of the file, not of others: together with every other file's, each row once
        assertThat(computeScalar("SELECT count(*) FROM orders_c WHERE \"$path\" <> '" + path + "'")).isEqualTo(15000L - (Long) file.getField(1));
        assertThat(computeScalar("SELECT count(*) FROM orders_c WHERE \"$path\" = 'local:///no/such/file.parquet'")).isEqualTo(0L);
    }

    @Test
    void testFileModifiedTimeIsTheFileSystems()
            throws IOException
    {
        Map<String, Long> truth = new HashMap<>();
        Map<String, Long> records = new HashMap<>();
        for (MaterializedRow row : rows("SELECT path, record_count FROM \"orders_c$files\"")) {
            String path = (String) row.getField(0);
            truth.put(path, Files.getLastModifiedTime(localFile(path)).toMillis());
            records.put(path, (Long) row.getField(1));
        }
        Map<String, Long> read = new HashMap<>();
        for (MaterializedRow row : rows("SELECT DISTINCT \"$path\", \"$file_modified_time\" FROM orders_c")) {
            assertThat(read.put((String) row.getField(0), ((ZonedDateTime) row.getField(1)).toInstant().toEpochMilli())).as("one time per file").isNull();
        }
        assertThat(read).isEqualTo(truth);
        assertThat(computeActual("SELECT \"$file_modified_time\" FROM orders_c LIMIT 1").getTypes()).containsExactly(TIMESTAMP_TZ_MILLIS);

        // a range on it reads only the files in the range
        long newest = truth.values().stream().mapToLong(Long::longValue).max().orElseThrow();
        long newestFiles = truth.values().stream().filter(time -> time == newest).count();
        long newestRows = truth.entrySet().stream().filter(entry -> entry.getValue() == newest).mapToLong(entry -> records.get(entry.getKey())).sum();
        String literal = "TIMESTAMP '" + DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS").format(Instant.ofEpochMilli(newest).atZone(ZoneOffset.UTC)) + " UTC'";
        String query = "SELECT count(*) FROM orders_c WHERE \"$file_modified_time\" >= " + literal;
        assertThat(computeScalar(query)).isEqualTo(newestRows);
        Map<String, Long> metrics = explainAnalyzeMetrics(query);
        assertThat(metrics.get(QbeastSplitSource.FILES_SCANNED)).isEqualTo(newestFiles);
        assertThat(metrics.get(QbeastSplitSource.FILES_PRUNED_BY_FILE_METADATA)).isEqualTo(truth.size() - newestFiles);
    }

    // ---- EXPLAIN ANALYZE ----

    @Test
    void testExplainAnalyzeShowsFilesPrunedBySample()
    {
        for (double percent : new double[] {1, 10}) {
            long bound = Weight.upperBound(percent / 100);
            Analyzed analyzed = explainAnalyze("SELECT sum(totalprice) FROM orders_c TABLESAMPLE SYSTEM (%s)".formatted(percent));
            Map<String, Long> metrics = analyzed.metrics();
            MaterializedRow files = computeActual("SELECT count(*), count_if(min_weight < %1$s), count_if(min_weight >= %1$s), sum(record_count) FILTER (WHERE min_weight < %1$s) FROM \"orders_c$files\"".formatted(bound))
                    .getMaterializedRows().getFirst();
            assertThat(metrics.get(QbeastSplitSource.FILES_SCANNED)).isEqualTo(files.getField(1));
            assertThat(metrics.get(QbeastSplitSource.FILES_PRUNED_BY_SAMPLE)).isEqualTo(files.getField(2)).isGreaterThan(0L);
            assertThat(metrics.get(QbeastSplitSource.FILES_PRUNED_BY_REGION)).isEqualTo(0L);
            assertThat(metrics.get(QbeastSplitSource.FILES_PRUNED_BY_BOUNDS)).isEqualTo(0L);
            // rows read and not in the sample are counted as dropped by the weight bound (the engine's
            // physical input misses the rows of batches read in a page source's last call, all dropped)
            long sampled = (Long) computeActual("SELECT count(*) FROM orders_c WHERE _qbeast_weight < " + bound).getOnlyValue();
            long dropped = metrics.get(QbeastParquetPageSource.ROWS_DROPPED_BY_WEIGHT);
            assertThat(dropped).isGreaterThanOrEqualTo(analyzed.physicalInputPositions() - sampled);
            // and row groups past the bound were skipped by their weight statistics: fewer rows were
            // read than the kept files hold (files are weight-ordered per row group, not as a whole)
            assertThat(sampled + dropped).isLessThan((Long) files.getField(3));
            assertThat(metrics.get(QbeastParquetPageSource.ROW_GROUPS_SKIPPED)).isGreaterThan(0L);
        }
    }

    @Test
    void testExplainAnalyzeShowsFilesPrunedByRegion()
    {
        String predicate = "custkey BETWEEN 100 AND 150 AND totalprice < 100000";
        Map<String, Long> metrics = explainAnalyzeMetrics("SELECT count(*) FROM orders_c WHERE " + predicate);
        long total = (Long) computeActual("SELECT count(*) FROM \"orders_c$files\"").getOnlyValue();
        long scanned = metrics.get(QbeastSplitSource.FILES_SCANNED);
        // the Iceberg scan's column bounds drop most files before the cube regions are looked at
        assertThat(metrics.get(QbeastSplitSource.FILES_PRUNED_BY_REGION) + metrics.get(QbeastSplitSource.FILES_PRUNED_BY_BOUNDS)).isGreaterThan(0L);
        assertThat(metrics.get(QbeastSplitSource.FILES_PRUNED_BY_SAMPLE)).isEqualTo(0L);
        assertThat(scanned + metrics.get(QbeastSplitSource.FILES_PRUNED_BY_REGION) + metrics.get(QbeastSplitSource.FILES_PRUNED_BY_BOUNDS)).isEqualTo(total);
        // files are cut by size, not at subtree edges: a file's region is its cubes' common ancestor,
        // and within the files read, row groups of other regions are skipped by their statistics
        assertThat(scanned).isLessThan(total);
        assertThat(metrics.get(QbeastParquetPageSource.ROW_GROUPS_SKIPPED)).isGreaterThan(0L);
        // and no matching row is lost
        assertThat(computeActual("SELECT count(*) FROM orders_c WHERE " + predicate).getOnlyValue())
                .isEqualTo(computeActual("SELECT count(*) FROM tpch.tiny.orders WHERE " + predicate).getOnlyValue());
    }

    @Test
    void testExplainAnalyzeCountsRowGroupsRead()
            throws IOException
    {
        // the truth: the row groups of every data file, from their footers
        long total = 0;
        for (MaterializedRow row : rows("SELECT path FROM \"orders_c$files\"")) {
            total += rowGroups((String) row.getField(0));
        }
        // a full scan reads every row group once (a row group belongs to the split of its first byte)
        Map<String, Long> all = explainAnalyzeMetrics("SELECT sum(totalprice) FROM orders_c");
        assertThat(all.get(QbeastParquetPageSource.ROW_GROUPS_READ)).isEqualTo(total);
        assertThat(all.get(QbeastParquetPageSource.ROW_GROUPS_SKIPPED)).isEqualTo(0L);
        // a range reads fewer; read and skipped together are the row groups of the files scanned
        Map<String, Long> range = explainAnalyzeMetrics("SELECT sum(totalprice) FROM orders_c WHERE custkey BETWEEN 100 AND 150 AND totalprice < 100000");
        long read = range.get(QbeastParquetPageSource.ROW_GROUPS_READ);
        assertThat(read).isPositive();
        assertThat(read + range.get(QbeastParquetPageSource.ROW_GROUPS_SKIPPED)).isLessThan(total);
    }

    // ---- planning cost ----

    @Test
    void testManifestsAreReadOncePerNode()
            throws Exception
    {
        getQueryRunner().execute("CREATE TABLE manifests_c WITH (indexed_columns = ARRAY['custkey'], cube_size = 2000) AS SELECT * FROM tpch.tiny.orders");
        String sql = "SELECT count(*), sum(totalprice) FROM manifests_c WHERE custkey < 500";
        MaterializedRow expected = computeActual(sql).getMaterializedRows().getFirst();
        // the data manifests of the snapshot (not the manifest list, read with the table metadata)
        Path metadata = root.resolve("warehouse/tpch");
        List<Path> manifests;
        try (Stream<Path> files = Files.walk(metadata)) {
            manifests = files
                    .filter(file -> file.toString().contains("manifests_c-") && file.getParent().getFileName().toString().equals("metadata"))
                    .filter(file -> file.getFileName().toString().endsWith("-m0.avro"))
                    .toList();
        }
        assertThat(manifests).isNotEmpty();
        for (Path manifest : manifests) {
            Files.delete(manifest);
        }
        // planning reads them from the catalog's manifest cache, not from storage
        assertThat(computeActual(sql).getMaterializedRows().getFirst()).isEqualTo(expected);
    }

    // ---- reading less for samples ----

    @Test
    void testSampleReadsAWeightPrefixOfEachFile()
    {
        // files of up to 20000 rows: most are larger than the footer read, so skipped row groups are bytes not read
        assertThat((Long) computeActual("SELECT max(file_size_in_bytes) FROM \"lineitem_c$files\"").getOnlyValue()).isGreaterThan(256 * 1024L);
        for (double percent : new double[] {1, 10}) {
            long bound = Weight.upperBound(percent / 100);
            String sql = "SELECT sum(extendedprice) FROM lineitem_c TABLESAMPLE SYSTEM (%s)".formatted(percent);
            MaterializedRow kept = computeActual("SELECT sum(record_count), sum(file_size_in_bytes) FROM \"lineitem_c$files\" WHERE min_weight < " + bound).getMaterializedRows().getFirst();
            long sampled = (Long) computeActual("SELECT count(*) FROM lineitem_c WHERE _qbeast_weight < " + bound).getOnlyValue();
            QueryStats stats = queryStats(sql);
            long positions = stats.getPhysicalInputPositions();
            long bytes = stats.getPhysicalInputDataSize().toBytes();
            System.out.printf("lineitem_c %s%%: sample %s rows; read %s rows, %s bytes; kept files hold %s rows, %s bytes%n", percent, sampled, positions, bytes, kept.getField(0), kept.getField(1));
            assertThat(positions).isGreaterThanOrEqualTo(sampled);
            // a prefix of each kept file, not the files whole (the rows past the bound in the last row group read are all that is extra)
            assertThat(positions).isLessThan((Long) kept.getField(0) / 2);
            assertThat(bytes).isLessThan((Long) kept.getField(1) / 2);
        }
    }

    // ---- helpers ----

    private Map<String, Long> explainAnalyzeMetrics(String sql)
    {
        return explainAnalyze(sql).metrics();
    }

    record Analyzed(Map<String, Long> metrics, long physicalInputPositions) {}

    private Analyzed explainAnalyze(String sql)
    {
        DistributedQueryRunner runner = getDistributedQueryRunner();
        QueryRunner.MaterializedResultWithPlan result = runner.executeWithPlan(getSession(), "EXPLAIN ANALYZE VERBOSE " + sql);
        String plan = (String) result.result().getOnlyValue();
        Map<String, Long> metrics = new HashMap<>();
        Matcher matcher = METRIC.matcher(plan);
        while (matcher.find()) {
            metrics.merge(matcher.group(1), Long.parseLong(matcher.group(2)), Long::sum);
        }
        assertThat(metrics).as(plan).containsKeys(
                QbeastSplitSource.FILES_SCANNED,
                QbeastSplitSource.FILES_PRUNED_BY_SAMPLE,
                QbeastSplitSource.FILES_PRUNED_BY_REGION,
                QbeastSplitSource.FILES_PRUNED_BY_BOUNDS);
        long positions = runner.getCoordinator().getQueryManager().getFullQueryInfo(result.queryId()).getQueryStats().getPhysicalInputPositions();
        return new Analyzed(metrics, positions);
    }

    /** Row groups of a data file of the local warehouse, from its Parquet footer. */
    private long rowGroups(String path)
            throws IOException
    {
        byte[] bytes = Files.readAllBytes(localFile(path));
        int footerLength = ByteBuffer.wrap(bytes, bytes.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        return Util.readFileMetaData(new ByteArrayInputStream(bytes, bytes.length - 8 - footerLength, footerLength)).getRow_groups().size();
    }

    /** A data file of the local warehouse by its location. */
    private Path localFile(String location)
    {
        return root.resolve(location.replaceFirst("^(local|file):/+", ""));
    }

    private QueryStats queryStats(String sql)
    {
        return QbeastQueryRunner.queryStats(getDistributedQueryRunner(), getSession(), sql);
    }

    private List<MaterializedRow> rows(String sql)
    {
        return computeActual(sql).getMaterializedRows();
    }
}

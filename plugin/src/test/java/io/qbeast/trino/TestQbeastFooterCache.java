package io.qbeast.trino;

import com.google.common.collect.ImmutableMap;
import io.qbeast.trino.parquet.FooterCache;
import io.qbeast.trino.read.QbeastSplitSource;
import io.trino.Session;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.MaterializedResult;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_BAD_DATA;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The node's cache of parsed Parquet footers ({@link FooterCache}): the splits of a file share
 * one parse, a later query parses nothing, a catalog with {@code qbeast.parquet-footer-cache.max-size=0B}
 * parses once per split, and a footer that failed to parse is parsed again, not remembered.
 * One node, so "once per file and node" is once per file; files are cut into several splits by a
 * small {@code qbeast.max-split-size}. Counts come from {@code EXPLAIN ANALYZE VERBOSE}, the files
 * from {@code "t$files"}, results are compared with {@code tpch.tiny}.
 */
class TestQbeastFooterCache
        extends AbstractTestQueryFramework
{
    private static final Pattern METRIC = Pattern.compile("'(qbeast_[a-z_]+)' = LongCount\\{total=(\\d+)}");
    // every row group a split of its own
    private static final String SPLIT_SIZE = "1kB";

    private Path root;

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        QbeastQueryRunner.Builder builder = QbeastQueryRunner.builder()
                .setWorkerCount(0)
                .addConnectorProperty("qbeast.max-split-size", SPLIT_SIZE);
        DistributedQueryRunner queryRunner = builder.build();
        root = builder.getRoot();
        // the same Iceberg catalog, without the cache
        queryRunner.createCatalog("qbeast_uncached", QbeastConnectorFactory.CONNECTOR_NAME, ImmutableMap.of(
                "fs.local.enabled", "true",
                "local.location", root.toString(),
                "qbeast.warehouse", "local:///warehouse",
                "qbeast.jdbc.catalog-name", QbeastQueryRunner.CATALOG,
                "qbeast.max-split-size", SPLIT_SIZE,
                "qbeast.parquet-footer-cache.max-size", "0B"));
        return queryRunner;
    }

    @Test
    void testFooterIsParsedOncePerFile()
    {
        createLineitem("lineitem_footers");
        // exact sums (in cents), so the rows compare whatever order the splits are added in
        String query = "SELECT returnflag, count(*), sum(orderkey), sum(CAST(round(extendedprice * 100) AS bigint)) FROM %s WHERE shipdate < DATE '1995-06-01' GROUP BY returnflag ORDER BY returnflag";
        MaterializedResult expected = computeActual(query.formatted("tpch.tiny.lineitem"));
        long files = (Long) computeActual("SELECT count(*) FROM \"lineitem_footers$files\"").getOnlyValue();

        // first query: each file's footer parsed by one of its splits, the others find it parsed
        Map<String, Long> first = explainAnalyzeMetrics(query.formatted("lineitem_footers"));
        long splits = first.get(QbeastSplitSource.SPLITS);
        assertThat(splits).as("several splits per file").isGreaterThan(2 * files);
        assertThat(first.get(FooterCache.FOOTERS_PARSED)).isEqualTo(files);
        assertThat(first.get(FooterCache.FOOTER_CACHE_HITS)).isEqualTo(splits - files);
        assertThat(computeActual(query.formatted("lineitem_footers"))).containsExactlyElementsOf(expected);

        // a later query parses nothing
        Map<String, Long> second = explainAnalyzeMetrics(query.formatted("lineitem_footers"));
        assertThat(second.get(QbeastSplitSource.SPLITS)).isEqualTo(splits);
        assertThat(second.get(FooterCache.FOOTERS_PARSED)).isZero();
        assertThat(second.get(FooterCache.FOOTER_CACHE_HITS)).isEqualTo(splits);

        // without the cache every split parses, and the rows are the same
        Map<String, Long> uncached = explainAnalyzeMetrics(query.formatted("qbeast_uncached.tpch.lineitem_footers"));
        assertThat(uncached.get(QbeastSplitSource.SPLITS)).isEqualTo(splits);
        assertThat(uncached.get(FooterCache.FOOTERS_PARSED)).isEqualTo(splits);
        assertThat(uncached.get(FooterCache.FOOTER_CACHE_HITS)).isZero();
        assertThat(computeActual(query.formatted("qbeast_uncached.tpch.lineitem_footers"))).containsExactlyElementsOf(expected);
    }

    @Test
    void testCorruptFooterIsNotCached()
            throws IOException
    {
        createLineitem("lineitem_corrupt");
        String query = "SELECT count(*), sum(quantity) FROM %s";
        MaterializedResult expected = computeActual(query.formatted("tpch.tiny.lineitem"));
        String location = (String) computeActual("SELECT path FROM \"lineitem_corrupt$files\" ORDER BY path LIMIT 1").getOnlyValue();
        Path file = root.resolve(location.replaceFirst("^(local|file):/+", ""));
        byte[] original = Files.readAllBytes(file);

        // the file's trailing magic overwritten: same location and length, a footer that does not parse
        byte[] corrupt = original.clone();
        System.arraycopy("XXXX".getBytes(StandardCharsets.US_ASCII), 0, corrupt, corrupt.length - 4, 4);
        Files.write(file, corrupt);
        assertThat(query(query.formatted("lineitem_corrupt")))
                .failure().hasErrorCode(QBEAST_BAD_DATA).hasMessageContaining("Corrupt Parquet file").hasMessageContaining(file.getFileName().toString());

        // repaired, the next query parses the footer again instead of remembering the failure
        Files.write(file, original);
        assertThat(computeActual(query.formatted("lineitem_corrupt"))).containsExactlyElementsOf(expected);
    }

    private void createLineitem(String table)
    {
        Session oneWriter = QbeastQueryRunner.oneWriter(getSession());
        // rows of ~1 kB in memory, so a cube of 10000 is above the size below which the writer
        // packs cubes together: the file has a row group per cube (or more)
        getQueryRunner().execute(oneWriter, ("CREATE TABLE %s WITH (indexed_columns = ARRAY['orderkey', 'shipdate'], cube_size = 10000) AS " +
                "SELECT orderkey, shipdate, returnflag, quantity, extendedprice, rpad(comment, 1000, '.') padding FROM tpch.tiny.lineitem").formatted(table));
    }

    private Map<String, Long> explainAnalyzeMetrics(String sql)
    {
        String plan = (String) computeActual("EXPLAIN ANALYZE VERBOSE " + sql).getOnlyValue();
        Map<String, Long> metrics = new HashMap<>();
        Matcher matcher = METRIC.matcher(plan);
        while (matcher.find()) {
            metrics.merge(matcher.group(1), Long.parseLong(matcher.group(2)), Long::sum);
        }
        assertThat(metrics).as(plan).containsKeys(QbeastSplitSource.SPLITS, FooterCache.FOOTERS_PARSED, FooterCache.FOOTER_CACHE_HITS);
        return metrics;
    }
}

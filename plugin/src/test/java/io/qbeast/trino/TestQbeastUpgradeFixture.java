package io.qbeast.trino;

import com.google.common.collect.HashMultiset;
import com.google.common.collect.Multiset;
import com.google.common.collect.Multisets;
import com.google.common.io.MoreFiles;
import com.google.common.io.RecursiveDeleteOption;
import io.qbeast.index.CubeId;
import io.qbeast.trino.fixtures.WriteUpgradeFixture;
import io.trino.Session;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.MaterializedRow;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static io.qbeast.trino.fixtures.WriteUpgradeFixture.FIXTURE_ROWS;
import static io.qbeast.trino.fixtures.WriteUpgradeFixture.TABLE;
import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A qbeast table written by an earlier version of the connector (the committed fixture of
 * {@link WriteUpgradeFixture}: Trino 476, Iceberg 1.9.1, two snapshots, two revisions) is read,
 * appended to and optimized by this version. The fixture is copied to a temporary directory that
 * becomes the catalog's {@code local.location}: every location in the fixture is
 * {@code local:///...}, so the copy is the same warehouse. The truth is tpch tiny, computed by the
 * tpch catalog of the same runner.
 */
class TestQbeastUpgradeFixture
{
    private static final String COLUMNS = "orderkey, custkey, orderstatus, totalprice, orderdate, orderpriority, clerk, shippriority, comment";
    private static final String CHECKSUMS = "count(*), checksum(orderkey), checksum(custkey), checksum(orderstatus), checksum(totalprice), checksum(orderdate), " +
            "checksum(orderpriority), checksum(clerk), checksum(shippriority), checksum(comment)";
    /** Appended by this version: rows inside the fixture's first revision, so they land in cubes the old version wrote. */
    private static final String APPENDED_ROWS = "SELECT " + COLUMNS + " FROM tpch.tiny.orders WHERE orderkey % 3 = 0";

    @Test
    void testReadAppendAndOptimizeFixture()
            throws Exception
    {
        Path fixture = fixtureDirectory();
        List<String> fixtureFiles = listFiles(fixture);
        assertThat(fixtureFiles).anyMatch(file -> file.endsWith("qbeast-catalog.db")).anyMatch(file -> file.endsWith(".parquet"));

        Path root = Files.createTempDirectory("qbeast-upgrade-fixture").toRealPath();
        try {
            Path localRoot = root.resolve("local");
            copyDirectory(fixture, localRoot);
            try (DistributedQueryRunner runner = QbeastQueryRunner.builder()
                    .addConnectorProperty("local.location", localRoot.toString())
                    .addConnectorProperty("qbeast.warehouse", "local:///warehouse")
                    // the Iceberg catalog name the fixture's SQLite catalog holds the table under
                    .addConnectorProperty("qbeast.jdbc.catalog-name", QbeastQueryRunner.CATALOG)
                    .build()) {
                // as the old version wrote it
                assertThat(snapshotOperations(runner)).hasSize(2);
                assertThat(revisionCount(runner)).as("revisions of the fixture").isGreaterThanOrEqualTo(1);
                assertTable(runner, localRoot, FIXTURE_ROWS, true);
                assertThat(maxFilesPerCube(runner)).as("a cube written by both of the fixture's writes").isGreaterThan(1);

                // appended by this version
                runner.execute("INSERT INTO " + TABLE + " " + APPENDED_ROWS);
                String appended = FIXTURE_ROWS + " UNION ALL " + APPENDED_ROWS;
                assertThat(snapshotOperations(runner)).hasSize(3);
                assertTable(runner, localRoot, appended, true);

                // optimized by this version: one block per cube, rows unchanged
                runner.execute("ALTER TABLE " + TABLE + " EXECUTE optimize");
                List<String> operations = snapshotOperations(runner);
                assertThat(operations).hasSize(4);
                assertThat(operations.getLast()).isEqualTo("replace");
                // (tpch tiny fits in one file of the default size)
                assertTable(runner, localRoot, appended, false);
                assertThat(maxFilesPerCube(runner)).as("files of a cube after optimize").isEqualTo(1);
            }
        }
        finally {
            MoreFiles.deleteRecursively(root, RecursiveDeleteOption.ALLOW_INSECURE);
        }
        // everything was written to the copy: the fixture is as committed
        assertThat(listFiles(fixture)).isEqualTo(fixtureFiles);
    }

    /**
     * The table against {@code truthSql} (rows from tpch): rows, checksums, metadata tables, a
     * sample and a pruned scan; {@code severalFiles}: the rows are in more than one data file, so the
     * range scan skips some.
     */
    private static void assertTable(DistributedQueryRunner runner, Path localRoot, String truthSql, boolean severalFiles)
    {
        String table = "SELECT " + COLUMNS + " FROM " + TABLE;
        Multiset<MaterializedRow> truth = rows(runner, truthSql);
        Multiset<MaterializedRow> actual = rows(runner, table);
        assertThat(actual).isEqualTo(truth);
        long count = truth.size();
        assertThat(runner.execute("SELECT " + CHECKSUMS + " FROM " + TABLE).getMaterializedRows())
                .isEqualTo(runner.execute("SELECT " + CHECKSUMS + " FROM (" + truthSql + ")").getMaterializedRows());

        // "$files": their rows are the table's, each a local:/// location in the copy
        MaterializedRow files = runner.execute("SELECT count(*), sum(record_count) FROM \"" + TABLE + "$files\"").getMaterializedRows().getFirst();
        assertThat((Long) files.getField(0)).isGreaterThan(severalFiles ? 1L : 0L);
        assertThat(files.getField(1)).isEqualTo(count);
        List<String> paths = runner.execute("SELECT path FROM \"" + TABLE + "$files\"").getOnlyColumn().map(String.class::cast).toList();
        assertThat(paths).allSatisfy(path -> {
            assertThat(path).startsWith("local:///warehouse/tpch/" + TABLE + "-");
            assertThat(localRoot.resolve(path.substring("local:///".length()))).isRegularFile();
        });

        // "$revisions": the indexed columns
        assertThat(runner.execute("SELECT json FROM \"" + TABLE + "$revisions\"").getOnlyColumn().map(String.class::cast).toList())
                .isNotEmpty()
                .allSatisfy(json -> assertThat(json).contains("\"orderkey\"").contains("\"orderdate\""));

        // "$cubes": a tree of several cubes, each with the rows stored under it in the hidden column
        Map<String, Long> stored = new HashMap<>();
        for (MaterializedRow row : runner.execute("SELECT _qbeast_cube, count(*) FROM " + TABLE + " GROUP BY 1").getMaterializedRows()) {
            stored.put(CubeId.fromBytes((byte[]) row.getField(0)).toString(), (Long) row.getField(1));
        }
        Map<String, Long> listed = new HashMap<>();
        long listedRows = 0;
        int maxDepth = 0;
        for (MaterializedRow row : runner.execute("SELECT cube_id, rows, depth FROM \"" + TABLE + "$cubes\"").getMaterializedRows()) {
            listed.put((String) row.getField(0), (Long) row.getField(1));
            listedRows += (Long) row.getField(1);
            maxDepth = Math.max(maxDepth, (Integer) row.getField(2));
        }
        assertThat(listedRows).isEqualTo(count);
        assertThat(listed).isEqualTo(stored);
        assertThat(maxDepth).as("depth of the deepest cube").isGreaterThan(0);

        // a sample is a proper subset of the rows
        Multiset<MaterializedRow> sample = rows(runner, table + " TABLESAMPLE SYSTEM (10)");
        assertThat(sample.size()).isGreaterThan(0).isLessThan(actual.size());
        assertThat(Multisets.containsOccurrences(actual, sample)).as("sample is a subset of the table").isTrue();

        // a range of the indexed column: the right rows, read from part of the table
        String range = " WHERE orderkey BETWEEN 1000 AND 3000";
        Session session = runner.getDefaultSession();
        assertThat(rows(runner, table + range)).isEqualTo(rows(runner, "SELECT * FROM (" + truthSql + ")" + range)).isNotEmpty();
        ScanStats pruned = ScanStats.of(QbeastQueryRunner.queryStats(runner, session, "SELECT count(*) FROM " + TABLE + range));
        // files are the unit of pruning: once the table is one file, the range reads it
        assertThat(pruned.positions()).as("rows read for the range").isGreaterThan(0).isLessThanOrEqualTo(count);
        if (severalFiles) {
            assertThat(pruned.positions()).as("rows read for the range, of several files").isLessThan(count);
        }
    }

    private static List<String> snapshotOperations(DistributedQueryRunner runner)
    {
        return runner.execute("SELECT operation FROM \"" + TABLE + "$snapshots\" ORDER BY sequence_number").getOnlyColumn()
                .map(String.class::cast)
                .toList();
    }

    private static long revisionCount(DistributedQueryRunner runner)
    {
        return (Long) runner.execute("SELECT count(*) FROM \"" + TABLE + "$revisions\"").getOnlyValue();
    }

    private static long maxFilesPerCube(DistributedQueryRunner runner)
    {
        return (Long) runner.execute("SELECT max(files) FROM \"" + TABLE + "$cubes\"").getOnlyValue();
    }

    private static Multiset<MaterializedRow> rows(DistributedQueryRunner runner, String sql)
    {
        return HashMultiset.create(runner.execute(sql).getMaterializedRows());
    }

    private static Path fixtureDirectory()
            throws URISyntaxException
    {
        URL url = requireNonNull(TestQbeastUpgradeFixture.class.getClassLoader().getResource(WriteUpgradeFixture.RESOURCE), "fixture resource missing");
        return Path.of(url.toURI());
    }

    private static List<String> listFiles(Path directory)
            throws IOException
    {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(Files::isRegularFile).map(file -> directory.relativize(file).toString()).sorted().toList();
        }
    }

    private static void copyDirectory(Path source, Path target)
            throws IOException
    {
        try (Stream<Path> paths = Files.walk(source)) {
            for (Path path : paths.toList()) {
                Path copy = target.resolve(source.relativize(path).toString());
                if (Files.isDirectory(path)) {
                    Files.createDirectories(copy);
                }
                else {
                    Files.copy(path, copy);
                }
            }
        }
    }
}

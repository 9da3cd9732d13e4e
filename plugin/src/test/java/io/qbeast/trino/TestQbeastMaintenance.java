package io.qbeast.trino;

import com.google.common.collect.ImmutableMap;
import com.google.common.collect.Iterables;
import com.google.common.collect.Sets;
import io.trino.filesystem.Location;
import io.trino.testing.MaterializedResult;
import io.trino.testing.MaterializedRow;
import io.trino.testing.TestingAccessControlManager.TestingPrivilege;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

import static io.trino.spi.StandardErrorCode.INVALID_PROCEDURE_ARGUMENT;
import static io.trino.testing.TestingAccessControlManager.TestingPrivilegeType.EXECUTE_TABLE_PROCEDURE;
import static io.trino.testing.TestingAccessControlManager.privilege;
import static io.trino.testing.assertions.TrinoExceptionAssert.assertTrinoExceptionThrownBy;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The maintenance table procedures: {@code remove_orphan_files} deletes exactly the files no
 * metadata references and older than the threshold (checked against a listing of the folder and
 * the files planted), {@code expire_snapshots} exactly the files only expired snapshots used
 * (checked against each snapshot's files read through Iceberg), {@code optimize_manifests} keeps
 * the index read from the manifests, and {@code rollback_to_snapshot} brings back the earlier
 * snapshot's rows, revisions and cubes. Rows are compared with tpch, samples and {@code $cubes}
 * with their values before. The runner's catalog allows any retention; a second catalog on the
 * same tables keeps the default minimum of 7 days.
 */
class TestQbeastMaintenance
        extends AbstractTestQbeastTables
{
    private static final String ORDERS = "SELECT orderkey, custkey, totalprice, orderdate, comment FROM tpch.tiny.orders";
    private static final String COLUMNS = "(orderkey bigint, custkey bigint, totalprice double, orderdate date, comment varchar)";
    private static final String STRICT_CATALOG = "qbeast_strict";
    private static final long CUBE_SIZE = 500;

    @Override
    protected QbeastQueryRunner.Builder queryRunnerBuilder()
    {
        return QbeastQueryRunner.builder()
                .addConnectorProperty("qbeast.expire-snapshots.min-retention", "0s")
                .addConnectorProperty("qbeast.remove-orphan-files.min-retention", "0s");
    }

    // ---- remove_orphan_files ----

    @Test
    void testRemoveOrphanFilesDeletesExactlyTheUnreferencedOldFiles()
            throws IOException
    {
        String table = "maint_orphans";
        createFromInserts(table, 2);
        Table iceberg = tables().table(table);
        String sampleBefore = sample(table);
        List<MaterializedRow> cubesBefore = cubes(table);
        Set<String> live = listFiles(iceberg);
        // what a killed INSERT leaves: whole Parquet files never committed; a killed optimize: an
        // empty one; a killed commit: a manifest no manifest list names
        String anyDataFile = dataFiles(iceberg, iceberg.currentSnapshot()).iterator().next();
        String anyManifest = iceberg.currentSnapshot().allManifests(iceberg.io()).getFirst().path();
        Set<String> oldOrphans = Set.of(
                plantCopy(anyDataFile, iceberg.location() + "/data/" + UUID.randomUUID() + ".parquet", Instant.now().minus(1, ChronoUnit.DAYS)),
                plantCopy(anyDataFile, iceberg.location() + "/data/" + UUID.randomUUID() + ".parquet", Instant.now().minus(2, ChronoUnit.HOURS)),
                plantEmpty(iceberg.location() + "/data/" + UUID.randomUUID() + ".parquet", Instant.now().minus(1, ChronoUnit.DAYS)),
                plantCopy(anyManifest, iceberg.location() + "/metadata/" + UUID.randomUUID() + "-m0.avro", Instant.now().minus(1, ChronoUnit.DAYS)));
        String youngOrphan = plantCopy(anyDataFile, iceberg.location() + "/data/" + UUID.randomUUID() + ".parquet", Instant.now());
        assertThat(listFiles(iceberg)).isEqualTo(Sets.union(live, Sets.union(oldOrphans, Set.of(youngOrphan))));
        long snapshot = iceberg.currentSnapshot().snapshotId();

        // files younger than the threshold survive
        assertUpdate("ALTER TABLE " + table + " EXECUTE remove_orphan_files(retention_threshold => '1h')");
        assertThat(listFiles(iceberg)).isEqualTo(Sets.union(live, Set.of(youngOrphan)));
        assertUpdate("ALTER TABLE " + table + " EXECUTE remove_orphan_files(retention_threshold => '0s')");
        assertThat(listFiles(iceberg)).isEqualTo(live);

        // nothing committed, every file a snapshot names is still there, the same rows and index
        assertThat(tables().table(table).currentSnapshot().snapshotId()).isEqualTo(snapshot);
        assertThat(listFiles(iceberg)).containsAll(referencedFiles(tables().table(table)));
        assertSameRows(table, ORDERS);
        assertThat(sample(table)).isEqualTo(sampleBefore);
        assertThat(cubes(table)).isEqualTo(cubesBefore);
    }

    /**
     * An INSERT writing while remove_orphan_files runs again and again keeps all its rows: its
     * files are younger than the threshold, so they are never candidates; an old orphan planted
     * before goes in the same runs.
     */
    @Test
    void testInsertRunningDuringRemoveOrphanFilesKeepsItsRows()
            throws Exception
    {
        String table = "maint_orphans_race";
        assertUpdate("CREATE TABLE " + table + " WITH (indexed_columns = ARRAY['custkey', 'totalprice'], cube_size = " + CUBE_SIZE + ") AS " + ORDERS + " WHERE orderkey % 2 = 0", count("orderkey % 2 = 0"));
        Table iceberg = tables().table(table);
        String orphan = plantCopy(dataFiles(iceberg, iceberg.currentSnapshot()).iterator().next(), iceberg.location() + "/data/" + UUID.randomUUID() + ".parquet", Instant.now().minus(1, ChronoUnit.DAYS));

        CompletableFuture<Void> insert = CompletableFuture.runAsync(() -> assertUpdate(
                QbeastQueryRunner.oneWriter(getSession()),
                "INSERT INTO " + table + " " + ORDERS + " WHERE orderkey % 2 = 1",
                count("orderkey % 2 = 1")));
        int runs = 0;
        while (!insert.isDone() || runs == 0) {
            assertUpdate("ALTER TABLE " + table + " EXECUTE remove_orphan_files(retention_threshold => '10m')");
            runs++;
            // leave the INSERT the cores: the runs only need to overlap its writing
            Thread.sleep(100);
        }
        insert.get();

        assertThat(listFiles(tables().table(table))).doesNotContain(orphan);
        assertSameRows(table, ORDERS);
        assertThat(listFiles(tables().table(table))).containsAll(referencedFiles(tables().table(table)));
    }

    // ---- expire_snapshots ----

    @Test
    void testExpireSnapshotsDeletesExactlyTheFilesOfExpiredSnapshots()
    {
        String table = "maint_expire";
        createFromInserts(table, 3);
        // optimize replaces files: the old ones stay in the earlier snapshots
        assertUpdate("ALTER TABLE " + table + " EXECUTE optimize(mode => 'all')");
        Table iceberg = tables().table(table);
        Snapshot current = iceberg.currentSnapshot();
        Set<String> currentFiles = dataFiles(iceberg, current);
        Set<String> allSnapshotFiles = new HashSet<>();
        for (Snapshot snapshot : iceberg.snapshots()) {
            allSnapshotFiles.addAll(dataFiles(iceberg, snapshot));
        }
        Set<String> onlyExpired = Sets.difference(allSnapshotFiles, currentFiles);
        assertThat(onlyExpired).isNotEmpty();
        Set<String> before = listFiles(iceberg);
        String sampleBefore = sample(table);
        List<MaterializedRow> cubesBefore = cubes(table);

        // the default threshold (7 days) keeps every snapshot of this test
        assertUpdate("ALTER TABLE " + table + " EXECUTE expire_snapshots");
        assertThat(tables().table(table).snapshots()).hasSize(Sets.newHashSet(iceberg.snapshots()).size());
        assertThat(listFiles(iceberg)).containsAll(before);

        assertUpdate("ALTER TABLE " + table + " EXECUTE expire_snapshots(retention_threshold => '0s')");
        Table after = tables().table(table);
        assertThat(after.snapshots()).extracting(Snapshot::snapshotId).containsExactly(current.snapshotId());
        Set<String> deleted = Sets.difference(before, listFiles(after));
        Set<String> deletedDataFiles = deleted.stream().filter(file -> file.endsWith(".parquet")).collect(Collectors.toSet());
        assertThat(deletedDataFiles).isEqualTo(onlyExpired);
        // besides data files, only the expired snapshots' manifest lists and manifests
        Set<String> expiredMetadata = new HashSet<>();
        for (Snapshot snapshot : iceberg.snapshots()) {
            if (snapshot.snapshotId() != current.snapshotId()) {
                expiredMetadata.add(snapshot.manifestListLocation());
                snapshot.allManifests(iceberg.io()).forEach(manifest -> expiredMetadata.add(manifest.path()));
            }
        }
        current.allManifests(iceberg.io()).forEach(manifest -> expiredMetadata.remove(manifest.path()));
        assertThat(Sets.difference(deleted, deletedDataFiles)).isEqualTo(expiredMetadata);
        assertThat(listFiles(after)).containsAll(referencedFiles(after));

        assertSameRows(table, ORDERS);
        assertThat(sample(table)).isEqualTo(sampleBefore);
        assertThat(cubes(table)).isEqualTo(cubesBefore);
    }

    @Test
    void testRetentionBelowTheCatalogMinimumIsRefused()
    {
        String table = "maint_min_retention";
        createFromInserts(table, 2);
        getDistributedQueryRunner().createCatalog(STRICT_CATALOG, QbeastConnectorFactory.CONNECTOR_NAME, ImmutableMap.of(
                "fs.local.enabled", "true",
                "local.location", root().toString(),
                "qbeast.warehouse", "local:///warehouse",
                "qbeast.jdbc.catalog-name", QbeastQueryRunner.CATALOG));
        long snapshots = Iterables.size(tables().table(table).snapshots());
        assertTrinoExceptionThrownBy(() -> computeActual("ALTER TABLE " + STRICT_CATALOG + ".tpch." + table + " EXECUTE expire_snapshots(retention_threshold => '1d')"))
                .hasErrorCode(INVALID_PROCEDURE_ARGUMENT)
                .hasMessage("Retention specified (1.00d) is shorter than the minimum retention configured in the system (7.00d). Minimum retention can be changed with qbeast.expire-snapshots.min-retention configuration property");
        assertTrinoExceptionThrownBy(() -> computeActual("ALTER TABLE " + STRICT_CATALOG + ".tpch." + table + " EXECUTE remove_orphan_files(retention_threshold => '6h')"))
                .hasErrorCode(INVALID_PROCEDURE_ARGUMENT)
                .hasMessage("Retention specified (6.00h) is shorter than the minimum retention configured in the system (7.00d). Minimum retention can be changed with qbeast.remove-orphan-files.min-retention configuration property");
        // at the minimum it runs
        assertUpdate("ALTER TABLE " + STRICT_CATALOG + ".tpch." + table + " EXECUTE expire_snapshots(retention_threshold => '7d')");
        assertUpdate("ALTER TABLE " + STRICT_CATALOG + ".tpch." + table + " EXECUTE remove_orphan_files(retention_threshold => '7d')");
        assertThat(Iterables.size(tables().table(table).snapshots())).isEqualTo(snapshots);
        assertSameRows(table, ORDERS);
    }

    @Test
    void testInvalidArguments()
    {
        String table = "maint_invalid";
        assertUpdate("CREATE TABLE " + table + " WITH (indexed_columns = ARRAY['custkey']) AS " + ORDERS + " WHERE orderkey < 100", count("orderkey < 100"));
        long snapshot = tables().table(table).currentSnapshot().snapshotId();
        for (String procedure : List.of("expire_snapshots", "remove_orphan_files")) {
            assertTrinoExceptionThrownBy(() -> computeActual("ALTER TABLE " + table + " EXECUTE " + procedure + "(retention_threshold => '-1d')"))
                    .hasErrorCode(INVALID_PROCEDURE_ARGUMENT)
                    .hasMessageContaining("retention_threshold");
            assertTrinoExceptionThrownBy(() -> computeActual("ALTER TABLE " + table + " EXECUTE " + procedure + "(retention_threshold => 'soon')"))
                    .hasErrorCode(INVALID_PROCEDURE_ARGUMENT)
                    .hasMessageContaining("retention_threshold");
        }
        assertTrinoExceptionThrownBy(() -> computeActual("ALTER TABLE " + table + " EXECUTE rollback_to_snapshot(snapshot_id => 42)"))
                .hasErrorCode(INVALID_PROCEDURE_ARGUMENT)
                .hasMessageContaining("unknown snapshot id: 42");
        assertTrinoExceptionThrownBy(() -> computeActual("CALL qbeast.system.rollback_to_snapshot('tpch', '" + table + "', 42)"))
                .hasErrorCode(INVALID_PROCEDURE_ARGUMENT)
                .hasMessageContaining("unknown snapshot id: 42");
        assertTrinoExceptionThrownBy(() -> computeActual("ALTER TABLE " + table + " EXECUTE rollback_to_snapshot"))
                .hasErrorCode(INVALID_PROCEDURE_ARGUMENT)
                .hasMessageContaining("snapshot_id");
        assertQueryFails("CALL qbeast.system.rollback_to_snapshot('tpch', 'no_such_table', 42)", ".*no_such_table.*");
        assertThat(tables().table(table).currentSnapshot().snapshotId()).isEqualTo(snapshot);
    }

    // ---- optimize_manifests ----

    @Test
    void testOptimizeManifestsKeepsTheIndex()
    {
        String table = "maint_manifests";
        createFromInserts(table, 6);
        Table iceberg = tables().table(table);
        assertThat(iceberg.currentSnapshot().dataManifests(iceberg.io())).hasSizeGreaterThanOrEqualTo(6);
        Set<String> filesBefore = dataFiles(iceberg, iceberg.currentSnapshot());
        String sampleBefore = sample(table);
        List<MaterializedRow> cubesBefore = cubes(table);
        MaterializedResult revisionsBefore = computeActual("SELECT * FROM \"" + table + "$revisions\"");

        assertUpdate("ALTER TABLE " + table + " EXECUTE optimize_manifests");

        Table after = tables().table(table);
        assertThat(after.currentSnapshot().snapshotId()).isNotEqualTo(iceberg.currentSnapshot().snapshotId());
        assertThat(after.currentSnapshot().dataManifests(after.io())).hasSize(1);
        assertThat(dataFiles(after, after.currentSnapshot())).isEqualTo(filesBefore);
        assertThat(cubes(table)).isEqualTo(cubesBefore);
        assertThat(sample(table)).isEqualTo(sampleBefore);
        assertThat(computeActual("SELECT * FROM \"" + table + "$revisions\"")).isEqualTo(revisionsBefore);
        assertSameRows(table, ORDERS);

        // one manifest below the target size: nothing to do, no snapshot
        assertUpdate("ALTER TABLE " + table + " EXECUTE optimize_manifests");
        assertThat(tables().table(table).currentSnapshot().snapshotId()).isEqualTo(after.currentSnapshot().snapshotId());
        // the table takes INSERTs routed by the index read from the new manifest
        assertUpdate("INSERT INTO " + table + " " + ORDERS + " WHERE orderkey < 1000", count("orderkey < 1000"));
        assertSameRows(table, ORDERS + " UNION ALL " + ORDERS + " WHERE orderkey < 1000");
    }

    // ---- rollback_to_snapshot ----

    @Test
    void testRollbackRestoresRowsRevisionsAndCubes()
    {
        String table = "maint_rollback";
        assertUpdate("CREATE TABLE " + table + " WITH (indexed_columns = ARRAY['custkey', 'totalprice'], cube_size = " + CUBE_SIZE + ") AS " + ORDERS + " WHERE custkey < 500", count("custkey < 500"));
        long first = tables().table(table).currentSnapshot().snapshotId();
        MaterializedResult revisionsAtFirst = computeActual("SELECT * FROM \"" + table + "$revisions\"");
        List<MaterializedRow> cubesAtFirst = cubes(table);
        String sampleAtFirst = sample(table);
        // outside the first revision's bounds: a wider, second revision
        assertUpdate("INSERT INTO " + table + " " + ORDERS + " WHERE custkey >= 500", count("custkey >= 500"));
        assertThat(computeActual("SELECT * FROM \"" + table + "$revisions\"").getRowCount()).isEqualTo(revisionsAtFirst.getRowCount() + 1);
        assertThat(cubes(table)).isNotEqualTo(cubesAtFirst);

        assertUpdate("ALTER TABLE " + table + " EXECUTE rollback_to_snapshot(snapshot_id => " + first + ")");

        assertThat(tables().table(table).currentSnapshot().snapshotId()).isEqualTo(first);
        assertSameRows(table, ORDERS + " WHERE custkey < 500");
        assertThat(computeActual("SELECT * FROM \"" + table + "$revisions\"")).isEqualTo(revisionsAtFirst);
        assertThat(cubes(table)).isEqualTo(cubesAtFirst);
        assertThat(sample(table)).isEqualTo(sampleAtFirst);

        // the table goes on from there: an INSERT inside the first revision keeps to it
        assertUpdate("INSERT INTO " + table + " " + ORDERS + " WHERE custkey < 100", count("custkey < 100"));
        assertThat(computeActual("SELECT * FROM \"" + table + "$revisions\"")).isEqualTo(revisionsAtFirst);
        assertSameRows(table, ORDERS + " WHERE custkey < 500 UNION ALL " + ORDERS + " WHERE custkey < 100");

        // CALL system.rollback_to_snapshot, the Iceberg connector's procedure, does the same
        assertUpdate("CALL qbeast.system.rollback_to_snapshot('tpch', '" + table + "', " + first + ")");
        assertThat(tables().table(table).currentSnapshot().snapshotId()).isEqualTo(first);
        assertSameRows(table, ORDERS + " WHERE custkey < 500");
        assertThat(cubes(table)).isEqualTo(cubesAtFirst);
    }

    /** Both forms of the rollback need the right to execute the table procedure on the table. */
    @Test
    void testRollbackNeedsTheCallersRight()
    {
        String table = "maint_rollback_denied";
        createFromInserts(table, 2);
        Table iceberg = tables().table(table);
        long first = iceberg.currentSnapshot().parentId();
        long current = iceberg.currentSnapshot().snapshotId();
        TestingPrivilege denied = privilege("qbeast.tpch." + table + ".ROLLBACK_TO_SNAPSHOT", EXECUTE_TABLE_PROCEDURE);
        assertAccessDenied("ALTER TABLE " + table + " EXECUTE rollback_to_snapshot(snapshot_id => " + first + ")", "Cannot execute table procedure ROLLBACK_TO_SNAPSHOT on qbeast.tpch." + table, denied);
        assertAccessDenied("CALL qbeast.system.rollback_to_snapshot('tpch', '" + table + "', " + first + ")", "Cannot execute table procedure ROLLBACK_TO_SNAPSHOT on qbeast.tpch." + table, denied);
        assertThat(tables().table(table).currentSnapshot().snapshotId()).isEqualTo(current);
        // the right is the one denied: with it the same CALL rolls back
        assertUpdate("CALL qbeast.system.rollback_to_snapshot('tpch', '" + table + "', " + first + ")");
        assertThat(tables().table(table).currentSnapshot().snapshotId()).isEqualTo(first);
    }

    // ---- helpers ----

    /** orders in {@code inserts} INSERTs: a snapshot, a manifest and files of its own each. */
    private void createFromInserts(String table, int inserts)
    {
        assertUpdate("CREATE TABLE " + table + " " + COLUMNS + " WITH (indexed_columns = ARRAY['custkey', 'totalprice'], cube_size = " + CUBE_SIZE + ")");
        for (int i = 0; i < inserts; i++) {
            assertUpdate("INSERT INTO " + table + " " + ORDERS + " WHERE orderkey % " + inserts + " = " + i, count("orderkey % " + inserts + " = " + i));
        }
    }

    private long count(String predicate)
    {
        return (Long) computeScalar("SELECT count(*) FROM tpch.tiny.orders WHERE " + predicate);
    }

    /** The same rows as {@code expectedSql}: count and checksum of every column. */
    private void assertSameRows(String table, String expectedSql)
    {
        String aggregates = "SELECT count(*), checksum(orderkey), checksum(custkey), checksum(totalprice), checksum(orderdate), checksum(comment) FROM ";
        assertThat(computeActual(aggregates + table).getMaterializedRows())
                .isEqualTo(computeActual(aggregates + "(" + expectedSql + ")").getMaterializedRows());
    }

    /** A 10% sample of the table: its count and checksum. */
    private String sample(String table)
    {
        return computeActual("SELECT count(*), checksum(orderkey), checksum(totalprice) FROM " + table + " TABLESAMPLE SYSTEM (10)").getMaterializedRows().toString();
    }

    private List<MaterializedRow> cubes(String table)
    {
        return computeActual("SELECT cube_id, rows, min_weight, max_weight, files, revision FROM \"" + table + "$cubes\" ORDER BY cube_id").getMaterializedRows();
    }

    /** Every file under the table's location. */
    private Set<String> listFiles(Table table)
    {
        return tables().listFiles(table.location());
    }

    /** The data files of a snapshot, planned by Iceberg. */
    private static Set<String> dataFiles(Table table, Snapshot snapshot)
    {
        Set<String> files = new HashSet<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
            tasks.forEach(task -> files.add(task.file().location()));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    /** What the table's metadata names: every snapshot's manifest list, manifests and data files, and the metadata files. */
    private static Set<String> referencedFiles(Table table)
    {
        Set<String> files = new HashSet<>();
        for (Snapshot snapshot : table.snapshots()) {
            files.add(snapshot.manifestListLocation());
            for (ManifestFile manifest : snapshot.allManifests(table.io())) {
                files.add(manifest.path());
            }
            files.addAll(dataFiles(table, snapshot));
        }
        return files;
    }

    private Path localPath(String location)
    {
        return root().resolve(Location.of(location).path());
    }

    private String plantCopy(String source, String target, Instant modified)
            throws IOException
    {
        Files.copy(localPath(source), localPath(target));
        Files.setLastModifiedTime(localPath(target), FileTime.from(modified));
        return target;
    }

    private String plantEmpty(String target, Instant modified)
            throws IOException
    {
        Files.createFile(localPath(target));
        Files.setLastModifiedTime(localPath(target), FileTime.from(modified));
        return target;
    }
}

package io.qbeast.trino;

import com.google.common.collect.HashMultiset;
import com.google.common.collect.Multiset;
import com.google.common.io.MoreFiles;
import com.google.common.io.RecursiveDeleteOption;
import io.qbeast.trino.catalog.QbeastFileSystemFactory;
import io.trino.filesystem.FileIterator;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.filesystem.local.LocalFileSystemFactory;
import io.trino.filesystem.manager.FileSystemConfig;
import io.trino.spi.security.ConnectorIdentity;
import io.trino.testing.MaterializedRow;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Warehouse locations on the local file system: a {@code file:} warehouse writes standard
 * {@code file:} URIs, the absolute paths any Iceberg engine opens whatever {@code local.location}
 * is, and tables written earlier with a {@code local:///} warehouse (relative to
 * {@code local.location}) keep being read and written after the catalog moves to {@code file:}.
 */
class TestQbeastFileLocations
{
    @Test
    void testFileWarehouseWritesAbsoluteUrisAndKeepsLocalTables()
            throws Exception
    {
        Path root = Files.createTempDirectory("qbeast-locations").toRealPath();
        // local.location, and the warehouse inside it, as the quickstart lays them out
        Path localRoot = Files.createDirectory(root.resolve("local"));
        Path warehouse = localRoot.resolve("warehouse");
        String fileWarehouse = "file://" + warehouse;
        // catalog qbeast as earlier quickstarts configured it: local:///warehouse under local.location
        try (QueryRunner runner = QbeastQueryRunner.builder()
                .setWorkerCount(0)
                .addConnectorProperty("local.location", localRoot.toString())
                .addConnectorProperty("qbeast.warehouse", "local:///warehouse")
                .build()) {
            List<MaterializedRow> nation = runner.execute("SELECT * FROM tpch.tiny.nation").getMaterializedRows();
            runner.execute("CREATE TABLE old_nation WITH (indexed_columns = ARRAY['nationkey', 'regionkey']) AS SELECT * FROM tpch.tiny.nation");
            assertFilesUnder(runner, "qbeast.tpch.old_nation", "local:///warehouse/tpch/old_nation-", localRoot, warehouse.resolve("tpch"));

            // catalog moved: the same warehouse directory (and so the same SQLite catalog in it), named by a file: URI
            runner.createCatalog("moved", QbeastConnectorFactory.CONNECTOR_NAME, Map.of(
                    "fs.local.enabled", "true",
                    "local.location", localRoot.toString(),
                    "qbeast.warehouse", fileWarehouse,
                    // the Iceberg catalog's name in the SQLite file: the one the tables were created in
                    "qbeast.jdbc.catalog-name", QbeastQueryRunner.CATALOG,
                    "qbeast.remove-orphan-files.min-retention", "0s"));
            assertThat(rows(runner, "SELECT * FROM moved.tpch.old_nation")).isEqualTo(HashMultiset.create(nation));
            runner.execute("INSERT INTO moved.tpch.old_nation SELECT * FROM tpch.tiny.nation");
            Multiset<MaterializedRow> twice = HashMultiset.create(nation);
            twice.addAll(nation);
            assertThat(rows(runner, "SELECT * FROM moved.tpch.old_nation")).isEqualTo(twice);
            // the inserted files go to the old table's own location
            assertFilesUnder(runner, "moved.tpch.old_nation", "local:///warehouse/tpch/old_nation-", localRoot, warehouse.resolve("tpch"));

            runner.execute("CREATE TABLE moved.tpch.new_nation WITH (indexed_columns = ARRAY['nationkey', 'regionkey']) AS SELECT * FROM tpch.tiny.nation");
            assertThat(rows(runner, "SELECT * FROM moved.tpch.new_nation")).isEqualTo(HashMultiset.create(nation));
            // file:///<absolute warehouse>/..., on disk at that absolute path (not under local.location)
            assertFilesUnder(runner, "moved.tpch.new_nation", fileWarehouse + "/tpch/new_nation-", localRoot, warehouse.resolve("tpch"));

            // a file a failed write left in a file: table is found and deleted by remove_orphan_files
            List<Path> tableFiles = dataFiles(runner, "moved.tpch.new_nation");
            Path orphan = tableFiles.getFirst().resolveSibling("20200101_000000_00000_orphan-0.parquet");
            Files.write(orphan, new byte[] {1, 2, 3});
            Files.setLastModifiedTime(orphan, FileTime.from(Instant.now().minus(Duration.ofHours(1))));
            runner.execute("ALTER TABLE moved.tpch.new_nation EXECUTE remove_orphan_files(retention_threshold => '0s')");
            assertThat(orphan).doesNotExist();
            assertThat(tableFiles).allSatisfy(file -> assertThat(file).isRegularFile());
            assertThat(rows(runner, "SELECT * FROM moved.tpch.new_nation")).isEqualTo(HashMultiset.create(nation));
        }
        finally {
            MoreFiles.deleteRecursively(root, RecursiveDeleteOption.ALLOW_INSECURE);
        }
    }

    @Test
    void testFileSystemListsFileUrisThatItCanDelete()
            throws Exception
    {
        Path root = Files.createTempDirectory("qbeast-file-uris").toRealPath();
        try {
            Path file = Files.createDirectories(root.resolve("data")).resolve("a.parquet");
            Files.write(file, new byte[] {1});
            FileSystemConfig config = new FileSystemConfig().setLocalEnabled(true);
            TrinoFileSystem fileSystem = new QbeastFileSystemFactory(new LocalFileSystemFactory(root), config)
                    .create(ConnectorIdentity.ofUser("test"));
            FileIterator listed = fileSystem.listFiles(Location.of("file://" + root));
            assertThat(listed.hasNext()).isTrue();
            Location location = listed.next().location();
            assertThat(listed.hasNext()).isFalse();
            // the name a listing gives is the one the table's metadata would hold, and deletes the file
            assertThat(location).isEqualTo(Location.of("file://" + file));
            fileSystem.deleteFiles(List.of(location));
            assertThat(file).doesNotExist();
        }
        finally {
            MoreFiles.deleteRecursively(root, RecursiveDeleteOption.ALLOW_INSECURE);
        }
    }

    /** The data files of {@code table} on disk (a {@code file:} table). */
    private static List<Path> dataFiles(QueryRunner runner, String table)
    {
        return runner.execute("SELECT path FROM " + filesTable(table)).getOnlyColumn()
                .map(path -> Path.of(URI.create((String) path)))
                .toList();
    }

    private static Multiset<MaterializedRow> rows(QueryRunner runner, String sql)
    {
        return HashMultiset.create(runner.execute(sql).getMaterializedRows());
    }

    /**
     * Every data file of {@code table} has a location starting with {@code prefix} and is a file
     * under {@code directory}, where the location points by its scheme's rule: a {@code file:}
     * URI is an absolute path, {@code local:///x} is {@code <local.location>/x}.
     */
    private static void assertFilesUnder(QueryRunner runner, String table, String prefix, Path localRoot, Path directory)
    {
        List<String> paths = runner.execute("SELECT path FROM " + filesTable(table)).getOnlyColumn()
                .map(String.class::cast)
                .toList();
        assertThat(paths).isNotEmpty().allSatisfy(path -> assertThat(path).startsWith(prefix));
        for (String path : paths) {
            Path file = path.startsWith("local:///")
                    ? localRoot.resolve(path.substring("local:///".length()))
                    : Path.of(URI.create(path));
            assertThat(file).isRegularFile().startsWith(directory);
        }
    }

    /** {@code catalog.schema."name$files"} of {@code catalog.schema.name}. */
    private static String filesTable(String table)
    {
        int dot = table.lastIndexOf('.');
        return table.substring(0, dot + 1) + "\"" + table.substring(dot + 1) + "$files\"";
    }
}

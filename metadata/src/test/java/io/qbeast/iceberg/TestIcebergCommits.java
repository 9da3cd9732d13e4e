package io.qbeast.iceberg;

import com.google.common.collect.ImmutableMap;
import io.qbeast.iceberg.IcebergCatalogs.IcebergCatalog;
import io.qbeast.iceberg.IcebergCommits.NewRevision;
import io.qbeast.iceberg.IcebergCommits.RowChanges;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

@TestInstance(PER_CLASS)
class TestIcebergCommits
{
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.optional(1, "x", Types.LongType.get()),
            Types.NestedField.optional(2, QbeastTableProperties.WEIGHT_COLUMN, Types.IntegerType.get()),
            Types.NestedField.optional(3, QbeastTableProperties.CUBE_COLUMN, Types.BinaryType.get()));

    @TempDir
    static Path root;

    private IcebergCatalog catalog;

    @BeforeAll
    void setUp()
            throws Exception
    {
        catalog = TestingCatalogs.sqliteCatalog(root);
    }

    @AfterAll
    void tearDown()
            throws Exception
    {
        catalog.close();
    }

    @Test
    void createTransactionCommitsDataAndRevisionsTogether()
    {
        TableIdentifier id = TableIdentifier.of("s", "created");
        Transaction create = catalog.catalog().buildTable(id, SCHEMA)
                .withProperties(QbeastTableProperties.newTableProperties(List.of("x"), 100))
                .createTransaction();
        assertThat(catalog.catalog().tableExists(id)).isFalse();

        IcebergCommits.commitCreate(create, List.of(dataFile(create.table(), "a")), List.of(new NewRevision(7, "{\"r\":7}")), Map.of("trino_query_id", "q1"));

        Table table = catalog.catalog().loadTable(id);
        assertThat(table.location()).startsWith("local:///warehouse/s/created");
        assertThat(QbeastTableProperties.revisionIds(table.properties())).containsExactly(7L);
        assertThat(QbeastTableProperties.currentRevisionJson(table.properties())).contains("{\"r\":7}");
        assertThat(QbeastTableProperties.indexedColumns(table.properties())).containsExactly("x");
        assertThat(table.currentSnapshot().summary()).containsEntry("added-data-files", "1").containsEntry("trino_query_id", "q1");
    }

    @Test
    void concurrentAppendsAllCommitAndMergeRevisionLists()
            throws Exception
    {
        TableIdentifier id = TableIdentifier.of("s", "concurrent");
        catalog.catalog().buildTable(id, SCHEMA)
                .withProperties(QbeastTableProperties.newTableProperties(List.of("x"), 100))
                .create();

        int writers = 6;
        ExecutorService executor = Executors.newFixedThreadPool(writers);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int writer = 0; writer < writers; writer++) {
                int w = writer;
                futures.add(executor.submit(() -> {
                    Table table = catalog.catalog().loadTable(id);
                    start.await();
                    // writers 0 and 1 propose the same revision; every other writer its own
                    long revision = w <= 1 ? 100 : 100 + w;
                    IcebergCommits.append(table, List.of(dataFile(table, "w" + w)), List.of(new NewRevision(revision, "{\"r\":" + revision + "}")), Map.of());
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> future : futures) {
                future.get();
            }
        }
        finally {
            executor.shutdownNow();
        }

        Table table = catalog.catalog().loadTable(id);
        Set<String> paths = new HashSet<>();
        table.newScan().planFiles().forEach(task -> paths.add(task.file().location()));
        assertThat(paths).hasSize(writers);
        List<Long> revisions = QbeastTableProperties.revisionIds(table.properties());
        assertThat(revisions).containsExactlyInAnyOrder(100L, 102L, 103L, 104L, 105L);
        for (long revision : revisions) {
            assertThat(QbeastTableProperties.revisionJson(table.properties(), revision)).contains("{\"r\":" + revision + "}");
        }
    }

    @Test
    void secondCatalogOnTheSameSqliteFileDoesNotBlockWriters()
            throws Exception
    {
        // initializing a catalog on an existing file reads its schema; that must not keep a read lock
        try (IcebergCatalog second = TestingCatalogs.openSqliteCatalog(root)) {
            catalog.namespaces().createNamespace(Namespace.of("after_second"), ImmutableMap.of());
            second.namespaces().createNamespace(Namespace.of("from_second"), ImmutableMap.of());
            // (a writer blocked by a read lock fails with SQLITE_BUSY after the busy timeout)
            assertThat(catalog.namespaces().namespaceExists(Namespace.of("from_second"))).isTrue();
        }
    }

    @Test
    void sqliteCatalogSupportsViewsSchema()
    {
        // jdbc.schema-version=V1: the catalog table has the record-type column views need
        assertThat(catalog.catalog()).isInstanceOf(org.apache.iceberg.catalog.ViewCatalog.class);
        org.apache.iceberg.catalog.ViewCatalog views = (org.apache.iceberg.catalog.ViewCatalog) catalog.catalog();
        assertThat(views.listViews(Namespace.of("s"))).isEmpty();
    }

    @Test
    void rowDeltaIsValidatedAsSerializableFromTheSnapshotRead()
    {
        TableIdentifier id = TableIdentifier.of("s", "row_delta");
        Table table = catalog.catalog().buildTable(id, SCHEMA)
                .withProperties(QbeastTableProperties.newTableProperties(List.of("x"), 100))
                .create();
        DataFile low = dataFile(table, "low", 0, 10);
        DataFile other = dataFile(table, "other", 20, 30);
        table.newAppend().appendFile(low).appendFile(other).commit();
        long read = table.currentSnapshot().snapshotId();
        Expression readRows = Expressions.lessThan("x", 15L);

        // another statement appends rows the change did not read: no conflict
        table.newAppend().appendFile(dataFile(table, "high", 100, 200)).commit();
        IcebergCommits.rowDelta(catalog.catalog().loadTable(id), OptionalLong.of(read), readRows,
                new RowChanges(List.of(), List.of(positionDeletes(table, "d1", low)), List.of(), List.of(low.location())), List.of(), Map.of());
        assertThat(table.newScan().planFiles()).hasSize(3);

        // another statement appends rows it would have read (serializable): refused
        long readAgain = catalog.catalog().loadTable(id).currentSnapshot().snapshotId();
        table.newAppend().appendFile(dataFile(table, "low2", 5, 8)).commit();
        long before = catalog.catalog().loadTable(id).currentSnapshot().snapshotId();
        assertThatThrownBy(() -> IcebergCommits.rowDelta(catalog.catalog().loadTable(id), OptionalLong.of(readAgain), readRows,
                new RowChanges(List.of(), List.of(positionDeletes(table, "d2", low)), List.of(), List.of(low.location())), List.of(), Map.of()))
                .isInstanceOf(ValidationException.class);

        // the file it deletes rows from was removed meanwhile: refused
        long readThird = before;
        table.newDelete().deleteFile(other).commit();
        assertThatThrownBy(() -> IcebergCommits.rowDelta(catalog.catalog().loadTable(id), OptionalLong.of(readThird), Expressions.alwaysTrue(),
                new RowChanges(List.of(), List.of(positionDeletes(table, "d3", other)), List.of(), List.of(other.location())), List.of(), Map.of()))
                .isInstanceOf(ValidationException.class);

        // a whole file removed while another statement deleted rows of it: refused (its rows would come back)
        long readFourth = catalog.catalog().loadTable(id).currentSnapshot().snapshotId();
        table.newRowDelta().addDeletes(positionDeletes(table, "d4", low)).commit();
        long last = catalog.catalog().loadTable(id).currentSnapshot().snapshotId();
        assertThatThrownBy(() -> IcebergCommits.rowDelta(catalog.catalog().loadTable(id), OptionalLong.of(readFourth), readRows,
                new RowChanges(List.of(), List.of(), List.of(low), List.of()), List.of(), Map.of()))
                .isInstanceOf(ValidationException.class);
        assertThat(catalog.catalog().loadTable(id).currentSnapshot().snapshotId()).isEqualTo(last);
    }

    private static DataFile dataFile(Table table, String name, long min, long max)
    {
        return DataFiles.builder(PartitionSpec.unpartitioned())
                .withPath(table.location() + "/data/" + name + ".parquet")
                .withFileSizeInBytes(100)
                .withFormat(FileFormat.PARQUET)
                .withMetrics(new Metrics(10L, null, null, null, null,
                        Map.of(1, Conversions.toByteBuffer(Types.LongType.get(), min)),
                        Map.of(1, Conversions.toByteBuffer(Types.LongType.get(), max))))
                .build();
    }

    private static DeleteFile positionDeletes(Table table, String name, DataFile dataFile)
    {
        return FileMetadata.deleteFileBuilder(PartitionSpec.unpartitioned())
                .ofPositionDeletes()
                .withPath(table.location() + "/data/" + name + "-deletes.parquet")
                .withFileSizeInBytes(50)
                .withRecordCount(1)
                .withFormat(FileFormat.PARQUET)
                .withReferencedDataFile(dataFile.location())
                .build();
    }

    private static DataFile dataFile(Table table, String name)
    {
        return DataFiles.builder(PartitionSpec.unpartitioned())
                .withPath(table.location() + "/data/" + name + ".parquet")
                .withFileSizeInBytes(100)
                .withRecordCount(1)
                .withFormat(FileFormat.PARQUET)
                .build();
    }
}

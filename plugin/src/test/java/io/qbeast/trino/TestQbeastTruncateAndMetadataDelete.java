package io.qbeast.trino;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.qbeast.index.Weight;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorMetadata;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.Constraint;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.predicate.ValueSet;
import io.trino.spi.transaction.IsolationLevel;
import io.trino.testing.TestingConnectorSession;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static io.qbeast.trino.IcebergJavaEngine.dataFiles;
import static io.qbeast.trino.IcebergJavaEngine.writeData;
import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_COMMIT_ERROR;
import static io.trino.spi.type.BigintType.BIGINT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code TRUNCATE TABLE} and the DELETEs that remove whole files (applyDelete): the rows left,
 * checked against tpch and against Iceberg's own reader; the index metadata after them (files,
 * cubes, revisions, samples, statistics); the commit (a delete snapshot, no delete files); a
 * DELETE that cuts a file going to the row-level path; and commits by others between the plan
 * and the commit.
 */
class TestQbeastTruncateAndMetadataDelete
        extends AbstractTestQbeastTables
{
    private static final String COLUMNS = "orderkey, custkey, orderstatus, totalprice";

    @Override
    protected QbeastQueryRunner.Builder queryRunnerBuilder()
    {
        // small files: each INSERT writes several
        return super.queryRunnerBuilder().addConnectorProperty("qbeast.target-file-size", "32kB");
    }

    @Test
    void testTruncate()
    {
        String name = "orders_truncated";
        // the first rows cover only orderkey < 3000: their revision cannot hold the rows inserted after the truncate
        assertUpdate(QbeastQueryRunner.oneWriterPerNode(getSession()),
                "CREATE TABLE %s WITH (indexed_columns = ARRAY['orderkey', 'totalprice'], cube_size = 100) AS SELECT %s FROM tpch.tiny.orders WHERE orderkey < 3000".formatted(name, COLUMNS),
                "SELECT count(*) FROM orders WHERE orderkey < 3000");
        Set<Long> oldRevisions = new HashSet<>(longs("SELECT revision_id FROM \"%s$revisions\"".formatted(name)));
        assertThat(oldRevisions).isNotEmpty();
        // another engine's position delete file: truncated too
        DataFile first = dataFiles(tables().table(name)).getFirst();
        commitPositionDeletes(tables().table(name), first.location(), List.of(0L, 1L));
        assertThat(totalOf(tables().table(name).currentSnapshot(), SnapshotSummary.TOTAL_DELETE_FILES_PROP)).isEqualTo(1);

        assertUpdate("TRUNCATE TABLE " + name);

        Table truncated = tables().table(name);
        Snapshot snapshot = truncated.currentSnapshot();
        assertThat(snapshot.operation()).isEqualTo("delete");
        assertThat(totalOf(snapshot, SnapshotSummary.TOTAL_DATA_FILES_PROP)).isZero();
        assertThat(totalOf(snapshot, SnapshotSummary.TOTAL_DELETE_FILES_PROP)).isZero();
        assertThat(totalOf(snapshot, SnapshotSummary.TOTAL_RECORDS_PROP)).isZero();
        assertThat(icebergRows(truncated)).isEmpty();
        assertThat(longs("SELECT count(*) FROM " + name)).containsExactly(0L);
        assertThat(longs("SELECT count(*) FROM %s TABLESAMPLE SYSTEM (50)".formatted(name))).containsExactly(0L);
        assertThat(longs("SELECT count(*) FROM \"%s$files\"".formatted(name))).containsExactly(0L);
        assertThat(longs("SELECT count(*) FROM \"%s$cubes\"".formatted(name))).containsExactly(0L);
        // the revision list is reset: the next INSERT proposes a revision for its own rows
        assertThat(longs("SELECT count(*) FROM \"%s$revisions\"".formatted(name))).containsExactly(0L);
        assertThat(rowCountStatistic(name)).isZero();
        // the table's properties stay
        assertThat((String) computeScalar("SHOW CREATE TABLE " + name)).contains("indexed_columns = ARRAY['orderkey','totalprice']").contains("cube_size = 100");

        // re-inserting builds a fresh tree of a fresh revision
        assertUpdate(QbeastQueryRunner.oneWriterPerNode(getSession()), "INSERT INTO %s SELECT %s FROM tpch.tiny.orders".formatted(name, COLUMNS), 15000);
        assertQuery("SELECT %s FROM %s".formatted(COLUMNS, name), "SELECT %s FROM orders".formatted(COLUMNS));
        List<Long> revisions = longs("SELECT revision_id FROM \"%s$revisions\"".formatted(name));
        assertThat(revisions).doesNotContainAnyElementsOf(oldRevisions);
        assertThat(new HashSet<>(revisions)).isEqualTo(new HashSet<>(longs("SELECT DISTINCT revision_id FROM \"%s$files\"".formatted(name))));
        assertThat(longs("SELECT sum(rows) FROM \"%s$cubes\"".formatted(name))).containsExactly(15000L);
        assertThat(longs("SELECT count(*) FROM \"%s$cubes\" WHERE revision NOT IN (%s)".formatted(name, join(revisions)))).containsExactly(0L);
        assertThat(rowCountStatistic(name)).isEqualTo(15000);
        Map<Long, Record> iceberg = icebergRows(tables().table(name));
        assertThat(iceberg.keySet()).containsExactlyInAnyOrderElementsOf(longs("SELECT orderkey FROM tpch.tiny.orders"));
        long bound = Weight.upperBound(0.3);
        assertThat(longs("SELECT orderkey FROM %s TABLESAMPLE SYSTEM (30)".formatted(name)))
                .containsExactlyInAnyOrderElementsOf(iceberg.values().stream()
                        .filter(row -> (int) row.getField("_qbeast_weight") < bound)
                        .map(row -> (Long) row.getField("orderkey"))
                        .toList());
        assertUpdate("DROP TABLE " + name);
    }

    @Test
    void testTruncateOfEmptyTable()
    {
        String name = "orders_never_written";
        assertUpdate("CREATE TABLE %s (orderkey bigint, totalprice double) WITH (indexed_columns = ARRAY['orderkey'])".formatted(name));
        assertUpdate("TRUNCATE TABLE " + name);
        assertThat(longs("SELECT count(*) FROM " + name)).containsExactly(0L);
        assertUpdate("INSERT INTO %s SELECT orderkey, totalprice FROM tpch.tiny.orders".formatted(name), 15000);
        assertQuery("SELECT orderkey, totalprice FROM " + name, "SELECT orderkey, totalprice FROM orders");
        assertUpdate("DROP TABLE " + name);
    }

    @Test
    void testDeleteOfWholeFiles()
    {
        String name = "orders_three_ranges";
        createInThreeRanges(name);
        Table before = tables().table(name);
        Set<String> middleFiles = filesIn(before, 10_000, 30_000);
        assertThat(middleFiles).isNotEmpty();

        assertUpdate("DELETE FROM %s WHERE orderkey >= 10000 AND orderkey < 30000".formatted(name),
                "SELECT count(*) FROM orders WHERE orderkey >= 10000 AND orderkey < 30000");

        String remaining = "SELECT %s FROM orders WHERE orderkey < 10000 OR orderkey >= 30000".formatted(COLUMNS);
        assertQuery("SELECT %s FROM %s".formatted(COLUMNS, name), remaining);
        Table after = tables().table(name);
        Snapshot snapshot = after.currentSnapshot();
        // one delete snapshot that removed exactly the middle INSERT's files and wrote nothing
        assertThat(snapshot.operation()).isEqualTo("delete");
        assertThat(totalOf(snapshot, SnapshotSummary.DELETED_FILES_PROP)).isEqualTo(middleFiles.size());
        assertThat(snapshot.summary()).doesNotContainKeys(SnapshotSummary.ADDED_FILES_PROP, SnapshotSummary.ADDED_DELETE_FILES_PROP);
        assertThat(totalOf(snapshot, SnapshotSummary.TOTAL_DELETE_FILES_PROP)).isZero();
        Set<String> left = dataFiles(after).stream().map(DataFile::location).collect(toImmutableSet());
        assertThat(left).doesNotContainAnyElementsOf(middleFiles)
                .hasSize(dataFiles(before).size() - middleFiles.size());
        // Iceberg's reader agrees; the index keeps serving the rest
        assertThat(icebergRows(after).keySet()).containsExactlyInAnyOrderElementsOf(longs("SELECT orderkey FROM tpch.tiny.orders WHERE orderkey < 10000 OR orderkey >= 30000"));
        long remainingRows = (Long) computeScalar("SELECT count(*) FROM tpch.tiny.orders WHERE orderkey < 10000 OR orderkey >= 30000");
        assertThat(longs("SELECT sum(rows) FROM \"%s$cubes\"".formatted(name))).containsExactly(remainingRows);
        assertThat(rowCountStatistic(name)).isEqualTo(remainingRows);
        // a DELETE that matches no file commits nothing
        long snapshotId = snapshot.snapshotId();
        assertUpdate("DELETE FROM %s WHERE orderkey >= 10000 AND orderkey < 30000".formatted(name), 0);
        assertThat(tables().table(name).currentSnapshot().snapshotId()).isEqualTo(snapshotId);

        // a file by its path: one value per file, so whole
        DataFile byPath = dataFiles(after).getFirst();
        assertUpdate("DELETE FROM %s WHERE \"$path\" = '%s'".formatted(name, byPath.location()), byPath.recordCount());
        Snapshot pathDelete = tables().table(name).currentSnapshot();
        assertThat(pathDelete.operation()).isEqualTo("delete");
        assertThat(totalOf(pathDelete, SnapshotSummary.DELETED_FILES_PROP)).isEqualTo(1);
        assertThat(dataFiles(tables().table(name)).stream().map(DataFile::location)).doesNotContain(byPath.location())
                .hasSize(left.size() - 1);
        assertThat(longs("SELECT count(*) FROM " + name)).containsExactly(remainingRows - byPath.recordCount());
        assertUpdate("DROP TABLE " + name);
    }

    @Test
    void testDeleteOfWholeFilesRemovesTheirPositionDeletes()
    {
        String name = "orders_three_ranges_deleted";
        createInThreeRanges(name);
        Table table = tables().table(name);
        String middle = filesIn(table, 10_000, 30_000).stream().sorted().findFirst().orElseThrow();
        commitPositionDeletes(table, middle, List.of(0L, 3L));
        long deletedBefore = (Long) computeScalar("SELECT count(*) FROM %s WHERE orderkey >= 10000 AND orderkey < 30000".formatted(name));
        assertThat(deletedBefore).isEqualTo((Long) computeScalar("SELECT count(*) FROM tpch.tiny.orders WHERE orderkey >= 10000 AND orderkey < 30000") - 2);

        // the live rows are counted: not those the position delete file already deleted
        assertUpdate("DELETE FROM %s WHERE orderkey >= 10000 AND orderkey < 30000".formatted(name), deletedBefore);
        Snapshot snapshot = tables().table(name).currentSnapshot();
        assertThat(snapshot.operation()).isEqualTo("delete");
        assertThat(totalOf(snapshot, SnapshotSummary.REMOVED_DELETE_FILES_PROP)).isEqualTo(1);
        assertThat(totalOf(snapshot, SnapshotSummary.TOTAL_DELETE_FILES_PROP)).isZero();
        assertQuery("SELECT %s FROM %s".formatted(COLUMNS, name), "SELECT %s FROM orders WHERE orderkey < 10000 OR orderkey >= 30000".formatted(COLUMNS));
        assertUpdate("DROP TABLE " + name);
    }

    @Test
    void testDeleteWithoutWhere()
    {
        String name = "orders_deleted_all";
        createInThreeRanges(name);
        int files = dataFiles(tables().table(name)).size();
        List<Long> revisions = longs("SELECT revision_id FROM \"%s$revisions\"".formatted(name));

        assertUpdate("DELETE FROM " + name, 15000);

        Snapshot snapshot = tables().table(name).currentSnapshot();
        assertThat(snapshot.operation()).isEqualTo("delete");
        assertThat(totalOf(snapshot, SnapshotSummary.DELETED_FILES_PROP)).isEqualTo(files);
        assertThat(totalOf(snapshot, SnapshotSummary.TOTAL_DATA_FILES_PROP)).isZero();
        assertThat(icebergRows(tables().table(name))).isEmpty();
        assertThat(longs("SELECT count(*) FROM " + name)).containsExactly(0L);
        assertThat(longs("SELECT count(*) FROM \"%s$cubes\"".formatted(name))).containsExactly(0L);
        // unlike TRUNCATE, a DELETE leaves the revisions
        assertThat(longs("SELECT revision_id FROM \"%s$revisions\"".formatted(name))).isEqualTo(revisions);
        assertUpdate("INSERT INTO %s SELECT %s FROM tpch.tiny.orders".formatted(name, COLUMNS), 15000);
        assertQuery("SELECT %s FROM %s".formatted(COLUMNS, name), "SELECT %s FROM orders".formatted(COLUMNS));
        assertUpdate("DROP TABLE " + name);
    }

    @Test
    void testDeleteCuttingAFileTakesTheRowLevelPath()
    {
        String name = "orders_cut";
        createInThreeRanges(name);
        long snapshotId = tables().table(name).currentSnapshot().snapshotId();
        // every file holds rows of many customers: no file is wholly inside custkey = 370, some meet it
        String delete = "DELETE FROM %s WHERE custkey = 370".formatted(name);
        try {
            computeActual(delete);
        }
        catch (RuntimeException e) {
            // the row-level path (beginMerge) of a connector that has none yet; applyDelete declined, nothing was committed
            assertThat(e).hasMessageContaining("This connector does not support modifying table rows");
            // thrown by the merge's begin: the engine planned the row-level path
            assertThat(Arrays.stream(e.getCause().getStackTrace()).map(StackTraceElement::getMethodName)).contains("beginMerge");
            assertThat(tables().table(name).currentSnapshot().snapshotId()).isEqualTo(snapshotId);
            return;
        }
        // the row-level path: rows deleted within files (delete files or rewritten files), not a removal of whole files
        Snapshot snapshot = tables().table(name).currentSnapshot();
        assertThat(snapshot.summary().containsKey(SnapshotSummary.ADDED_DELETE_FILES_PROP) || snapshot.summary().containsKey(SnapshotSummary.ADDED_FILES_PROP))
                .as("delete files or rewritten files in %s", snapshot.summary())
                .isTrue();
        assertQuery("SELECT %s FROM %s".formatted(COLUMNS, name), "SELECT %s FROM orders WHERE custkey <> 370".formatted(COLUMNS));
    }

    @Test
    void testRewriteBetweenPlanAndCommitFailsTheDelete()
    {
        String name = "orders_delete_vs_optimize";
        createInThreeRanges(name);
        PlannedDelete delete = planDelete(name, 10_000, 30_000);
        try {
            // an optimize rewrites every file, those the delete removes included: their rows would survive
            assertUpdate("ALTER TABLE %s EXECUTE optimize(mode => 'all')".formatted(name));
            assertThatThrownBy(delete::execute)
                    .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(QBEAST_COMMIT_ERROR.toErrorCode()))
                    .hasMessageContaining("Deleting from tpch.%s conflicts with a change committed since snapshot".formatted(name))
                    .hasMessageContaining("nothing was changed");
        }
        finally {
            delete.close();
        }
        // nothing lost by the optimize, nothing deleted
        assertQuery("SELECT %s FROM %s".formatted(COLUMNS, name), "SELECT %s FROM orders".formatted(COLUMNS));
        assertThat(icebergRows(tables().table(name))).hasSize(15000);
        assertUpdate("DROP TABLE " + name);
    }

    @Test
    void testAppendBetweenPlanAndCommitIsKept()
    {
        String name = "orders_delete_vs_append";
        createInThreeRanges(name);
        PlannedDelete delete = planDelete(name, 10_000, 30_000);
        List<Long> appendedKeys = List.of(10_001L, 20_003L, 29_999L);
        try {
            // another engine appends rows inside the deleted range after the plan: the DELETE is ordered before them
            Table table = tables().table(name);
            List<Record> rows = new ArrayList<>();
            for (long key : appendedKeys) {
                GenericRecord record = GenericRecord.create(table.schema());
                record.setField("orderkey", key);
                record.setField("custkey", 1L);
                record.setField("orderstatus", "O");
                record.setField("totalprice", 1.0);
                rows.add(record);
            }
            table.newAppend().appendFile(writeData(table, "other-engine-append.parquet", rows)).commit();
            assertThat(delete.execute()).isEqualTo((Long) computeScalar("SELECT count(*) FROM tpch.tiny.orders WHERE orderkey >= 10000 AND orderkey < 30000"));
        }
        finally {
            delete.close();
        }
        List<Long> expected = ImmutableList.<Long>builder()
                .addAll(longs("SELECT orderkey FROM tpch.tiny.orders WHERE orderkey < 10000 OR orderkey >= 30000"))
                .addAll(appendedKeys)
                .build();
        assertThat(longs("SELECT orderkey FROM " + name)).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(icebergRows(tables().table(name)).keySet()).containsExactlyInAnyOrderElementsOf(expected);
        assertUpdate("DROP TABLE " + name);
    }

    // ---- helpers ----

    /** orders in three INSERTs of disjoint orderkey ranges, so that no file holds rows of two. */
    private void createInThreeRanges(String name)
    {
        assertUpdate("CREATE TABLE %s WITH (indexed_columns = ARRAY['orderkey', 'totalprice'], cube_size = 500) AS SELECT %s FROM tpch.tiny.orders WHERE orderkey < 10000".formatted(name, COLUMNS),
                "SELECT count(*) FROM orders WHERE orderkey < 10000");
        assertUpdate("INSERT INTO %s SELECT %s FROM tpch.tiny.orders WHERE orderkey >= 10000 AND orderkey < 30000".formatted(name, COLUMNS),
                "SELECT count(*) FROM orders WHERE orderkey >= 10000 AND orderkey < 30000");
        assertUpdate("INSERT INTO %s SELECT %s FROM tpch.tiny.orders WHERE orderkey >= 30000".formatted(name, COLUMNS),
                "SELECT count(*) FROM orders WHERE orderkey >= 30000");
        assertThat(dataFiles(tables().table(name)).size()).isGreaterThan(3);
    }

    /** The data files whose orderkeys all lie in {@code [low, high)}, by reading them with Iceberg. */
    private static Set<String> filesIn(Table table, long low, long high)
    {
        Set<String> inside = new HashSet<>();
        for (DataFile file : dataFiles(table)) {
            boolean all = true;
            try (CloseableIterable<Record> records = Parquet.read(table.io().newInputFile(file.location()))
                    .project(table.schema().select("orderkey"))
                    .createReaderFunc(fileSchema -> org.apache.iceberg.data.parquet.GenericParquetReaders.buildReader(table.schema().select("orderkey"), fileSchema))
                    .build()) {
                for (Record record : records) {
                    long key = (long) record.getField("orderkey");
                    all &= key >= low && key < high;
                }
            }
            catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (all) {
                inside.add(file.location());
            }
        }
        return inside;
    }

    /**
     * A DELETE of {@code low <= orderkey < high} through the connector's metadata, planned
     * ({@code applyFilter}, {@code applyDelete}) in its own transaction and committed later by
     * {@link PlannedDelete#execute}: what a DELETE statement does, with room for another commit in between.
     */
    private PlannedDelete planDelete(String name, long low, long high)
    {
        QbeastConnector connector = connectors().getFirst();
        ConnectorSession session = TestingConnectorSession.builder().setPropertyMetadata(connector.getSessionProperties()).build();
        ConnectorTransactionHandle transaction = connector.beginTransaction(IsolationLevel.READ_UNCOMMITTED, false, true);
        ConnectorMetadata metadata = connector.getMetadata(session, transaction);
        ConnectorTableHandle table = metadata.getTableHandle(session, new SchemaTableName(QbeastQueryRunner.SCHEMA, name), Optional.empty(), Optional.empty());
        ColumnHandle orderkey = metadata.getColumnHandles(session, table).get("orderkey");
        Domain range = Domain.create(ValueSet.ofRanges(Range.range(BIGINT, low, true, high, false)), false);
        ConnectorTableHandle filtered = metadata.applyFilter(session, table, new Constraint(TupleDomain.withColumnDomains(ImmutableMap.of(orderkey, range))))
                .orElseThrow()
                .getHandle();
        ConnectorTableHandle delete = metadata.applyDelete(session, filtered).orElseThrow();
        return new PlannedDelete(connector, transaction, () -> metadata.executeDelete(session, delete));
    }

    private record PlannedDelete(QbeastConnector connector, ConnectorTransactionHandle transaction, java.util.function.Supplier<OptionalLong> commit)
    {
        long execute()
        {
            return commit.get().orElseThrow();
        }

        void close()
        {
            connector.rollback(transaction);
        }
    }

    private static void commitPositionDeletes(Table table, String dataFile, List<Long> positions)
    {
        GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(table).deleteFileFormat(FileFormat.PARQUET).build();
        PositionDeleteWriter<Record> writer = writers.newPositionDeleteWriter(
                EncryptedFiles.plainAsEncryptedOutput(table.io().newOutputFile(table.location() + "/data/other-engine-position-deletes-" + System.nanoTime() + ".parquet")), table.spec(), null);
        try (writer) {
            for (long position : positions) {
                writer.write(PositionDelete.<Record>create().set(dataFile, position));
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        table.newRowDelta().addDeletes(writer.toDeleteFile()).commit();
    }

    /** The live rows by orderkey, read by Iceberg's own generic reader (which applies every delete file). */
    private static Map<Long, Record> icebergRows(Table table)
    {
        Map<Long, Record> rows = new java.util.HashMap<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            for (Record record : records) {
                assertThat(rows.put((Long) record.getField("orderkey"), record.copy())).isNull();
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return rows;
    }

    private static long totalOf(Snapshot snapshot, String property)
    {
        return Long.parseLong(snapshot.summary().getOrDefault(property, "0"));
    }

    private static String join(List<Long> values)
    {
        return String.join(", ", values.stream().map(String::valueOf).toList());
    }
}

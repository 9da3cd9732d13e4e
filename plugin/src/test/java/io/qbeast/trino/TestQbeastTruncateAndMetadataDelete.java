package io.qbeast.trino;

import com.google.common.collect.ImmutableList;
import io.qbeast.index.Weight;
import io.trino.testing.MaterializedRow;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code TRUNCATE TABLE}: the rows left, checked against tpch and against Iceberg's own reader;
 * the index metadata after it (files, cubes, revisions, samples, statistics) and after
 * inserting again.
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

    // ---- helpers ----

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

    private static List<DataFile> dataFiles(Table table)
    {
        List<DataFile> files = new ArrayList<>();
        if (table.currentSnapshot() == null) {
            return files;
        }
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            tasks.forEach(task -> files.add(task.file()));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    private static long totalOf(Snapshot snapshot, String property)
    {
        return Long.parseLong(snapshot.summary().getOrDefault(property, "0"));
    }

    private long rowCountStatistic(String name)
    {
        for (MaterializedRow row : computeActual("SHOW STATS FOR " + name).getMaterializedRows()) {
            if (row.getField(0) == null) {
                return Math.round((double) row.getField(4));
            }
        }
        throw new AssertionError("SHOW STATS has no summary row");
    }

    private List<Long> longs(String sql)
    {
        return computeActual(sql).getMaterializedRows().stream().map(row -> (Long) row.getField(0)).collect(ImmutableList.toImmutableList());
    }

    private static String join(List<Long> values)
    {
        return String.join(", ", values.stream().map(String::valueOf).toList());
    }
}

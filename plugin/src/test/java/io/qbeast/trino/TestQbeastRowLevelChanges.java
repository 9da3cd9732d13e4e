package io.qbeast.trino;

import io.qbeast.index.Weight;
import io.trino.execution.QueryStats;
import io.trino.testing.MaterializedRow;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static io.qbeast.trino.IcebergJavaEngine.dataFiles;
import static io.qbeast.trino.IcebergJavaEngine.icebergLiveRows;
import static io.qbeast.trino.IcebergJavaEngine.writeData;
import static io.trino.spi.StandardErrorCode.DIVISION_BY_ZERO;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * DELETE, UPDATE and MERGE of a qbeast table (merge-on-read): after each, plain, filtered,
 * counted and sampled reads of qbeast, and Iceberg's own generic reader, return exactly the live
 * rows, computed independently from tpch; an updated row keeps its {@code _qbeast_weight}, so a
 * sample is still the live rows under the weight bound; whole files deleted are removed from the
 * table instead of getting delete files; optimize drops deleted rows and delete files; a failed
 * statement changes nothing.
 */
class TestQbeastRowLevelChanges
        extends AbstractTestQbeastTables
{
    private static final String COLUMNS = "orderkey, custkey, orderstatus, totalprice";

    @Override
    protected QbeastQueryRunner.Builder queryRunnerBuilder()
    {
        // small files: a statement's rows lie in many files
        return super.queryRunnerBuilder().addConnectorProperty("qbeast.target-file-size", "32kB");
    }

    @Test
    void testDeleteSomeRowsOfManyFiles()
    {
        String name = "orders_delete_rows";
        create(name);
        Map<Long, Integer> weights = weights(name);
        int filesBefore = dataFiles(tables().table(name)).size();

        String deleted = "orderkey % 7 = 0 OR custkey = 370";
        long expectedDeleted = count("SELECT count(*) FROM tpch.tiny.orders WHERE " + deleted);
        assertUpdate("DELETE FROM %s WHERE %s".formatted(name, deleted), expectedDeleted);

        String live = "SELECT %s FROM tpch.tiny.orders WHERE NOT (%s)".formatted(COLUMNS, deleted);
        assertLiveRows(name, live, weights);
        Table table = tables().table(name);
        // the deleted rows lie in most files, none of which lost all its rows: all stay, with delete files
        assertThat(dataFiles(table)).hasSize(filesBefore);
        assertThat(positionDeletes(table)).isEqualTo(expectedDeleted);
        assertThat(deleteFileCount(table)).isGreaterThan(1);
        assertThat(count("SELECT count(*) FROM %s WHERE %s".formatted(name, deleted))).isZero();
    }

    @Test
    void testDeleteReportsTheBytesOfItsDeleteFiles()
    {
        // the bytes a DELETE wrote, as Trino reports them, are those of the delete files it committed
        String name = "orders_delete_bytes";
        create(name);
        String predicate = "orderkey % 7 = 3";
        QueryStats stats = QbeastQueryRunner.queryStats(getDistributedQueryRunner(), getSession(), "DELETE FROM %s WHERE %s".formatted(name, predicate));
        Table table = tables().table(name);
        assertThat(deleteFileCount(table)).isPositive();
        assertThat(stats.getPhysicalWrittenDataSize().toBytes()).isEqualTo(Long.parseLong(table.currentSnapshot().summary().get(SnapshotSummary.ADDED_FILE_SIZE_PROP)));
        assertThat(count("SELECT count(*) FROM %s WHERE %s".formatted(name, predicate))).isZero();
        assertThat(count("SELECT count(*) FROM " + name)).isEqualTo(count("SELECT count(*) FROM tpch.tiny.orders WHERE NOT (%s)".formatted(predicate)));
    }

    @Test
    void testDeleteOfWholeFilesRemovesThem()
    {
        String name = "orders_delete_files";
        create(name);
        Map<Long, Integer> weights = weights(name);
        List<String> files = dataFiles(tables().table(name)).stream().map(DataFile::location).sorted().toList();
        assertThat(files).hasSizeGreaterThan(3);
        List<String> removed = files.subList(0, 2);
        String inFiles = "\"$path\" IN ('%s')".formatted(String.join("', '", removed));
        Set<Long> removedKeys = Set.copyOf(longs("SELECT orderkey FROM %s WHERE %s".formatted(name, inFiles)));
        assertThat(removedKeys).isNotEmpty();

        assertUpdate("DELETE FROM %s WHERE %s".formatted(name, inFiles), removedKeys.size());

        Table table = tables().table(name);
        assertThat(dataFiles(table).stream().map(DataFile::location).toList())
                .containsExactlyInAnyOrderElementsOf(files.subList(2, files.size()));
        // the files are gone from the table: no delete file was committed, none is left behind
        assertThat(positionDeletes(table)).isZero();
        assertThat(tables().listFiles(table.location() + "/data").stream().filter(file -> file.contains("-deletes-")).toList()).isEmpty();
        String live = "SELECT %s FROM tpch.tiny.orders WHERE orderkey NOT IN (%s)".formatted(COLUMNS, removedKeys.stream().map(String::valueOf).reduce((a, b) -> a + ", " + b).orElseThrow());
        assertLiveRows(name, live, weights);
    }

    @Test
    void testUpdateOfIndexedAndOtherColumnsKeepsWeights()
    {
        String name = "orders_update";
        create(name);
        Map<Long, Integer> weights = weights(name);

        // totalprice is indexed: the new versions are placed in other cubes
        long expectedIndexed = count("SELECT count(*) FROM tpch.tiny.orders WHERE orderkey % 5 = 0");
        assertUpdate("UPDATE %s SET totalprice = totalprice * 3 + 1000 WHERE orderkey %% 5 = 0".formatted(name), expectedIndexed);
        long expectedOther = count("SELECT count(*) FROM tpch.tiny.orders WHERE custkey < 300");
        assertUpdate("UPDATE %s SET orderstatus = 'X' WHERE custkey < 300".formatted(name), expectedOther);

        String live = """
                SELECT orderkey, custkey,
                    CASE WHEN custkey < 300 THEN 'X' ELSE orderstatus END,
                    CASE WHEN orderkey % 5 = 0 THEN totalprice * 3 + 1000 ELSE totalprice END
                FROM tpch.tiny.orders""";
        assertLiveRows(name, live, weights);
        assertThat(positionDeletes(tables().table(name))).isEqualTo(expectedIndexed + expectedOther);
    }

    @Test
    void testUpdateOfAnotherEnginesRowsKeepsTheirSample()
    {
        // rows appended by another engine have no stored weight: a sample derives one from the file
        // and position; their updated versions store that weight, so the sample does not change
        String name = "orders_update_appended";
        create(name);
        Table table = tables().table(name);
        List<Record> appended = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            GenericRecord record = GenericRecord.create(table.schema());
            record.setField("orderkey", 1_000_000L + i);
            record.setField("custkey", (long) i);
            record.setField("orderstatus", "O");
            record.setField("totalprice", 1000.0 + i);
            appended.add(record);
        }
        table.newAppend().appendFile(writeData(table, "other-engine-append.parquet", appended)).commit();
        String sample = "SELECT orderkey FROM %s TABLESAMPLE SYSTEM (50) WHERE orderkey >= 1000000".formatted(name);
        Set<Long> before = Set.copyOf(longs(sample));
        assertThat(before.size()).isBetween(300, 700);

        assertUpdate("UPDATE %s SET totalprice = totalprice + 1 WHERE orderkey >= 1000000 AND orderkey %% 2 = 0".formatted(name), 500);

        assertThat(Set.copyOf(longs(sample))).isEqualTo(before);
        assertThat(count("SELECT count(*) FROM %s WHERE orderkey >= 1000000 AND _qbeast_weight IS NOT NULL".formatted(name))).isEqualTo(500);
        assertSameRows("SELECT orderkey, totalprice FROM %s WHERE orderkey >= 1000000".formatted(name),
                "SELECT BIGINT '1000000' + i, DOUBLE '1000' + i + IF(i % 2 = 0, 1, 0) FROM UNNEST(sequence(0, 999)) t(i)");
        assertThat(icebergLiveRows(tables().table(name))).hasSize(15000 + 1000);
    }

    @Test
    void testMergeUpdatesDeletesAndInserts()
    {
        String name = "orders_merge";
        create(name);
        Map<Long, Integer> weights = weights(name);

        // the source: every other tpch order (matched) and 500 new keys (not matched)
        String source = """
                SELECT orderkey, custkey, orderstatus, totalprice FROM tpch.tiny.orders WHERE orderkey % 2 = 0
                UNION ALL
                SELECT orderkey + 1000000, custkey, 'N', totalprice FROM tpch.tiny.orders WHERE orderkey < 2000""";
        long expected = count("SELECT count(*) FROM (%s)".formatted(source));
        assertUpdate("""
                MERGE INTO %s t USING (%s) s ON t.orderkey = s.orderkey
                WHEN MATCHED AND s.orderkey %% 3 = 0 THEN DELETE
                WHEN MATCHED THEN UPDATE SET totalprice = s.totalprice + 1, orderstatus = 'M'
                WHEN NOT MATCHED THEN INSERT (orderkey, custkey, orderstatus, totalprice) VALUES (s.orderkey, s.custkey, s.orderstatus, s.totalprice)""".formatted(name, source), expected);

        String live = """
                SELECT orderkey, custkey,
                    CASE WHEN orderkey % 2 = 0 THEN 'M' ELSE orderstatus END,
                    CASE WHEN orderkey % 2 = 0 THEN totalprice + 1 ELSE totalprice END
                FROM tpch.tiny.orders WHERE NOT (orderkey % 2 = 0 AND orderkey % 3 = 0)
                UNION ALL
                SELECT orderkey + 1000000, custkey, 'N', totalprice FROM tpch.tiny.orders WHERE orderkey < 2000""";
        assertLiveRows(name, live, weights);
        // the inserted rows got weights as an INSERT's: about half of them are in a 50% sample
        long insertedSampled = count("SELECT count(*) FROM %s TABLESAMPLE SYSTEM (50) WHERE orderkey >= 1000000".formatted(name));
        long inserted = count("SELECT count(*) FROM tpch.tiny.orders WHERE orderkey < 2000");
        assertThat(insertedSampled).isBetween(inserted / 4, inserted * 3 / 4);
    }

    @Test
    void testOptimizeAfterDeleteDropsDeletedRowsAndDeleteFiles()
    {
        String name = "orders_delete_optimize";
        create(name);
        String deleted = "orderkey % 11 = 0";
        assertUpdate("DELETE FROM %s WHERE %s".formatted(name, deleted), count("SELECT count(*) FROM tpch.tiny.orders WHERE " + deleted));
        assertUpdate("UPDATE %s SET custkey = custkey + 1 WHERE orderkey %% 13 = 0".formatted(name), count("SELECT count(*) FROM tpch.tiny.orders WHERE orderkey % 13 = 0 AND orderkey % 11 <> 0"));
        assertThat(positionDeletes(tables().table(name))).isPositive();

        assertUpdate("ALTER TABLE %s EXECUTE optimize(mode => 'all')".formatted(name));

        Table optimized = tables().table(name);
        assertThat(positionDeletes(optimized)).isZero();
        assertThat(deleteFileCount(optimized)).isZero();
        long records = dataFiles(optimized).stream().mapToLong(DataFile::recordCount).sum();
        String live = "SELECT orderkey, CASE WHEN orderkey %% 13 = 0 THEN custkey + 1 ELSE custkey END, orderstatus, totalprice FROM tpch.tiny.orders WHERE NOT (%s)".formatted(deleted);
        assertThat(records).isEqualTo(count("SELECT count(*) FROM (%s)".formatted(live)));
        assertLiveRows(name, live, weights(name));
    }

    @Test
    void testFailedUpdateLeavesTableUnchanged()
    {
        String name = "orders_failed_update";
        create(name);
        Table before = tables().table(name);
        Set<String> filesBefore = tables().listFiles(before.location() + "/data");
        assertThat(query("UPDATE %s SET custkey = custkey / (orderkey - orderkey) WHERE orderkey %% 2 = 0".formatted(name)))
                .failure().hasErrorCode(DIVISION_BY_ZERO);
        Table after = tables().table(name);
        assertThat(after.currentSnapshot().snapshotId()).isEqualTo(before.currentSnapshot().snapshotId());
        assertThat(tables().listFiles(after.location() + "/data")).isEqualTo(filesBefore);
        assertSameRows("SELECT %s FROM %s".formatted(COLUMNS, name), "SELECT %s FROM tpch.tiny.orders".formatted(COLUMNS));
    }

    // ---- helpers ----

    private void create(String name)
    {
        assertUpdate(QbeastQueryRunner.oneWriterPerNode(getSession()),
                "CREATE TABLE %s WITH (indexed_columns = ARRAY['orderkey', 'totalprice'], cube_size = 1000) AS SELECT %s FROM tpch.tiny.orders".formatted(name, COLUMNS), 15000);
    }

    /**
     * The table's live rows are exactly {@code expectedSql}'s (over tpch), by every read path of
     * qbeast and by Iceberg's generic reader; every row whose orderkey is in {@code weights} has
     * that weight, and a sample is exactly the live rows under its bound.
     */
    private void assertLiveRows(String name, String expectedSql, Map<Long, Integer> weights)
    {
        assertSameRows("SELECT %s FROM %s".formatted(COLUMNS, name), expectedSql);
        assertSameRows("SELECT count(*), sum(totalprice) FROM " + name, "SELECT count(*), sum(c4) FROM (%s) t(c1, c2, c3, c4)".formatted(expectedSql));
        // filters on an indexed column (pruned by region) and on another one
        assertSameRows("SELECT orderkey FROM %s WHERE orderkey BETWEEN 10000 AND 30000".formatted(name), "SELECT c1 FROM (%s) t(c1, c2, c3, c4) WHERE c1 BETWEEN 10000 AND 30000".formatted(expectedSql));
        assertSameRows("SELECT custkey, count(*) FROM %s WHERE custkey < 200 GROUP BY custkey".formatted(name), "SELECT c2, count(*) FROM (%s) t(c1, c2, c3, c4) WHERE c2 < 200 GROUP BY c2".formatted(expectedSql));

        Map<Long, Integer> live = weights(name);
        weights.forEach((key, weight) -> {
            if (live.containsKey(key)) {
                assertThat(live.get(key)).as("weight of orderkey %s", key).isEqualTo(weight);
            }
        });
        for (double percent : new double[] {10, 50}) {
            long bound = Weight.upperBound(percent / 100);
            Set<Long> expected = live.entrySet().stream().filter(entry -> entry.getValue() < bound).map(Map.Entry::getKey).collect(toImmutableSet());
            List<Long> sample = longs("SELECT orderkey FROM %s TABLESAMPLE SYSTEM (%s)".formatted(name, percent));
            assertThat(sample).doesNotHaveDuplicates();
            assertThat(Set.copyOf(sample)).isEqualTo(expected);
        }

        // statistics count the live rows: the delete files' rows are subtracted
        assertThat(rowCountStatistic(name)).isEqualTo(live.size());

        // Iceberg's own reader applies the delete files qbeast wrote
        Map<Long, Record> iceberg = icebergLiveRows(tables().table(name));
        assertThat(iceberg.keySet()).isEqualTo(live.keySet());
        iceberg.forEach((key, record) -> assertThat(record.getField("_qbeast_weight")).isEqualTo(live.get(key)));
        assertThat(computeActual(expectedSql).getMaterializedRows().stream()
                .map(row -> List.of(row.getField(0), row.getField(1), row.getField(2), row.getField(3)))
                .collect(toImmutableSet()))
                .isEqualTo(iceberg.values().stream()
                        .map(record -> List.of(record.getField("orderkey"), record.getField("custkey"), record.getField("orderstatus"), record.getField("totalprice")))
                        .collect(toImmutableSet()));
    }

    // both queries run on the runner: the expectation over tpch, independent of the table
    private void assertSameRows(String actual, String expected)
    {
        assertThat(computeActual(actual).getMaterializedRows()).containsExactlyInAnyOrderElementsOf(computeActual(expected).getMaterializedRows());
    }

    private Map<Long, Integer> weights(String name)
    {
        Map<Long, Integer> weights = new HashMap<>();
        for (MaterializedRow row : computeActual("SELECT orderkey, _qbeast_weight FROM " + name).getMaterializedRows()) {
            assertThat(weights.put((Long) row.getField(0), (Integer) row.getField(1))).isNull();
        }
        return weights;
    }

    private long count(String sql)
    {
        return (long) computeActual(sql).getOnlyValue();
    }

    // rows deleted by the position delete files of the current snapshot
    private static long positionDeletes(Table table)
    {
        Snapshot snapshot = table.currentSnapshot();
        return Long.parseLong(snapshot.summary().getOrDefault(SnapshotSummary.TOTAL_POS_DELETES_PROP, "0"));
    }

    private static long deleteFileCount(Table table)
    {
        return Long.parseLong(table.currentSnapshot().summary().getOrDefault(SnapshotSummary.TOTAL_DELETE_FILES_PROP, "0"));
    }
}

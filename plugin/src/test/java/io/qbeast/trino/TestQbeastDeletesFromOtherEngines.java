package io.qbeast.trino;

import com.google.common.collect.ImmutableMap;
import io.qbeast.index.Weight;
import io.trino.testing.MaterializedRow;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static io.qbeast.trino.IcebergJavaEngine.dataFiles;
import static io.qbeast.trino.IcebergJavaEngine.icebergLiveRows;
import static io.qbeast.trino.IcebergJavaEngine.writeData;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * A qbeast table changed by another engine, Iceberg's own Java API: a position delete file, an
 * equality delete file and an appended data file without the index columns. Every read path of
 * qbeast (scan, filter, sample, count, statistics, optimize, in both its forms) returns exactly
 * the live rows, checked against Iceberg's own generic reader of the same snapshot and against
 * tpch; the appended rows are sampled.
 */
class TestQbeastDeletesFromOtherEngines
        extends AbstractTestQbeastTables
{
    private static final String COLUMNS = "orderkey, custkey, orderstatus, totalprice";
    // appended rows' keys: above every tpch tiny orderkey
    private static final long APPENDED_KEYS = 1_000_000;
    private static final int APPENDED_ROWS = 1000;

    @Override
    protected QbeastQueryRunner.Builder queryRunnerBuilder()
    {
        // small files: the deleted rows lie in several files
        return super.queryRunnerBuilder().addConnectorProperty("qbeast.target-file-size", "32kB");
    }

    @Test
    void testEveryReadPathAppliesTheDeletesOfAnotherEngine()
    {
        String name = "orders_deleted";
        ChangedTable changed = createAndChange(name);

        // independent truth: tpch tiny without the deleted keys, plus the appended rows (an
        // equality delete does not apply to data added after it, so those of the deleted custkey stay)
        String tpchLive = "SELECT %s FROM tpch.tiny.orders WHERE orderkey %% 97 <> 0 AND custkey <> %s".formatted(COLUMNS, changed.deletedCustkey());
        Set<Long> liveKeys = new HashSet<>(longs("SELECT orderkey FROM (%s)".formatted(tpchLive)));
        liveKeys.addAll(changed.appendedKeys());
        Map<Long, Record> iceberg = icebergLiveRows(tables().table(name));
        assertThat(iceberg.keySet()).isEqualTo(liveKeys);
        assertThat(changed.positionDeleted()).isGreaterThan(100);

        assertLiveRows(name, iceberg);

        // statistics: the position-deleted rows are not counted (the equality-deleted ones are
        // known only when the files are read)
        assertThat(rowCountStatistic(name)).isEqualTo(15000 + APPENDED_ROWS - changed.positionDeleted());

        // the sample: exactly the live rows with a stored weight under the bound, none deleted
        for (double percent : new double[] {10, 50}) {
            long bound = Weight.upperBound(percent / 100);
            Set<Long> expected = iceberg.values().stream()
                    .filter(row -> (long) row.getField("orderkey") < APPENDED_KEYS)
                    .filter(row -> row.getField("_qbeast_weight") != null && (int) row.getField("_qbeast_weight") < bound)
                    .map(row -> (Long) row.getField("orderkey"))
                    .collect(toImmutableSet());
            List<Long> sample = longs("SELECT orderkey FROM %s TABLESAMPLE SYSTEM (%s) WHERE orderkey < %s".formatted(name, percent, APPENDED_KEYS));
            assertThat(sample).doesNotHaveDuplicates();
            assertThat(new HashSet<>(sample)).isEqualTo(expected);
            assertThat(longs("SELECT orderkey FROM %s WHERE _qbeast_weight < %s".formatted(name, bound))).containsExactlyInAnyOrderElementsOf(expected);
        }

        // the appended rows, without a stored weight, are sampled uniformly and repeatably
        String appendedSample = "SELECT orderkey FROM %s TABLESAMPLE SYSTEM (50) WHERE orderkey >= %s".formatted(name, APPENDED_KEYS);
        List<Long> sampled = longs(appendedSample);
        assertThat(sampled.size()).isBetween(300, 700);
        assertThat(changed.appendedKeys()).containsAll(sampled);
        assertThat(longs(appendedSample)).containsExactlyInAnyOrderElementsOf(sampled);
        assertThat(longs("SELECT orderkey FROM %s TABLESAMPLE SYSTEM (10) WHERE orderkey >= %s".formatted(name, APPENDED_KEYS)).size()).isBetween(40, 160);

        // $files lists the data files, not the delete files
        assertThat(longs("SELECT record_count FROM \"%s$files\"".formatted(name)).stream().mapToLong(Long::longValue).sum()).isEqualTo(15000 + APPENDED_ROWS);

        // optimize rewrites the live rows only; the position delete file, which named only rewritten files, is gone
        assertThat(livePositionDeletes(tables().table(name))).isEqualTo(changed.positionDeleted());
        assertThat(liveEqualityDeletes(tables().table(name))).isPositive();
        assertUpdate("ALTER TABLE %s EXECUTE optimize(mode => 'all')".formatted(name));
        Table optimized = tables().table(name);
        assertThat(livePositionDeletes(optimized)).isZero();
        // the equality delete file is older than every data file left: it applies to none, and is gone
        assertThat(liveEqualityDeletes(optimized)).isZero();
        assertThat(optimized.currentSnapshot().summary().get(SnapshotSummary.TOTAL_DELETE_FILES_PROP)).isEqualTo("0");
        Map<Long, Record> afterOptimize = icebergLiveRows(optimized);
        assertThat(afterOptimize.keySet()).isEqualTo(liveKeys);
        assertLiveRows(name, afterOptimize);
        assertThat(rowCountStatistic(name)).isEqualTo(liveKeys.size());
        // every row has a stored weight now: the sample is again the weight prefix
        assertThat(longs("SELECT count(*) FROM %s WHERE _qbeast_weight IS NULL".formatted(name))).containsExactly(0L);
        long bound = Weight.upperBound(0.5);
        assertThat(longs("SELECT orderkey FROM %s TABLESAMPLE SYSTEM (50)".formatted(name)))
                .containsExactlyInAnyOrderElementsOf(afterOptimize.values().stream()
                        .filter(row -> (int) row.getField("_qbeast_weight") < bound)
                        .map(row -> (Long) row.getField("orderkey"))
                        .toList());
    }

    @Test
    void testOptimizeProcedureAppliesTheDeletes()
    {
        String name = "orders_deleted_call";
        createAndChange(name);
        Map<Long, Record> before = icebergLiveRows(tables().table(name));
        assertThat(livePositionDeletes(tables().table(name))).isPositive();
        assertUpdate("CALL qbeast.system.optimize('tpch', '%s', 'all')".formatted(name));
        Table optimized = tables().table(name);
        assertThat(livePositionDeletes(optimized)).isZero();
        Map<Long, Record> after = icebergLiveRows(optimized);
        assertThat(after.keySet()).isEqualTo(before.keySet());
        assertLiveRows(name, after);
    }

    @Test
    void testOptimizeOfSomeFilesRemovesThePositionDeletesNamingOnlyThem()
    {
        // an optimize of every file lets Iceberg itself drop all older delete files; one of some
        // files leaves older files, to which Iceberg still attaches the position delete file
        String name = "orders_partly_deleted";
        assertUpdate(QbeastQueryRunner.oneWriterPerNode(getSession()),
                "CREATE TABLE %s WITH (indexed_columns = ARRAY['orderkey', 'totalprice'], cube_size = 1000) AS SELECT %s FROM tpch.tiny.orders".formatted(name, COLUMNS), 15000);
        List<String> files = dataFiles(tables().table(name)).stream().map(DataFile::location).sorted().toList();
        assertThat(files).hasSizeGreaterThan(3);
        List<String> rewritten = files.subList(0, 2);
        Map<String, List<Long>> positions = new HashMap<>();
        rewritten.forEach(file -> positions.put(file, List.of(0L, 1L, 5L)));
        commitPositionDeletes(tables().table(name), positions);
        assertThat(livePositionDeletes(tables().table(name))).isEqualTo(6);
        Map<Long, Record> before = icebergLiveRows(tables().table(name));
        assertThat(before).hasSize(15000 - 6);
        assertLiveRows(name, before);

        assertUpdate("ALTER TABLE %s EXECUTE optimize(mode => 'all') WHERE \"$path\" IN ('%s')".formatted(name, String.join("', '", rewritten)));
        Table optimized = tables().table(name);
        assertThat(livePositionDeletes(optimized)).isZero();
        List<String> after = dataFiles(optimized).stream().map(DataFile::location).toList();
        assertThat(after).containsAll(files.subList(2, files.size())).doesNotContainAnyElementsOf(rewritten);
        Map<Long, Record> rows = icebergLiveRows(optimized);
        assertThat(rows.keySet()).isEqualTo(before.keySet());
        assertLiveRows(name, rows);
    }

    @Test
    void testFormatVersion3IsRefused()
    {
        Schema schema = new Schema(Types.NestedField.optional(1, "orderkey", Types.LongType.get()));
        Table v3 = tables().catalog().buildTable(TableIdentifier.of(QbeastQueryRunner.SCHEMA, "orders_v3"), schema)
                .withPartitionSpec(PartitionSpec.unpartitioned())
                .withProperties(ImmutableMap.of(TableProperties.FORMAT_VERSION, "3"))
                .create();
        List<Record> rows = new ArrayList<>();
        GenericRecord record = GenericRecord.create(schema);
        record.setField("orderkey", 1L);
        rows.add(record);
        v3.newAppend().appendFile(writeData(v3, "v3.parquet", rows)).commit();
        assertThat(query("SELECT * FROM orders_v3"))
                .failure().hasErrorCode(NOT_SUPPORTED).hasMessageContaining("format version 3");
    }

    // ---- the other engine ----

    /**
     * @param positionDeleted how many rows the position delete file deletes
     * @param appendedKeys the orderkeys of the appended file's rows
     */
    private record ChangedTable(long deletedCustkey, long positionDeleted, Set<Long> appendedKeys) {}

    /**
     * A qbeast table of tpch tiny orders, then, by Iceberg's Java API: a position delete file of
     * the rows with {@code orderkey % 97 = 0} (over several data files), an equality delete file
     * of the custkey with most orders, and an appended data file of 1,000 rows (some of that
     * custkey) written with the table's schema, whose index columns it leaves null.
     */
    private ChangedTable createAndChange(String name)
    {
        assertUpdate(QbeastQueryRunner.oneWriterPerNode(getSession()),
                "CREATE TABLE %s WITH (indexed_columns = ARRAY['orderkey', 'totalprice'], cube_size = 1000) AS SELECT %s FROM tpch.tiny.orders".formatted(name, COLUMNS), 15000);
        Table table = tables().table(name);
        assertThat(dataFiles(table)).hasSizeGreaterThan(3);

        // (a) position deletes: the rows of orderkey % 97 = 0, by file and row position
        Map<String, List<Long>> positions = new TreeMap<>();
        for (DataFile file : dataFiles(table)) {
            long position = 0;
            try (CloseableIterable<Record> records = Parquet.read(table.io().newInputFile(file.location()))
                    .project(table.schema())
                    .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(table.schema(), fileSchema))
                    .build()) {
                for (Record record : records) {
                    if ((long) record.getField("orderkey") % 97 == 0) {
                        positions.computeIfAbsent(file.location(), _ -> new ArrayList<>()).add(position);
                    }
                    position++;
                }
            }
            catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        assertThat(positions).hasSizeGreaterThan(1);
        long positionDeleted = commitPositionDeletes(table, positions);

        // (b) equality deletes: every row of the custkey with most orders
        long custkey = longs("SELECT custkey FROM tpch.tiny.orders WHERE orderkey % 97 <> 0 GROUP BY custkey ORDER BY count(*) DESC, custkey LIMIT 1").getFirst();
        Schema deleteSchema = table.schema().select("custkey");
        GenericFileWriterFactory equalityWriters = new GenericFileWriterFactory.Builder(table)
                .deleteFileFormat(FileFormat.PARQUET)
                .equalityFieldIds(new int[] {table.schema().findField("custkey").fieldId()})
                .equalityDeleteRowSchema(deleteSchema)
                .build();
        EqualityDeleteWriter<Record> equalityWriter = equalityWriters.newEqualityDeleteWriter(
                EncryptedFiles.plainAsEncryptedOutput(table.io().newOutputFile(table.location() + "/data/other-engine-equality-deletes.parquet")), table.spec(), null);
        try (equalityWriter) {
            GenericRecord deleted = GenericRecord.create(deleteSchema);
            deleted.setField("custkey", custkey);
            equalityWriter.write(deleted);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        table.newRowDelta().addDeletes(equalityWriter.toDeleteFile()).commit();

        // (c) an appended file, hidden columns null
        Table current = tables().table(name);
        List<Record> appended = new ArrayList<>();
        for (int i = 0; i < APPENDED_ROWS; i++) {
            GenericRecord record = GenericRecord.create(current.schema());
            record.setField("orderkey", APPENDED_KEYS + i);
            record.setField("custkey", i % 10 == 0 ? custkey : (long) i);
            record.setField("orderstatus", "O");
            record.setField("totalprice", 1000.0 + i);
            appended.add(record);
        }
        current.newAppend().appendFile(writeData(current, "other-engine-append.parquet", appended)).commit();
        Set<Long> appendedKeys = appended.stream().map(record -> (Long) record.getField("orderkey")).collect(toImmutableSet());
        return new ChangedTable(custkey, positionDeleted, appendedKeys);
    }

    /** Commits one position delete file of {@code positions} (row positions by data file); returns how many rows it deletes. */
    private static long commitPositionDeletes(Table table, Map<String, List<Long>> positions)
    {
        GenericFileWriterFactory positionWriters = new GenericFileWriterFactory.Builder(table).deleteFileFormat(FileFormat.PARQUET).build();
        PositionDeleteWriter<Record> positionWriter = positionWriters.newPositionDeleteWriter(
                EncryptedFiles.plainAsEncryptedOutput(table.io().newOutputFile(table.location() + "/data/other-engine-position-deletes-" + System.nanoTime() + ".parquet")), table.spec(), null);
        long positionDeleted = 0;
        try (positionWriter) {
            for (Map.Entry<String, List<Long>> file : new TreeMap<>(positions).entrySet()) {
                for (long position : file.getValue()) {
                    positionWriter.write(PositionDelete.<Record>create().set(file.getKey(), position));
                    positionDeleted++;
                }
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        table.newRowDelta().addDeletes(positionWriter.toDeleteFile()).commit();
        return positionDeleted;
    }

    // ---- checks ----

    /** Plain, counted, summed and filtered reads of qbeast give Iceberg's live rows. */
    private void assertLiveRows(String name, Map<Long, Record> iceberg)
    {
        assertThat(longs("SELECT orderkey FROM " + name)).containsExactlyInAnyOrderElementsOf(iceberg.keySet());
        MaterializedRow totals = computeActual("SELECT count(*), sum(totalprice) FROM " + name).getMaterializedRows().getFirst();
        assertThat((long) totals.getField(0)).isEqualTo(iceberg.size());
        assertThat((double) totals.getField(1)).isCloseTo(iceberg.values().stream().mapToDouble(row -> (double) row.getField("totalprice")).sum(), within(1e-3));
        // a filter on an indexed column (pruned by region) and one on another column
        assertThat(longs("SELECT orderkey FROM %s WHERE orderkey BETWEEN 10000 AND 30000".formatted(name)))
                .containsExactlyInAnyOrderElementsOf(iceberg.keySet().stream().filter(key -> key >= 10000 && key <= 30000).toList());
        Map<Long, Long> byCustkey = new HashMap<>();
        iceberg.values().forEach(row -> byCustkey.merge((Long) row.getField("custkey"), 1L, Long::sum));
        assertThat(computeActual("SELECT custkey, count(*) FROM %s WHERE custkey < 200 GROUP BY custkey".formatted(name)).getMaterializedRows().stream()
                .collect(ImmutableMap.toImmutableMap(row -> (Long) row.getField(0), row -> (Long) row.getField(1))))
                .isEqualTo(byCustkey.entrySet().stream()
                        .filter(entry -> entry.getKey() < 200)
                        .collect(ImmutableMap.toImmutableMap(Map.Entry::getKey, Map.Entry::getValue)));
    }

    /**
     * The position-deleted rows the table's current snapshot still holds (in its delete manifests,
     * whether or not a delete still applies to a data file: after a rewrite a position delete file
     * applies to no file, yet stays until a commit removes it).
     */
    private static long livePositionDeletes(Table table)
    {
        return Long.parseLong(table.currentSnapshot().summary().getOrDefault(SnapshotSummary.TOTAL_POS_DELETES_PROP, "0"));
    }

    private static long liveEqualityDeletes(Table table)
    {
        return Long.parseLong(table.currentSnapshot().summary().getOrDefault(SnapshotSummary.TOTAL_EQ_DELETES_PROP, "0"));
    }
}

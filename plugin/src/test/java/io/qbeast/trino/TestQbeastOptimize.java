package io.qbeast.trino;

import com.google.common.collect.HashMultiset;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.Multiset;
import io.airlift.slice.Slices;
import io.qbeast.index.BatchIndexer;
import io.qbeast.index.CubeId;
import io.qbeast.trino.error.CommitFailures;
import io.qbeast.trino.handle.QbeastColumnHandle;
import io.qbeast.trino.optimize.OptimizeReport;
import io.qbeast.trino.parquet.QbeastPageSourceFactory;
import io.qbeast.trino.parquet.QbeastParquetFileWriter;
import io.qbeast.trino.parquet.WrittenFile;
import io.qbeast.trino.procedure.OptimizeProcedure;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoInputFile;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.parquet.writer.ParquetWriterOptions;
import io.trino.plugin.base.security.AllowAllAccessControl;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.connector.ConnectorAccessControl;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.type.Type;
import io.trino.testing.MaterializedRow;
import io.trino.testing.TestingAccessControlManager.TestingPrivilege;
import io.trino.testing.TestingConnectorSession;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.apache.parquet.format.CompressionCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_COMMIT_ERROR;
import static io.trino.spi.StandardErrorCode.INVALID_PROCEDURE_ARGUMENT;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.VarbinaryType.VARBINARY;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static io.trino.testing.TestingAccessControlManager.TestingPrivilegeType.EXECUTE_TABLE_PROCEDURE;
import static io.trino.testing.TestingAccessControlManager.privilege;
import static io.trino.testing.assertions.TrinoExceptionAssert.assertTrinoExceptionThrownBy;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ALTER TABLE ... EXECUTE optimize} and {@code CALL system.optimize}: rows are the same
 * multiset afterwards (checked against tpch), every cube ends in one file (checked by reading the
 * {@code _qbeast_cube} column of every data file), nothing to do commits nothing, and a commit
 * racing an INSERT or another optimize loses no row.
 */
class TestQbeastOptimize
        extends AbstractTestQbeastTables
{
    private static final String ORDERS = "SELECT orderkey, custkey, totalprice, orderdate, comment FROM tpch.tiny.orders";
    private static final String COLUMNS = "(orderkey bigint, custkey bigint, totalprice double, orderdate date, comment varchar)";
    private static final long CUBE_SIZE = 500;
    private static final ConnectorAccessControl ALLOW_ALL = new AllowAllAccessControl();

    /**
     * One thread in each planning pool: every scan of this class's tables of twenty manifests
     * reads them on the manifest pool while a batch of the split source waits on the other
     * (one shared pool of one thread would wait forever).
     */
    @Override
    protected QbeastQueryRunner.Builder queryRunnerBuilder()
    {
        return QbeastQueryRunner.builder().addConnectorProperty("qbeast.split-manager-threads", "1");
    }

    @Test
    // a guard against the hang a shared one-thread pool would cause, far above the test's usual time
    @Timeout(600)
    void testScansPlanWithOneThreadPerPool()
    {
        String table = "opt_one_thread";
        createFromTwentyInserts(table);
        assertThat(tables().table(table).currentSnapshot().allManifests(tables().table(table).io())).hasSizeGreaterThanOrEqualTo(20);
        assertSameRows(table, ORDERS);
        assertThat(computeScalar("SELECT count(*) FROM " + table + " WHERE custkey < 100")).isEqualTo(count("custkey < 100"));
    }

    @Test
    void testOptimizeMergesSmallInserts()
    {
        String table = "opt_small_inserts";
        createFromTwentyInserts(table);
        long startSnapshot = currentSnapshot(table);
        Map<CubeId, Set<String>> before = cubeFiles(table);
        assertThat(before.values().stream().mapToInt(Set::size).max().orElseThrow()).as("some cube has several blocks").isGreaterThan(1);
        long filesBefore = files(table).size();
        ScanStats sampleBefore = scanStats("SELECT sum(totalprice) FROM " + table + " TABLESAMPLE SYSTEM (1)");

        // Trino 478+ returns the counts finishTableExecute gives as rows (metric_name, metric_value)
        Map<String, Long> returned = new HashMap<>();
        for (MaterializedRow row : computeActual("ALTER TABLE " + table + " EXECUTE optimize").getMaterializedRows()) {
            returned.put((String) row.getField(0), (Long) row.getField(1));
        }

        assertSameRows(table, ORDERS);
        assertOneBlockPerCube(table);
        Map<String, String> summary = tables().table(table).currentSnapshot().summary();
        // the rows are the report the snapshot summary stores
        assertThat(returned).containsOnlyKeys("files_read", "bytes_read", "rows", "files_written", "bytes_written", "cubes_written");
        for (String metric : returned.keySet()) {
            assertThat(returned.get(metric)).as(metric).isEqualTo(Long.parseLong(summary.get("qbeast.optimize." + metric.replace('_', '-'))));
        }
        assertThat(summary.get("operation") == null ? tables().table(table).currentSnapshot().operation() : summary.get("operation")).isEqualTo("replace");
        assertThat(summary).containsEntry("qbeast.optimize.mode", "fragmented")
                .containsEntry("qbeast.optimize.files-read", Long.toString(filesBefore))
                .containsEntry("qbeast.optimize.rows", "15000")
                .containsEntry("qbeast.optimize.files-written", Long.toString(files(table).size()));
        // bytes written ÷ table bytes: below 1 here, as 20 small files carry 20 footers and their
        // page indexes (every column has a column index) against a few files after
        assertThat(Double.parseDouble(summary.get("qbeast.optimize.write-amplification"))).isGreaterThan(0.25).isLessThan(2);
        // one block per cube: the blocks written are the cubes
        assertThat(Long.parseLong(summary.get("qbeast.optimize.cubes-written"))).isEqualTo(cubeFiles(table).size());
        // the report is queryable
        assertThat(computeScalar("SELECT json_extract_scalar(summary, '$[\"qbeast.optimize.rows\"]') FROM \"" + table + "$snapshots\" ORDER BY sequence_number DESC LIMIT 1"))
                .isEqualTo("15000");
        assertThat(currentSnapshot(table)).isNotEqualTo(startSnapshot);

        ScanStats sampleAfter = scanStats("SELECT sum(totalprice) FROM " + table + " TABLESAMPLE SYSTEM (1)");
        System.out.printf("1%% sample before optimize: %s, after: %s%n", sampleBefore, sampleAfter);
        assertThat(sampleAfter.splits()).isLessThan(sampleBefore.splits());
        // rows read stay about the same (every file is read only up to its first page of weights
        // under the bound); files opened, and so bytes read, drop to the top of one tree
        assertThat(sampleAfter.bytes()).isLessThan(sampleBefore.bytes());

        // nothing left to do: no commit at all
        long optimized = currentSnapshot(table);
        assertUpdate("ALTER TABLE " + table + " EXECUTE optimize");
        assertUpdate("ALTER TABLE " + table + " EXECUTE optimize(mode => 'fragmented')");
        assertThat(currentSnapshot(table)).isEqualTo(optimized);
        assertSameRows(table, ORDERS);
    }

    @Test
    void testOptimizeAllWithWhereRewritesOnlyTheRegion()
    {
        String table = "opt_where";
        createFromTwentyInserts(table);
        // rewritten through a catalog with small files: many files, each a compact range of cubes
        createSmallFilesCatalog("qbeast_small_files", "32kB");
        assertUpdate("ALTER TABLE qbeast_small_files.tpch." + table + " EXECUTE optimize(mode => 'all')");
        Set<String> optimizedFiles = files(table);
        assertUpdate("INSERT INTO " + table + " " + ORDERS + " WHERE orderkey % 7 = 0", count("orderkey % 7 = 0"));
        assertUpdate("INSERT INTO " + table + " " + ORDERS + " WHERE orderkey % 7 = 1", count("orderkey % 7 = 1"));
        String expected = ORDERS + " UNION ALL " + ORDERS + " WHERE orderkey % 7 IN (0, 1)";
        Set<String> before = files(table);

        assertUpdate("ALTER TABLE " + table + " EXECUTE optimize(mode => 'all') WHERE custkey < 150");

        assertSameRows(table, expected);
        Set<String> after = files(table);
        Set<String> kept = new HashSet<>(after);
        kept.retainAll(before);
        assertThat(kept).as("files outside the region are kept").isNotEmpty();
        assertThat(after).as("files in the region are rewritten").isNotEqualTo(before);
        // every kept file has no row in the region (independent truth: the files' column bounds)
        Table iceberg = tables().table(table);
        int custkey = iceberg.schema().findField("custkey").fieldId();
        for (DataFile file : dataFiles(table)) {
            if (kept.contains(file.location())) {
                long lower = Conversions.<Long>fromByteBuffer(Types.LongType.get(), file.lowerBounds().get(custkey));
                assertThat(lower).as("custkey lower bound of kept file %s", file.location()).isGreaterThanOrEqualTo(150);
            }
        }
        long read = Long.parseLong(iceberg.currentSnapshot().summary().get("qbeast.optimize.files-read"));
        assertThat(read).isGreaterThan(0).isLessThan(before.size());
        assertThat(optimizedFiles).isNotEmpty();
    }

    @Test
    void testOptimizeRefusesWhereThatIsNotColumnDomains()
    {
        String table = "opt_where_refused";
        assertUpdate("CREATE TABLE " + table + " WITH (indexed_columns = ARRAY['custkey', 'totalprice'], cube_size = " + CUBE_SIZE + ") AS " + ORDERS + " WHERE orderkey % 2 = 0", count("orderkey % 2 = 0"));
        assertUpdate("INSERT INTO " + table + " " + ORDERS + " WHERE orderkey % 2 = 1", count("orderkey % 2 = 1"));
        long snapshot = currentSnapshot(table);
        Set<String> before = files(table);

        assertTrinoExceptionThrownBy(() -> computeActual("ALTER TABLE " + table + " EXECUTE optimize(mode => 'all') WHERE orderkey % 2 = 0"))
                .hasErrorCode(NOT_SUPPORTED)
                .hasMessageContaining("on orderkey is not a column domain")
                .hasMessageContaining("compare columns of scalar types with constants");
        // a domain the connector takes, and a part it does not: the message names only the latter
        assertTrinoExceptionThrownBy(() -> computeActual("ALTER TABLE " + table + " EXECUTE optimize(mode => 'all') WHERE custkey < 100 AND comment LIKE '%special%'"))
                .hasErrorCode(NOT_SUPPORTED)
                .hasMessageContaining("on comment is not a column domain");
        assertTrinoExceptionThrownBy(() -> computeActual("ALTER TABLE " + table + " EXECUTE optimize WHERE custkey = orderkey"))
                .hasErrorCode(NOT_SUPPORTED)
                .hasMessageContaining("on custkey, orderkey is not a column domain");
        assertThat(currentSnapshot(table)).isEqualTo(snapshot);
        assertThat(files(table)).isEqualTo(before);
        assertSameRows(table, ORDERS);

        // the same predicate in a query is the engine's filter, as ever
        assertThat(computeScalar("SELECT count(*) FROM " + table + " WHERE orderkey % 2 = 0")).isEqualTo(count("orderkey % 2 = 0"));
        // column domains are taken: the files the range may touch are rewritten
        assertUpdate("ALTER TABLE " + table + " EXECUTE optimize(mode => 'all') WHERE custkey < 100 OR custkey IS NULL");
        assertThat(currentSnapshot(table)).isNotEqualTo(snapshot);
        assertThat(Long.parseLong(tables().table(table).currentSnapshot().summary().get("qbeast.optimize.files-read"))).isGreaterThan(0);
        assertSameRows(table, ORDERS);

        // "$path" selects exactly its file (the file metadata columns are read, never written)
        Set<String> beforePath = files(table);
        String path = beforePath.iterator().next();
        assertUpdate("ALTER TABLE " + table + " EXECUTE optimize(mode => 'all') WHERE \"$path\" = '" + path + "'");
        assertThat(tables().table(table).currentSnapshot().summary()).containsEntry("qbeast.optimize.files-read", "1");
        Set<String> afterPath = files(table);
        assertThat(afterPath).doesNotContain(path);
        Set<String> others = new HashSet<>(beforePath);
        others.remove(path);
        assertThat(afterPath).containsAll(others);
        assertSameRows(table, ORDERS);
    }

    @Test
    void testOptimizeOldRevision()
    {
        String table = "opt_revision";
        assertUpdate("CREATE TABLE " + table + " WITH (indexed_columns = ARRAY['custkey', 'totalprice'], cube_size = " + CUBE_SIZE + ") AS " + ORDERS + " WHERE custkey < 500", count("custkey < 500"));
        // outside the first revision's bounds: a wider revision
        assertUpdate("INSERT INTO " + table + " " + ORDERS + " WHERE custkey >= 500", count("custkey >= 500"));
        // in the order they were added: the last is the current one
        List<Long> revisions = computeActual("SELECT revision_id FROM \"" + table + "$revisions\"").getOnlyColumn().map(Long.class::cast).toList();
        assertThat(revisions).hasSizeGreaterThan(1);
        long newest = revisions.getLast();
        List<Long> older = computeActual("SELECT DISTINCT revision_id FROM \"" + table + "$files\" WHERE revision_id <> " + newest).getOnlyColumn().map(Long.class::cast).toList();
        assertThat(older).hasSize(1);
        long oldest = older.getFirst();

        assertUpdate("ALTER TABLE " + table + " EXECUTE optimize(mode => 'revision', revision => " + oldest + ")");

        assertSameRows(table, ORDERS);
        assertThat(computeActual("SELECT DISTINCT revision_id FROM \"" + table + "$files\"").getOnlyColumn().map(Long.class::cast).toList())
                .doesNotContain(oldest);
    }

    @Test
    void testModesWithNothingToDo()
    {
        String table = "opt_nothing";
        assertUpdate("CREATE TABLE " + table + " WITH (indexed_columns = ARRAY['custkey', 'totalprice'], cube_size = " + CUBE_SIZE + ") AS " + ORDERS, 15000);
        long snapshot = currentSnapshot(table);
        // no file lacks the index columns
        assertUpdate("ALTER TABLE " + table + " EXECUTE optimize(mode => 'unindexed')");
        // a WHERE no file's region meets
        assertUpdate("ALTER TABLE " + table + " EXECUTE optimize(mode => 'all') WHERE custkey < 0");
        assertThat(currentSnapshot(table)).isEqualTo(snapshot);

        String empty = "opt_empty";
        assertUpdate("CREATE TABLE " + empty + " " + COLUMNS + " WITH (indexed_columns = ARRAY['custkey'])");
        assertUpdate("ALTER TABLE " + empty + " EXECUTE optimize(mode => 'all')");
        assertQuery("SELECT count(*) FROM " + empty, "VALUES 0");
    }

    @Test
    void testInvalidArguments()
    {
        String table = "opt_invalid";
        assertUpdate("CREATE TABLE " + table + " WITH (indexed_columns = ARRAY['custkey']) AS " + ORDERS + " WHERE orderkey < 100", count("orderkey < 100"));
        assertTrinoExceptionThrownBy(() -> computeActual("ALTER TABLE " + table + " EXECUTE optimize(mode => 'sometimes')"))
                .hasErrorCode(INVALID_PROCEDURE_ARGUMENT)
                .hasMessageContaining("'mode'")
                .hasMessageContaining("'sometimes'");
        assertTrinoExceptionThrownBy(() -> computeActual("ALTER TABLE " + table + " EXECUTE optimize(mode => 'revision')"))
                .hasErrorCode(INVALID_PROCEDURE_ARGUMENT)
                .hasMessageContaining("'revision'");
        assertTrinoExceptionThrownBy(() -> computeActual("ALTER TABLE " + table + " EXECUTE optimize(mode => 'revision', revision => 42)"))
                .hasErrorCode(INVALID_PROCEDURE_ARGUMENT)
                .hasMessageContaining("'revision' is 42");
        assertTrinoExceptionThrownBy(() -> computeActual("ALTER TABLE " + table + " EXECUTE optimize(mode => 'all', revision => 42)"))
                .hasErrorCode(INVALID_PROCEDURE_ARGUMENT)
                .hasMessageContaining("'revision'");
        assertTrinoExceptionThrownBy(() -> computeActual("CALL qbeast.system.optimize(schema_name => 'tpch', table_name => '" + table + "', mode => 'bogus')"))
                .hasErrorCode(INVALID_PROCEDURE_ARGUMENT)
                .hasMessageContaining("'mode'");
        assertQueryFails("CALL qbeast.system.optimize(schema_name => 'tpch', table_name => 'no_such_table')", ".*no_such_table.*");
        // a WHERE that is not a domain of columns cannot select files
        assertTrinoExceptionThrownBy(() -> computeActual("ALTER TABLE " + table + " EXECUTE optimize WHERE custkey + orderkey > 5"))
                .hasErrorCode(NOT_SUPPORTED)
                .hasMessageContaining("on custkey, orderkey is not a column domain");
    }

    @Test
    void testCallOptimize()
    {
        String table = "opt_call";
        createFromTwentyInserts(table);
        assertUpdate("CALL qbeast.system.optimize(schema_name => 'tpch', table_name => '" + table + "')");
        assertSameRows(table, ORDERS);
        assertOneBlockPerCube(table);
        assertThat(tables().table(table).currentSnapshot().summary()).containsEntry("qbeast.optimize.rows", "15000");
        long snapshot = currentSnapshot(table);
        assertUpdate("CALL qbeast.system.optimize(schema_name => 'tpch', table_name => '" + table + "', mode => 'fragmented')");
        assertThat(currentSnapshot(table)).isEqualTo(snapshot);
    }

    /**
     * {@code CALL system.optimize} runs with the caller's rights: a user who may not execute the
     * optimize table procedure on a table is refused by both forms alike, and the table is unchanged.
     */
    @Test
    void testOptimizeNeedsTheCallersRight()
    {
        String table = "opt_denied";
        createFromTwentyInserts(table);
        long snapshot = currentSnapshot(table);
        TestingPrivilege denied = privilege("qbeast.tpch." + table + ".OPTIMIZE", EXECUTE_TABLE_PROCEDURE);
        assertAccessDenied("ALTER TABLE " + table + " EXECUTE optimize(mode => 'all')", "Cannot execute table procedure OPTIMIZE on qbeast.tpch." + table, denied);
        assertAccessDenied("CALL qbeast.system.optimize(schema_name => 'tpch', table_name => '" + table + "', mode => 'all')", "Cannot execute table procedure OPTIMIZE on qbeast.tpch." + table, denied);
        assertThat(currentSnapshot(table)).isEqualTo(snapshot);
        // the right is the one denied: with it the same CALL rewrites the table
        assertUpdate("CALL qbeast.system.optimize(schema_name => 'tpch', table_name => '" + table + "', mode => 'all')");
        assertThat(currentSnapshot(table)).isNotEqualTo(snapshot);
        assertSameRows(table, ORDERS);
    }

    @Test
    void testInsertCommittedDuringOptimizeIsKept()
    {
        String table = "opt_race_insert";
        createFromTwentyInserts(table);
        OptimizeReport report = optimizer().run(session(), ALLOW_ALL, "tpch", table, "all", null,
                () -> assertUpdate("INSERT INTO " + table + " " + ORDERS + " WHERE orderkey < 1000", count("orderkey < 1000")));
        assertThat(report.rows()).isEqualTo(15000);
        assertSameRows(table, ORDERS + " UNION ALL " + ORDERS + " WHERE orderkey < 1000");
    }

    @Test
    void testConflictingOptimizeFailsCleanly()
    {
        String table = "opt_race_optimize";
        createFromTwentyInserts(table);
        Set<String> filesBefore = tables().listFiles(tables().table(table).location() + "/data");
        Set<String> replaced = files(table);
        long start = currentSnapshot(table);
        ConnectorSession first = session();
        assertThat(first.getQueryId()).isNotEqualTo(session().getQueryId());
        assertTrinoExceptionThrownBy(() -> optimizer().run(first, ALLOW_ALL, "tpch", table, "all", null,
                () -> optimizer().run(session(), ALLOW_ALL, "tpch", table, "all", null, () -> {})))
                .hasErrorCode(QBEAST_COMMIT_ERROR)
                .hasMessageContaining("run it again")
                // the other optimize replaced every file this one read: the message counts them,
                // names the first few and the snapshots, instead of listing every path
                .hasMessageContaining("since snapshot %s (the table is now at snapshot %s)".formatted(start, currentSnapshot(table)))
                .hasMessageContaining("%s of the files it rewrites were rewritten or removed meanwhile".formatted(replaced.size()))
                .hasMessageContaining("and %s more".formatted(replaced.size() - CommitFailures.LISTED_FILES))
                .satisfies(e -> assertThat(replaced.stream().filter(file -> e.getMessage().contains(file))).hasSize(CommitFailures.LISTED_FILES));
        assertSameRows(table, ORDERS);
        assertOneBlockPerCube(table);
        // the failed optimize left no file behind
        Set<String> filesAfter = tables().listFiles(tables().table(table).location() + "/data");
        assertThat(filesAfter.stream().filter(file -> Location.of(file).fileName().startsWith(first.getQueryId() + "-")).toList()).isEmpty();
        assertThat(filesAfter).containsAll(files(table));
        assertThat(filesBefore).isNotEmpty();
    }

    @Test
    void testOptimizeIndexesUnindexedFiles()
    {
        String table = "opt_unindexed";
        assertUpdate("CREATE TABLE " + table + " WITH (indexed_columns = ARRAY['custkey', 'totalprice'], cube_size = " + CUBE_SIZE + ") AS " + ORDERS + " WHERE orderkey % 2 = 0", count("orderkey % 2 = 0"));
        String foreign = "orderkey % 2 = 1 AND orderkey < 20000";
        appendUnindexedFile(table, foreign);
        String expected = ORDERS + " WHERE orderkey % 2 = 0 OR (" + foreign + ")";
        assertSameRows(table, expected);
        assertQuery("SELECT count(*) FROM \"" + table + "$files\" WHERE revision_id IS NULL", "VALUES 1");

        assertUpdate("ALTER TABLE " + table + " EXECUTE optimize(mode => 'unindexed')");

        assertSameRows(table, expected);
        assertQuery("SELECT count(*) FROM \"" + table + "$files\" WHERE revision_id IS NULL", "VALUES 0");
        Map<String, String> summary = tables().table(table).currentSnapshot().summary();
        assertThat(summary).containsEntry("qbeast.optimize.files-read", "1")
                .containsEntry("qbeast.optimize.rows", Long.toString(count(foreign)));

        // the re-indexed rows joined kept cubes: fragmented, which the default mode merges
        assertUpdate("ALTER TABLE " + table + " EXECUTE optimize");
        assertSameRows(table, expected);
        assertOneBlockPerCube(table);
    }

    @Test
    void testInsertsRacingDistributedOptimizeLoseNothing()
            throws Exception
    {
        String table = "opt_race_distributed";
        createFromTwentyInserts(table);
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try {
            Future<?> optimize = executor.submit(() -> getQueryRunner().execute("ALTER TABLE " + table + " EXECUTE optimize(mode => 'all')"));
            for (int i = 0; i < 3; i++) {
                assertUpdate("INSERT INTO " + table + " " + ORDERS + " WHERE orderkey < 1000", count("orderkey < 1000"));
            }
            // an INSERT never conflicts with an optimize: it succeeds whatever the interleaving
            optimize.get();
        }
        finally {
            executor.shutdownNow();
        }
        String subset = " UNION ALL " + ORDERS + " WHERE orderkey < 1000";
        assertSameRows(table, ORDERS + subset + subset + subset);
    }

    // ---- helpers ----

    /** Appends a data file as another engine would write it: the table's columns, the index columns null. */
    private void appendUnindexedFile(String table, String predicate)
    {
        Table iceberg = tables().table(table);
        List<Type> types = ImmutableList.of(BIGINT, BIGINT, DOUBLE, DATE, VARCHAR, INTEGER, VARBINARY);
        assertThat(iceberg.schema().columns()).hasSize(types.size());
        List<MaterializedRow> rows = computeActual(ORDERS + " WHERE " + predicate).getMaterializedRows();
        BlockBuilder[] builders = types.stream().map(type -> type.createBlockBuilder(null, rows.size())).toArray(BlockBuilder[]::new);
        for (MaterializedRow row : rows) {
            BIGINT.writeLong(builders[0], (Long) row.getField(0));
            BIGINT.writeLong(builders[1], (Long) row.getField(1));
            DOUBLE.writeDouble(builders[2], (Double) row.getField(2));
            DATE.writeLong(builders[3], ((LocalDate) row.getField(3)).toEpochDay());
            VARCHAR.writeSlice(builders[4], Slices.utf8Slice((String) row.getField(4)));
            builders[5].appendNull();
            builders[6].appendNull();
        }
        Block[] blocks = new Block[builders.length];
        for (int i = 0; i < builders.length; i++) {
            blocks[i] = builders[i].build();
        }
        Location location = Location.of(iceberg.location() + "/data/other-engine-" + UUID.randomUUID() + ".parquet");
        QbeastParquetFileWriter writer = new QbeastParquetFileWriter(tables().fileSystem(), location, iceberg.schema(), types, ParquetWriterOptions.builder().build(), CompressionCodec.SNAPPY, iceberg.properties());
        writer.appendPage(new Page(rows.size(), blocks));
        WrittenFile file = writer.commit();
        iceberg.newFastAppend()
                .appendFile(DataFiles.builder(PartitionSpec.unpartitioned())
                        .withPath(file.path())
                        .withFormat(FileFormat.PARQUET)
                        .withFileSizeInBytes(file.fileSizeInBytes())
                        .withMetrics(file.metrics().toIcebergMetrics())
                        .build())
                .commit();
    }

    /** orders in 20 INSERTs (each spread over the writers of all nodes): many trees, many blocks per cube. */
    private void createFromTwentyInserts(String table)
    {
        assertUpdate("CREATE TABLE " + table + " " + COLUMNS + " WITH (indexed_columns = ARRAY['custkey', 'totalprice'], cube_size = " + CUBE_SIZE + ")");
        for (int i = 0; i < 20; i++) {
            assertUpdate("INSERT INTO " + table + " " + ORDERS + " WHERE orderkey % 20 = " + i, 750);
        }
    }

    private long count(String predicate)
    {
        return (Long) computeScalar("SELECT count(*) FROM tpch.tiny.orders WHERE " + predicate);
    }

    private OptimizeProcedure optimizer()
    {
        return connectors().getFirst().getOptimizeProcedure();
    }

    private ConnectorSession session()
    {
        // with the connector's session properties at their defaults, as the engine passes them
        return TestingConnectorSession.builder()
                .setPropertyMetadata(connectors().getFirst().getSessionProperties())
                .build();
    }

    private void assertSameRows(String table, String expectedSql)
    {
        Multiset<MaterializedRow> actual = HashMultiset.create(computeActual("SELECT orderkey, custkey, totalprice, orderdate, comment FROM " + table).getMaterializedRows());
        Multiset<MaterializedRow> expected = HashMultiset.create(computeActual(expectedSql).getMaterializedRows());
        assertThat(actual.size()).isEqualTo(expected.size());
        assertThat(actual).isEqualTo(expected);
    }

    /** Every cube's rows are in one data file; inner cubes hold between the cube size and the indexer's fill limit. */
    private void assertOneBlockPerCube(String table)
    {
        Map<CubeId, Set<String>> cubeFiles = cubeFiles(table);
        Map<CubeId, Long> cubeRows = cubeRows(table);
        assertThat(cubeFiles).isNotEmpty();
        cubeFiles.forEach((cube, files) -> assertThat(files).as("files of cube %s", cube).hasSize(1));
        int inner = 0;
        for (CubeId cube : cubeRows.keySet()) {
            boolean isInner = cubeRows.keySet().stream().anyMatch(other -> !other.equals(cube) && cube.isAncestorOf(other));
            if (isInner) {
                inner++;
                assertThat(cubeRows.get(cube)).as("rows of inner cube %s", cube)
                        .isBetween(CUBE_SIZE, (long) (BatchIndexer.MAX_FILL * CUBE_SIZE));
            }
        }
        assertThat(inner).isGreaterThan(0);
    }

    private Map<CubeId, Long> cubeRows(String table)
    {
        Map<CubeId, Long> rows = new HashMap<>();
        for (MaterializedRow row : computeActual("SELECT _qbeast_cube, count(*) FROM " + table + " GROUP BY 1").getMaterializedRows()) {
            rows.put(CubeId.fromBytes((byte[]) row.getField(0)), (Long) row.getField(1));
        }
        return rows;
    }

    /** The data files holding rows of each cube, read from the files themselves. */
    private Map<CubeId, Set<String>> cubeFiles(String table)
    {
        Table iceberg = tables().table(table);
        QbeastColumnHandle cube = new QbeastColumnHandle(QbeastColumnHandle.CUBE_COLUMN, iceberg.schema().findField(QbeastColumnHandle.CUBE_COLUMN).fieldId(), VARBINARY, true);
        QbeastPageSourceFactory factory = new QbeastPageSourceFactory();
        Map<CubeId, Set<String>> files = new HashMap<>();
        for (DataFile file : dataFiles(table)) {
            TrinoInputFile input = tables().fileSystem().newInputFile(Location.of(file.location()));
            try (ConnectorPageSource source = factory.createPageSource(input, 0, file.fileSizeInBytes(), file.fileSizeInBytes(), ImmutableList.of(cube), TupleDomain.all(), QbeastPageSourceFactory.NO_SAMPLING, ParquetReaderOptions.defaultOptions())) {
                while (!source.isFinished()) {
                    SourcePage page = source.getNextSourcePage();
                    if (page == null) {
                        continue;
                    }
                    Block block = page.getBlock(0);
                    for (int position = 0; position < page.getPositionCount(); position++) {
                        files.computeIfAbsent(CubeId.fromBytes(VARBINARY.getSlice(block, position).getBytes()), _ -> new HashSet<>()).add(file.location());
                    }
                }
            }
            catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return files;
    }

    private List<DataFile> dataFiles(String table)
    {
        Table iceberg = tables().table(table);
        List<DataFile> files = new ArrayList<>();
        if (iceberg.currentSnapshot() == null) {
            return files;
        }
        try (CloseableIterable<FileScanTask> tasks = iceberg.newScan().includeColumnStats().planFiles()) {
            tasks.forEach(task -> files.add(task.file()));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    private Set<String> files(String table)
    {
        Set<String> files = new HashSet<>();
        dataFiles(table).forEach(file -> files.add(file.location()));
        return files;
    }

    private long currentSnapshot(String table)
    {
        return tables().table(table).currentSnapshot().snapshotId();
    }

    private ScanStats scanStats(String sql)
    {
        return ScanStats.of(QbeastQueryRunner.queryStats(getDistributedQueryRunner(), getSession(), sql));
    }
}

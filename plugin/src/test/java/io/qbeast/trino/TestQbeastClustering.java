package io.qbeast.trino;

import io.qbeast.iceberg.QbeastTableProperties;
import io.qbeast.iceberg.SnapshotIndex;
import io.qbeast.iceberg.SnapshotIndexReader;
import io.qbeast.iceberg.TrinoFileIo;
import io.qbeast.index.CubeId;
import io.qbeast.index.IndexState;
import io.qbeast.index.Revision;
import io.qbeast.index.transform.LongLinearTransformation;
import io.qbeast.trino.parquet.QbeastPageSourceFactory;
import io.trino.filesystem.Location;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.spi.block.Block;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.predicate.TupleDomain;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.VarbinaryType.VARBINARY;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What INSERT writes is an OTree: checked on the files themselves (through the Iceberg API and
 * the Parquet reader), not through the connector's reads. Also concurrent INSERTs.
 */
class TestQbeastClustering
        extends AbstractTestQbeastTables
{

    @Test
    void testFilesObeyIndexInvariants()
    {
        long cubeSize = 500;
        assertUpdate("CREATE TABLE test_invariants (orderkey bigint, custkey bigint, totalprice double, orderdate date) " +
                "WITH (indexed_columns = ARRAY['orderkey', 'custkey'], cube_size = " + cubeSize + ")");
        // two writes: the second indexes against the tree of the first
        assertUpdate("INSERT INTO test_invariants SELECT orderkey, custkey, totalprice, orderdate FROM tpch.tiny.orders WHERE orderkey % 2 = 0", "SELECT count(*) FROM orders WHERE orderkey % 2 = 0");
        assertUpdate("INSERT INTO test_invariants SELECT orderkey, custkey, totalprice, orderdate FROM tpch.tiny.orders WHERE orderkey % 2 = 1", "SELECT count(*) FROM orders WHERE orderkey % 2 = 1");
        assertQuery("SELECT * FROM test_invariants", "SELECT orderkey, custkey, totalprice, orderdate FROM orders");

        Table table = tables().table("test_invariants");
        Map<String, String> properties = table.properties();
        Map<Long, Revision> revisions = new HashMap<>();
        for (long id : QbeastTableProperties.revisionIds(properties)) {
            Revision revision = Revision.fromJson(QbeastTableProperties.revisionJson(properties, id).orElseThrow());
            assertThat(revision.id()).isEqualTo(id);
            assertThat(revision.cubeSize()).isEqualTo(cubeSize);
            assertThat(revision.columns().stream().map(column -> column.name()).toList()).containsExactly("orderkey", "custkey");
            revisions.put(id, revision);
        }
        assertThat(revisions).isNotEmpty();

        int cubeFieldId = table.schema().findField("_qbeast_cube").fieldId();
        int weightFieldId = table.schema().findField("_qbeast_weight").fieldId();
        List<DataFile> files = dataFiles(table);
        // 15000 rows in cubes of 500: many files
        assertThat(files.size()).isGreaterThan(15000 / (int) cubeSize / 2);
        long rows = 0;
        for (DataFile file : files) {
            rows += file.recordCount();
            assertThat(file.recordCount()).as("rows of %s", file.location()).isLessThanOrEqualTo(cubeSize);
            CubeId minCube = CubeId.fromBytes(bytes(file.lowerBounds().get(cubeFieldId)));
            CubeId maxCube = CubeId.fromBytes(bytes(file.upperBounds().get(cubeFieldId)));
            // a root cube and its descendants
            assertThat(minCube.isAncestorOrSelf(maxCube)).as("cube range %s..%s of %s", minCube, maxCube, file.location()).isTrue();
            Revision revision = revisions.get(minCube.revisionId());
            assertThat(revision).as("revision %s of %s is in the table properties", minCube.revisionId(), file.location()).isNotNull();
            int minWeight = Conversions.fromByteBuffer(Types.IntegerType.get(), file.lowerBounds().get(weightFieldId));
            int maxWeight = Conversions.fromByteBuffer(Types.IntegerType.get(), file.upperBounds().get(weightFieldId));

            FileRows content = readFile(table, file);
            assertThat(content.weights()).hasSize((int) file.recordCount());
            assertThat(content.weights()).as("weights of %s are sorted", file.location()).isSorted();
            assertThat(content.weights().getFirst()).isEqualTo(minWeight);
            assertThat(content.weights().getLast()).isEqualTo(maxWeight);
            for (int row = 0; row < content.weights().size(); row++) {
                CubeId cube = CubeId.fromBytes(content.cubes().get(row));
                assertThat(minCube.isAncestorOrSelf(cube)).as("cube %s in the group of %s", cube, minCube).isTrue();
                assertThat(CubeId.compareBytes(content.cubes().get(row), maxCube.toBytes())).isLessThanOrEqualTo(0);
                // the row's point lies in its cube
                double[] point = {
                        ((LongLinearTransformation) revision.transformation(0)).coordinate(content.orderkeys().get(row)),
                        ((LongLinearTransformation) revision.transformation(1)).coordinate(content.custkeys().get(row))};
                assertThat(cube.contains(point)).as("point of orderkey %s in cube %s", content.orderkeys().get(row), cube).isTrue();
            }
        }
        assertThat(rows).isEqualTo(15000);

        // the index state the next write starts from: a tree, not one cube
        SnapshotIndex index = SnapshotIndexReader.read(new TrinoFileIo(tables().fileSystem()), ((org.apache.iceberg.HasTableOperations) table).operations().current(), table.currentSnapshot().snapshotId());
        assertThat(index.unindexedFiles()).isZero();
        long indexedRows = 0;
        int cubes = 0;
        for (Revision revision : revisions.values()) {
            IndexState state = index.state(revision);
            indexedRows += state.rowCount();
            cubes += state.cubes().size();
        }
        assertThat(indexedRows).isEqualTo(15000);
        assertThat(cubes).isGreaterThan(files.size() / 2);

        // clustering makes column bounds prune: a narrow orderkey range skips files (the upper
        // cubes of the tree span the whole range, so some files always remain)
        List<DataFile> pruned = dataFiles(table, Expressions.and(Expressions.greaterThanOrEqual("orderkey", 1000), Expressions.lessThanOrEqual("orderkey", 1100)));
        assertThat(pruned.size()).as("files kept of %s", files.size()).isLessThan(files.size() * 3 / 4);
        assertQuery("SELECT * FROM test_invariants WHERE orderkey BETWEEN 1000 AND 1100", "SELECT orderkey, custkey, totalprice, orderdate FROM orders WHERE orderkey BETWEEN 1000 AND 1100");
        assertUpdate("DROP TABLE test_invariants");
    }

    @Test
    void testConcurrentInsertsAllCommit()
            throws Exception
    {
        assertUpdate("CREATE TABLE test_concurrent (k bigint, writer integer) WITH (indexed_columns = ARRAY['k'], cube_size = 1000)");
        int writers = 3;
        ExecutorService executor = Executors.newFixedThreadPool(writers);
        try {
            List<Future<?>> inserts = new ArrayList<>();
            for (int writer = 0; writer < writers; writer++) {
                // different key ranges: every writer proposes its own first revision
                String sql = "INSERT INTO test_concurrent SELECT orderkey + %s, %s FROM tpch.tiny.orders".formatted(writer * 1_000_000L, writer);
                inserts.add(executor.submit(() -> getQueryRunner().execute(sql)));
            }
            for (Future<?> insert : inserts) {
                insert.get();
            }
        }
        finally {
            executor.shutdownNow();
        }
        assertQuery("SELECT writer, count(*), sum(k) FROM test_concurrent GROUP BY writer",
                "SELECT w, count(*), sum(orderkey + w * 1000000) FROM orders CROSS JOIN (VALUES 0, 1, 2) t(w) GROUP BY w");

        // one snapshot per INSERT, and every revision a file uses is in the table properties
        Table table = tables().table("test_concurrent");
        assertThat(table.snapshots()).hasSize(writers);
        List<Long> revisions = QbeastTableProperties.revisionIds(table.properties());
        int cubeFieldId = table.schema().findField("_qbeast_cube").fieldId();
        for (DataFile file : dataFiles(table)) {
            long revision = SnapshotIndexReader.revisionId(bytes(file.lowerBounds().get(cubeFieldId)));
            assertThat(revisions).contains(revision);
            assertThat(QbeastTableProperties.revisionJson(table.properties(), revision)).isPresent();
        }
        assertUpdate("DROP TABLE test_concurrent");
    }

    private static List<DataFile> dataFiles(Table table)
    {
        return dataFiles(table, Expressions.alwaysTrue());
    }

    private static List<DataFile> dataFiles(Table table, org.apache.iceberg.expressions.Expression filter)
    {
        List<DataFile> files = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().filter(filter).includeColumnStats().planFiles()) {
            tasks.forEach(task -> files.add(task.file().copy()));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    private record FileRows(List<Integer> weights, List<byte[]> cubes, List<Long> orderkeys, List<Long> custkeys) {}

    private FileRows readFile(Table table, DataFile file)
    {
        List<QbeastColumnHandle> columns = List.of(
                new QbeastColumnHandle("_qbeast_weight", table.schema().findField("_qbeast_weight").fieldId(), INTEGER, true),
                new QbeastColumnHandle("_qbeast_cube", table.schema().findField("_qbeast_cube").fieldId(), VARBINARY, true),
                new QbeastColumnHandle("orderkey", table.schema().findField("orderkey").fieldId(), BIGINT, false),
                new QbeastColumnHandle("custkey", table.schema().findField("custkey").fieldId(), BIGINT, false));
        FileRows rows = new FileRows(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        try (ConnectorPageSource source = new QbeastPageSourceFactory().createPageSource(
                tables().fileSystem().newInputFile(Location.of(file.location())),
                0,
                file.fileSizeInBytes(),
                file.fileSizeInBytes(),
                columns,
                TupleDomain.all(),
                QbeastPageSourceFactory.NO_SAMPLING,
                ParquetReaderOptions.defaultOptions())) {
            while (!source.isFinished()) {
                SourcePage page = source.getNextSourcePage();
                if (page == null) {
                    continue;
                }
                Block weights = page.getBlock(0);
                Block cubes = page.getBlock(1);
                Block orderkeys = page.getBlock(2);
                Block custkeys = page.getBlock(3);
                for (int position = 0; position < page.getPositionCount(); position++) {
                    rows.weights().add(INTEGER.getInt(weights, position));
                    rows.cubes().add(VARBINARY.getSlice(cubes, position).getBytes());
                    rows.orderkeys().add(BIGINT.getLong(orderkeys, position));
                    rows.custkeys().add(BIGINT.getLong(custkeys, position));
                }
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return rows;
    }

    private static byte[] bytes(ByteBuffer buffer)
    {
        ByteBuffer duplicate = buffer.duplicate();
        byte[] bytes = new byte[duplicate.remaining()];
        duplicate.get(bytes);
        return bytes;
    }
}

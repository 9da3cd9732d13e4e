package io.qbeast.trino.system;

import com.google.common.collect.ImmutableList;
import io.airlift.json.JsonCodec;
import io.airlift.slice.Slice;
import io.airlift.slice.Slices;
import io.qbeast.iceberg.QbeastTableMetadata;
import io.qbeast.iceberg.QbeastTableProperties;
import io.qbeast.iceberg.SnapshotIndexReader;
import io.qbeast.index.CubeId;
import io.qbeast.index.FileFacts;
import io.qbeast.index.Revision;
import io.qbeast.index.Weight;
import io.qbeast.trino.catalog.QbeastTableMetadataReader;
import io.qbeast.trino.handle.QbeastColumnHandle;
import io.qbeast.trino.parquet.QbeastPageSourceFactory;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.RowBlockBuilder;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableMetadata;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.InMemoryRecordSet;
import io.trino.spi.connector.RecordCursor;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.connector.SystemTable;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.type.ArrayType;
import io.trino.spi.type.RowType;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import static io.airlift.concurrent.MoreFutures.getFutureValue;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.VarbinaryType.VARBINARY;
import static io.trino.spi.type.VarcharType.VARCHAR;

/**
 * Metadata tables of a qbeast table, read at its current snapshot:
 * {@code "t$files"} (one row per data file with its index facts), {@code "t$revisions"} and
 * {@code "t$cubes"} (one row per cube with rows).
 */
public final class QbeastSystemTables
{
    static final String FILES = "files";
    static final String REVISIONS = "revisions";
    static final String SNAPSHOTS = "snapshots";
    static final String CUBES = "cubes";
    static final RowType REGION_ELEMENT = RowType.from(List.of(
            RowType.field("column", VARCHAR),
            RowType.field("low", DOUBLE),
            RowType.field("high", DOUBLE)));

    private QbeastSystemTables() {}

    /** The table that a system table's name refers to: {@code t} for {@code t$files}; empty for a name without {@code $}. */
    public static Optional<SchemaTableName> baseTable(SchemaTableName name)
    {
        int marker = name.getTableName().lastIndexOf('$');
        if (marker <= 0) {
            return Optional.empty();
        }
        return Optional.of(new SchemaTableName(name.getSchemaName(), name.getTableName().substring(0, marker)));
    }

    /**
     * The system table {@code name} ({@code t$files}, {@code t$revisions}, {@code t$snapshots} or
     * {@code t$cubes}) of the base table {@code table}; empty for another suffix.
     */
    public static Optional<SystemTable> create(Table table, SchemaTableName name, TrinoFileSystem fileSystem, Executor fileReads)
    {
        String kind = name.getTableName().substring(name.getTableName().lastIndexOf('$') + 1);
        return switch (kind) {
            case FILES -> Optional.of(files(table, name));
            case REVISIONS -> Optional.of(revisions(table, name));
            case SNAPSHOTS -> Optional.of(snapshots(table, name));
            case CUBES -> Optional.of(cubes(table, name, fileSystem, fileReads));
            default -> Optional.empty();
        };
    }

    /**
     * One row per cube with rows at the table's current snapshot, in depth-first pre-order per
     * revision. The manifests give a single-cube file's rows, weights and cube exactly; a file
     * holding a rollup group has only its root and last cube in the manifests, so for those files
     * the two hidden columns (small: the cube is near-constant, weights are sorted) are read to
     * count each cube's rows exactly. Files without index bounds are not listed.
     */
    private static SystemTable cubes(Table table, SchemaTableName name, TrinoFileSystem fileSystem, Executor fileReads)
    {
        ConnectorTableMetadata metadata = new ConnectorTableMetadata(name, ImmutableList.of(
                new ColumnMetadata("revision", BIGINT),
                new ColumnMetadata("cube_id", VARCHAR),
                new ColumnMetadata("depth", INTEGER),
                new ColumnMetadata("region", new ArrayType(REGION_ELEMENT)),
                new ColumnMetadata("rows", BIGINT),
                new ColumnMetadata("files", BIGINT),
                new ColumnMetadata("min_weight", BIGINT),
                new ColumnMetadata("max_weight", BIGINT),
                new ColumnMetadata("min_weight_fraction", DOUBLE),
                new ColumnMetadata("max_weight_fraction", DOUBLE)));
        return new InMemorySystemTable(metadata, () -> cubeRows(table, name, fileSystem, fileReads));
    }

    private static List<Object[]> cubeRows(Table table, SchemaTableName name, TrinoFileSystem fileSystem, Executor fileReads)
    {
        Snapshot snapshot = table.currentSnapshot();
        Types.NestedField cube = table.schema().findField(QbeastTableProperties.CUBE_COLUMN);
        Types.NestedField weight = table.schema().findField(QbeastTableProperties.WEIGHT_COLUMN);
        if (snapshot == null || cube == null || weight == null) {
            return List.of();
        }
        // unsigned lexicographic byte order of cube ids is pre-order (revision first)
        Map<Slice, CubeCount> counts = new TreeMap<>();
        // files holding several cubes are read, in parallel on the bounded executor
        List<CompletableFuture<Map<Slice, CubeCount>>> groupFiles = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(snapshot.snapshotId())
                .includeColumnStats(List.of(QbeastTableProperties.CUBE_COLUMN, QbeastTableProperties.WEIGHT_COLUMN))
                .planFiles()) {
            for (FileScanTask task : tasks) {
                DataFile file = task.file();
                FileFacts facts = SnapshotIndexReader.facts(file, cube.fieldId(), weight.fieldId());
                if (facts == null) {
                    continue;
                }
                if (facts.isSingleCube()) {
                    counts.computeIfAbsent(Slices.wrappedBuffer(facts.minCube()), _ -> new CubeCount())
                            .addFile(file.recordCount(), facts.minWeight(), facts.maxWeight());
                }
                else {
                    // the task reads its own copy of the file's facts: scan iterators may reuse objects
                    String location = file.location();
                    long length = file.fileSizeInBytes();
                    groupFiles.add(CompletableFuture.supplyAsync(() -> countGroupFile(fileSystem, location, length, cube.fieldId(), weight.fieldId()), fileReads));
                }
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (CompletableFuture<Map<Slice, CubeCount>> groupFile : groupFiles) {
            getFutureValue(groupFile).forEach((cubeId, count) -> counts.computeIfAbsent(cubeId, _ -> new CubeCount()).addFile(count.rows, count.minWeight, count.maxWeight));
        }

        Optional<QbeastTableMetadata> qbeast = QbeastTableMetadataReader.read(name, table);
        List<Object[]> rows = new ArrayList<>(counts.size());
        counts.forEach((bytes, count) -> {
            CubeId id;
            try {
                id = CubeId.fromBytes(bytes.getBytes());
            }
            catch (RuntimeException e) {
                // a value another engine wrote: not a cube
                return;
            }
            Optional<Revision> revision = qbeast.flatMap(metadata -> metadata.revision(id.revisionId()));
            rows.add(new Object[] {
                    id.revisionId(),
                    id.toString(),
                    id.depth(),
                    revision.filter(r -> r.dimensions() == id.dimensions()).map(r -> region(r, id)).orElse(null),
                    count.rows,
                    (long) count.files,
                    (long) count.minWeight,
                    (long) count.maxWeight,
                    Weight.fraction(count.minWeight),
                    Weight.fraction(count.maxWeight)});
        });
        return rows;
    }

    // the cube's box in the revision's coordinates: [low, high) per indexed column
    private static Block region(Revision revision, CubeId cube)
    {
        BlockBuilder builder = REGION_ELEMENT.createBlockBuilder(null, revision.dimensions());
        for (int dimension = 0; dimension < revision.dimensions(); dimension++) {
            String column = revision.column(dimension).name();
            double low = cube.lowerBound(dimension);
            double high = cube.upperBound(dimension);
            ((RowBlockBuilder) builder).buildEntry(fields -> {
                VARCHAR.writeString(fields.get(0), column);
                DOUBLE.writeDouble(fields.get(1), low);
                DOUBLE.writeDouble(fields.get(2), high);
            });
        }
        return builder.build();
    }

    /** The rows, and lightest and heaviest weight, of each cube in a file that holds several. */
    private static Map<Slice, CubeCount> countGroupFile(TrinoFileSystem fileSystem, String location, long length, int cubeFieldId, int weightFieldId)
    {
        List<QbeastColumnHandle> columns = List.of(
                new QbeastColumnHandle(QbeastColumnHandle.CUBE_COLUMN, cubeFieldId, VARBINARY, true),
                new QbeastColumnHandle(QbeastColumnHandle.WEIGHT_COLUMN, weightFieldId, INTEGER, true));
        Map<Slice, CubeCount> inFile = new HashMap<>();
        try (ConnectorPageSource source = PAGE_SOURCES.createPageSource(
                fileSystem.newInputFile(Location.of(location), length),
                0,
                length,
                length,
                columns,
                Optional.empty(),
                TupleDomain.all(),
                QbeastPageSourceFactory.NO_SAMPLING,
                ParquetReaderOptions.defaultOptions())) {
            while (!source.isFinished()) {
                SourcePage page = source.getNextSourcePage();
                if (page == null) {
                    continue;
                }
                Block cubes = page.getBlock(0);
                Block weights = page.getBlock(1);
                for (int position = 0; position < page.getPositionCount(); position++) {
                    if (cubes.isNull(position) || weights.isNull(position)) {
                        continue;
                    }
                    inFile.computeIfAbsent(VARBINARY.getSlice(cubes, position).copy(), _ -> new CubeCount())
                            .addRow(INTEGER.getInt(weights, position));
                }
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return inFile;
    }

    private static final QbeastPageSourceFactory PAGE_SOURCES = new QbeastPageSourceFactory();

    private static final class CubeCount
    {
        long rows;
        int files;
        int minWeight = Weight.MAX;
        int maxWeight = Weight.MIN;

        void addRow(int weight)
        {
            rows++;
            minWeight = Math.min(minWeight, weight);
            maxWeight = Math.max(maxWeight, weight);
        }

        void addFile(long fileRows, int fileMinWeight, int fileMaxWeight)
        {
            rows += fileRows;
            files++;
            minWeight = Math.min(minWeight, fileMinWeight);
            maxWeight = Math.max(maxWeight, fileMaxWeight);
        }
    }

    private static SystemTable files(Table table, SchemaTableName name)
    {
        ConnectorTableMetadata metadata = new ConnectorTableMetadata(name, ImmutableList.of(
                new ColumnMetadata("path", VARCHAR),
                new ColumnMetadata("record_count", BIGINT),
                new ColumnMetadata("file_size_in_bytes", BIGINT),
                new ColumnMetadata("revision_id", BIGINT),
                new ColumnMetadata("min_cube", VARCHAR),
                new ColumnMetadata("max_cube", VARCHAR),
                new ColumnMetadata("min_weight", BIGINT),
                new ColumnMetadata("max_weight", BIGINT)));
        List<Object[]> rows = new ArrayList<>();
        Snapshot snapshot = table.currentSnapshot();
        Types.NestedField cube = table.schema().findField(QbeastTableProperties.CUBE_COLUMN);
        Types.NestedField weight = table.schema().findField(QbeastTableProperties.WEIGHT_COLUMN);
        if (snapshot != null) {
            // the current snapshot with the current schema (useSnapshot would bind to the snapshot's schema,
            // which lacks the index columns when a conversion added them after the snapshot)
            try (CloseableIterable<FileScanTask> tasks = table.newScan()
                    .includeColumnStats(cube == null || weight == null ? List.of() : List.of(QbeastTableProperties.CUBE_COLUMN, QbeastTableProperties.WEIGHT_COLUMN))
                    .planFiles()) {
                for (FileScanTask task : tasks) {
                    DataFile file = task.file();
                    FileFacts facts = cube == null || weight == null ? null : SnapshotIndexReader.facts(file, cube.fieldId(), weight.fieldId());
                    rows.add(new Object[] {
                            file.location(),
                            file.recordCount(),
                            file.fileSizeInBytes(),
                            facts == null ? null : SnapshotIndexReader.revisionId(facts.minCube()),
                            facts == null ? null : readable(facts.minCube()),
                            facts == null ? null : readable(facts.maxCube()),
                            facts == null ? null : (long) facts.minWeight(),
                            facts == null ? null : (long) facts.maxWeight()});
                }
            }
            catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return new InMemorySystemTable(metadata, () -> rows);
    }

    private static String readable(byte[] cube)
    {
        try {
            return CubeId.fromBytes(cube).toString();
        }
        catch (RuntimeException e) {
            // a bound Iceberg truncated or another engine wrote: show the bytes
            return java.util.HexFormat.of().formatHex(cube);
        }
    }

    private static SystemTable revisions(Table table, SchemaTableName name)
    {
        ConnectorTableMetadata metadata = new ConnectorTableMetadata(name, ImmutableList.of(
                new ColumnMetadata("revision_id", BIGINT),
                new ColumnMetadata("json", VARCHAR)));
        List<Object[]> rows = new ArrayList<>();
        for (long id : QbeastTableProperties.revisionIds(table.properties())) {
            rows.add(new Object[] {id, QbeastTableProperties.revisionJson(table.properties(), id).orElse(null)});
        }
        return new InMemorySystemTable(metadata, () -> rows);
    }

    /** {@code "t$snapshots"}: the table's snapshots, oldest first, with their summaries (optimize reports under {@code qbeast.optimize.*}) as a JSON object. */
    private static SystemTable snapshots(Table table, SchemaTableName name)
    {
        ConnectorTableMetadata metadata = new ConnectorTableMetadata(name, ImmutableList.of(
                new ColumnMetadata("snapshot_id", BIGINT),
                new ColumnMetadata("parent_id", BIGINT),
                new ColumnMetadata("sequence_number", BIGINT),
                new ColumnMetadata("committed_at_millis", BIGINT),
                new ColumnMetadata("operation", VARCHAR),
                new ColumnMetadata("summary", VARCHAR)));
        List<Object[]> rows = new ArrayList<>();
        for (Snapshot snapshot : table.snapshots()) {
            rows.add(new Object[] {
                    snapshot.snapshotId(),
                    snapshot.parentId(),
                    snapshot.sequenceNumber(),
                    snapshot.timestampMillis(),
                    snapshot.operation(),
                    SUMMARY_CODEC.toJson(new TreeMap<>(snapshot.summary()))});
        }
        return new InMemorySystemTable(metadata, () -> rows);
    }

    private static final JsonCodec<Map<String, String>> SUMMARY_CODEC = JsonCodec.mapJsonCodec(String.class, String.class);

    /** Rows produced by {@code rows} on every scan, on the coordinator. */
    private record InMemorySystemTable(ConnectorTableMetadata metadata, Supplier<List<Object[]>> rows)
            implements SystemTable
    {
        @Override
        public Distribution getDistribution()
        {
            return Distribution.SINGLE_COORDINATOR;
        }

        @Override
        public ConnectorTableMetadata getTableMetadata()
        {
            return metadata;
        }

        @Override
        public RecordCursor cursor(ConnectorTransactionHandle transactionHandle, ConnectorSession session, TupleDomain<Integer> constraint)
        {
            InMemoryRecordSet.Builder builder = InMemoryRecordSet.builder(metadata);
            rows.get().forEach(builder::addRow);
            return builder.build().cursor();
        }
    }
}

package io.qbeast.trino;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.airlift.json.JsonCodec;
import io.airlift.log.Logger;
import io.airlift.slice.Slice;
import io.airlift.slice.Slices;
import io.airlift.units.DataSize;
import io.qbeast.iceberg.SnapshotIndex;
import io.qbeast.index.BatchIndexer;
import io.qbeast.index.ColumnProfile;
import io.qbeast.index.CubeAssignment;
import io.qbeast.index.CubeGroup;
import io.qbeast.index.CubeId;
import io.qbeast.index.FileFacts;
import io.qbeast.index.IndexState;
import io.qbeast.index.Revision;
import io.qbeast.index.RevisionPlanner;
import io.qbeast.index.Rollup;
import io.qbeast.index.WeightGenerator;
import io.qbeast.trino.parquet.IcebergMetrics;
import io.qbeast.trino.parquet.QbeastParquetFileWriter;
import io.qbeast.trino.parquet.WrittenFile;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.parquet.writer.ParquetWriterOptions;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.IntArrayBlock;
import io.trino.spi.block.RunLengthEncodedBlock;
import io.trino.spi.connector.ConnectorPageSink;
import io.trino.spi.type.Type;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.apache.parquet.format.CompressionCodec;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import static io.qbeast.iceberg.QbeastTableProperties.CUBE_COLUMN;
import static io.qbeast.iceberg.QbeastTableProperties.WEIGHT_COLUMN;
import static io.qbeast.trino.QbeastErrorCode.QBEAST_INTERNAL_ERROR;
import static io.trino.spi.type.VarbinaryType.VARBINARY;
import static java.util.Objects.requireNonNull;

/**
 * The clustering writer. Rows are buffered up to a memory budget; a full buffer (and the rest at
 * {@link #finish()}) is indexed as one batch:
 * <ol>
 *   <li>the revision is chosen: the table's current one, widened when the batch falls outside
 *       it ({@link RevisionPlanner}), or, for a table without one, proposed from the batch;</li>
 *   <li>every row gets its point (through the revision's transformations) and a random weight;</li>
 *   <li>the batch is assigned to cubes against the index state of the base snapshot plus the
 *       files this sink already wrote ({@link BatchIndexer});</li>
 *   <li>small cubes are rolled up into groups of at most {@code cap} rows ({@link Rollup}), where
 *       {@code cap} is the cube size, or fewer when that many rows would exceed the target file
 *       size;</li>
 *   <li>each group becomes one Parquet file (more if one cube alone exceeds the cap), its rows
 *       sorted by weight, with {@code _qbeast_weight} and {@code _qbeast_cube} columns.</li>
 * </ol>
 *
 * <p>Memory: half of the budget holds buffered pages plus the per-row arrays indexing them; the
 * other half is for the open file writer and the page being built for it. The largest amount
 * held at once is reported to {@link QbeastWriterStats}.
 */
public class QbeastPageSink
        implements ConnectorPageSink
{
    private static final Logger log = Logger.get(QbeastPageSink.class);
    private static final int MAX_OUTPUT_PAGE_ROWS = 4096;
    private static final int MIN_OUTPUT_PAGE_ROWS = 128;
    static final int ROW_GROUPS_PER_FILE = 8;
    private static final long MIN_ROW_GROUP_BYTES = 1024 * 1024;

    private final QbeastWritableTableHandle handle;
    private final TrinoFileSystem fileSystem;
    private final String queryId;
    private final Location dataLocation;
    private final Schema schema;
    private final List<Type> schemaTypes;
    // per schema column: the input channel holding it, or -1 for the index columns (and columns not written)
    private final int[] inputChannels;
    private final int weightColumn;
    private final int cubeColumn;
    private final PointMapper pointMapper;
    private final RevisionPlanner planner;
    private final BatchIndexer indexer = new BatchIndexer();
    private final WeightGenerator weightGenerator;
    private final Supplier<SnapshotIndex> baseIndex;
    private final long memoryBudget;
    private final long bufferLimit;
    private final long perRowOverhead;
    private final long targetFileSize;
    private final long cubeSize;
    private final ParquetWriterOptions writerOptions;
    private final CompressionCodec compressionCodec;
    private final JsonCodec<CommitTaskData> commitTaskCodec;
    private final QbeastWriterStats stats;
    private final Optional<Revision> tableRevision;

    private Revision revision;
    private final Map<Long, IndexState> states = new HashMap<>();
    private final List<Page> buffer = new ArrayList<>();
    private long bufferedRows;
    private long bufferedBytes;
    private final List<CommitTaskData> writtenFiles = new ArrayList<>();
    private final List<Location> createdFiles = new ArrayList<>();
    private QbeastParquetFileWriter openWriter;
    private long completedBytes;
    private boolean closed;

    public QbeastPageSink(
            QbeastWritableTableHandle handle,
            TrinoFileSystem fileSystem,
            String queryId,
            Schema schema,
            List<Type> schemaTypes,
            Supplier<SnapshotIndex> baseIndex,
            long memoryBudget,
            long targetFileSize,
            ParquetWriterOptions writerOptions,
            CompressionCodec compressionCodec,
            long weightSeed,
            JsonCodec<CommitTaskData> commitTaskCodec,
            QbeastWriterStats stats)
    {
        this.handle = requireNonNull(handle, "handle is null");
        this.fileSystem = requireNonNull(fileSystem, "fileSystem is null");
        this.queryId = requireNonNull(queryId, "queryId is null");
        this.dataLocation = Location.of(handle.dataLocation());
        this.schema = requireNonNull(schema, "schema is null");
        this.schemaTypes = ImmutableList.copyOf(schemaTypes);
        this.baseIndex = requireNonNull(baseIndex, "baseIndex is null");
        this.memoryBudget = memoryBudget;
        this.bufferLimit = memoryBudget / 2;
        this.targetFileSize = targetFileSize;
        this.cubeSize = handle.cubeSize();
        this.writerOptions = requireNonNull(writerOptions, "writerOptions is null");
        this.compressionCodec = requireNonNull(compressionCodec, "compressionCodec is null");
        this.weightGenerator = new WeightGenerator(weightSeed);
        this.commitTaskCodec = requireNonNull(commitTaskCodec, "commitTaskCodec is null");
        this.stats = requireNonNull(stats, "stats is null");
        this.planner = RevisionPlanner.defaults();

        List<Types.NestedField> columns = schema.columns();
        Map<Integer, Integer> channelByFieldId = new HashMap<>();
        for (int channel = 0; channel < handle.inputColumns().size(); channel++) {
            channelByFieldId.put(handle.inputColumns().get(channel).fieldId(), channel);
        }
        this.inputChannels = new int[columns.size()];
        int weight = -1;
        int cube = -1;
        for (int column = 0; column < columns.size(); column++) {
            Types.NestedField field = columns.get(column);
            inputChannels[column] = channelByFieldId.getOrDefault(field.fieldId(), -1);
            if (field.name().equals(WEIGHT_COLUMN)) {
                weight = column;
            }
            else if (field.name().equals(CUBE_COLUMN)) {
                cube = column;
            }
        }
        if (weight < 0 || cube < 0) {
            throw new TrinoException(QbeastErrorCode.QBEAST_INVALID_METADATA, "Table %s lacks the index columns %s and %s".formatted(handle.schemaTableName(), WEIGHT_COLUMN, CUBE_COLUMN));
        }
        this.weightColumn = weight;
        this.cubeColumn = cube;

        List<Integer> indexedChannels = new ArrayList<>();
        List<Type> indexedTypes = new ArrayList<>();
        for (String name : handle.indexedColumns()) {
            Types.NestedField field = schema.findField(name);
            Integer channel = field == null ? null : channelByFieldId.get(field.fieldId());
            if (channel == null) {
                throw new TrinoException(QbeastErrorCode.QBEAST_INVALID_METADATA, "Indexed column %s is not written to table %s".formatted(name, handle.schemaTableName()));
            }
            indexedChannels.add(channel);
            indexedTypes.add(handle.inputColumns().get(channel).type());
        }
        this.pointMapper = new PointMapper(handle.indexedColumns(), indexedChannels, indexedTypes);
        // coordinates, weight, cube of row, sort key, and what the indexer keeps per row
        this.perRowOverhead = 8L * pointMapper.dimensions() + 40;

        this.tableRevision = handle.revisionJson().map(Revision::fromJson);
        tableRevision.ifPresent(pointMapper::validate);
        this.revision = tableRevision.orElse(null);
    }

    @Override
    public CompletableFuture<?> appendPage(Page page)
    {
        if (page.getPositionCount() == 0) {
            return NOT_BLOCKED;
        }
        buffer.add(page);
        bufferedRows += page.getPositionCount();
        bufferedBytes += page.getRetainedSizeInBytes();
        recordMemory(0);
        if (bufferedBytes + bufferedRows * perRowOverhead >= bufferLimit || bufferedRows >= Integer.MAX_VALUE / Math.max(8, pointMapper.dimensions() * 2L)) {
            flush();
        }
        return NOT_BLOCKED;
    }

    @Override
    public long getMemoryUsage()
    {
        QbeastParquetFileWriter writer = openWriter;
        return bufferedBytes + bufferedRows * perRowOverhead + (writer == null ? 0 : writer.getMemoryUsage());
    }

    @Override
    public long getCompletedBytes()
    {
        return completedBytes;
    }

    @Override
    public CompletableFuture<Collection<Slice>> finish()
    {
        try {
            flush();
        }
        catch (RuntimeException | Error e) {
            abort();
            throw e;
        }
        closed = true;
        ImmutableList.Builder<Slice> fragments = ImmutableList.builder();
        for (CommitTaskData file : writtenFiles) {
            fragments.add(Slices.wrappedBuffer(commitTaskCodec.toJsonBytes(file)));
        }
        return CompletableFuture.completedFuture(fragments.build());
    }

    @Override
    public void abort()
    {
        closed = true;
        buffer.clear();
        bufferedRows = 0;
        bufferedBytes = 0;
        if (openWriter != null) {
            openWriter.rollback();
            openWriter = null;
        }
        if (!createdFiles.isEmpty()) {
            try {
                fileSystem.deleteFiles(createdFiles);
            }
            catch (IOException | RuntimeException e) {
                log.warn(e, "Failed to delete the files of an aborted write to %s: %s", handle.schemaTableName(), createdFiles);
            }
            createdFiles.clear();
        }
        // A failed CREATE TABLE AS owns its whole location. The coordinator's rollback removes it as
        // soon as the query fails, but a writer still running then may have recreated it: the last
        // writer to abort removes what is left (nothing of this location was ever committed).
        handle.ownedTableLocation().ifPresent(location -> {
            try {
                fileSystem.deleteDirectory(Location.of(location));
            }
            catch (IOException | RuntimeException e) {
                log.warn(e, "Failed to delete the location of an aborted CREATE TABLE AS %s: %s", handle.schemaTableName(), location);
            }
        });
    }

    private void flush()
    {
        if (closed) {
            throw new IllegalStateException("Page sink is closed");
        }
        if (bufferedRows == 0) {
            return;
        }
        int rows = Math.toIntExact(bufferedRows);
        long avgRowBytes = Math.max(1, bufferedBytes / rows);
        stats.recordFlush(bufferedBytes);

        Revision batchRevision = chooseRevision();
        int dimensions = batchRevision.dimensions();
        double[] coordinates = new double[rows * dimensions];
        int[] pageStarts = new int[buffer.size() + 1];
        for (int page = 0; page < buffer.size(); page++) {
            pointMapper.coordinates(batchRevision, buffer.get(page), coordinates, pageStarts[page]);
            pageStarts[page + 1] = pageStarts[page] + buffer.get(page).getPositionCount();
        }
        int[] weights = new int[rows];
        weightGenerator.fill(weights, 0, rows);

        IndexState state = states.computeIfAbsent(batchRevision.id(), _ -> baseIndex.get().state(batchRevision));
        CubeAssignment assignment = indexer.assign(state, coordinates, weights, rows);
        coordinates = null;

        long rowsPerTargetFile = Math.max(1, targetFileSize / avgRowBytes);
        long cap = Math.max(1, Math.min(cubeSize, rowsPerTargetFile));
        List<CubeId> cubes = assignment.cubes();
        List<CubeGroup> groups = Rollup.group(cubes, assignment.rowsPerCube(), cap);

        // rows of each group in ascending weight: the batch's weight order, bucketed by group
        Map<CubeId, Integer> groupOfMember = new HashMap<>();
        for (int group = 0; group < groups.size(); group++) {
            for (CubeId member : groups.get(group).members()) {
                groupOfMember.put(member, group);
            }
        }
        int[] groupOfCube = new int[cubes.size()];
        byte[][] cubeBytes = new byte[cubes.size()][];
        for (int cube = 0; cube < cubes.size(); cube++) {
            Integer group = groupOfMember.get(cubes.get(cube));
            if (group == null) {
                throw new TrinoException(QBEAST_INTERNAL_ERROR, "Rollup left cube %s out of every group".formatted(cubes.get(cube)));
            }
            groupOfCube[cube] = group;
            cubeBytes[cube] = cubes.get(cube).toBytes();
        }
        int[] cubeOfRow = assignment.cubeOfRow();
        int[] groupOffsets = new int[groups.size() + 1];
        for (int row = 0; row < rows; row++) {
            groupOffsets[groupOfCube[cubeOfRow[row]] + 1]++;
        }
        for (int group = 0; group < groups.size(); group++) {
            groupOffsets[group + 1] += groupOffsets[group];
        }
        int[] rowsByGroup = new int[rows];
        int[] fill = Arrays.copyOf(groupOffsets, groups.size());
        for (int row : assignment.rowsInWeightOrder()) {
            rowsByGroup[fill[groupOfCube[cubeOfRow[row]]]++] = row;
        }

        Optional<String> newRevisionJson = tableRevision.isPresent() && tableRevision.get().id() == batchRevision.id()
                ? Optional.empty()
                : Optional.of(batchRevision.toJson());
        List<FileFacts> newFacts = new ArrayList<>();
        for (int group = 0; group < groups.size(); group++) {
            int from = groupOffsets[group];
            int to = groupOffsets[group + 1];
            if (from == to) {
                continue;
            }
            byte[] rootBytes = groups.get(group).root().toBytes();
            for (int start = from; start < to; start += (int) cap) {
                int end = (int) Math.min(to, start + cap);
                newFacts.add(writeFile(rowsByGroup, start, end, weights, pageStarts, cubeOfRow, cubeBytes, rootBytes, avgRowBytes, newRevisionJson));
            }
        }
        states.put(batchRevision.id(), state.plus(newFacts));

        buffer.clear();
        bufferedRows = 0;
        bufferedBytes = 0;
    }

    private Revision chooseRevision()
    {
        if (revision == null) {
            List<ColumnProfile> profiles = pointMapper.newProfiles();
            buffer.forEach(page -> pointMapper.profile(profiles, page));
            revision = planner.propose(profiles, cubeSize);
            return revision;
        }
        List<ColumnProfile> profiles = pointMapper.profiles(revision);
        buffer.forEach(page -> pointMapper.profile(profiles, page));
        Optional<Revision> widened = planner.widen(revision, profiles);
        if (widened.isPresent()) {
            log.debug("Table %s: batch outside revision %s, widened to %s", handle.schemaTableName(), revision.id(), widened.get().id());
            revision = widened.get();
        }
        return revision;
    }

    /** Writes the rows {@code rowsByGroup[start, end)} (in ascending weight) to a new file; returns its facts. */
    private FileFacts writeFile(int[] rowsByGroup, int start, int end, int[] weights, int[] pageStarts, int[] cubeOfRow, byte[][] cubeBytes, byte[] rootBytes, long avgRowBytes, Optional<String> newRevisionJson)
    {
        Location location = dataLocation.appendPath(queryId + "-" + UUID.randomUUID() + ".parquet");
        createdFiles.add(location);
        int rows = end - start;
        QbeastParquetFileWriter writer = new QbeastParquetFileWriter(fileSystem, location, schema, schemaTypes, fileWriterOptions(rows, avgRowBytes), compressionCodec, handle.storageProperties(), true);
        openWriter = writer;
        byte[] maxCube = rootBytes;
        int pageRows = (int) Math.max(1, Math.min(MAX_OUTPUT_PAGE_ROWS, (memoryBudget / 8) / avgRowBytes));
        // the writer closes a row group only between pages: pages small enough for several row groups per file
        pageRows = Math.min(pageRows, Math.max(MIN_OUTPUT_PAGE_ROWS, (rows + ROW_GROUPS_PER_FILE - 1) / ROW_GROUPS_PER_FILE));
        try {
            int[] pages = new int[pageRows];
            int[] positions = new int[pageRows];
            for (int chunk = start; chunk < end; chunk += pageRows) {
                int count = Math.min(pageRows, end - chunk);
                int[] chunkWeights = new int[count];
                Block[] blocks = new Block[schemaTypes.size()];
                BlockBuilder cubes = VARBINARY.createBlockBuilder(null, count);
                for (int i = 0; i < count; i++) {
                    int row = rowsByGroup[chunk + i];
                    chunkWeights[i] = weights[row];
                    int page = pageOf(pageStarts, row);
                    pages[i] = page;
                    positions[i] = row - pageStarts[page];
                    byte[] cube = cubeBytes[cubeOfRow[row]];
                    VARBINARY.writeSlice(cubes, Slices.wrappedBuffer(cube));
                    if (CubeId.compareBytes(cube, maxCube) > 0) {
                        maxCube = cube;
                    }
                }
                for (int column = 0; column < blocks.length; column++) {
                    if (column == weightColumn) {
                        blocks[column] = new IntArrayBlock(count, Optional.empty(), chunkWeights);
                    }
                    else if (column == cubeColumn) {
                        blocks[column] = cubes.build();
                    }
                    else if (inputChannels[column] < 0) {
                        Type type = schemaTypes.get(column);
                        blocks[column] = RunLengthEncodedBlock.create(type.createBlockBuilder(null, 1).appendNull().build(), count);
                    }
                    else {
                        Type type = schemaTypes.get(column);
                        int channel = inputChannels[column];
                        BlockBuilder builder = type.createBlockBuilder(null, count);
                        for (int i = 0; i < count; i++) {
                            type.appendTo(buffer.get(pages[i]).getBlock(channel), positions[i], builder);
                        }
                        blocks[column] = builder.build();
                    }
                }
                Page output = new Page(count, blocks);
                writer.appendPage(output);
                recordMemory(writer.getMemoryUsage() + output.getRetainedSizeInBytes());
            }
            WrittenFile file = writer.commit();
            openWriter = null;
            file = withCubeLowerBound(file, rootBytes);
            writtenFiles.add(new CommitTaskData(file, newRevisionJson, distinctCubes(rowsByGroup, start, end, cubeOfRow)));
            completedBytes += file.fileSizeInBytes();
            stats.recordFile(file.recordCount());
            int minWeight = weights[rowsByGroup[start]];
            int maxWeight = weights[rowsByGroup[end - 1]];
            return new FileFacts(rootBytes, maxCube, minWeight, maxWeight, end - start);
        }
        catch (RuntimeException | Error e) {
            if (openWriter != null) {
                openWriter.rollback();
                openWriter = null;
            }
            throw e;
        }
    }

    /**
     * Rows are written in ascending weight, so a sample needs a prefix of each file: cutting the
     * file into about {@link #ROW_GROUPS_PER_FILE} row groups (trino-parquet closes a row group once
     * its buffered bytes reach the limit; we estimate from the rows' in-memory size) lets the reader
     * skip the row groups past the sample's bound by their weight statistics, so a sample reads at
     * most about one row group more than it needs of each file. Never above the configured limit.
     */
    private ParquetWriterOptions fileWriterOptions(int rows, long avgRowBytes)
    {
        long perRowGroup = Math.max(MIN_ROW_GROUP_BYTES, rows * avgRowBytes / ROW_GROUPS_PER_FILE);
        if (perRowGroup >= writerOptions.getMaxRowGroupSize()) {
            return writerOptions;
        }
        return ParquetWriterOptions.builder()
                .setMaxBlockSize(DataSize.ofBytes(perRowGroup))
                .setMaxPageSize(DataSize.ofBytes(writerOptions.getMaxPageSize()))
                .setMaxPageValueCount(writerOptions.getMaxPageValueCount())
                .setBatchSize(writerOptions.getBatchSize())
                .build();
    }

    /**
     * The file's lower bound of {@code _qbeast_cube} becomes the root of its rollup group (which
     * sorts before every cube of the group, and may hold no rows of this file): so every file's
     * cube bounds are a group root and one of its descendants.
     */
    private WrittenFile withCubeLowerBound(WrittenFile file, byte[] rootBytes)
    {
        int cubeFieldId = schema.columns().get(cubeColumn).fieldId();
        IcebergMetrics metrics = file.metrics();
        Map<Integer, byte[]> lowerBounds = new HashMap<>(metrics.lowerBounds());
        lowerBounds.put(cubeFieldId, rootBytes);
        IcebergMetrics adjusted = new IcebergMetrics(
                metrics.recordCount(),
                metrics.columnSizes(),
                metrics.valueCounts(),
                metrics.nullValueCounts(),
                metrics.nanValueCounts(),
                ImmutableMap.copyOf(lowerBounds),
                metrics.upperBounds());
        return new WrittenFile(file.path(), file.fileSizeInBytes(), file.recordCount(), adjusted, file.splitOffsets());
    }

    private static int distinctCubes(int[] rowsByGroup, int start, int end, int[] cubeOfRow)
    {
        Set<Integer> cubes = new HashSet<>();
        for (int i = start; i < end; i++) {
            cubes.add(cubeOfRow[rowsByGroup[i]]);
        }
        return cubes.size();
    }

    private static int pageOf(int[] pageStarts, int row)
    {
        int index = Arrays.binarySearch(pageStarts, row);
        if (index >= 0) {
            // the first page starting at this row (skips none: empty pages are never buffered)
            return index;
        }
        return -index - 2;
    }

    private void recordMemory(long writerBytes)
    {
        stats.recordSinkMemory(bufferedBytes + bufferedRows * perRowOverhead + writerBytes);
    }
}

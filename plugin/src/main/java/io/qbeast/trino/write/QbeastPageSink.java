package io.qbeast.trino.write;

import com.google.common.collect.ImmutableList;
import io.airlift.json.JsonCodec;
import io.airlift.log.Logger;
import io.airlift.slice.Slice;
import io.airlift.slice.Slices;
import io.qbeast.iceberg.RevisionJsonReader;
import io.qbeast.iceberg.SnapshotIndex;
import io.qbeast.index.BatchIndexer;
import io.qbeast.index.ColumnProfile;
import io.qbeast.index.CubeAssignment;
import io.qbeast.index.CubeId;
import io.qbeast.index.FileFacts;
import io.qbeast.index.FileLayout;
import io.qbeast.index.IndexState;
import io.qbeast.index.Revision;
import io.qbeast.index.RevisionPlanner;
import io.qbeast.index.RowOrder;
import io.qbeast.index.WeightGenerator;
import io.qbeast.trino.encoding.PointMapper;
import io.qbeast.trino.error.QbeastErrorCode;
import io.qbeast.trino.handle.QbeastColumnHandle;
import io.qbeast.trino.handle.QbeastWritableTableHandle;
import io.qbeast.trino.parquet.QbeastParquetFileWriter;
import io.qbeast.trino.parquet.WrittenFile;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.parquet.writer.ParquetWriterOptions;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.DictionaryBlock;
import io.trino.spi.block.IntArrayBlock;
import io.trino.spi.block.RunLengthEncodedBlock;
import io.trino.spi.connector.ConnectorPageSink;
import io.trino.spi.type.Type;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.apache.parquet.format.CompressionCodec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntUnaryOperator;
import java.util.function.Supplier;
import java.util.stream.IntStream;

import static io.qbeast.iceberg.QbeastTableProperties.CUBE_COLUMN;
import static io.qbeast.iceberg.QbeastTableProperties.WEIGHT_COLUMN;
import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_WRITER_ERROR;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.VarbinaryType.VARBINARY;
import static java.util.Objects.requireNonNull;

/**
 * The clustering writer: one tree per writer and statement, written in depth-first order.
 *
 * <p>Rows are buffered up to half the memory budget. A full buffer is indexed as one batch and
 * spilled to local disk as a sorted run:
 * <ol>
 *   <li>the revision is chosen: the table's current one, widened when the batch falls outside
 *       it ({@link RevisionPlanner}), or, for a table without one, proposed from the first batch;</li>
 *   <li>every row gets its point (through the revision's transformations) and a random weight,
 *       unless its input has one in the {@code _qbeast_weight} channel (an UPDATE's new row version
 *       keeps the weight of the row it replaces);</li>
 *   <li>the batch is assigned to cubes against the index state of the base snapshot plus the
 *       runs this sink already indexed ({@link BatchIndexer}), so later batches descend the tree
 *       the earlier ones built instead of building their own;</li>
 *   <li>its rows are ordered by (cube, weight) and written to a {@link SpilledRun}.</li>
 * </ol>
 * {@link #finish()} indexes the rest of the buffer the same way (kept in memory), merges all runs
 * ({@link RunMerger}) and writes the result as {@link FileLayout} plans it: row groups in cube
 * order, each a compact region (cube after cube in ascending weight, or in point order for the
 * rest of a large cube: {@link FileLayout}), files of the target size holding contiguous
 * depth-first ranges of cubes. Every row is written to a data file once; rows of spilled batches
 * are also written and read once locally.
 *
 * <p>Memory: the buffer and the arrays indexing it take half of the budget; the merge holds one
 * row group being built, one page per spilled run, and the file writer's open row group. The most
 * held at once is reported to {@link QbeastWriterStats}. Spill files are deleted when the sink
 * finishes or aborts.
 *
 * <p>Size (over 500 lines): the states of one writer (buffering, indexing, spilling, merging,
 * cutting files) and their memory accounting in one place; the parts that stand alone are in
 * this package ({@link RunMerger}, {@link SpilledRun}, ...) and in {@code parquet/}.
 */
public class QbeastPageSink
        implements ConnectorPageSink
{
    private static final Logger log = Logger.get(QbeastPageSink.class);
    // spilled runs merged at once (more are merged into one run first), as Trino's max-open-sort-files
    public static final int MAX_MERGE_RUNS = 16;
    private static final long MAX_SPILL_PAGE_BYTES = 1024 * 1024;
    private static final long MAX_ROW_GROUP_BYTES = 128L * 1024 * 1024;
    // Below this (in memory) a cube is packed with its siblings; a quarter of it is the least rows of
    // a point part. Measured on the SSB flat table at sf1 (6 indexed columns, cube 50K, one node):
    // at 4 MB the table had 1,802 row groups (median 3,000 rows, footers of 1.1-1.7 MB that every
    // split parses and converts: 766 of 1,680 qbeast samples in a JFR profile of the 13 queries),
    // bytes 0.64x and wall 1.12x of unclustered Iceberg; at 8 MB 650 row groups, bytes 0.45x,
    // wall 0.84x (sorted_by 0.91x); at 16 MB 209 row groups, bytes 0.57x, wall 0.78x (sorted_by
    // 0.88x), but one-month and one-week date ranges read 0.53x (8 MB: 0.44x, 4 MB: 0.36x).
    private static final long MIN_ROW_GROUP_BYTES = 8L * 1024 * 1024;
    // before any row group of a file is written: assume no compression (cuts files early, never late)
    private static final double INITIAL_COMPRESSION = 1.0;

    private final QbeastWritableTableHandle handle;
    private final TrinoFileSystem fileSystem;
    private final String queryId;
    private final Location dataLocation;
    private final Schema schema;
    private final List<Type> schemaTypes;
    private final List<Type> inputTypes;
    // per schema column: the input channel holding it, or -1 for the index columns (and columns not written)
    private final int[] inputChannels;
    private final int weightColumn;
    // the input channel of _qbeast_weight, or -1: a row with a weight there keeps it (an UPDATE's new row version)
    private final int weightInputChannel;
    private final int cubeColumn;
    private final PointMapper pointMapper;
    private final int[] orderChannels;
    private final List<Type> orderTypes;
    private final PointMapper orderPointMapper;
    private final RevisionPlanner planner;
    private final BatchIndexer indexer = new BatchIndexer();
    private final WeightGenerator weightGenerator;
    private final Supplier<SnapshotIndex> baseIndex;
    private final long bufferLimit;
    private final long perRowOverhead;
    private final long cubeSize;
    private final FileLayout layout;
    private final ParquetWriterOptions writerOptions;
    private final CompressionCodec compressionCodec;
    private final Path spillDirectory;
    private final long spillPageBytes;
    private final SpillPageSerde spillSerde;
    private final JsonCodec<CommitTaskData> commitTaskCodec;
    private final QbeastWriterStats stats;
    private final Optional<Revision> tableRevision;

    private Revision revision;
    private final Map<Long, Revision> revisions = new HashMap<>();
    private final Map<Long, IndexState> states = new HashMap<>();
    // rows of each cube in this sink's runs (not yet in any file)
    private final Map<CubeId, Long> unwrittenRows = new HashMap<>();
    private final List<Page> buffer = new ArrayList<>();
    private long bufferedRows;
    private long bufferedBytes;
    private final List<SpilledRun> spilledRuns = new ArrayList<>();
    private long indexedRows;
    private long indexedBytes;
    // bytes of the indexed rows' values (dataBytes), which size row groups
    private long indexedDataBytes;
    private long bufferedDataBytes;
    private long mergeBytes;
    private final List<CommitTaskData> writtenFiles = new ArrayList<>();
    private final List<Location> createdFiles = new ArrayList<>();
    private final String writerId = UUID.randomUUID().toString().replace("-", "");
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
            Path spillDirectory,
            SpillPageSerde spillSerde,
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
        this.bufferLimit = memoryBudget / 2;
        long maxRowGroup = Math.max(1, Math.min(MAX_ROW_GROUP_BYTES, memoryBudget / 8));
        long minRowGroup = Math.min(maxRowGroup, Math.min(MIN_ROW_GROUP_BYTES, targetFileSize));
        this.layout = new FileLayout(new FileLayout.Settings(targetFileSize, minRowGroup, maxRowGroup));
        this.spillDirectory = requireNonNull(spillDirectory, "spillDirectory is null");
        // a merge holds one page per run: all of them within an eighth of the budget
        this.spillPageBytes = Math.max(1, Math.min(MAX_SPILL_PAGE_BYTES, memoryBudget / (8L * MAX_MERGE_RUNS)));
        this.spillSerde = requireNonNull(spillSerde, "spillSerde is null");
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
        this.weightInputChannel = inputChannels[weight];
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
        // the leading indexed columns that order a row group (RowOrder), gathered into a page of their own
        int orderColumns = Math.min(RowOrder.ORDER_DIMENSIONS, indexedChannels.size());
        this.orderChannels = indexedChannels.subList(0, orderColumns).stream().mapToInt(Integer::intValue).toArray();
        this.orderTypes = ImmutableList.copyOf(indexedTypes.subList(0, orderColumns));
        this.orderPointMapper = new PointMapper(handle.indexedColumns().subList(0, orderColumns), IntStream.range(0, orderColumns).boxed().toList(), orderTypes);
        this.inputTypes = handle.inputColumns().stream().map(QbeastColumnHandle::type).collect(ImmutableList.toImmutableList());
        // coordinates, weight, cube of row, sort keys of the indexer, and the run's order arrays
        this.perRowOverhead = 8L * pointMapper.dimensions() + 60;

        this.tableRevision = handle.revisionJson().map(RevisionJsonReader::read);
        tableRevision.ifPresent(pointMapper::validate);
        this.revision = tableRevision.orElse(null);
    }

    @Override
    public CompletableFuture<?> appendPage(Page page)
    {
        if (page.getPositionCount() == 0) {
            return NOT_BLOCKED;
        }
        if (closed) {
            throw new IllegalStateException("Page sink is closed");
        }
        buffer.add(page);
        bufferedRows += page.getPositionCount();
        bufferedBytes += page.getRetainedSizeInBytes();
        bufferedDataBytes += dataBytes(page);
        recordMemory(0);
        if (bufferedBytes + bufferedRows * perRowOverhead >= bufferLimit || bufferedRows >= Integer.MAX_VALUE / Math.max(8, pointMapper.dimensions() * 2L)) {
            spill();
        }
        return NOT_BLOCKED;
    }

    @Override
    public long getMemoryUsage()
    {
        QbeastParquetFileWriter writer = openWriter;
        return bufferedBytes + bufferedRows * perRowOverhead + mergeBytes + (writer == null ? 0 : writer.getMemoryUsage());
    }

    @Override
    public long getCompletedBytes()
    {
        return completedBytes;
    }

    @Override
    public CompletableFuture<Collection<Slice>> finish()
    {
        if (closed) {
            throw new IllegalStateException("Page sink is closed");
        }
        List<SortedRun> runs = new ArrayList<>(spilledRuns);
        try {
            index().ifPresent(runs::add);
            // the buffered pages now belong to the last run, counted in the merge's memory
            clearBuffer();
            if (!runs.isEmpty()) {
                write(new RunMerger(runs));
            }
        }
        catch (RuntimeException | Error e) {
            abort();
            throw e;
        }
        finally {
            runs.forEach(SortedRun::close);
            spilledRuns.clear();
            clearBuffer();
            mergeBytes = 0;
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
        clearBuffer();
        for (SpilledRun run : spilledRuns) {
            try {
                run.close();
            }
            catch (RuntimeException e) {
                log.warn(e, "Failed to delete spill file %s of an aborted write to %s", run.path(), handle.schemaTableName());
            }
        }
        spilledRuns.clear();
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

    // a full buffer: indexed, sorted and written to local disk
    private void spill()
    {
        Optional<BufferedRun> run = index();
        if (run.isEmpty()) {
            return;
        }
        clearBuffer();
        spilledRuns.add(spill(run.get()));
        if (spilledRuns.size() >= MAX_MERGE_RUNS) {
            // too many runs to merge within the budget: merge the smaller half into one (rows stay in
            // cube, weight order). Merging the smallest keeps the times a row is rewritten
            // logarithmic in the runs; merging all would rewrite every earlier merge again each time.
            spilledRuns.sort(Comparator.comparingLong(SpilledRun::fileBytes));
            List<SpilledRun> smallest = spilledRuns.subList(0, MAX_MERGE_RUNS / 2);
            List<SortedRun> runs = List.copyOf(smallest);
            smallest.clear();
            try {
                spilledRuns.add(spill(new MergedRun(new RunMerger(runs), spillPageRows())));
            }
            finally {
                runs.forEach(SortedRun::close);
            }
        }
        recordMemory(0);
    }

    private SpilledRun spill(SortedRun run)
    {
        try {
            SpilledRun spilled = SpilledRun.spill(run, inputTypes, spillDirectory, "qbeast-" + queryId + "-", spillSerde, spillPageRows());
            stats.recordSpill(spilled.fileBytes());
            return spilled;
        }
        catch (UncheckedIOException e) {
            throw new TrinoException(QBEAST_WRITER_ERROR, "Failed to spill rows of %s to %s: %s".formatted(handle.schemaTableName(), spillDirectory, e.getMessage()), e);
        }
    }

    private int spillPageRows()
    {
        return (int) Math.clamp(spillPageBytes / Math.max(1, indexedBytes / Math.max(1, indexedRows)), 16, 8192);
    }

    /**
     * Indexes the buffered rows as one batch; the state of its revision then includes them, so
     * the next batch descends the same tree. The buffer's pages move into the returned run.
     */
    private Optional<BufferedRun> index()
    {
        if (bufferedRows == 0) {
            return Optional.empty();
        }
        int rows = Math.toIntExact(bufferedRows);
        stats.recordFlush(bufferedBytes);

        Revision batchRevision = chooseRevision();
        revisions.put(batchRevision.id(), batchRevision);
        int dimensions = batchRevision.dimensions();
        double[] coordinates = new double[rows * dimensions];
        int firstRow = 0;
        for (Page page : buffer) {
            pointMapper.coordinates(batchRevision, page, coordinates, firstRow);
            firstRow += page.getPositionCount();
        }
        int[] weights = new int[rows];
        weightGenerator.fill(weights, 0, rows);
        if (weightInputChannel >= 0) {
            keepGivenWeights(weights);
        }

        IndexState state = states.computeIfAbsent(batchRevision.id(), _ -> baseIndex.get().state(batchRevision));
        CubeAssignment assignment = indexer.assign(state, coordinates, weights, rows, cube -> unwrittenRows.getOrDefault(cube, 0L));
        List<FileFacts> blocks = new ArrayList<>(assignment.cubeCount());
        for (int cube = 0; cube < assignment.cubeCount(); cube++) {
            CubeId id = assignment.cubes().get(cube);
            blocks.add(FileFacts.of(id, id, assignment.minWeight(cube), assignment.maxWeight(cube), assignment.rows(cube)));
            unwrittenRows.merge(id, assignment.rows(cube), Long::sum);
        }
        states.put(batchRevision.id(), state.plus(blocks));
        indexedRows += rows;
        indexedBytes += bufferedBytes;
        indexedDataBytes += bufferedDataBytes;
        recordMemory(0);
        return Optional.of(new BufferedRun(buffer, assignment, weights));
    }

    // rows whose input has a weight keep it: an updated row stays in the samples it was in
    private void keepGivenWeights(int[] weights)
    {
        int row = 0;
        for (Page page : buffer) {
            Block given = page.getBlock(weightInputChannel);
            for (int position = 0; position < page.getPositionCount(); position++, row++) {
                if (!given.isNull(position)) {
                    weights[row] = INTEGER.getInt(given, position);
                }
            }
        }
    }

    private void clearBuffer()
    {
        buffer.clear();
        bufferedRows = 0;
        bufferedBytes = 0;
        bufferedDataBytes = 0;
    }

    /**
     * The bytes {@code page}'s rows take once copied into the sink's output pages: run-length and
     * dictionary blocks count each row's value (a row group is sized by these bytes, and an output
     * page copies every value; a constant column counted by its retained size made row groups 5x
     * their planned memory).
     */
    private static long dataBytes(Page page)
    {
        long bytes = 0;
        for (int channel = 0; channel < page.getChannelCount(); channel++) {
            Block block = page.getBlock(channel);
            bytes += switch (block) {
                case RunLengthEncodedBlock rle -> rle.getValue().getSizeInBytes() * rle.getPositionCount();
                case DictionaryBlock dictionary -> dictionary.getDictionary().getSizeInBytes() * dictionary.getPositionCount() / Math.max(1, dictionary.getDictionary().getPositionCount());
                default -> block.getSizeInBytes();
            };
        }
        return bytes;
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

    /**
     * Writes the merged runs as the layout plans them: slices in cube order, each one row group in
     * ascending weight or, cut into point parts, several row groups in point order; files cut by size
     * before a row group.
     */
    private void write(RunMerger merger)
    {
        List<CubeId> cubes = merger.cubes();
        byte[][] cubeBytes = new byte[cubes.size()][];
        for (int cube = 0; cube < cubes.size(); cube++) {
            cubeBytes[cube] = cubes.get(cube).toBytes();
        }
        // A row's bytes, by the larger of two estimates, so that neither makes a row group larger
        // than planned: its values in the output pages (input values, weight, cube bytes and
        // offset), which run-length and dictionary input needs (a constant column counted by its
        // retained size made row groups 5x their planned memory), and the input's retained bytes,
        // which count a shared dictionary once per page. On SSB sf1 at a 4 MB minimum the 13
        // queries read 0.51x (retained), 0.61x (values) and 0.64x (the larger) of unclustered
        // Iceberg: differences as large as between two CTAS of one build (each CTAS makes its own
        // revisions), so the choice rests on the memory bound, not on these bytes.
        double cubeColumnBytes = 0;
        long[] rowsPerCube = merger.rowsPerCube();
        for (int cube = 0; cube < cubes.size(); cube++) {
            cubeColumnBytes += (double) rowsPerCube[cube] * (cubeBytes[cube].length + Integer.BYTES);
        }
        double valueBytesPerRow = (indexedDataBytes + cubeColumnBytes) / Math.max(1, indexedRows) + Integer.BYTES;
        double retainedBytesPerRow = (double) indexedBytes / Math.max(1, indexedRows);
        double bytesPerRow = Math.max(1.0, Math.max(valueBytesPerRow, retainedBytesPerRow));
        List<FileLayout.Slice> plan = layout.slices(cubes, rowsPerCube, bytesPerRow);
        RowRefs refs = new RowRefs();
        OpenFile file = null;
        for (FileLayout.Slice slice : plan) {
            merger.fill(slice, refs);
            long revisionId = cubes.get(slice.firstCube()).revisionId();
            if (slice.pointParts() > 1) {
                orderByPoint(refs, merger, revisions.get(revisionId), _ -> 0);
            }
            else if (slice.holdsWholeCubes(rowsPerCube)) {
                orderByPoint(refs, merger, revisions.get(revisionId), FileLayout::weightOrderedRows);
            }
            Page page = outputPage(slice, refs, cubeBytes);
            mergeBytes = merger.retainedBytes() + page.getRetainedSizeInBytes();
            // files are cut before a slice, not between its point parts: the parts of a cube stay in one file
            if (file != null && layout.cutsBefore(file.writer.getWrittenBytes(), (long) (page.getSizeInBytes() * file.compression()), file.revisionId == revisionId)) {
                commit(file, cubes);
                file = null;
            }
            if (file == null) {
                file = open(revisionId);
            }
            for (int part = 0; part < slice.pointParts(); part++) {
                int start = Math.toIntExact(slice.partStart(part));
                Page rowGroup = slice.pointParts() == 1 ? page : page.getRegion(start, Math.toIntExact(slice.partStart(part + 1)) - start);
                file.append(rowGroup, slice);
                recordMemory(mergeBytes + file.writer.getMemoryUsage());
                file.writer.finishRowGroup();
            }
        }
        if (file != null) {
            commit(file, cubes);
        }
    }

    /**
     * Puts a slice's rows in the order {@link RowOrder} gives: by cube, then by point after each
     * cube's first {@code headRows} (which keep their weight order). The leading
     * indexed columns are gathered once more for their coordinates (a revision's first dimensions
     * are these columns, so the mapper of the first ones reads them).
     */
    private void orderByPoint(RowRefs refs, RunMerger merger, Revision revision, IntUnaryOperator headRows)
    {
        int rows = refs.size();
        if (rows < 2) {
            return;
        }
        Block[] leading = new Block[orderChannels.length];
        long orderBytes = (8L * leading.length + Long.BYTES + 2 * Integer.BYTES) * rows;
        for (int dimension = 0; dimension < leading.length; dimension++) {
            leading[dimension] = refs.gather(orderChannels[dimension], orderTypes.get(dimension));
            orderBytes += leading[dimension].getRetainedSizeInBytes();
        }
        recordMemory(merger.retainedBytes() + orderBytes);
        double[] coordinates = new double[rows * leading.length];
        orderPointMapper.coordinates(revision, new Page(rows, leading), coordinates, 0);
        refs.reorder(RowOrder.order(refs.cubes(), coordinates, leading.length, rows, headRows));
    }

    private Page outputPage(FileLayout.Slice group, RowRefs refs, byte[][] cubeBytes)
    {
        int count = refs.size();
        Block[] blocks = new Block[schemaTypes.size()];
        for (int column = 0; column < blocks.length; column++) {
            Type type = schemaTypes.get(column);
            if (column == weightColumn) {
                blocks[column] = new IntArrayBlock(count, Optional.empty(), refs.weights());
            }
            else if (column == cubeColumn) {
                if (group.isSingleCube()) {
                    BlockBuilder single = VARBINARY.createBlockBuilder(null, 1);
                    VARBINARY.writeSlice(single, Slices.wrappedBuffer(cubeBytes[group.firstCube()]));
                    blocks[column] = RunLengthEncodedBlock.create(single.build(), count);
                }
                else {
                    BlockBuilder builder = VARBINARY.createBlockBuilder(null, count);
                    for (int i = 0; i < count; i++) {
                        VARBINARY.writeSlice(builder, Slices.wrappedBuffer(cubeBytes[refs.cube(i)]));
                    }
                    blocks[column] = builder.build();
                }
            }
            else if (inputChannels[column] < 0) {
                blocks[column] = RunLengthEncodedBlock.create(type.createBlockBuilder(null, 1).appendNull().build(), count);
            }
            else {
                blocks[column] = refs.gather(inputChannels[column], type);
            }
        }
        return new Page(count, blocks);
    }

    private OpenFile open(long revisionId)
    {
        // <query>-<writer>-<n>.parquet: the files of one writer show in a listing
        Location location = dataLocation.appendPath("%s-%s-%d.parquet".formatted(queryId, writerId, createdFiles.size()));
        createdFiles.add(location);
        // marked weight-ordered when its rows end up in ascending weight (a file of one small cube, or of
        // weight slices whose weights ascend): a sample then stops reading it at its bound
        QbeastParquetFileWriter writer = new QbeastParquetFileWriter(fileSystem, location, schema, schemaTypes, writerOptions, compressionCodec, handle.storageProperties(), true);
        openWriter = writer;
        return new OpenFile(writer, revisionId);
    }

    private void commit(OpenFile file, List<CubeId> cubes)
    {
        WrittenFile written = file.writer.commit();
        openWriter = null;
        Optional<String> newRevisionJson = tableRevision.isPresent() && tableRevision.get().id() == file.revisionId
                ? Optional.empty()
                : Optional.of(revisions.get(file.revisionId).toJson());
        writtenFiles.add(new CommitTaskData(written, newRevisionJson, file.cubes.cardinality()));
        completedBytes += written.fileSizeInBytes();
        stats.recordFile(written.recordCount());
        log.debug("Table %s: wrote %s with %s rows of cubes %s..%s in %s row groups (weight-ordered: %s)", handle.schemaTableName(), written.path(), written.recordCount(),
                cubes.get(file.cubes.nextSetBit(0)), cubes.get(file.cubes.length() - 1), file.writer.rowGroupCount(), file.writer.isWeightOrdered());
    }

    private void recordMemory(long extraBytes)
    {
        stats.recordSinkMemory(bufferedBytes + bufferedRows * perRowOverhead + extraBytes);
    }

    /** The data file being written, and what its rows have been so far. */
    private static final class OpenFile
    {
        final QbeastParquetFileWriter writer;
        final long revisionId;
        final BitSet cubes = new BitSet();
        long pageBytes;

        OpenFile(QbeastParquetFileWriter writer, long revisionId)
        {
            this.writer = writer;
            this.revisionId = revisionId;
        }

        void append(Page page, FileLayout.Slice slice)
        {
            writer.appendPage(page);
            pageBytes += page.getSizeInBytes();
            cubes.set(slice.firstCube(), slice.lastCube() + 1);
        }

        // bytes on storage per byte of page so far
        double compression()
        {
            long written = writer.getWrittenBytes();
            return pageBytes == 0 || written <= 0 ? INITIAL_COMPRESSION : Math.min(1.0, (double) written / pageBytes);
        }
    }
}

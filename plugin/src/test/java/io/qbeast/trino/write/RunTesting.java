package io.qbeast.trino.write;

import io.airlift.slice.Slice;
import io.airlift.slice.Slices;
import io.qbeast.index.BatchIndexer;
import io.qbeast.index.CubeAssignment;
import io.qbeast.index.CubeId;
import io.qbeast.index.FileFacts;
import io.qbeast.index.FileLayout;
import io.qbeast.index.IndexState;
import io.trino.spi.Page;
import io.trino.spi.block.ArrayBlockBuilder;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.DictionaryBlock;
import io.trino.spi.block.LongArrayBlock;
import io.trino.spi.block.RunLengthEncodedBlock;
import io.trino.spi.type.ArrayType;
import io.trino.spi.type.Type;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static io.trino.type.InternalTypeManager.TESTING_TYPE_MANAGER;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sorted runs built as the page sink builds them: random batches indexed one after another
 * against a state holding the blocks of the earlier batches, with the source of every row kept
 * to check what the merge gives back.
 */
final class RunTesting
{
    static final SpillPageSerde SERDE = new SpillPageSerde(TESTING_TYPE_MANAGER);
    static final ArrayType ARRAY_BIGINT = new ArrayType(BIGINT);
    /** Input channels: id, payload, and [id, weight] (null for ids divisible by 7). */
    static final List<Type> TYPES = List.of(BIGINT, VARCHAR, ARRAY_BIGINT);
    static final int DIMENSIONS = 2;
    static final long REVISION = 1;

    private RunTesting() {}

    /** Where a row came from: batch, row number in it, its weight and the cube the indexer chose. */
    record SourceRow(long id, Slice payload, int weight, CubeId cube, int run, int row)
    {
        /** The merge's order inside one cube: by weight, then by run, then by row of the run. */
        static final Comparator<SourceRow> MERGE_ORDER = Comparator.comparingInt(SourceRow::weight)
                .thenComparingInt(SourceRow::run)
                .thenComparingInt(SourceRow::row);
    }

    record Batch(BufferedRun run, List<SourceRow> rows) {}

    /** A sink's batches and the source of all their rows by id. */
    static final class Source
    {
        final List<Batch> batches = new ArrayList<>();
        final Map<Long, SourceRow> byId = new HashMap<>();
        final Random random;
        final long cubeSize;
        IndexState state;
        long nextId;

        Source(long seed, long cubeSize)
        {
            this.random = new Random(seed);
            this.cubeSize = cubeSize;
            this.state = IndexState.empty(REVISION, DIMENSIONS, cubeSize);
        }

        /** Indexes one more batch of {@code rows} rows, as QbeastPageSink.index() does. */
        Batch addBatch(int rows)
        {
            int run = batches.size();
            double[] coordinates = new double[rows * DIMENSIONS];
            int[] weights = new int[rows];
            double clusterX = random.nextDouble() * 0.8 + 0.1;
            double clusterY = random.nextDouble() * 0.8 + 0.1;
            for (int row = 0; row < rows; row++) {
                double x;
                double y;
                int kind = random.nextInt(10);
                if (kind < 6) {
                    x = random.nextDouble();
                    y = random.nextDouble();
                }
                else if (kind < 9) {
                    // a dense region: deep cubes next to shallow ones
                    x = clamp(clusterX + random.nextGaussian() * 0.01);
                    y = clamp(clusterY + random.nextGaussian() * 0.01);
                }
                else {
                    // duplicates of one point
                    x = 0.25;
                    y = 0.75;
                }
                coordinates[row * DIMENSIONS] = x;
                coordinates[row * DIMENSIONS + 1] = y;
                // odd batches draw weights from a small range: many ties
                weights[row] = run % 2 == 0 ? random.nextInt() : random.nextInt(-300, 300);
            }

            CubeAssignment assignment = new BatchIndexer().assign(state, coordinates, weights, rows);
            List<FileFacts> blocks = new ArrayList<>();
            for (int cube = 0; cube < assignment.cubeCount(); cube++) {
                CubeId id = assignment.cubes().get(cube);
                blocks.add(FileFacts.of(id, id, assignment.minWeight(cube), assignment.maxWeight(cube), assignment.rows(cube)));
            }
            state = state.plus(blocks);

            long firstId = nextId;
            nextId += rows;
            List<SourceRow> sourceRows = new ArrayList<>(rows);
            List<Page> pages = new ArrayList<>();
            int start = 0;
            while (start < rows) {
                int count = Math.min(rows - start, 1 + random.nextInt(250));
                Slice[] payloads = new Slice[count];
                pages.add(page(firstId + start, count, payloads));
                for (int i = 0; i < count; i++) {
                    int row = start + i;
                    SourceRow source = new SourceRow(firstId + row, payloads[i], weights[row], assignment.cubes().get(assignment.cubeOfRow()[row]), run, row);
                    sourceRows.add(source);
                    byId.put(source.id(), source);
                }
                start += count;
            }
            Batch batch = new Batch(new BufferedRun(pages, assignment, weights), List.copyOf(sourceRows));
            batches.add(batch);
            return batch;
        }

        // a page of ids firstId.., in one of the shapes a sink meets; fills payloads with what it holds
        private Page page(long firstId, int count, Slice[] payloads)
        {
            int kind = random.nextInt(4);
            int prefix = kind == 1 ? random.nextInt(1, 20) : 0;
            int suffix = kind == 1 ? random.nextInt(0, 20) : 0;
            int total = prefix + count + suffix;
            long[] ids = new long[total];
            for (int i = 0; i < total; i++) {
                // rows around a region hold ids no row has
                ids[i] = i < prefix || i >= prefix + count ? -1 - i : firstId + i - prefix;
            }
            Block idBlock = new LongArrayBlock(total, Optional.empty(), ids);
            BlockBuilder arrays = ARRAY_BIGINT.createBlockBuilder(null, total);
            for (int i = 0; i < total; i++) {
                long id = ids[i];
                if (id >= 0 && id % 7 == 0) {
                    arrays.appendNull();
                }
                else {
                    ((ArrayBlockBuilder) arrays).buildEntry(elements -> {
                        BIGINT.writeLong(elements, id);
                        BIGINT.writeLong(elements, id < 0 ? 0 : -1);
                    });
                }
            }
            Block arrayBlock = arrays.build();

            Block payloadBlock;
            switch (kind) {
                case 2 -> {
                    // a dictionary of a few payloads, one of them null
                    int entries = random.nextInt(1, 8);
                    Slice[] dictionary = new Slice[entries];
                    BlockBuilder builder = VARCHAR.createBlockBuilder(null, entries);
                    for (int entry = 0; entry < entries; entry++) {
                        dictionary[entry] = entry == 0 ? null : Slices.utf8Slice("dict-" + random.nextInt(1000) + "-" + entry);
                        write(builder, dictionary[entry]);
                    }
                    int[] dictionaryIds = new int[count];
                    for (int i = 0; i < count; i++) {
                        dictionaryIds[i] = random.nextInt(entries);
                        payloads[i] = dictionary[dictionaryIds[i]];
                    }
                    payloadBlock = DictionaryBlock.create(count, builder.build(), dictionaryIds);
                }
                case 3 -> {
                    Slice value = random.nextInt(3) == 0 ? null : Slices.utf8Slice("rle-" + random.nextInt(1000));
                    Arrays.fill(payloads, value);
                    payloadBlock = RunLengthEncodedBlock.create(VARCHAR, value, count);
                }
                default -> {
                    BlockBuilder builder = VARCHAR.createBlockBuilder(null, total);
                    for (int i = 0; i < total; i++) {
                        Slice value = random.nextInt(10) == 0 ? null : Slices.utf8Slice("payload-" + ids[i] + "-" + "x".repeat(random.nextInt(30)));
                        if (i >= prefix && i < prefix + count) {
                            payloads[i - prefix] = value;
                        }
                        write(builder, value);
                    }
                    payloadBlock = builder.build();
                }
            }
            if (kind == 1) {
                idBlock = idBlock.getRegion(prefix, count);
                payloadBlock = payloadBlock.getRegion(prefix, count);
                arrayBlock = arrayBlock.getRegion(prefix, count);
            }
            if (kind == 2 || kind == 3) {
                // those blocks only cover the page
                idBlock = idBlock.getRegion(0, count);
                arrayBlock = arrayBlock.getRegion(0, count);
            }
            return new Page(count, idBlock, payloadBlock, arrayBlock);
        }

        List<SourceRow> allRows()
        {
            return batches.stream().flatMap(batch -> batch.rows().stream()).toList();
        }
    }

    static double clamp(double value)
    {
        return Math.min(Math.max(value, 0), Math.nextDown(1.0));
    }

    static void write(BlockBuilder builder, Slice value)
    {
        if (value == null) {
            builder.appendNull();
        }
        else {
            VARCHAR.writeSlice(builder, value);
        }
    }

    static SpilledRun spill(SortedRun run, Path directory, int pageRows)
    {
        return SpilledRun.spill(run, TYPES, directory, "test-", SERDE, pageRows);
    }

    /** Asserts the input channels of row {@code position} of {@code page} are those of {@code source}. */
    static void assertChannels(Page page, int position, SourceRow source)
    {
        assertThat(BIGINT.getLong(page.getBlock(0), position)).isEqualTo(source.id());
        assertPayload(page.getBlock(1), position, source);
        assertArray(page.getBlock(2), position, source);
    }

    static void assertPayload(Block block, int position, SourceRow source)
    {
        if (source.payload() == null) {
            assertThat(block.isNull(position)).as("payload of row %s is null", source.id()).isTrue();
        }
        else {
            assertThat(block.isNull(position)).as("payload of row %s is not null", source.id()).isFalse();
            assertThat(VARCHAR.getSlice(block, position)).as("payload of row %s", source.id()).isEqualTo(source.payload());
        }
    }

    static void assertArray(Block block, int position, SourceRow source)
    {
        Object expected = source.id() % 7 == 0 ? null : List.of(source.id(), -1L);
        assertThat(ARRAY_BIGINT.getObjectValue(block, position)).as("array of row %s", source.id()).isEqualTo(expected);
    }

    /** Row groups over the merger's cubes: bytes per row 10, so these are row counts times 10. */
    static List<FileLayout.Slice> plan(RunMerger merger, long minRows, long maxRows)
    {
        FileLayout layout = new FileLayout(new FileLayout.Settings(1 << 30, minRows * 10, maxRows * 10));
        return layout.slices(merger.cubes(), merger.rowsPerCube(), 10.0);
    }
}

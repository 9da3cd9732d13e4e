package io.qbeast.trino.write;

import io.qbeast.index.CubeId;
import io.qbeast.index.FileLayout;
import io.qbeast.trino.write.RunTesting.Batch;
import io.qbeast.trino.write.RunTesting.Source;
import io.qbeast.trino.write.RunTesting.SourceRow;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static io.qbeast.trino.write.RunTesting.ARRAY_BIGINT;
import static io.qbeast.trino.write.RunTesting.TYPES;
import static io.qbeast.trino.write.RunTesting.assertArray;
import static io.qbeast.trino.write.RunTesting.assertChannels;
import static io.qbeast.trino.write.RunTesting.assertPayload;
import static io.qbeast.trino.write.RunTesting.plan;
import static io.qbeast.trino.write.RunTesting.spill;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestRunMerger
{
    private static final long CUBE_SIZE = 200;
    // cubes under 24 rows are packed; a full cube (200 rows) is cut at 1/16 and 1/4, then in pieces of 64
    private static final long MIN_ROWS = 24;
    private static final long MAX_ROWS = 64;

    @TempDir
    Path directory;

    /**
     * The sink's runs (some spilled to disk, the others buffered) merged into planned row groups.
     *
     * <p>FAILS on the current main code for every case with a packed row group holding weights of
     * both signs ("weights of RowGroup[...] ... is not sorted"): RowRefs.sortByWeight orders
     * weights >= 0 before negative ones (see TestRowRefs.testSortByWeightOverTheWholeIntRange).
     * With that one line fixed, all cases pass.
     *
     * @param spillMask bit i set: run i is spilled
     */
    @ParameterizedTest
    @CsvSource({
            "1, 11, 0",
            "1, 12, 1",
            "2, 13, 2",
            "3, 14, 5",
            "4, 15, 10",
            "4, 16, 5",
            "4, 18, 15",
    })
    void testFillRowGroups(int runCount, long seed, int spillMask)
    {
        Source source = new Source(seed, CUBE_SIZE);
        List<SortedRun> runs = new ArrayList<>();
        for (int run = 0; run < runCount; run++) {
            Batch batch = source.addBatch(300 + source.random.nextInt(1200));
            boolean spilled = (spillMask >> run & 1) == 1;
            // spilled pages of 1 row, of a prime count, and larger than most cubes
            runs.add(spilled ? spill(batch.run(), directory, List.of(1, 13, 97, 500).get(run)) : batch.run());
        }
        assertThat(spillFiles()).hasSize(Integer.bitCount(spillMask));

        RunMerger merger = new RunMerger(runs);
        assertCubes(merger, source.allRows());
        List<FileLayout.Slice> plan = plan(merger, MIN_ROWS, MAX_ROWS);
        if (runCount >= 2) {
            // the plan exercises packs, weight cuts and pieces
            assertThat(plan).anyMatch(group -> !group.isSingleCube());
            assertThat(plan.stream().filter(FileLayout.Slice::isSingleCube).map(FileLayout.Slice::firstCube).distinct())
                    .anyMatch(cube -> plan.stream().filter(group -> group.isSingleCube() && group.firstCube() == cube).count() >= 4);
        }
        assertRowGroups(merger, plan, source.allRows());

        runs.forEach(SortedRun::close);
        assertThat(spillFiles()).isEmpty();
    }

    @Test
    void testBufferedRunOrder()
    {
        Source source = new Source(21, CUBE_SIZE);
        Batch batch = source.addBatch(2000);
        BufferedRun run = batch.run();
        assertThat(run.rowCount()).isEqualTo(2000);
        List<SourceRow> expected = batch.rows().stream()
                .sorted(Comparator.comparing(SourceRow::cube).thenComparing(SourceRow.MERGE_ORDER))
                .toList();
        SortedRun.Cursor cursor = run.cursor();
        for (SourceRow row : expected) {
            assertThat(cursor.advance()).isTrue();
            assertThat(run.cubes().get(cursor.cube())).isEqualTo(row.cube());
            assertThat(cursor.weight()).isEqualTo(row.weight());
            assertChannels(cursor.page(), cursor.position(), row);
        }
        assertThat(cursor.advance()).isFalse();
        long total = 0;
        for (int cube = 0; cube < run.cubes().size(); cube++) {
            CubeId id = run.cubes().get(cube);
            assertThat(run.rows(cube)).isEqualTo(expected.stream().filter(row -> row.cube().equals(id)).count());
            total += run.rows(cube);
        }
        assertThat(total).isEqualTo(2000);
    }

    @Test
    void testSpilledRunKeepsRowsAndOrder()
    {
        Source source = new Source(22, CUBE_SIZE);
        source.addBatch(1000);
        Batch batch = source.addBatch(1500);
        List<SourceRow> expected = batch.rows().stream()
                .sorted(Comparator.comparing(SourceRow::cube).thenComparing(SourceRow.MERGE_ORDER))
                .toList();
        try (SpilledRun run = spill(batch.run(), directory, 29)) {
            assertThat(run.cubes()).isEqualTo(batch.run().cubes());
            assertThat(run.rowCount()).isEqualTo(1500);
            for (int cube = 0; cube < run.cubes().size(); cube++) {
                assertThat(run.rows(cube)).isEqualTo(batch.run().rows(cube));
            }
            assertThat(run.fileBytes()).isEqualTo(fileSize(run.path()));
            SortedRun.Cursor cursor = run.cursor();
            Set<Page> pages = new HashSet<>();
            for (SourceRow row : expected) {
                assertThat(cursor.advance()).isTrue();
                assertThat(run.cubes().get(cursor.cube())).isEqualTo(row.cube());
                assertThat(cursor.weight()).isEqualTo(row.weight());
                Page page = cursor.page();
                // input channels and the weight channel
                assertThat(page.getChannelCount()).isEqualTo(TYPES.size() + 1);
                assertThat(page.getPositionCount()).isBetween(1, 29);
                assertChannels(page, cursor.position(), row);
                pages.add(page);
            }
            assertThat(cursor.advance()).isFalse();
            // a page per 29 rows of a cube at most
            assertThat(pages).hasSizeGreaterThanOrEqualTo(Math.max(run.cubes().size(), 1500 / 29));
            assertThatThrownBy(run::cursor).isInstanceOf(IllegalStateException.class);
        }
    }

    /** Too many spilled runs merged into one, as the sink does: rows stay in (cube, weight) order. */
    @Test
    void testMergedRunRespilled()
    {
        Source source = new Source(31, CUBE_SIZE);
        List<SortedRun> runs = new ArrayList<>();
        for (int run = 0; run < 4; run++) {
            runs.add(spill(source.addBatch(400 + source.random.nextInt(800)).run(), directory, 50));
        }
        List<SourceRow> merged = source.allRows();
        SpilledRun respilled;
        try {
            MergedRun mergedRun = new MergedRun(new RunMerger(runs), 7);
            assertThat(mergedRun.rowCount()).isEqualTo(merged.size());
            respilled = spill(mergedRun, directory, 11);
            assertThatThrownBy(mergedRun::cursor).isInstanceOf(IllegalStateException.class);
        }
        finally {
            runs.forEach(SortedRun::close);
        }
        // only the merged run's file is left
        assertThat(spillFiles()).containsExactly(respilled.path());

        assertCubes(respilled, merged);
        List<SourceRow> expected = merged.stream()
                .sorted(Comparator.comparing(SourceRow::cube).thenComparing(SourceRow.MERGE_ORDER))
                .toList();
        // (cube, weight, id) of the merged run, in its order
        SortedRun.Cursor cursor = respilled.cursor();
        List<String> actual = new ArrayList<>();
        CubeId previousCube = null;
        int previousWeight = Integer.MIN_VALUE;
        while (cursor.advance()) {
            CubeId cube = respilled.cubes().get(cursor.cube());
            long id = BIGINT.getLong(cursor.page().getBlock(0), cursor.position());
            SourceRow row = source.byId.get(id);
            assertThat(row).isNotNull();
            if (cube.equals(previousCube)) {
                assertThat(cursor.weight()).as("weight order in cube %s", cube).isGreaterThanOrEqualTo(previousWeight);
            }
            else if (previousCube != null) {
                assertThat(cube).as("cube order").isGreaterThan(previousCube);
            }
            previousCube = cube;
            previousWeight = cursor.weight();
            assertChannels(cursor.page(), cursor.position(), row);
            actual.add(key(cube, cursor.weight(), id));
        }
        assertThat(actual).containsExactlyElementsOf(expected.stream().map(row -> key(row.cube(), row.weight(), row.id())).toList());
        respilled.close();
        assertThat(spillFiles()).isEmpty();
    }

    /** The merged run then merged with the runs spilled after it, into row groups. */
    @Test
    void testMergedRunMergedAgain()
    {
        Source source = new Source(32, CUBE_SIZE);
        List<SortedRun> first = new ArrayList<>();
        for (int run = 0; run < 3; run++) {
            first.add(spill(source.addBatch(300 + source.random.nextInt(500)).run(), directory, 40));
        }
        List<SortedRun> runs = new ArrayList<>();
        try {
            runs.add(spill(new MergedRun(new RunMerger(first), 5), directory, 64));
        }
        finally {
            first.forEach(SortedRun::close);
        }
        runs.add(spill(source.addBatch(700).run(), directory, 64));
        runs.add(source.addBatch(600).run());
        try {
            RunMerger merger = new RunMerger(runs);
            assertCubes(merger, source.allRows());
            assertRowGroups(merger, plan(merger, MIN_ROWS, MAX_ROWS), source.allRows());
        }
        finally {
            runs.forEach(SortedRun::close);
        }
        assertThat(spillFiles()).isEmpty();
    }

    /**
     * Row groups of single rows and row groups of everything. The last case (one pack of all
     * cubes) FAILS on the current main code: the RowRefs.sortByWeight bug, see TestRowRefs.
     */
    @ParameterizedTest
    @CsvSource({"1, 1", "1, 3", "2, 1000000", "1000000, 1000000"})
    void testExtremeRowGroupSizes(long minRows, long maxRows)
    {
        Source source = new Source(41, CUBE_SIZE);
        List<SortedRun> runs = new ArrayList<>();
        for (int run = 0; run < 3; run++) {
            BufferedRun buffered = source.addBatch(200 + source.random.nextInt(400)).run();
            runs.add(run == 1 ? buffered : spill(buffered, directory, 17));
        }
        try {
            RunMerger merger = new RunMerger(runs);
            List<FileLayout.Slice> plan = plan(merger, minRows, maxRows);
            if (maxRows == 1) {
                assertThat(plan).hasSize(source.allRows().size());
            }
            if (minRows == 1_000_000) {
                assertThat(plan).anyMatch(group -> !group.isSingleCube());
            }
            assertRowGroups(merger, plan, source.allRows());
        }
        finally {
            runs.forEach(SortedRun::close);
        }
        assertThat(spillFiles()).isEmpty();
    }

    @Test
    void testRowGroupsOutOfOrder()
    {
        Source source = new Source(42, CUBE_SIZE);
        source.addBatch(800);
        RunMerger merger = new RunMerger(List.of(source.batches.getFirst().run()));
        List<FileLayout.Slice> plan = plan(merger, MIN_ROWS, MAX_ROWS);
        assertThat(plan.size()).isGreaterThanOrEqualTo(3);
        RowRefs refs = new RowRefs();
        merger.fill(plan.get(0), refs);
        merger.fill(plan.get(1), refs);
        merger.fill(plan.get(2), refs);
        FileLayout.Slice back = plan.get(0);
        if (plan.get(2).firstCube() > back.firstCube()) {
            assertThatThrownBy(() -> merger.fill(back, refs)).isInstanceOf(IllegalArgumentException.class);
        }
        // a row group planned larger than what the runs hold (a buffered run can be read again)
        RunMerger again = new RunMerger(List.of(source.batches.getFirst().run()));
        for (FileLayout.Slice group : plan.subList(0, plan.size() - 1)) {
            again.fill(group, refs);
        }
        FileLayout.Slice last = plan.getLast();
        FileLayout.Slice tooLarge = new FileLayout.Slice(last.firstCube(), last.lastCube(), last.firstRow(), last.rows() + 1);
        assertThatThrownBy(() -> again.fill(tooLarge, refs))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("planned %s rows, the runs hold %s".formatted(last.rows() + 1, last.rows()));
    }

    /** The merger's cubes: all cubes of the rows, in order, with their row counts. */
    private static void assertCubes(RunMerger merger, List<SourceRow> rows)
    {
        Map<CubeId, Long> counts = counts(rows);
        assertThat(merger.cubes()).isSorted().containsExactlyElementsOf(counts.keySet().stream().sorted().toList());
        long[] rowsPerCube = merger.rowsPerCube();
        for (int cube = 0; cube < rowsPerCube.length; cube++) {
            assertThat(rowsPerCube[cube]).as("rows of %s", merger.cubes().get(cube)).isEqualTo(counts.get(merger.cubes().get(cube)));
        }
    }

    private static void assertCubes(SortedRun run, List<SourceRow> rows)
    {
        Map<CubeId, Long> counts = counts(rows);
        assertThat(run.cubes()).containsExactlyElementsOf(counts.keySet().stream().sorted().toList());
        for (int cube = 0; cube < run.cubes().size(); cube++) {
            assertThat(run.rows(cube)).isEqualTo(counts.get(run.cubes().get(cube)));
        }
        assertThat(run.rowCount()).isEqualTo(rows.size());
    }

    private static Map<CubeId, Long> counts(List<SourceRow> rows)
    {
        Map<CubeId, Long> counts = new HashMap<>();
        for (SourceRow row : rows) {
            counts.merge(row.cube(), 1L, Long::sum);
        }
        return counts;
    }

    /**
     * Fills every planned row group and checks (a) every row once, (b) each group cube after cube,
     * each in ascending weight, with its cubes in its range and its planned size, (c) groups in cube order, a cube's
     * slices in weight order with ties by run then row, (d) weights, cubes and channels of the source.
     */
    private static void assertRowGroups(RunMerger merger, List<FileLayout.Slice> plan, List<SourceRow> rows)
    {
        Map<Long, SourceRow> byId = new HashMap<>();
        Map<CubeId, List<SourceRow>> byCube = new HashMap<>();
        for (SourceRow row : rows) {
            byId.put(row.id(), row);
            byCube.computeIfAbsent(row.cube(), _ -> new ArrayList<>()).add(row);
        }
        byCube.values().forEach(cubeRows -> cubeRows.sort(SourceRow.MERGE_ORDER));

        Set<Long> seen = new HashSet<>();
        RowRefs refs = new RowRefs();
        int previousLastCube = -1;
        int previousGroupCube = -1;
        long sliceOffset = 0;
        for (FileLayout.Slice group : plan) {
            merger.fill(group, refs);
            String description = group.toString();
            // (b) the planned size, cubes in range, cube after cube, each in ascending weight
            assertThat(refs.size()).as("rows of %s", description).isEqualTo(group.rows());
            assertThat(refs.weights()).as("weights of %s", description).hasSize(refs.size());
            for (int i = 0; i < refs.size(); i++) {
                assertThat(refs.cube(i)).as("cube of row %s of %s", i, description).isBetween(group.firstCube(), group.lastCube());
                if (i > 0) {
                    assertThat(refs.cube(i)).as("cube order at row %s of %s", i, description).isGreaterThanOrEqualTo(refs.cube(i - 1));
                    if (refs.cube(i) == refs.cube(i - 1)) {
                        assertThat(refs.weight(i)).as("weight order in cube %s at row %s of %s", refs.cube(i), i, description).isGreaterThanOrEqualTo(refs.weight(i - 1));
                    }
                }
            }
            // (c) cube order over the groups: a cube is cut into consecutive slices, never shared by two packs
            if (group.isSingleCube() && group.firstCube() == previousGroupCube) {
                assertThat(group.firstRow()).isEqualTo(sliceOffset);
            }
            else {
                assertThat(group.firstCube()).as("first cube of %s", description).isEqualTo(previousLastCube + 1);
                assertThat(group.firstRow()).as("first row of %s", description).isZero();
                sliceOffset = 0;
            }
            previousGroupCube = group.isSingleCube() ? group.firstCube() : -1;
            previousLastCube = group.lastCube();

            // (d) the rows themselves
            Block ids = refs.gather(0, BIGINT);
            Block payloads = refs.gather(1, VARCHAR);
            Block arrays = refs.gather(2, ARRAY_BIGINT);
            assertThat(ids.getPositionCount()).isEqualTo(refs.size());
            assertThat(payloads.getPositionCount()).isEqualTo(refs.size());
            assertThat(arrays.getPositionCount()).isEqualTo(refs.size());
            List<SourceRow> groupRows = new ArrayList<>();
            for (int i = 0; i < refs.size(); i++) {
                long id = ids.isNull(i) ? -1 : BIGINT.getLong(ids, i);
                SourceRow source = byId.get(id);
                assertThat(source).as("row %s of %s is an input row", i, description).isNotNull();
                // (a) once
                assertThat(seen.add(id)).as("row %s seen once", id).isTrue();
                assertThat(refs.weight(i)).as("weight of row %s", id).isEqualTo(source.weight());
                assertThat(merger.cubes().get(refs.cube(i))).as("cube of row %s", id).isEqualTo(source.cube());
                assertPayload(payloads, i, source);
                assertArray(arrays, i, source);
                // the reference itself points at the row
                assertThat(BIGINT.getLong(refs.page(i).getBlock(0), refs.position(i))).isEqualTo(id);
                groupRows.add(source);
            }

            if (group.isSingleCube()) {
                // the slice [firstRow, firstRow + rows) of the cube in merge order
                List<SourceRow> cubeRows = byCube.get(merger.cubes().get(group.firstCube()));
                List<SourceRow> expected = cubeRows.subList((int) group.firstRow(), (int) (group.firstRow() + group.rows()));
                assertThat(ids(groupRows)).as("rows of %s", description).containsExactlyElementsOf(ids(expected));
                sliceOffset += group.rows();
            }
            else {
                // whole cubes
                List<SourceRow> expected = new ArrayList<>();
                for (int cube = group.firstCube(); cube <= group.lastCube(); cube++) {
                    expected.addAll(byCube.get(merger.cubes().get(cube)));
                }
                assertThat(ids(groupRows)).as("rows of %s", description).containsExactlyInAnyOrderElementsOf(ids(expected));
            }
        }
        assertThat(previousLastCube).isEqualTo(merger.cubes().size() - 1);
        // (a) every row
        assertThat(seen).hasSize(rows.size());
    }

    private static List<Long> ids(List<SourceRow> rows)
    {
        return rows.stream().map(SourceRow::id).toList();
    }

    private static String key(CubeId cube, int weight, long id)
    {
        return cube + "/" + weight + "/" + id;
    }

    private static long fileSize(Path path)
    {
        try {
            return Files.size(path);
        }
        catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private List<Path> spillFiles()
    {
        try (Stream<Path> files = Files.list(directory)) {
            return files.toList();
        }
        catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}

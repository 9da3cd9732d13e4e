package io.qbeast.index;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestBatchIndexer
{
    private static final long CUBE_SIZE = 1000;

    private static final int[] DIMENSIONS = {1, 2, 3, 9};

    @Test
    void testEveryRowLandsInOneCubeContainingItsPoint()
    {
        for (PointDistribution distribution : PointDistribution.values()) {
            for (int dimensions : DIMENSIONS) {
                assertEveryRowLandsInOneCubeContainingItsPoint(distribution, dimensions);
            }
        }
    }

    private static void assertEveryRowLandsInOneCubeContainingItsPoint(PointDistribution distribution, int dimensions)
    {
        int rows = 20_000;
        double[] coordinates = distribution.generate(dimensions * 31L, rows, dimensions);
        int[] weights = weights(rows, dimensions);
        CubeAssignment assignment = new BatchIndexer(12).assign(IndexState.empty(4, dimensions, 500), coordinates, weights, rows);

        assertThat(assignment.cubes()).isSorted().doesNotHaveDuplicates();
        long[] counted = new long[assignment.cubeCount()];
        for (int row = 0; row < rows; row++) {
            int cube = assignment.cubeOfRow()[row];
            counted[cube]++;
            assertThat(assignment.cubes().get(cube).contains(coordinates, row * dimensions)).as("%s D=%s row %s", distribution, dimensions, row).isTrue();
            assertThat(weights[row]).isBetween(assignment.minWeight(cube), assignment.maxWeight(cube));
        }
        assertThat(counted).containsExactly(assignment.rowsPerCube());
        assertThat(Arrays.stream(counted).min().orElse(1)).isPositive();
        assertThat(assignment.cubes()).allSatisfy(cube -> assertThat(cube.depth()).isLessThanOrEqualTo(12));

        int[] order = assignment.rowsInWeightOrder();
        assertThat(Arrays.stream(order).sorted().toArray()).isEqualTo(IntStream.range(0, rows).toArray());
        for (int i = 1; i < rows; i++) {
            assertThat(weights[order[i - 1]]).isLessThanOrEqualTo(weights[order[i]]);
        }
    }

    @Test
    void testCubesKeepTheLowestWeightsOfTheirRegion()
    {
        for (PointDistribution distribution : PointDistribution.values()) {
            for (int dimensions : DIMENSIONS) {
                assertCubesKeepTheLowestWeightsOfTheirRegion(distribution, dimensions);
            }
        }
    }

    private static void assertCubesKeepTheLowestWeightsOfTheirRegion(PointDistribution distribution, int dimensions)
    {
        SimulatedTable table = new SimulatedTable(4, dimensions, 300, 300, new BatchIndexer(12));
        SplittableRandom random = new SplittableRandom(dimensions);
        for (int write = 0; write < 5; write++) {
            int rows = 1000 + random.nextInt(8000);
            double[] coordinates = distribution.generate(random.nextLong(), rows, dimensions);
            int[] weights = weights(rows, random.nextLong());
            CubeAssignment assignment = table.write(coordinates, weights, rows);
            assertInnerBoundsHold(assignment, weights, rows);
        }
        assertSamplingInvariant(table);
    }

    /** Within one write, every row placed strictly below a cube weighs at least as much as every row the cube kept. */
    static void assertInnerBoundsHold(CubeAssignment assignment, int[] weights, int rows)
    {
        Map<CubeId, Integer> minBelow = new HashMap<>();
        for (int row = 0; row < rows; row++) {
            CubeId cube = assignment.cubes().get(assignment.cubeOfRow()[row]);
            for (CubeId ancestor : cube.ancestors()) {
                minBelow.merge(ancestor, weights[row], Math::min);
            }
        }
        for (int cube = 0; cube < assignment.cubeCount(); cube++) {
            Integer below = minBelow.get(assignment.cubes().get(cube));
            if (below != null) {
                assertThat(assignment.maxWeight(cube)).as("bound of %s", assignment.cubes().get(cube)).isLessThanOrEqualTo(below);
            }
        }
    }

    /**
     * For several w, a sample read through the tree — the files of the cubes whose min weight is
     * below w, found by {@link QuerySpace#matchingCubes}, filtered by weight — is exactly the rows
     * with weight below w.
     */
    static void assertSamplingInvariant(SimulatedTable table)
    {
        List<FileFacts> files = table.state.files();
        for (double fraction : new double[] {0.0, 0.001, 0.01, 0.05, 0.2, 0.5, 1.0}) {
            long bound = Weight.upperBound(fraction);
            List<CubeId> selected = QuerySpace.all(table.dimensions).withWeightBound(bound).matchingCubes(table.state).stream()
                    .map(CubeState::cube)
                    .toList();
            boolean[] read = new boolean[files.size()];
            for (int f = 0; f < files.size(); f++) {
                // a file holds rows of the known cubes between its bounds
                CubeId min = files.get(f).minCubeId();
                CubeId max = files.get(f).maxCubeId();
                read[f] = selected.stream().anyMatch(cube -> cube.compareTo(min) >= 0 && cube.compareTo(max) <= 0);
            }
            for (int row = 0; row < table.rowCount(); row++) {
                boolean inSample = table.weights.get(row) < bound;
                boolean readBySample = read[table.fileOfRow.get(row)] && inSample;
                assertThat(readBySample).as("row %s at fraction %s", row, fraction).isEqualTo(inSample);
            }
        }
    }

    @Test
    void testOneLargeWriteFillsInnerCubesToTheCubeSize()
    {
        for (PointDistribution distribution : PointDistribution.values()) {
            for (int dimensions : new int[] {1, 2, 4}) {
                assertOneLargeWriteFillsInnerCubesToTheCubeSize(distribution, dimensions);
            }
        }
    }

    private static void assertOneLargeWriteFillsInnerCubesToTheCubeSize(PointDistribution distribution, int dimensions)
    {
        int rows = (int) (50 * CUBE_SIZE);
        double[] coordinates = distribution.generate(77 + dimensions, rows, dimensions);
        BatchIndexer indexer = new BatchIndexer();
        CubeAssignment assignment = indexer.assign(IndexState.empty(1, dimensions, CUBE_SIZE), coordinates, weights(rows, 5), rows);
        int inner = 0;
        for (int cube = 0; cube < assignment.cubeCount(); cube++) {
            CubeId id = assignment.cubes().get(cube);
            boolean isInner = cube + 1 < assignment.cubeCount() && id.isAncestorOf(assignment.cubes().get(cube + 1));
            if (isInner && id.depth() < indexer.maxDepth()) {
                inner++;
                assertThat(assignment.rows(cube) / (double) CUBE_SIZE).as("%s D=%s: fill of %s", distribution, dimensions, id).isBetween(0.8, 1.25);
            }
            else if (id.depth() < indexer.maxDepth()) {
                assertThat(assignment.rows(cube)).isLessThanOrEqualTo(CUBE_SIZE);
            }
        }
        if (distribution != PointDistribution.ALL_SAME && distribution != PointDistribution.DUPLICATES) {
            assertThat(inner).isGreaterThan(0);
        }
    }

    @Test
    void testBatchesOfOneStatementKeepTheLightestRowsInTheUpperCubes()
    {
        // one writer, one statement, six batches: its own unwritten rows do not count against
        // MAX_FILL, so the lightest rows of every batch stay in the upper cubes; counting them (as
        // for appends) lets the upper cubes fill up and the lightest rows of later batches fall
        // through to the leaves
        int dimensions = 2;
        int batches = 6;
        int batchRows = (int) (20 * CUBE_SIZE);
        long sampleBound = Weight.upperBound(0.5 * CUBE_SIZE / (batches * (double) batchRows));
        long deepLightStatement = lightRowsBelowLevelOne(dimensions, batches, batchRows, sampleBound, true);
        long deepLightAppends = lightRowsBelowLevelOne(dimensions, batches, batchRows, sampleBound, false);
        assertThat(deepLightStatement).as("rows lighter than half the root's share below level 1").isZero();
        assertThat(deepLightAppends).as("the same without the statement's own rows exempt").isPositive();
    }

    private static long lightRowsBelowLevelOne(int dimensions, int batches, int batchRows, long bound, boolean exemptOwnRows)
    {
        BatchIndexer indexer = new BatchIndexer();
        IndexState state = IndexState.empty(1, dimensions, CUBE_SIZE);
        java.util.Map<CubeId, Long> own = new java.util.HashMap<>();
        long deepLight = 0;
        for (int batch = 0; batch < batches; batch++) {
            double[] coordinates = PointDistribution.UNIFORM.generate(500 + batch, batchRows, dimensions);
            int[] weights = weights(batchRows, 900 + batch);
            CubeAssignment assignment = indexer.assign(state, coordinates, weights, batchRows, cube -> exemptOwnRows ? own.getOrDefault(cube, 0L) : 0L);
            java.util.List<FileFacts> blocks = new java.util.ArrayList<>();
            for (int cube = 0; cube < assignment.cubeCount(); cube++) {
                CubeId id = assignment.cubes().get(cube);
                blocks.add(FileFacts.of(id, id, assignment.minWeight(cube), assignment.maxWeight(cube), assignment.rows(cube)));
                own.merge(id, assignment.rows(cube), Long::sum);
            }
            state = state.plus(blocks);
            int[] cubeOfRow = assignment.cubeOfRow();
            for (int row = 0; row < batchRows; row++) {
                if (weights[row] < bound && assignment.cubes().get(cubeOfRow[row]).depth() > 1) {
                    deepLight++;
                }
            }
        }
        return deepLight;
    }

    @Test
    void testSmallAppendsDescendTheTreeAndKeepCubesUnderTwiceTheCubeSize()
    {
        assertSmallAppendsDescendTheTree(PointDistribution.UNIFORM, 2);
        assertSmallAppendsDescendTheTree(PointDistribution.UNIFORM, 1);
        assertSmallAppendsDescendTheTree(PointDistribution.ZIPF, 2);
        assertSmallAppendsDescendTheTree(PointDistribution.CLUSTERED, 3);
        assertSmallAppendsDescendTheTree(PointDistribution.UNIFORM, 8);
        assertSmallAppendsDescendTheTree(PointDistribution.SINGLE_VALUE_COLUMN, 2);
    }

    private static void assertSmallAppendsDescendTheTree(PointDistribution distribution, int dimensions)
    {
        BatchIndexer indexer = new BatchIndexer();
        SimulatedTable table = new SimulatedTable(3, dimensions, CUBE_SIZE, CUBE_SIZE, indexer);
        SplittableRandom random = new SplittableRandom(100 + dimensions);
        int initial = (int) (50 * CUBE_SIZE);
        table.write(distribution.generate(random.nextLong(), initial, dimensions), weights(initial, random.nextLong()), initial);

        long appended = 0;
        long appendedIntoRoot = 0;
        CubeId root = table.state.root();
        for (int append = 0; append < 100; append++) {
            int rows = (int) (CUBE_SIZE / 20 + random.nextInt((int) CUBE_SIZE / 2));
            int[] weights = weights(rows, random.nextLong());
            CubeAssignment assignment = table.write(distribution.generate(random.nextLong(), rows, dimensions), weights, rows);
            assertInnerBoundsHold(assignment, weights, rows);
            appended += rows;
            int rootIndex = assignment.indexOf(root);
            appendedIntoRoot += rootIndex < 0 ? 0 : assignment.rows(rootIndex);
        }

        for (Map.Entry<CubeId, Long> entry : table.trueRows.entrySet()) {
            if (entry.getKey().depth() < indexer.maxDepth()) {
                assertThat(entry.getValue() / (double) CUBE_SIZE).as("%s D=%s: true fill of %s", distribution, dimensions, entry.getKey()).isLessThan(2.0);
            }
        }
        // the root keeps about its share (cube size / table size) of the appended rows, not the appends
        assertThat(appendedIntoRoot).isLessThan(appended / 10);
        assertSamplingInvariant(table);
    }

    @Test
    void testExistingLeavesFillUpBeforeSplitting()
    {
        BatchIndexer indexer = new BatchIndexer();
        SimulatedTable table = new SimulatedTable(3, 2, CUBE_SIZE, CUBE_SIZE, indexer);
        int[] sizes = {300, 300, 300, 300};
        SplittableRandom random = new SplittableRandom(5);
        for (int size : sizes) {
            table.write(PointDistribution.UNIFORM.generate(random.nextLong(), size, 2), weights(size, random.nextLong()), size);
        }
        CubeId root = table.state.root();
        // the root took rows until it held the cube size; only the overflow went down
        assertThat(table.trueRows.get(root)).isEqualTo(CUBE_SIZE);
        assertThat(table.trueRows.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(1200);
        assertThat(table.state.cube(root).orElseThrow().inner()).isTrue();
    }

    @Test
    void testDuplicatesStopAtTheMaximumDepth()
    {
        assertDuplicatesStopAtTheMaximumDepth(PointDistribution.DUPLICATES);
        assertDuplicatesStopAtTheMaximumDepth(PointDistribution.ALL_SAME);
    }

    private static void assertDuplicatesStopAtTheMaximumDepth(PointDistribution distribution)
    {
        int rows = 100_000;
        // 20 points need at most 1 + 4 + 16 + 20 cubes above depth 4, far fewer than 100 cube sizes
        int maxDepth = distribution == PointDistribution.ALL_SAME ? 20 : 4;
        BatchIndexer indexer = new BatchIndexer(maxDepth);
        double[] coordinates = distribution.generate(9, rows, 2);
        CubeAssignment assignment = indexer.assign(IndexState.empty(1, 2, 1000), coordinates, weights(rows, 9), rows);
        long overflow = 0;
        for (int cube = 0; cube < assignment.cubeCount(); cube++) {
            CubeId id = assignment.cubes().get(cube);
            assertThat(id.depth()).isLessThanOrEqualTo(maxDepth);
            if (id.depth() < maxDepth) {
                assertThat(assignment.rows(cube)).isLessThanOrEqualTo(1000);
            }
            else {
                overflow += assignment.rows(cube);
            }
        }
        // the rows that did not fit the chain of cubes above each point sit in the deepest cubes
        assertThat(overflow).isGreaterThan(0);
        assertThat(assignment.cubes().stream().filter(cube -> cube.depth() == maxDepth).count()).isLessThanOrEqualTo(distribution == PointDistribution.ALL_SAME ? 1 : 20);
    }

    @Test
    void testDeepTreesBeyondTheKeyLevels()
    {
        // 16 dimensions: the 64-bit key holds 4 levels; duplicates force deeper levels from the coordinates
        int rows = 30_000;
        double[] coordinates = PointDistribution.DUPLICATES.generate(4, rows, 16);
        CubeAssignment assignment = new BatchIndexer(10).assign(IndexState.empty(1, 16, 100), coordinates, weights(rows, 4), rows);
        assertThat(assignment.cubes().stream().mapToInt(CubeId::depth).max().orElseThrow()).isEqualTo(10);
        for (int row = 0; row < rows; row++) {
            assertThat(assignment.cubes().get(assignment.cubeOfRow()[row]).contains(coordinates, row * 16)).isTrue();
        }
    }

    @Test
    void testAssignmentIsDeterministic()
    {
        int rows = 10_000;
        double[] coordinates = PointDistribution.CLUSTERED.generate(1, rows, 3);
        int[] weights = weights(rows, 1);
        IndexState state = IndexState.empty(1, 3, 200);
        CubeAssignment first = new BatchIndexer().assign(state, coordinates, weights, rows);
        CubeAssignment second = new BatchIndexer().assign(state, coordinates, weights, rows);
        assertThat(first.cubes()).isEqualTo(second.cubes());
        assertThat(first.cubeOfRow()).isEqualTo(second.cubeOfRow());
    }

    @Test
    void testRejectsInvalidInput()
    {
        IndexState state = IndexState.empty(1, 2, 10);
        BatchIndexer indexer = new BatchIndexer();
        assertThatThrownBy(() -> indexer.assign(state, new double[] {0.1, 1.0}, new int[1], 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("outside [0, 1)");
        assertThatThrownBy(() -> indexer.assign(state, new double[] {Double.NaN, 0.5}, new int[1], 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> indexer.assign(state, new double[] {0.1, -0.0001}, new int[1], 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> indexer.assign(state, new double[3], new int[2], 2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BatchIndexer(63)).isInstanceOf(IllegalArgumentException.class);
        assertThat(indexer.assign(state, new double[0], new int[0], 0).cubes()).isEmpty();
    }

    static int[] weights(int rows, long seed)
    {
        int[] weights = new int[rows];
        new WeightGenerator(seed).fill(weights, 0, rows);
        return weights;
    }
}

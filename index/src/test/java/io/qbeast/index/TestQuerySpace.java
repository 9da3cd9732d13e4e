package io.qbeast.index;

import io.qbeast.index.transform.CoordinateRanges;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

final class TestQuerySpace
{
    @Test
    void testNeverDropsACubeOrFileWithAMatchingRow()
    {
        SplittableRandom random = new SplittableRandom(31);
        long prunedCubes = 0;
        long consideredCubes = 0;
        for (PointDistribution distribution : PointDistribution.values()) {
            for (int dimensions : new int[] {1, 2, 3}) {
                for (long maxGroupRows : new long[] {1, 400}) {
                    SimulatedTable table = table(distribution, dimensions, maxGroupRows, random.nextLong());
                    for (int query = 0; query < 40; query++) {
                        QuerySpace space = randomSpace(random, table, dimensions);
                        List<CubeState> matching = space.matchingCubes(table.state);
                        Set<CubeId> matchingIds = new HashSet<>();
                        for (CubeState cube : matching) {
                            matchingIds.add(cube.cube());
                            // everything returned could match: region meets the ranges, rows under the bound
                            assertThat((long) cube.minWeight()).isLessThan(space.weightBound());
                            assertThat(meets(space, cube.cube())).as("%s returned for %s", cube.cube(), space).isTrue();
                        }
                        for (int row = 0; row < table.rowCount(); row++) {
                            if (!space.matches(table.points.get(row), table.weights.get(row))) {
                                continue;
                            }
                            FileFacts file = table.state.files().get(table.fileOfRow.get(row));
                            assertThat(space.mayContainFile(file)).as("file of row %s for %s", row, space).isTrue();
                            CubeId cube = table.cubeOfRow.get(row);
                            if (table.state.cube(cube).isPresent()) {
                                assertThat(matchingIds).as("cube of row %s for %s", row, space).contains(cube);
                            }
                        }
                        prunedCubes += table.state.cubes().size() - matching.size();
                        consideredCubes += table.state.cubes().size();
                    }
                }
            }
        }
        // the boxes are small, so most cubes must be pruned
        assertThat(prunedCubes).isGreaterThan(consideredCubes / 2);
    }

    @Test
    void testSamplingReadsTheTopOfTheTree()
    {
        SimulatedTable table = table(PointDistribution.UNIFORM, 2, 1, 5);
        QuerySpace all = QuerySpace.all(2);
        assertThat(all.matchingCubes(table.state)).hasSize((int) table.state.cubes().stream().filter(cube -> !cube.isEmpty()).count());
        List<CubeState> sample = all.withWeightBound(Weight.upperBound(0.01)).matchingCubes(table.state);
        assertThat(sample).isNotEmpty();
        assertThat(sample.size()).isLessThan(table.state.cubes().size() / 4);
        int maxDepth = sample.stream().mapToInt(cube -> cube.cube().depth()).max().orElseThrow();
        assertThat(maxDepth).isLessThan(table.state.cubes().stream().mapToInt(cube -> cube.cube().depth()).max().orElseThrow());
        assertThat(all.withWeightBound(Weight.NONE).matchingCubes(table.state)).isEmpty();
        assertThat(all.withWeightBound(Weight.NONE).isEmpty()).isTrue();
    }

    @Test
    void testHashPointsPruneOnlyTheirCells()
    {
        CubeId cube = CubeId.root(1, 2).child(0b01).child(0b10);
        // dimension 0 lower half then upper half: [0.25, 0.5); dimension 1: [0.5, 0.75)
        QuerySpace inside = QuerySpace.of(List.of(CoordinateRanges.point(0.3), CoordinateRanges.all()));
        QuerySpace outside = QuerySpace.of(List.of(CoordinateRanges.point(0.5), CoordinateRanges.all()));
        QuerySpace either = QuerySpace.of(List.of(CoordinateRanges.point(0.9).union(CoordinateRanges.point(0.25)), CoordinateRanges.of(0.74, 0.8)));
        assertThat(inside.intersects(cube)).isTrue();
        assertThat(outside.intersects(cube)).isFalse();
        assertThat(either.intersects(cube)).isTrue();
        assertThat(QuerySpace.of(List.of(CoordinateRanges.none(), CoordinateRanges.all())).intersects(cube)).isFalse();
    }

    @Test
    void testEdgesOfCubeRegions()
    {
        SplittableRandom random = new SplittableRandom(32);
        for (int i = 0; i < 2000; i++) {
            int dimensions = 1 + random.nextInt(4);
            CubeId cube = TestCubeId.randomCube(random, 1, dimensions, random.nextInt(45));
            int j = random.nextInt(dimensions);
            double low = cube.lowerBound(j);
            double high = cube.upperBound(j);
            assertThat(spaceAt(dimensions, j, low).intersects(cube)).isTrue();
            assertThat(spaceAt(dimensions, j, Math.nextDown(high)).intersects(cube)).isTrue();
            if (high < 1.0) {
                assertThat(spaceAt(dimensions, j, high).intersects(cube)).isFalse();
            }
            if (low > 0.0) {
                assertThat(spaceAt(dimensions, j, Math.nextDown(low)).intersects(cube)).isFalse();
                // a range ending exactly where the cube starts touches it (closed ranges)
                assertThat(new QuerySpace(rangesAt(dimensions, j, CoordinateRanges.of(0, low)), Weight.ALL).intersects(cube)).isTrue();
            }
        }
    }

    private static QuerySpace spaceAt(int dimensions, int dimension, double coordinate)
    {
        return QuerySpace.of(rangesAt(dimensions, dimension, CoordinateRanges.point(coordinate)));
    }

    private static List<CoordinateRanges> rangesAt(int dimensions, int dimension, CoordinateRanges range)
    {
        List<CoordinateRanges> ranges = new ArrayList<>();
        for (int j = 0; j < dimensions; j++) {
            ranges.add(j == dimension ? range : CoordinateRanges.all());
        }
        return ranges;
    }

    @Test
    void testDeepCubesKeepTheirPoints()
    {
        double x = Math.nextDown(1.0);
        CubeId cube = CubeId.root(1, 1);
        for (int depth = 0; depth < 53; depth++) {
            cube = cube.child(1);
        }
        assertThat(cube.contains(new double[] {x})).isTrue();
        assertThat(QuerySpace.of(List.of(CoordinateRanges.point(x))).intersects(cube)).isTrue();
    }

    private static boolean meets(QuerySpace space, CubeId cube)
    {
        for (int j = 0; j < space.dimensions(); j++) {
            double low = cube.lowerBound(j);
            double high = cube.upperBound(j);
            boolean any = space.ranges().get(j).ranges().stream().anyMatch(range -> range.low() < high && range.high() >= low);
            if (!any) {
                return false;
            }
        }
        return true;
    }

    static SimulatedTable table(PointDistribution distribution, int dimensions, long maxGroupRows, long seed)
    {
        SplittableRandom random = new SplittableRandom(seed);
        SimulatedTable table = new SimulatedTable(6, dimensions, 200, maxGroupRows, new BatchIndexer(16));
        int[] sizes = {8000, 300, 1500, 50, 700};
        for (int rows : sizes) {
            table.write(distribution.generate(random.nextLong(), rows, dimensions), TestBatchIndexer.weights(rows, random.nextLong()), rows);
        }
        return table;
    }

    private static QuerySpace randomSpace(SplittableRandom random, SimulatedTable table, int dimensions)
    {
        List<CoordinateRanges> ranges = new ArrayList<>();
        double[] anchor = table.points.get(random.nextInt(table.rowCount()));
        for (int j = 0; j < dimensions; j++) {
            ranges.add(switch (random.nextInt(5)) {
                case 0 -> CoordinateRanges.all();
                // a hash-transformed column under equality: an exact point that some row has
                case 1 -> CoordinateRanges.point(anchor[j]);
                case 2 -> interval(random, anchor[j]).union(interval(random, random.nextDouble()));
                default -> interval(random, anchor[j]);
            });
        }
        long bound = random.nextBoolean() ? Weight.ALL : Weight.upperBound(random.nextDouble() * 0.3);
        return new QuerySpace(ranges, bound);
    }

    private static CoordinateRanges interval(SplittableRandom random, double center)
    {
        double width = random.nextDouble() * 0.1;
        return CoordinateRanges.of(Math.max(0, center - width), Math.min(Math.nextDown(1.0), center + width));
    }
}

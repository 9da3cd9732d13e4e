package io.qbeast.index;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestRowOrder
{
    @Test
    void testOrdersByCubeThenPointThenInputOrder()
    {
        SplittableRandom random = new SplittableRandom(7);
        int rows = 5000;
        int dimensions = 3;
        int[] cubes = new int[rows];
        double[] coordinates = new double[rows * dimensions];
        for (int row = 0; row < rows; row++) {
            // cubes interleaved (a packed row group in weight order), coarse values so ties occur
            cubes[row] = random.nextInt(4);
            for (int dimension = 0; dimension < dimensions; dimension++) {
                coordinates[row * dimensions + dimension] = random.nextInt(10) / 10.0;
            }
        }
        int[] order = RowOrder.order(cubes, coordinates, dimensions, rows);

        // brute force: a stable sort by (cube, first coordinate, second coordinate); the third is not looked at
        List<Integer> expected = new ArrayList<>(IntStream.range(0, rows).boxed().toList());
        expected.sort(Comparator.<Integer>comparingInt(row -> cubes[row])
                .thenComparingDouble(row -> coordinates[row * dimensions])
                .thenComparingDouble(row -> coordinates[row * dimensions + 1]));
        assertThat(order).containsExactly(expected.stream().mapToInt(Integer::intValue).toArray());
    }

    @Test
    void testHeadOfEachCubeKeepsInputOrder()
    {
        SplittableRandom random = new SplittableRandom(11);
        int rows = 3000;
        int dimensions = 2;
        int[] cubes = new int[rows];
        double[] coordinates = new double[rows * dimensions];
        for (int row = 0; row < rows; row++) {
            cubes[row] = random.nextInt(3);
            coordinates[row * dimensions] = random.nextInt(20) / 20.0;
            coordinates[row * dimensions + 1] = random.nextDouble();
        }
        int[] order = RowOrder.order(cubes, coordinates, dimensions, rows, FileLayout::weightOrderedRows);

        // brute force: per cube (ascending), its rows in input order; the first quarter (rounded up)
        // stays so, the rest sorted stably by (first, second coordinate)
        List<Integer> expected = new ArrayList<>();
        for (int cube = 0; cube < 3; cube++) {
            int current = cube;
            List<Integer> ofCube = IntStream.range(0, rows).filter(row -> cubes[row] == current).boxed().toList();
            int head = (ofCube.size() + 3) / 4;
            expected.addAll(ofCube.subList(0, head));
            List<Integer> rest = new ArrayList<>(ofCube.subList(head, ofCube.size()));
            rest.sort(Comparator.<Integer>comparingDouble(row -> coordinates[row * dimensions])
                    .thenComparingDouble(row -> coordinates[row * dimensions + 1]));
            expected.addAll(rest);
        }
        assertThat(order).containsExactly(expected.stream().mapToInt(Integer::intValue).toArray());
        // a head of every row is the input order grouped by cube
        int[] unsorted = RowOrder.order(cubes, coordinates, dimensions, rows, length -> length);
        assertThat(unsorted).containsExactly(IntStream.range(0, 3).flatMap(cube -> IntStream.range(0, rows).filter(row -> cubes[row] == cube)).toArray());
    }

    @Test
    void testOneDimensionAndOutOfRangeCoordinates()
    {
        int[] cubes = {5, 5, 5, 5, 5};
        // NaN and values outside [0, 1] clamp to the ends and keep their input order among equals
        double[] coordinates = {0.5, Double.NaN, 1.5, -1.0, 0.25};
        assertThat(RowOrder.order(cubes, coordinates, 1, 5)).containsExactly(1, 3, 4, 0, 2);
    }

    @Test
    void testGroupedRowsOfOneCubeAndSingleRows()
    {
        assertThat(RowOrder.order(new int[] {0}, new double[] {0.3, 0.1}, 2, 1)).containsExactly(0);
        assertThat(RowOrder.order(new int[] {0, 1, 1}, new double[] {0.9, 0, 0.7, 0, 0.2, 0}, 2, 3)).containsExactly(0, 2, 1);
        assertThat(RowOrder.order(new int[0], new double[0], 2, 0)).isEmpty();
    }

    @Test
    void testRejectsMismatchedArrays()
    {
        assertThatThrownBy(() -> RowOrder.order(new int[2], new double[3], 2, 2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("2 rows of 2 dimensions");
        assertThatThrownBy(() -> RowOrder.order(new int[2], new double[4], 0, 2))
                .isInstanceOf(IllegalArgumentException.class);
    }
}

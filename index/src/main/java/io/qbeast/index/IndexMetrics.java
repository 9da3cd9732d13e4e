package io.qbeast.index;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Shape and health of one revision's tree, for people: how deep it is against the minimum depth
 * its row count needs, how many children inner cubes have against 2^D, how full inner cubes are
 * against the cube size (1.0 is the target; above it are stale rows from appends that optimize
 * would push down), and how many blocks (files) each cube is spread over.
 *
 * @param minimumDepth depth of the deepest level a perfectly balanced tree of these rows needs
 * @param averageFanOut known children per inner cube
 * @param innerFill quartiles (min, 25%, median, 75%, max) of inner cubes' rows / cube size
 * @param levels cubes and rows per depth, root first
 */
public record IndexMetrics(
        long revisionId,
        int dimensions,
        long cubeSize,
        long rowCount,
        int fileCount,
        int cubeCount,
        int innerCubeCount,
        int maxDepth,
        int minimumDepth,
        double averageFanOut,
        List<Double> innerFill,
        double averageLeafFill,
        double averageBlocksPerCube,
        int maxBlocksPerCube,
        List<Level> levels)
{
    public record Level(int depth, int cubes, long rows) {}

    public IndexMetrics
    {
        innerFill = List.copyOf(requireNonNull(innerFill, "innerFill is null"));
        levels = List.copyOf(requireNonNull(levels, "levels is null"));
    }

    public static IndexMetrics of(IndexState state)
    {
        requireNonNull(state, "state is null");
        List<CubeState> cubes = state.cubes();
        int inner = 0;
        long children = 0;
        int maxDepth = 0;
        int cubesWithRows = 0;
        long blocks = 0;
        int maxBlocks = 0;
        double leafFill = 0;
        int leaves = 0;
        List<Double> fills = new ArrayList<>();
        List<Level> levels = new ArrayList<>();
        for (CubeState cube : cubes) {
            int depth = cube.cube().depth();
            maxDepth = Math.max(maxDepth, depth);
            while (levels.size() <= depth) {
                levels.add(new Level(levels.size(), 0, 0));
            }
            Level level = levels.get(depth);
            levels.set(depth, new Level(depth, level.cubes() + 1, level.rows() + cube.rowCount()));
            if (!cube.cube().isRoot()) {
                children++;
            }
            if (cube.inner()) {
                inner++;
                fills.add(cube.rowCount() / (double) state.cubeSize());
            }
            else {
                leaves++;
                leafFill += cube.rowCount() / (double) state.cubeSize();
            }
            if (!cube.isEmpty()) {
                cubesWithRows++;
                blocks += cube.blockCount();
                maxBlocks = Math.max(maxBlocks, cube.blockCount());
            }
        }
        return new IndexMetrics(
                state.revisionId(),
                state.dimensions(),
                state.cubeSize(),
                state.rowCount(),
                state.files().size(),
                cubes.size(),
                inner,
                maxDepth,
                minimumDepth(state.rowCount(), state.cubeSize(), state.dimensions()),
                inner == 0 ? 0 : children / (double) inner,
                quartiles(fills),
                leaves == 0 ? 0 : leafFill / leaves,
                cubesWithRows == 0 ? 0 : blocks / (double) cubesWithRows,
                maxBlocks,
                levels);
    }

    // levels 0..d of a full tree hold S * (1 + 2^D + ... + 2^(dD)) rows
    private static int minimumDepth(long rows, long cubeSize, int dimensions)
    {
        double capacity = cubeSize;
        double levelCubes = 1;
        int depth = 0;
        while (capacity < rows && depth < CubeId.MAX_DEPTH) {
            depth++;
            levelCubes *= Math.pow(2, dimensions);
            capacity += levelCubes * cubeSize;
        }
        return depth;
    }

    private static List<Double> quartiles(List<Double> values)
    {
        if (values.isEmpty()) {
            return List.of();
        }
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(sorted);
        List<Double> quartiles = new ArrayList<>(5);
        for (int q = 0; q <= 4; q++) {
            quartiles.add(sorted[(int) Math.round(q * (sorted.length - 1) / 4.0)]);
        }
        return quartiles;
    }

    /** A few lines for logs and procedures. */
    public String report()
    {
        StringBuilder report = new StringBuilder();
        report.append("revision %s: %s rows in %s files, %s dimensions, cube size %s%n".formatted(revisionId, rowCount, fileCount, dimensions, cubeSize));
        report.append("cubes %s (inner %s), depth %s (minimum %s), fan-out %.2f of %s%n".formatted(
                cubeCount, innerCubeCount, maxDepth, minimumDepth, averageFanOut, 1L << dimensions));
        report.append("inner fill quartiles %s, average leaf fill %.2f%n".formatted(
                innerFill.stream().map("%.2f"::formatted).toList(), averageLeafFill));
        report.append("blocks per cube %.2f (max %s)%n".formatted(averageBlocksPerCube, maxBlocksPerCube));
        for (Level level : levels) {
            report.append("  depth %2d: %s cubes, %s rows%n".formatted(level.depth(), level.cubes(), level.rows()));
        }
        return report.toString();
    }
}

package io.qbeast.index;

import io.qbeast.index.transform.CoordinateRanges;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The part of a revision's space and weight range a query may match: per dimension the
 * coordinates a row may have (a hash-transformed dimension is restricted only by equality, as
 * exact points), and an exclusive weight bound for samples ({@link Weight#ALL} without sampling).
 * Every test is conservative: it may keep a cube or file without matching rows, never drop one
 * with a matching row.
 */
public final class QuerySpace
{
    // deeper than this, a cube's upper bound as a double may round down onto a coordinate inside it
    private static final int EXACT_BOUNDS_DEPTH = 52;

    private final List<CoordinateRanges> ranges;
    private final long weightBound;
    private final boolean empty;

    public QuerySpace(List<CoordinateRanges> ranges, long weightBound)
    {
        this.ranges = List.copyOf(requireNonNull(ranges, "ranges is null"));
        if (this.ranges.isEmpty() || this.ranges.size() > CubeId.MAX_DIMENSIONS) {
            throw new IllegalArgumentException("Invalid number of dimensions: " + this.ranges.size());
        }
        if (weightBound < Weight.NONE || weightBound > Weight.ALL) {
            throw new IllegalArgumentException("Weight bound out of range: " + weightBound);
        }
        this.weightBound = weightBound;
        this.empty = weightBound == Weight.NONE || this.ranges.stream().anyMatch(CoordinateRanges::isNone);
    }

    public static QuerySpace all(int dimensions)
    {
        return new QuerySpace(Collections.nCopies(dimensions, CoordinateRanges.all()), Weight.ALL);
    }

    public static QuerySpace of(List<CoordinateRanges> ranges)
    {
        return new QuerySpace(ranges, Weight.ALL);
    }

    public QuerySpace withWeightBound(long bound)
    {
        return new QuerySpace(ranges, Math.min(bound, weightBound));
    }

    public List<CoordinateRanges> ranges()
    {
        return ranges;
    }

    public int dimensions()
    {
        return ranges.size();
    }

    public long weightBound()
    {
        return weightBound;
    }

    /** Whether no row can match. */
    public boolean isEmpty()
    {
        return empty;
    }

    public boolean matches(double[] point, int weight)
    {
        if (weight >= weightBound || point.length != ranges.size()) {
            return false;
        }
        for (int j = 0; j < point.length; j++) {
            if (!ranges.get(j).contains(point[j])) {
                return false;
            }
        }
        return true;
    }

    /** Whether the cube's region meets the space (weights aside). */
    public boolean intersects(CubeId cube)
    {
        if (cube.dimensions() != ranges.size()) {
            throw new IllegalArgumentException("Cube has %s dimensions, query space %s".formatted(cube.dimensions(), ranges.size()));
        }
        if (empty) {
            return false;
        }
        for (int j = 0; j < ranges.size(); j++) {
            CoordinateRanges dimension = ranges.get(j);
            if (dimension.isAll()) {
                continue;
            }
            double upper = cube.upperBound(j);
            if (cube.depth() > EXACT_BOUNDS_DEPTH) {
                upper = Math.nextUp(upper);
            }
            if (!dimension.intersects(cube.lowerBound(j), upper)) {
                return false;
            }
        }
        return true;
    }

    /** Whether the file may hold a matching row: its root's region meets the space and its lightest row is under the bound. */
    public boolean mayContainFile(FileFacts file)
    {
        return file.minWeight() < weightBound && intersects(file.root());
    }

    /**
     * The cubes of {@code state} that may hold matching rows: regions meeting the space and a
     * minimum weight under the bound. Whole subtrees are skipped when their region misses or their
     * lightest row is not under the bound, which is how a sample reads only the top of the tree.
     */
    public List<CubeState> matchingCubes(IndexState state)
    {
        requireNonNull(state, "state is null");
        List<CubeState> cubes = state.cubes();
        List<CubeState> matching = new ArrayList<>();
        int position = 0;
        while (position < cubes.size()) {
            CubeState cube = cubes.get(position);
            if (cube.subtreeMinWeight() >= weightBound || !intersects(cube.cube())) {
                position = state.subtreeEnd(position);
                continue;
            }
            if (!cube.isEmpty() && cube.minWeight() < weightBound) {
                matching.add(cube);
            }
            position++;
        }
        return List.copyOf(matching);
    }

    @Override
    public String toString()
    {
        return "QuerySpace[ranges=%s, weightBound=%s]".formatted(ranges, weightBound);
    }
}

package io.qbeast.index;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Cut points that split a revision's space into {@code regions} contiguous ranges of the tree's
 * depth-first order, each expected to receive the same number of rows of a write that follows the
 * distribution of the data already indexed. Writers that each own one range build disjoint
 * subtrees below the top cubes, so their files cover compact regions instead of the whole space.
 *
 * <p><b>Keys.</b> The depth-first pre-order of cubes is the Z-order of points: at each level a
 * cube's child index takes one bit per dimension, dimension 0 the most significant (see
 * {@link CubeId}). A point's key is those bits for the first {@code 63 / D} levels, left-aligned
 * in a non-negative {@code long}; a cube at depth {@code d} of at most that many levels holds
 * exactly the keys of {@code [start, start + 2^(63 - d·D))}. Coordinates outside {@code [0, 1)}
 * (values beyond the revision, a null's coordinate) are clamped, as routing needs only a place,
 * not the cube the indexer will choose.
 *
 * <p><b>Cuts.</b> The index state's files are the facts: each file's rows lie in the subtree of
 * its cubes' common ancestor, and are taken as spread evenly over that subtree's key range (equal
 * key ranges below a cube are equal volumes). Deep files are small ranges, so where the data is
 * dense the density follows it closely; the cuts are the quantiles of the summed density. An
 * empty state is one even range: equal volumes. Balance is therefore as fine as the files: with
 * one file per cube an append of the table's distribution splits within 1.5x of equal shares
 * (TestRegionCuts), with rollup groups within 2.5x, and values all equal to one point still go
 * to one region (a region is a range of space).
 */
public final class RegionCuts
{
    private static final int KEY_BITS = 63;

    private final int dimensions;
    private final int levels;
    private final long[] cuts;

    private RegionCuts(int dimensions, long[] cuts)
    {
        if (dimensions < 1 || dimensions > CubeId.MAX_DIMENSIONS) {
            throw new IllegalArgumentException("Dimensions out of range: " + dimensions);
        }
        for (int i = 1; i < cuts.length; i++) {
            if (cuts[i] < cuts[i - 1]) {
                throw new IllegalArgumentException("Cuts are not in order at %s: %s".formatted(i, Arrays.toString(cuts)));
            }
        }
        this.dimensions = dimensions;
        this.levels = levels(dimensions);
        this.cuts = cuts.clone();
    }

    /** The cuts stored by {@link #cuts()}, for the same number of dimensions. */
    public static RegionCuts of(int dimensions, long[] cuts)
    {
        return new RegionCuts(dimensions, cuts);
    }

    /** Cuts into {@code regions} ranges of equal expected rows of {@code state}. */
    public static RegionCuts plan(IndexState state, int regions)
    {
        if (regions < 1) {
            throw new IllegalArgumentException("Regions must be positive: " + regions);
        }
        int dimensions = state.dimensions();
        int levels = levels(dimensions);
        // each file's rows spread evenly over the key range of its cubes' common ancestor; an empty
        // state is one even range over the whole space
        List<double[]> events = new ArrayList<>();
        if (state.files().isEmpty()) {
            addRange(events, 0, width(0, dimensions), 1);
        }
        for (FileFacts file : state.files()) {
            CubeId root = file.root();
            int depth = Math.min(root.depth(), levels);
            addRange(events, start(root.ancestorAt(depth)), width(depth, dimensions), file.rowCount());
        }
        events.sort(Comparator.comparingDouble(event -> event[0]));
        double total = events.stream().filter(event -> event[1] > 0).mapToDouble(event -> event[1] * event[2]).sum();

        // sweep the piecewise-constant density: between two event positions it does not change
        long[] cuts = new long[regions - 1];
        int cut = 0;
        double density = 0;
        double before = 0;
        for (int i = 0; i < events.size() && cut < cuts.length; i++) {
            density += events.get(i)[1];
            double from = events.get(i)[0];
            double to = i + 1 < events.size() ? events.get(i + 1)[0] : from;
            double mass = density * (to - from);
            while (cut < cuts.length && mass > 0 && before + mass >= total * (cut + 1) / regions) {
                double position = from + (total * (cut + 1) / regions - before) / density;
                // a double's 53 bits are plenty for a place
                cuts[cut] = Math.max((long) Math.min(position, to), cut == 0 ? 0 : cuts[cut - 1]);
                cut++;
            }
            before += mass;
        }
        for (; cut < cuts.length; cut++) {
            cuts[cut] = Long.MAX_VALUE;
        }
        return new RegionCuts(dimensions, cuts);
    }

    /** Events {position, density change, width} of rows spread evenly over {@code [start, start + width)}. */
    private static void addRange(List<double[]> events, long start, double width, double rows)
    {
        events.add(new double[] {start, rows / width, width});
        events.add(new double[] {start + width, -rows / width, width});
    }

    /** Levels of a key: one bit per dimension each, within 63 bits and the fixed point's 62 levels. */
    private static int levels(int dimensions)
    {
        return Math.min(CubeId.MAX_DEPTH, KEY_BITS / dimensions);
    }

    /** The first key of a cube of at most {@code levels} levels. */
    private static long start(CubeId cube)
    {
        int dimensions = cube.dimensions();
        long key = 0;
        for (int level = 0; level < cube.depth(); level++) {
            key = (key << dimensions) | cube.childIndex(level);
        }
        return key << (KEY_BITS - cube.depth() * dimensions);
    }

    private static double width(int depth, int dimensions)
    {
        return Math.scalb(1.0, KEY_BITS - depth * dimensions);
    }

    public int dimensions()
    {
        return dimensions;
    }

    /** The number of regions: one more than the cuts. */
    public int regions()
    {
        return cuts.length + 1;
    }

    /** The first key of each region after the first, in order. */
    public long[] cuts()
    {
        return cuts.clone();
    }

    /** The region, in {@code [0, regions())}, of the point at {@code coordinates[offset .. offset + D)}. */
    public int region(double[] coordinates, int offset)
    {
        long key = key(coordinates, offset);
        // regions before the point's key: the number of cuts at or below it
        int low = 0;
        int high = cuts.length;
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (cuts[middle] <= key) {
                low = middle + 1;
            }
            else {
                high = middle;
            }
        }
        return low;
    }

    /** The point's depth-first key (see the class comment). */
    long key(double[] coordinates, int offset)
    {
        long key = 0;
        for (int j = 0; j < dimensions; j++) {
            double x = coordinates[offset + j];
            // NaN and negatives to the first cell, 1 and above to the last
            long fixed = x > 0 ? Math.min(CubeId.fixedPoint(Math.min(x, 1.0)), (1L << 62) - 1) : 0;
            for (int level = 0; level < levels; level++) {
                key |= ((fixed >>> (61 - level)) & 1) << (KEY_BITS - 1 - level * dimensions - j);
            }
        }
        return key;
    }

    /** The first key of the cube's range; a cube deeper than the key's levels by its ancestor there. */
    long keyStart(CubeId cube)
    {
        return start(cube.ancestorAt(Math.min(cube.depth(), levels)));
    }

    @Override
    public String toString()
    {
        return "RegionCuts{dimensions=%s, regions=%s}".formatted(dimensions, regions());
    }
}

package io.qbeast.index;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.ToLongFunction;

import static java.util.Objects.requireNonNull;

/**
 * Assigns every row of a batch to one cube of a revision's tree, given the tree so far.
 *
 * <p>Rows are processed in ascending weight. Each row walks down from the root along the cells of
 * its point and stops at the first cube that accepts it; a cube that refuses a row refuses every
 * later (heavier) row, so within a batch every row a cube keeps weighs at most what any row below
 * it weighs, and a cube keeps the lowest weights of its region that no ancestor kept:
 * <ul>
 * <li>a new cube, or an existing leaf, accepts rows until it holds the cube size;</li>
 * <li>an existing full cube (inner, or a leaf already at the cube size) accepts only rows below
 * its weight bound, and only while its estimated logical content (existing rows below the row's
 * weight, assuming its rows spread evenly over its weight range, plus rows accepted now) stays
 * under the cube size, and only while it holds less than {@link #MAX_FILL} times the cube size
 * in total; this lowers its bound, making existing rows above the new bound stale until
 * optimize;</li>
 * <li>a cube at the maximum depth accepts everything, which is what stops duplicates of one point
 * from splitting forever.</li>
 * </ul>
 *
 * <p>Speed: points become 64-bit keys holding the child index of every level that fits (62-bit
 * fixed point, interleaved with {@link Long#expand}); (weight, row) pairs are radix sorted
 * together with the keys so the walk reads memory sequentially; tree nodes are parallel arrays
 * with a dense child table for up to 8 dimensions and a hash table above. Nothing is allocated
 * per row; a batch of n rows takes about 36n bytes of scratch besides the 8n of the result. Thread
 * safe: all state of a call is local to it.
 *
 * <p>Size (over 500 lines): one algorithm and the array-based tree it walks; split into classes,
 * the per-row loop would call across them, which is what the layout above avoids.
 */
public final class BatchIndexer
{
    public static final int DEFAULT_MAX_DEPTH = 32;
    /** An existing full cube accepts no more rows once it holds this many times the cube size. */
    public static final double MAX_FILL = 1.9;

    private static final int DENSE_CHILDREN_MAX_DIMENSIONS = 8;
    private static final int TOP_BUCKETS = 1 << 11;

    private final int maxDepth;

    public BatchIndexer()
    {
        this(DEFAULT_MAX_DEPTH);
    }

    /** @param maxDepth depth of the deepest cube the indexer creates; the cubes there overflow */
    public BatchIndexer(int maxDepth)
    {
        if (maxDepth < 0 || maxDepth > CubeId.MAX_DEPTH) {
            throw new IllegalArgumentException("Max depth must be in [0, %s]: %s".formatted(CubeId.MAX_DEPTH, maxDepth));
        }
        this.maxDepth = maxDepth;
    }

    public int maxDepth()
    {
        return maxDepth;
    }

    /**
     * @param coordinates row-major points, {@code rows * D} coordinates in [0, 1)
     * @param weights one weight per row
     */
    public CubeAssignment assign(IndexState state, double[] coordinates, int[] weights, int rows)
    {
        return assign(state, coordinates, weights, rows, _ -> 0);
    }

    /**
     * As {@link #assign(IndexState, double[], int[], int)}, for a writer that indexes one statement's
     * rows in several batches: {@code unwrittenRows} says, per cube of {@code state}, how many of its
     * rows are this writer's own earlier batches, not yet written to any file. They count for the
     * cube's weight bound and content like any row, but not against {@link #MAX_FILL}: that cap
     * bounds how large appends make a cube's blocks, while rows of one statement end up in one
     * block anyway. Without it, the upper cubes of a large write fill up after a few batches and
     * the lightest rows of later batches fall through to the leaves, where a sample must read them.
     */
    public CubeAssignment assign(IndexState state, double[] coordinates, int[] weights, int rows, ToLongFunction<CubeId> unwrittenRows)
    {
        requireNonNull(state, "state is null");
        requireNonNull(unwrittenRows, "unwrittenRows is null");
        requireNonNull(coordinates, "coordinates is null");
        requireNonNull(weights, "weights is null");
        int dimensions = state.dimensions();
        if (rows < 0 || weights.length < rows || coordinates.length < (long) rows * dimensions) {
            throw new IllegalArgumentException("Batch of %s rows needs %s weights and %s coordinates, got %s and %s".formatted(
                    rows, rows, (long) rows * dimensions, weights.length, coordinates.length));
        }

        int keyLevels = keyLevels(dimensions);
        long[] packed = new long[rows];
        long[] keys = new long[rows];
        computeKeys(coordinates, weights, rows, dimensions, keyLevels, packed, keys);
        long[] sortedPacked = new long[rows];
        long[] sortedKeys = new long[rows];
        sortByWeight(packed, keys, sortedPacked, sortedKeys, rows);

        Tree tree = new Tree(state, maxDepth, coordinates, keyLevels, unwrittenRows);
        int[] nodeOfSorted = new int[rows];
        tree.walk(sortedPacked, sortedKeys, nodeOfSorted, rows);
        return tree.result(sortedPacked, nodeOfSorted, rows);
    }

    // how many levels of child indexes fit in a 64-bit key (a coordinate has 62 bits)
    private static int keyLevels(int dimensions)
    {
        return Math.min(62, 64 / dimensions);
    }

    private static void computeKeys(double[] coordinates, int[] weights, int rows, int dimensions, int keyLevels, long[] packed, long[] keys)
    {
        long[] masks = new long[dimensions];
        for (int j = 0; j < dimensions; j++) {
            for (int level = 0; level < keyLevels; level++) {
                masks[j] |= 1L << (63 - dimensions * level - j);
            }
        }
        int dropBits = 62 - keyLevels;
        for (int row = 0; row < rows; row++) {
            // weights as unsigned in the high half, so an unsigned radix sort orders them as ints
            packed[row] = ((weights[row] ^ 0x8000_0000L) & 0xFFFF_FFFFL) << 32 | row;
            int offset = row * dimensions;
            long key = 0;
            if (dimensions == 1) {
                key = fixedPoint(coordinates[offset], row, 0) << 2;
            }
            else {
                for (int j = 0; j < dimensions; j++) {
                    key |= Long.expand(fixedPoint(coordinates[offset + j], row, j) >>> dropBits, masks[j]);
                }
            }
            keys[row] = key;
        }
    }

    private static long fixedPoint(double coordinate, int row, int dimension)
    {
        if (!(coordinate >= 0.0 && coordinate < 1.0)) {
            throw new IllegalArgumentException("Coordinate %s of row %s in dimension %s is outside [0, 1)".formatted(coordinate, row, dimension));
        }
        return CubeId.fixedPoint(coordinate);
    }

    /**
     * Sorts {@code packed} (unsigned weight in the high half, row in the low half) carrying
     * {@code keys}, into {@code sortedPacked} and {@code sortedKeys}; the inputs are scratch space.
     * One pass scatters by the top 11 weight bits into 2048 buckets of cache-friendly size, then
     * each bucket is sorted on the remaining 21 bits by an in-cache LSD radix sort (11 + 10 bits),
     * or by insertion sort when tiny. Stable, so equal weights stay in row order.
     */
    private static void sortByWeight(long[] packed, long[] keys, long[] sortedPacked, long[] sortedKeys, int rows)
    {
        int[] bucketStarts = new int[TOP_BUCKETS + 1];
        for (int i = 0; i < rows; i++) {
            bucketStarts[(int) (packed[i] >>> 53) + 1]++;
        }
        for (int bucket = 0; bucket < TOP_BUCKETS; bucket++) {
            bucketStarts[bucket + 1] += bucketStarts[bucket];
        }
        int[] next = Arrays.copyOf(bucketStarts, TOP_BUCKETS);
        for (int i = 0; i < rows; i++) {
            long value = packed[i];
            int position = next[(int) (value >>> 53)]++;
            sortedPacked[position] = value;
            sortedKeys[position] = keys[i];
        }
        int[] low = new int[1 << 11];
        int[] high = new int[1 << 10];
        for (int bucket = 0; bucket < TOP_BUCKETS; bucket++) {
            int start = bucketStarts[bucket];
            int end = bucketStarts[bucket + 1];
            if (end - start <= 32) {
                insertionSort(sortedPacked, sortedKeys, start, end);
                continue;
            }
            Arrays.fill(low, 0);
            Arrays.fill(high, 0);
            for (int i = start; i < end; i++) {
                long value = sortedPacked[i];
                low[(int) (value >>> 32) & 0x7FF]++;
                high[(int) (value >>> 43) & 0x3FF]++;
            }
            toOffsets(low, start);
            toOffsets(high, start);
            for (int i = start; i < end; i++) {
                long value = sortedPacked[i];
                int position = low[(int) (value >>> 32) & 0x7FF]++;
                packed[position] = value;
                keys[position] = sortedKeys[i];
            }
            for (int i = start; i < end; i++) {
                long value = packed[i];
                int position = high[(int) (value >>> 43) & 0x3FF]++;
                sortedPacked[position] = value;
                sortedKeys[position] = keys[i];
            }
        }
    }

    // within a bucket the top bits are equal, so signed order is weight order, then row order
    private static void insertionSort(long[] packed, long[] keys, int start, int end)
    {
        for (int i = start + 1; i < end; i++) {
            long value = packed[i];
            long key = keys[i];
            int j = i - 1;
            while (j >= start && packed[j] > value) {
                packed[j + 1] = packed[j];
                keys[j + 1] = keys[j];
                j--;
            }
            packed[j + 1] = value;
            keys[j + 1] = key;
        }
    }

    private static void toOffsets(int[] counts, int start)
    {
        int sum = start;
        for (int i = 0; i < counts.length; i++) {
            int count = counts[i];
            counts[i] = sum;
            sum += count;
        }
    }

    /** The tree of one call: parallel node arrays, node 0 is the root. */
    private static final class Tree
    {
        private final long cubeSize;
        private final int dimensions;
        private final int maxDepth;
        private final double[] coordinates;
        private final int keyLevels;
        private final long rootCubeRevision;
        private final boolean dense;
        private final int childMask;

        private int nodeCount;
        private int[] parents = new int[64];
        private int[] childIndexes = new int[64];
        private int[] depths = new int[64];
        private boolean[] closed = new boolean[64];
        private long[] accepted = new long[64];
        private long[] existing = new long[64];
        private long[] capacities = new long[64];
        private long[] acceptBelow = new long[64];
        private long[] contentLow = new long[64];
        private double[] contentSlope = new double[64];

        // dense: children of node n at childSlots[childBase[n] + index]; else a hash table
        private int[] childBase = new int[64];
        private int[] childSlots = new int[0];
        private int childSlotCount;
        private final ChildTable childTable;

        private final ToLongFunction<CubeId> unwrittenRows;

        Tree(IndexState state, int maxDepth, double[] coordinates, int keyLevels, ToLongFunction<CubeId> unwrittenRows)
        {
            this.unwrittenRows = unwrittenRows;
            this.cubeSize = state.cubeSize();
            this.dimensions = state.dimensions();
            this.maxDepth = maxDepth;
            this.coordinates = coordinates;
            this.keyLevels = keyLevels;
            this.rootCubeRevision = state.revisionId();
            this.dense = dimensions <= DENSE_CHILDREN_MAX_DIMENSIONS;
            this.childMask = (int) ((1L << dimensions) - 1);
            this.childTable = dense ? null : new ChildTable();

            newNode(-1, 0, 0);
            for (CubeState cube : state.cubes()) {
                int node = 0;
                CubeId id = cube.cube();
                for (int level = 0; level < id.depth(); level++) {
                    node = child(node, id.childIndex(level), level + 1);
                }
                configureExisting(node, cube);
            }
        }

        private void configureExisting(int node, CubeState cube)
        {
            if (depths[node] >= maxDepth) {
                return;
            }
            long rows = cube.rowCount();
            existing[node] = rows;
            if (cube.inner() || rows >= cubeSize) {
                capacities[node] = (long) (MAX_FILL * cubeSize) + unwrittenRows.applyAsLong(cube.cube());
                long bound = cube.weightBound();
                if (bound == Weight.ALL && !cube.isEmpty()) {
                    bound = cube.maxWeight() + 1L;
                }
                acceptBelow[node] = bound;
                int parent = parents[node];
                long parentBound = parent < 0 ? Weight.MIN : acceptBelow[parent];
                if (cube.weightBound() < Weight.ALL && parentBound < cube.weightBound()) {
                    // a learned bound: the tree keeps a cube size of rows between the parent's bound
                    // and this one, whatever rollup groups hide of the exact count
                    contentLow[node] = parentBound;
                    contentSlope[node] = cubeSize / (double) (cube.weightBound() - parentBound);
                }
                else if (!cube.isEmpty() && rows > 0) {
                    // no bound evidence: assume the rows spread evenly over their weight range
                    contentLow[node] = cube.minWeight();
                    contentSlope[node] = rows / (double) (cube.maxWeight() + 1L - cube.minWeight());
                }
                else {
                    // nothing to estimate its content from: fill it like a leaf
                    capacities[node] = cubeSize;
                }
            }
        }

        private int newNode(int parent, int childIndex, int depth)
        {
            int node = nodeCount++;
            if (node == parents.length) {
                int size = node * 2;
                parents = Arrays.copyOf(parents, size);
                childIndexes = Arrays.copyOf(childIndexes, size);
                depths = Arrays.copyOf(depths, size);
                closed = Arrays.copyOf(closed, size);
                accepted = Arrays.copyOf(accepted, size);
                existing = Arrays.copyOf(existing, size);
                capacities = Arrays.copyOf(capacities, size);
                acceptBelow = Arrays.copyOf(acceptBelow, size);
                contentLow = Arrays.copyOf(contentLow, size);
                contentSlope = Arrays.copyOf(contentSlope, size);
                childBase = Arrays.copyOf(childBase, size);
            }
            parents[node] = parent;
            childIndexes[node] = childIndex;
            depths[node] = depth;
            childBase[node] = -1;
            // a new cube fills up to the cube size; the deepest cubes take everything
            boolean deepest = depth >= maxDepth;
            capacities[node] = deepest ? Long.MAX_VALUE : cubeSize;
            acceptBelow[node] = Weight.ALL;
            return node;
        }

        private int child(int node, int childIndex, int childDepth)
        {
            if (dense) {
                int base = childBase[node];
                if (base < 0) {
                    base = allocateChildSlots(node);
                }
                int child = childSlots[base + childIndex];
                if (child < 0) {
                    child = newNode(node, childIndex, childDepth);
                    childSlots[base + childIndex] = child;
                }
                return child;
            }
            int child = childTable.get(node, childIndex);
            if (child < 0) {
                child = newNode(node, childIndex, childDepth);
                childTable.put(node, childIndex, child);
            }
            return child;
        }

        private int allocateChildSlots(int node)
        {
            int fanOut = 1 << dimensions;
            if (childSlotCount + fanOut > childSlots.length) {
                childSlots = Arrays.copyOf(childSlots, Math.max(childSlots.length * 2, childSlotCount + fanOut));
            }
            int base = childSlotCount;
            Arrays.fill(childSlots, base, base + fanOut, -1);
            childSlotCount += fanOut;
            childBase[node] = base;
            return base;
        }

        void walk(long[] packed, long[] keys, int[] nodeOfSorted, int rows)
        {
            int shift = 64 - dimensions;
            for (int i = 0; i < rows; i++) {
                long value = packed[i];
                int weight = (int) (value >>> 32) ^ 0x8000_0000;
                long key = keys[i];
                int node = 0;
                int depth = 0;
                while (closed[node] || !accept(node, weight)) {
                    int childIndex = depth < keyLevels
                            ? (int) (key >>> (shift - dimensions * depth)) & childMask
                            : childIndexFromCoordinates((int) value, depth);
                    depth++;
                    node = child(node, childIndex, depth);
                }
                nodeOfSorted[i] = node;
            }
        }

        private boolean accept(int node, int weight)
        {
            long held = accepted[node];
            if (weight < acceptBelow[node]
                    && existing[node] + held < capacities[node]
                    && (contentSlope[node] == 0.0 || Math.max(0, weight - contentLow[node]) * contentSlope[node] + held < cubeSize)) {
                accepted[node] = held + 1;
                return true;
            }
            // weights only grow from here, so the cube is done for this batch
            closed[node] = true;
            return false;
        }

        // levels beyond what the key holds: recompute from the point (rare: deep skew or duplicates)
        private int childIndexFromCoordinates(int row, int depth)
        {
            int childIndex = 0;
            int offset = row * dimensions;
            for (int j = 0; j < dimensions; j++) {
                long bit = (CubeId.fixedPoint(coordinates[offset + j]) >>> (61 - depth)) & 1;
                childIndex = (childIndex << 1) | (int) bit;
            }
            return childIndex;
        }

        CubeAssignment result(long[] packed, int[] nodeOfSorted, int rows)
        {
            CubeId[] ids = new CubeId[nodeCount];
            List<Integer> used = new ArrayList<>();
            for (int node = 0; node < nodeCount; node++) {
                if (accepted[node] > 0) {
                    used.add(node);
                }
            }
            CubeId[] usedIds = new CubeId[used.size()];
            for (int i = 0; i < usedIds.length; i++) {
                usedIds[i] = cubeId(used.get(i), ids);
            }
            Integer[] order = new Integer[used.size()];
            for (int i = 0; i < order.length; i++) {
                order[i] = i;
            }
            Arrays.sort(order, (a, b) -> usedIds[a].compareTo(usedIds[b]));

            int[] ordinal = new int[nodeCount];
            List<CubeId> cubes = new ArrayList<>(order.length);
            long[] rowsPerCube = new long[order.length];
            for (int i = 0; i < order.length; i++) {
                int node = used.get(order[i]);
                ordinal[node] = i;
                cubes.add(usedIds[order[i]]);
                rowsPerCube[i] = accepted[node];
            }

            int[] cubeOfRow = new int[rows];
            int[] rowsInWeightOrder = new int[rows];
            int[] minWeights = new int[order.length];
            int[] maxWeights = new int[order.length];
            Arrays.fill(minWeights, Weight.MAX);
            Arrays.fill(maxWeights, Weight.MIN);
            for (int i = 0; i < rows; i++) {
                long value = packed[i];
                int row = (int) value;
                int weight = (int) (value >>> 32) ^ 0x8000_0000;
                int cube = ordinal[nodeOfSorted[i]];
                cubeOfRow[row] = cube;
                rowsInWeightOrder[i] = row;
                // ascending weights: the first row of a cube has its minimum, the last its maximum
                if (minWeights[cube] > weight) {
                    minWeights[cube] = weight;
                }
                maxWeights[cube] = weight;
            }
            return new CubeAssignment(cubes, cubeOfRow, rowsPerCube, minWeights, maxWeights, rowsInWeightOrder);
        }

        private CubeId cubeId(int node, CubeId[] ids)
        {
            if (ids[node] == null) {
                ids[node] = node == 0 ? CubeId.root(rootCubeRevision, dimensions) : cubeId(parents[node], ids).child(childIndexes[node]);
            }
            return ids[node];
        }
    }

    /** Open-addressing map from (node, child index) to child node, for trees too wide for dense tables. */
    private static final class ChildTable
    {
        private long[] keys = new long[1024];
        private int[] values = new int[1024];
        private int size;

        ChildTable()
        {
            Arrays.fill(keys, -1);
        }

        int get(int node, int childIndex)
        {
            long key = key(node, childIndex);
            int mask = keys.length - 1;
            for (int slot = slot(key, mask); ; slot = (slot + 1) & mask) {
                if (keys[slot] == key) {
                    return values[slot];
                }
                if (keys[slot] == -1) {
                    return -1;
                }
            }
        }

        void put(int node, int childIndex, int child)
        {
            if (2 * (size + 1) > keys.length) {
                grow();
            }
            insert(key(node, childIndex), child);
            size++;
        }

        private void insert(long key, int value)
        {
            int mask = keys.length - 1;
            int slot = slot(key, mask);
            while (keys[slot] != -1) {
                slot = (slot + 1) & mask;
            }
            keys[slot] = key;
            values[slot] = value;
        }

        private void grow()
        {
            long[] oldKeys = keys;
            int[] oldValues = values;
            keys = new long[oldKeys.length * 2];
            values = new int[oldValues.length * 2];
            Arrays.fill(keys, -1);
            for (int i = 0; i < oldKeys.length; i++) {
                if (oldKeys[i] != -1) {
                    insert(oldKeys[i], oldValues[i]);
                }
            }
        }

        private static long key(int node, int childIndex)
        {
            return ((long) node << 32) | (childIndex & 0xFFFF_FFFFL);
        }

        private static int slot(long key, int mask)
        {
            long mixed = key * 0x9E3779B97F4A7C15L;
            return (int) (mixed >>> 32) & mask;
        }
    }
}

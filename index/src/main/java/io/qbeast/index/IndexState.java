package io.qbeast.index;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import static java.util.Objects.requireNonNull;

/**
 * The index of one revision of a table as far as appends and reads need it: per cube what the
 * files say (rows, blocks, weights, whether it is inner, its weight bound), built from the
 * {@link FileFacts} that Iceberg manifests hold. Immutable; {@link #plus} gives the state after
 * more files.
 *
 * <p>The known cubes are the cube bounds of every file, the root of every rollup group, and all
 * their ancestors. A single-cube file counts exactly. A group file's rows lie somewhere in the
 * pre-order range between its cube bounds; they are spread over the known cubes of that range in
 * proportion to each cube's logical content (the cube size for inner cubes, the rows of leaves),
 * which is where an append's rows land when it follows the distribution of the existing data.
 * Cubes that appear only inside groups are invisible until a later file names them; optimize
 * makes them exact again.
 */
public final class IndexState
{
    private final long revisionId;
    private final int dimensions;
    private final long cubeSize;
    private final List<FileFacts> files;
    private final List<CubeState> cubes;
    private final Map<CubeId, Integer> positions;
    // exclusive end of each cube's subtree in cubes
    private final int[] subtreeEnds;
    private final long rowCount;

    private IndexState(long revisionId, int dimensions, long cubeSize, List<FileFacts> files)
    {
        CubeId.root(revisionId, dimensions);
        if (cubeSize <= 0) {
            throw new IllegalArgumentException("Cube size must be positive: " + cubeSize);
        }
        this.revisionId = revisionId;
        this.dimensions = dimensions;
        this.cubeSize = cubeSize;
        this.files = List.copyOf(files);

        Builder builder = new Builder(revisionId, dimensions, cubeSize, this.files);
        this.cubes = builder.cubes;
        this.positions = builder.positions;
        this.subtreeEnds = builder.subtreeEnds;
        this.rowCount = this.files.stream().mapToLong(FileFacts::rowCount).sum();
    }

    public static IndexState empty(Revision revision)
    {
        return of(revision, List.of());
    }

    public static IndexState of(Revision revision, Collection<FileFacts> files)
    {
        requireNonNull(revision, "revision is null");
        return of(revision.id(), revision.dimensions(), revision.cubeSize(), files);
    }

    public static IndexState empty(long revisionId, int dimensions, long cubeSize)
    {
        return of(revisionId, dimensions, cubeSize, List.of());
    }

    public static IndexState of(long revisionId, int dimensions, long cubeSize, Collection<FileFacts> files)
    {
        requireNonNull(files, "files is null");
        return new IndexState(revisionId, dimensions, cubeSize, List.copyOf(files));
    }

    /** The state after {@code moreFiles} were added to this revision. */
    public IndexState plus(Collection<FileFacts> moreFiles)
    {
        requireNonNull(moreFiles, "moreFiles is null");
        if (moreFiles.isEmpty()) {
            return this;
        }
        List<FileFacts> all = new ArrayList<>(files.size() + moreFiles.size());
        all.addAll(files);
        all.addAll(moreFiles);
        return new IndexState(revisionId, dimensions, cubeSize, all);
    }

    public long revisionId()
    {
        return revisionId;
    }

    public int dimensions()
    {
        return dimensions;
    }

    public long cubeSize()
    {
        return cubeSize;
    }

    public CubeId root()
    {
        return CubeId.root(revisionId, dimensions);
    }

    public List<FileFacts> files()
    {
        return files;
    }

    /** Known cubes in depth-first pre-order. */
    public List<CubeState> cubes()
    {
        return cubes;
    }

    public Optional<CubeState> cube(CubeId cube)
    {
        Integer position = positions.get(requireNonNull(cube, "cube is null"));
        return position == null ? Optional.empty() : Optional.of(cubes.get(position));
    }

    public long rowCount()
    {
        return rowCount;
    }

    public boolean isEmpty()
    {
        return files.isEmpty();
    }

    /** Position in {@link #cubes()} after the last descendant of the cube at {@code position}. */
    int subtreeEnd(int position)
    {
        return subtreeEnds[position];
    }

    @Override
    public String toString()
    {
        return "IndexState[revision=%s, dimensions=%s, cubeSize=%s, files=%s, cubes=%s, rows=%s]".formatted(
                revisionId, dimensions, cubeSize, files.size(), cubes.size(), rowCount);
    }

    private static final class Builder
    {
        final List<CubeState> cubes;
        final Map<CubeId, Integer> positions;
        final int[] subtreeEnds;

        Builder(long revisionId, int dimensions, long cubeSize, List<FileFacts> files)
        {
            int fileCount = files.size();
            CubeId[] minCubes = new CubeId[fileCount];
            CubeId[] maxCubes = new CubeId[fileCount];
            CubeId[] roots = new CubeId[fileCount];
            Map<CubeId, Integer> known = new HashMap<>();
            for (int f = 0; f < fileCount; f++) {
                FileFacts file = files.get(f);
                minCubes[f] = file.minCubeId();
                maxCubes[f] = file.maxCubeId();
                for (CubeId bound : List.of(minCubes[f], maxCubes[f])) {
                    if (bound.revisionId() != revisionId || bound.dimensions() != dimensions) {
                        throw new IllegalArgumentException("File of cube %s does not belong to revision %s with %s dimensions".formatted(bound, revisionId, dimensions));
                    }
                }
                roots[f] = CubeId.lowestCommonAncestor(minCubes[f], maxCubes[f]);
                addWithAncestors(known, minCubes[f]);
                addWithAncestors(known, maxCubes[f]);
                addWithAncestors(known, roots[f]);
            }

            CubeId[] sorted = known.keySet().toArray(CubeId[]::new);
            Arrays.sort(sorted);
            int n = sorted.length;
            positions = new HashMap<>(n * 2);
            for (int i = 0; i < n; i++) {
                positions.put(sorted[i], i);
            }

            // pre-order: the nearest open ancestor on the stack is the parent (all ancestors are known)
            int[] parents = new int[n];
            subtreeEnds = new int[n];
            Deque<Integer> open = new ArrayDeque<>();
            for (int i = 0; i < n; i++) {
                while (!open.isEmpty() && !sorted[open.peek()].isAncestorOf(sorted[i])) {
                    subtreeEnds[open.pop()] = i;
                }
                parents[i] = open.isEmpty() ? -1 : open.peek();
                open.push(i);
            }
            while (!open.isEmpty()) {
                subtreeEnds[open.pop()] = n;
            }

            long[] exactRows = new long[n];
            int[] blocks = new int[n];
            int[] minWeights = new int[n];
            int[] maxWeights = new int[n];
            Arrays.fill(minWeights, Weight.MAX);
            Arrays.fill(maxWeights, Weight.MIN);
            // smallest weight of files rooted at a cube (they lie strictly below its ancestors),
            // and of group files whose rows all lie strictly below their root
            long[] rootedMin = new long[n];
            long[] strictlyBelowMin = new long[n];
            Arrays.fill(rootedMin, Weight.ALL);
            Arrays.fill(strictlyBelowMin, Weight.ALL);

            List<Integer> groups = new ArrayList<>();
            for (int f = 0; f < fileCount; f++) {
                FileFacts file = files.get(f);
                int root = positions.get(roots[f]);
                rootedMin[root] = Math.min(rootedMin[root], file.minWeight());
                if (file.isSingleCube()) {
                    exactRows[root] += file.rowCount();
                    blocks[root]++;
                    minWeights[root] = Math.min(minWeights[root], file.minWeight());
                    maxWeights[root] = Math.max(maxWeights[root], file.maxWeight());
                }
                else {
                    groups.add(f);
                    if (!minCubes[f].equals(roots[f])) {
                        strictlyBelowMin[root] = Math.min(strictlyBelowMin[root], file.minWeight());
                    }
                }
            }

            // Spread group rows over the known cubes between their bounds in proportion to what each
            // takes from a write that follows the table's distribution: its logical content, which
            // is the cube size for an inner cube and its rows for a leaf (half the cube size when
            // the leaf's rows are all inside groups, for want of anything better).
            double[] shares = new double[n];
            double[] prefix = new double[n + 1];
            for (int i = 0; i < n; i++) {
                boolean inner = i + 1 < n && sorted[i].isAncestorOf(sorted[i + 1]);
                shares[i] = inner ? cubeSize : Math.max(Math.min(exactRows[i], cubeSize), cubeSize / 2.0);
                prefix[i + 1] = prefix[i] + shares[i];
            }
            double[] rateChange = new double[n + 1];
            int[] blockChange = new int[n + 1];
            List<List<Integer>> starting = new ArrayList<>(n + 1);
            List<List<Integer>> ending = new ArrayList<>(n + 1);
            for (int i = 0; i <= n; i++) {
                starting.add(null);
                ending.add(null);
            }
            for (int f : groups) {
                FileFacts file = files.get(f);
                int first = positions.get(minCubes[f]);
                int last = positions.get(maxCubes[f]);
                double rate = file.rowCount() / (prefix[last + 1] - prefix[first]);
                rateChange[first] += rate;
                rateChange[last + 1] -= rate;
                blockChange[first]++;
                blockChange[last + 1]--;
                add(starting, first, f);
                add(ending, last + 1, f);
            }
            double rate = 0;
            int activeBlocks = 0;
            TreeMap<Integer, Integer> activeMins = new TreeMap<>();
            TreeMap<Integer, Integer> activeMaxes = new TreeMap<>();
            long[] rows = new long[n];
            for (int i = 0; i < n; i++) {
                for (int f : listOrEmpty(ending.get(i))) {
                    remove(activeMins, files.get(f).minWeight());
                    remove(activeMaxes, files.get(f).maxWeight());
                }
                for (int f : listOrEmpty(starting.get(i))) {
                    activeMins.merge(files.get(f).minWeight(), 1, Integer::sum);
                    activeMaxes.merge(files.get(f).maxWeight(), 1, Integer::sum);
                }
                rate += rateChange[i];
                activeBlocks += blockChange[i];
                rows[i] = exactRows[i] + (activeBlocks == 0 ? 0 : Math.round(rate * shares[i]));
                blocks[i] += activeBlocks;
                if (!activeMins.isEmpty()) {
                    minWeights[i] = Math.min(minWeights[i], activeMins.firstKey());
                    maxWeights[i] = Math.max(maxWeights[i], activeMaxes.lastKey());
                }
            }

            // bottom-up (reverse pre-order visits children before parents)
            long[] subtreeRows = rows.clone();
            int[] subtreeMinWeights = minWeights.clone();
            long[] subtreeRootedMin = rootedMin.clone();
            long[] weightBounds = strictlyBelowMin.clone();
            for (int i = n - 1; i >= 0; i--) {
                int parent = parents[i];
                if (parent >= 0) {
                    subtreeRows[parent] += subtreeRows[i];
                    subtreeMinWeights[parent] = Math.min(subtreeMinWeights[parent], subtreeMinWeights[i]);
                    subtreeRootedMin[parent] = Math.min(subtreeRootedMin[parent], subtreeRootedMin[i]);
                    weightBounds[parent] = Math.min(weightBounds[parent], subtreeRootedMin[i]);
                }
            }

            List<CubeState> states = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                boolean inner = i + 1 < n && sorted[i].isAncestorOf(sorted[i + 1]);
                states.add(new CubeState(sorted[i], rows[i], blocks[i], minWeights[i], maxWeights[i], inner, weightBounds[i], subtreeRows[i], subtreeMinWeights[i]));
            }
            cubes = List.copyOf(states);
        }

        private static void addWithAncestors(Map<CubeId, Integer> known, CubeId cube)
        {
            while (known.putIfAbsent(cube, 0) == null && !cube.isRoot()) {
                cube = cube.parent();
            }
        }

        private static void add(List<List<Integer>> lists, int index, int value)
        {
            if (lists.get(index) == null) {
                lists.set(index, new ArrayList<>(2));
            }
            lists.get(index).add(value);
        }

        private static List<Integer> listOrEmpty(List<Integer> list)
        {
            return list == null ? List.of() : list;
        }

        private static void remove(TreeMap<Integer, Integer> multiset, int key)
        {
            multiset.computeIfPresent(key, (_, count) -> count == 1 ? null : count - 1);
        }
    }
}

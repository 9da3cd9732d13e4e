package io.qbeast.trino.write;

import io.qbeast.index.CubeId;
import io.qbeast.index.FileLayout;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;
import static java.util.Objects.requireNonNull;

/**
 * Merges the sorted runs of one page sink into the row groups of a {@link FileLayout} plan: the
 * cubes of all runs in one order, and for each planned row group its rows in (cube, weight) order. A
 * slice of one cube is a k-way merge of the runs by weight; a pack of small cubes is collected from
 * every run and sorted by cube, then weight. Row groups are filled in plan order, reading every run once, front to back.
 */
public final class RunMerger
{
    private final List<SortedRun> runs;
    private final List<CubeId> cubes;
    private final long[] rowsPerCube;
    // per run: the position in cubes of each of its cubes
    private final int[][] globalCube;
    private final SortedRun.Cursor[] cursors;
    private final boolean[] hasRow;
    private int nextCube;

    public RunMerger(List<SortedRun> runs)
    {
        this.runs = List.copyOf(requireNonNull(runs, "runs is null"));
        TreeMap<CubeId, Long> rows = new TreeMap<>();
        for (SortedRun run : this.runs) {
            for (int cube = 0; cube < run.cubes().size(); cube++) {
                rows.merge(run.cubes().get(cube), run.rows(cube), Long::sum);
            }
        }
        this.cubes = List.copyOf(rows.keySet());
        this.rowsPerCube = rows.values().stream().mapToLong(Long::longValue).toArray();
        this.globalCube = new int[this.runs.size()][];
        this.cursors = new SortedRun.Cursor[this.runs.size()];
        this.hasRow = new boolean[this.runs.size()];
        List<CubeId> all = new ArrayList<>(cubes);
        for (int run = 0; run < this.runs.size(); run++) {
            List<CubeId> local = this.runs.get(run).cubes();
            int[] mapping = new int[local.size()];
            int position = 0;
            for (int cube = 0; cube < local.size(); cube++) {
                while (!all.get(position).equals(local.get(cube))) {
                    position++;
                }
                mapping[cube] = position;
            }
            globalCube[run] = mapping;
            cursors[run] = this.runs.get(run).cursor();
            hasRow[run] = cursors[run].advance();
        }
    }

    /** The cubes of all runs, in order. */
    public List<CubeId> cubes()
    {
        return cubes;
    }

    /** Rows per cube of {@link #cubes()}, over all runs. */
    public long[] rowsPerCube()
    {
        return rowsPerCube.clone();
    }

    /** Memory held by the runs (their pages and current read positions). */
    public long retainedBytes()
    {
        return runs.stream().mapToLong(SortedRun::retainedBytes).sum();
    }

    /**
     * Replaces the content of {@code refs} with the rows of {@code group}: a slice of one cube in
     * ascending weight, a pack cube after cube, each in ascending weight; their cubes are
     * positions in {@link #cubes()}.
     */
    public void fill(FileLayout.Slice group, RowRefs refs)
    {
        checkArgument(group.firstCube() >= nextCube, "row groups out of order: cube %s after %s", group.firstCube(), nextCube);
        refs.clear();
        if (group.isSingleCube()) {
            mergeSlice(group.firstCube(), group.rows(), refs);
        }
        else {
            collectPack(group.firstCube(), group.lastCube(), refs);
            refs.sortByCubeThenWeight();
        }
        checkState(refs.size() == group.rows(), "row group of cubes %s..%s: planned %s rows, the runs hold %s", group.firstCube(), group.lastCube(), group.rows(), refs.size());
        nextCube = group.isSingleCube() ? group.firstCube() : group.lastCube() + 1;
    }

    // the next `rows` rows of the cube, over all runs, in ascending weight: a binary heap of runs
    private void mergeSlice(int cube, long rows, RowRefs refs)
    {
        int[] heap = new int[runs.size()];
        int size = 0;
        for (int run = 0; run < runs.size(); run++) {
            if (atCube(run, cube)) {
                heap[size++] = run;
            }
        }
        for (int i = size / 2 - 1; i >= 0; i--) {
            siftDown(heap, size, i);
        }
        while (refs.size() < rows && size > 0) {
            int run = heap[0];
            SortedRun.Cursor cursor = cursors[run];
            refs.add(cursor.page(), cursor.position(), cursor.weight(), cube);
            hasRow[run] = cursor.advance();
            if (!atCube(run, cube)) {
                heap[0] = heap[--size];
            }
            siftDown(heap, size, 0);
        }
    }

    private void collectPack(int firstCube, int lastCube, RowRefs refs)
    {
        for (int run = 0; run < runs.size(); run++) {
            SortedRun.Cursor cursor = cursors[run];
            while (hasRow[run] && globalCube[run][cursor.cube()] <= lastCube) {
                int cube = globalCube[run][cursor.cube()];
                checkState(cube >= firstCube, "run %s still holds rows of cube %s before the row group of cubes %s..%s", run, cube, firstCube, lastCube);
                refs.add(cursor.page(), cursor.position(), cursor.weight(), cube);
                hasRow[run] = cursor.advance();
            }
        }
    }

    private boolean atCube(int run, int cube)
    {
        return hasRow[run] && globalCube[run][cursors[run].cube()] == cube;
    }

    private void siftDown(int[] heap, int size, int index)
    {
        while (true) {
            int smallest = index;
            int left = 2 * index + 1;
            int right = left + 1;
            if (left < size && lighter(heap[left], heap[smallest])) {
                smallest = left;
            }
            if (right < size && lighter(heap[right], heap[smallest])) {
                smallest = right;
            }
            if (smallest == index) {
                return;
            }
            int swap = heap[index];
            heap[index] = heap[smallest];
            heap[smallest] = swap;
            index = smallest;
        }
    }

    // by weight, then by run (earlier runs first): deterministic
    private boolean lighter(int run, int other)
    {
        int a = cursors[run].weight();
        int b = cursors[other].weight();
        return a < b || (a == b && run < other);
    }
}

package io.qbeast.index;

import java.util.Collections;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The result of {@link BatchIndexer#assign}: the cube of every row of a batch.
 *
 * <p>The per-row arrays are large, so they are handed over rather than copied: the assignment never
 * reads them again after construction except through these accessors, and callers must not modify
 * them if they keep using the assignment.
 */
public final class CubeAssignment
{
    private final List<CubeId> cubes;
    private final int[] cubeOfRow;
    private final long[] rowsPerCube;
    private final int[] minWeights;
    private final int[] maxWeights;
    private final int[] rowsInWeightOrder;

    CubeAssignment(List<CubeId> cubes, int[] cubeOfRow, long[] rowsPerCube, int[] minWeights, int[] maxWeights, int[] rowsInWeightOrder)
    {
        this.cubes = List.copyOf(cubes);
        this.cubeOfRow = cubeOfRow;
        this.rowsPerCube = rowsPerCube;
        this.minWeights = minWeights;
        this.maxWeights = maxWeights;
        this.rowsInWeightOrder = rowsInWeightOrder;
    }

    /** The distinct cubes that received rows, in pre-order. */
    public List<CubeId> cubes()
    {
        return cubes;
    }

    public int cubeCount()
    {
        return cubes.size();
    }

    public int rowCount()
    {
        return cubeOfRow.length;
    }

    /** Per row of the batch, the position of its cube in {@link #cubes()}. */
    public int[] cubeOfRow()
    {
        return cubeOfRow;
    }

    /** Per cube of {@link #cubes()}, how many rows it received. */
    public long[] rowsPerCube()
    {
        return rowsPerCube.clone();
    }

    public long rows(int cube)
    {
        return rowsPerCube[cube];
    }

    public int minWeight(int cube)
    {
        return minWeights[cube];
    }

    public int maxWeight(int cube)
    {
        return maxWeights[cube];
    }

    /**
     * The batch's row numbers in ascending weight (ties in row order): writing a file's rows in
     * this order makes a sample of the file a prefix of it.
     */
    public int[] rowsInWeightOrder()
    {
        return rowsInWeightOrder;
    }

    /** Position of {@code cube} in {@link #cubes()}, or -1. */
    public int indexOf(CubeId cube)
    {
        int index = Collections.binarySearch(cubes, requireNonNull(cube, "cube is null"));
        return index < 0 ? -1 : index;
    }

    /** What the manifests will say about the file holding {@code group}'s rows of this batch. */
    public FileFacts fileFacts(CubeGroup group)
    {
        int minWeight = Weight.MAX;
        int maxWeight = Weight.MIN;
        long rows = 0;
        for (CubeId member : group.members()) {
            int index = indexOf(member);
            if (index < 0) {
                throw new IllegalArgumentException("Cube %s received no rows in this batch".formatted(member));
            }
            minWeight = Math.min(minWeight, minWeights[index]);
            maxWeight = Math.max(maxWeight, maxWeights[index]);
            rows += rowsPerCube[index];
        }
        return FileFacts.of(group.members().getFirst(), group.members().getLast(), minWeight, maxWeight, rows);
    }
}

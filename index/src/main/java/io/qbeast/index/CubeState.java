package io.qbeast.index;

import static java.util.Objects.requireNonNull;

/**
 * What the index state knows about one cube of a revision's tree, derived from {@link FileFacts}.
 *
 * <p>Files of a single cube give exact numbers. The rows of a rollup group file are spread over
 * the known cubes between its cube bounds in proportion to their exact row counts (see
 * {@link IndexState}), so for cubes covered by groups {@code rowCount} is an estimate and
 * {@code blockCount}, {@code minWeight} and {@code maxWeight} count every group that may hold
 * rows of the cube. A cube that no file holds rows of (an ancestor all of whose rows were pushed
 * to other cubes) has {@code blockCount == 0}, {@code rowCount == 0},
 * {@code minWeight == Weight.MAX} and {@code maxWeight == Weight.MIN}.
 *
 * @param rowCount rows stored in this cube (estimated where rollup groups cover it)
 * @param blockCount files that hold, or may hold, rows of this cube
 * @param minWeight smallest weight of those files' rows
 * @param maxWeight largest weight of those files' rows
 * @param inner whether rows exist strictly below this cube, i.e. it was full at some write
 * @param weightBound the smallest weight of the files all of whose rows lie strictly below this
 *         cube, or {@link Weight#ALL} if there are none: evidence of the cube's weight bound
 * @param subtreeRowCount rows of this cube and all its descendants
 * @param subtreeMinWeight smallest {@code minWeight} of this cube and all its descendants
 */
public record CubeState(
        CubeId cube,
        long rowCount,
        int blockCount,
        int minWeight,
        int maxWeight,
        boolean inner,
        long weightBound,
        long subtreeRowCount,
        int subtreeMinWeight)
{
    public CubeState
    {
        requireNonNull(cube, "cube is null");
        if (rowCount < 0 || blockCount < 0 || subtreeRowCount < rowCount) {
            throw new IllegalArgumentException("Invalid counts for cube %s: rows %s, blocks %s, subtree rows %s".formatted(cube, rowCount, blockCount, subtreeRowCount));
        }
        if (weightBound < Weight.NONE || weightBound > Weight.ALL) {
            throw new IllegalArgumentException("Weight bound out of range: " + weightBound);
        }
    }

    public boolean isEmpty()
    {
        return blockCount == 0;
    }
}

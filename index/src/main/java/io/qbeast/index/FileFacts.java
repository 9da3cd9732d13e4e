package io.qbeast.index;

import java.util.Arrays;
import java.util.HexFormat;

import static java.util.Objects.requireNonNull;

/**
 * What the Iceberg manifests say about one indexed data file: the lower and upper bounds of its
 * {@code _qbeast_cube} column, of its {@code _qbeast_weight} column, and its record count.
 *
 * <p>A file holds the rows of one cube ({@code minCube == maxCube}) or of a rollup group. A group
 * is a connected part of the tree, so all its cubes lie in the subtree of
 * {@link #root()}, the lowest common ancestor of the two bounds (pre-order puts every cube between
 * the bounds in that subtree). The root is {@code minCube} whenever the root itself has rows in
 * the file.
 */
public record FileFacts(byte[] minCube, byte[] maxCube, int minWeight, int maxWeight, long rowCount)
{
    public FileFacts
    {
        requireNonNull(minCube, "minCube is null");
        requireNonNull(maxCube, "maxCube is null");
        minCube = minCube.clone();
        maxCube = maxCube.clone();
        if (CubeId.compareBytes(minCube, maxCube) > 0) {
            throw new IllegalArgumentException("minCube sorts after maxCube");
        }
        if (minWeight > maxWeight) {
            throw new IllegalArgumentException("minWeight %s is greater than maxWeight %s".formatted(minWeight, maxWeight));
        }
        if (rowCount <= 0) {
            throw new IllegalArgumentException("An indexed file has rows: " + rowCount);
        }
    }

    public static FileFacts of(CubeId minCube, CubeId maxCube, int minWeight, int maxWeight, long rowCount)
    {
        return new FileFacts(minCube.toBytes(), maxCube.toBytes(), minWeight, maxWeight, rowCount);
    }

    @Override
    public byte[] minCube()
    {
        return minCube.clone();
    }

    @Override
    public byte[] maxCube()
    {
        return maxCube.clone();
    }

    public CubeId minCubeId()
    {
        return CubeId.fromBytes(minCube);
    }

    public CubeId maxCubeId()
    {
        return CubeId.fromBytes(maxCube);
    }

    /** The cube whose region holds every row of the file. */
    public CubeId root()
    {
        CubeId min = minCubeId();
        return isSingleCube() ? min : CubeId.lowestCommonAncestor(min, maxCubeId());
    }

    public boolean isSingleCube()
    {
        return Arrays.equals(minCube, maxCube);
    }

    @Override
    public boolean equals(Object o)
    {
        return o instanceof FileFacts other
                && Arrays.equals(minCube, other.minCube)
                && Arrays.equals(maxCube, other.maxCube)
                && minWeight == other.minWeight
                && maxWeight == other.maxWeight
                && rowCount == other.rowCount;
    }

    @Override
    public int hashCode()
    {
        return 31 * (31 * (31 * (31 * Arrays.hashCode(minCube) + Arrays.hashCode(maxCube)) + minWeight) + maxWeight) + Long.hashCode(rowCount);
    }

    @Override
    public String toString()
    {
        return "FileFacts[minCube=%s, maxCube=%s, minWeight=%s, maxWeight=%s, rowCount=%s]".formatted(
                readable(minCube), readable(maxCube), minWeight, maxWeight, rowCount);
    }

    private static String readable(byte[] cube)
    {
        try {
            return CubeId.fromBytes(cube).toString();
        }
        catch (IllegalArgumentException e) {
            return HexFormat.of().formatHex(cube);
        }
    }
}

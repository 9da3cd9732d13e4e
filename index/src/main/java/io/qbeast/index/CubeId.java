package io.qbeast.index;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * A cube of a revision's OTree: the root covers [0, 1)^D and every level halves each of the D
 * dimensions, so a cube has 2^D children. A child index has bit {@code D-1-j} set iff the child
 * lies in the upper half of dimension {@code j} (dimension 0 is the most significant bit).
 *
 * <p>The byte form is the 8-byte big-endian revision id, one byte D, then for each level
 * {@code ceil(D/8)} bytes holding the child index big-endian. An ancestor's bytes are a prefix of
 * its descendants', so unsigned lexicographic byte order is depth-first pre-order and a subtree is
 * the contiguous range [{@link #toBytes()}, {@link #subtreeEndBytes()}). This is what the
 * {@code _qbeast_cube} column stores and why its per-file lower/upper bounds describe a file.
 *
 * <p>Regions are computed in 62-bit fixed point (see {@link #fixedPoint}), so containment agrees
 * exactly with how the indexer walks points down the tree, at any depth.
 */
public final class CubeId
        implements Comparable<CubeId>
{
    /** Child indexes are {@code int}s. */
    public static final int MAX_DIMENSIONS = 31;
    /** A cell index per dimension fits the 62 bits of a fixed-point coordinate. */
    public static final int MAX_DEPTH = 62;

    private static final int HEADER_BYTES = 9;
    private static final int FIXED_POINT_BITS = 62;

    private final byte[] bytes;
    private final int dimensions;
    private final int depth;
    // cell index of this cube along each dimension at its depth
    private final long[] cells;
    private final int hash;

    private CubeId(byte[] bytes, int dimensions, int depth, long[] cells)
    {
        this.bytes = bytes;
        this.dimensions = dimensions;
        this.depth = depth;
        this.cells = cells;
        this.hash = Arrays.hashCode(bytes);
    }

    public static CubeId root(long revisionId, int dimensions)
    {
        if (revisionId < 0) {
            throw new IllegalArgumentException("Revision id must not be negative: " + revisionId);
        }
        checkDimensions(dimensions);
        byte[] bytes = new byte[HEADER_BYTES];
        for (int i = 0; i < 8; i++) {
            bytes[i] = (byte) (revisionId >>> (56 - 8 * i));
        }
        bytes[8] = (byte) dimensions;
        return new CubeId(bytes, dimensions, 0, new long[dimensions]);
    }

    public static CubeId fromBytes(byte[] bytes)
    {
        requireNonNull(bytes, "bytes is null");
        if (bytes.length < HEADER_BYTES) {
            throw new IllegalArgumentException("Cube id too short: " + bytes.length + " bytes");
        }
        CubeId cube = root(revisionId(bytes), bytes[8] & 0xFF);
        int levelBytes = levelBytes(cube.dimensions);
        if ((bytes.length - HEADER_BYTES) % levelBytes != 0) {
            throw new IllegalArgumentException("Cube id length %s does not match %s dimensions".formatted(bytes.length, cube.dimensions));
        }
        for (int offset = HEADER_BYTES; offset < bytes.length; offset += levelBytes) {
            int childIndex = 0;
            for (int i = 0; i < levelBytes; i++) {
                childIndex = (childIndex << 8) | (bytes[offset + i] & 0xFF);
            }
            cube = cube.child(childIndex);
        }
        return cube;
    }

    /** Parses {@link #toString()}; the root's string has no levels, so it needs {@link #parse(String, int)}. */
    public static CubeId parse(String text)
    {
        requireNonNull(text, "text is null");
        int colon = text.indexOf(':');
        if (colon < 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException("Cannot infer the dimensions of cube id '%s'; use parse(text, dimensions)".formatted(text));
        }
        int end = text.indexOf('.', colon);
        return parse(text, (end < 0 ? text.length() : end) - colon - 1);
    }

    public static CubeId parse(String text, int dimensions)
    {
        requireNonNull(text, "text is null");
        int colon = text.indexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("Invalid cube id: '%s'".formatted(text));
        }
        CubeId cube;
        try {
            cube = root(Long.parseLong(text.substring(0, colon)), dimensions);
        }
        catch (NumberFormatException e) {
            throw new IllegalArgumentException("Invalid revision in cube id: '%s'".formatted(text), e);
        }
        String levels = text.substring(colon + 1);
        if (levels.isEmpty()) {
            return cube;
        }
        for (String level : levels.split("\\.", -1)) {
            if (level.length() != dimensions) {
                throw new IllegalArgumentException("Level '%s' of cube id '%s' does not have %s digits".formatted(level, text, dimensions));
            }
            int childIndex = 0;
            for (int j = 0; j < dimensions; j++) {
                char digit = level.charAt(j);
                if (digit != '0' && digit != '1') {
                    throw new IllegalArgumentException("Invalid digit in cube id: '%s'".formatted(text));
                }
                childIndex = (childIndex << 1) | (digit - '0');
            }
            cube = cube.child(childIndex);
        }
        return cube;
    }

    /** Unsigned lexicographic order, which for cube ids of one revision is depth-first pre-order. */
    public static int compareBytes(byte[] left, byte[] right)
    {
        return Arrays.compareUnsigned(left, right);
    }

    /** The deepest cube that is {@code a} or an ancestor of it and {@code b} or an ancestor of it. */
    public static CubeId lowestCommonAncestor(CubeId a, CubeId b)
    {
        a.checkSameTree(b);
        int mismatch = Arrays.mismatch(a.bytes, b.bytes);
        if (mismatch < 0) {
            return a;
        }
        int commonDepth = Math.min((mismatch - HEADER_BYTES) / levelBytes(a.dimensions), Math.min(a.depth, b.depth));
        return a.ancestorAt(commonDepth);
    }

    /**
     * The 62-bit fixed-point form of a coordinate in [0, 1): exact (a power-of-two scaling), so the
     * cell of a point at depth d is {@code fixedPoint(x) >>> (62 - d)}.
     */
    static long fixedPoint(double coordinate)
    {
        return (long) (coordinate * 0x1p62);
    }

    public long revisionId()
    {
        return revisionId(bytes);
    }

    public int dimensions()
    {
        return dimensions;
    }

    public int depth()
    {
        return depth;
    }

    public boolean isRoot()
    {
        return depth == 0;
    }

    public CubeId child(int childIndex)
    {
        if (childIndex < 0 || childIndex >= (1L << dimensions)) {
            throw new IllegalArgumentException("Child index %s out of range for %s dimensions".formatted(childIndex, dimensions));
        }
        if (depth == MAX_DEPTH) {
            throw new IllegalStateException("Cube is at the maximum depth " + MAX_DEPTH + ": " + this);
        }
        int levelBytes = levelBytes(dimensions);
        byte[] childBytes = Arrays.copyOf(bytes, bytes.length + levelBytes);
        for (int i = 0; i < levelBytes; i++) {
            childBytes[bytes.length + i] = (byte) (childIndex >>> (8 * (levelBytes - 1 - i)));
        }
        long[] childCells = new long[dimensions];
        for (int j = 0; j < dimensions; j++) {
            childCells[j] = (cells[j] << 1) | ((childIndex >>> (dimensions - 1 - j)) & 1);
        }
        return new CubeId(childBytes, dimensions, depth + 1, childCells);
    }

    public List<CubeId> children()
    {
        List<CubeId> children = new ArrayList<>(1 << dimensions);
        for (int i = 0; i < (1 << dimensions); i++) {
            children.add(child(i));
        }
        return List.copyOf(children);
    }

    public CubeId parent()
    {
        if (isRoot()) {
            throw new IllegalStateException("The root cube has no parent");
        }
        return ancestorAt(depth - 1);
    }

    /** This cube's ancestor at {@code ancestorDepth} (this cube itself at its own depth). */
    public CubeId ancestorAt(int ancestorDepth)
    {
        if (ancestorDepth < 0 || ancestorDepth > depth) {
            throw new IllegalArgumentException("No ancestor at depth %s of a cube at depth %s".formatted(ancestorDepth, depth));
        }
        if (ancestorDepth == depth) {
            return this;
        }
        long[] ancestorCells = new long[dimensions];
        for (int j = 0; j < dimensions; j++) {
            ancestorCells[j] = cells[j] >>> (depth - ancestorDepth);
        }
        return new CubeId(Arrays.copyOf(bytes, HEADER_BYTES + ancestorDepth * levelBytes(dimensions)), dimensions, ancestorDepth, ancestorCells);
    }

    /** The strict ancestors, root first. */
    public List<CubeId> ancestors()
    {
        List<CubeId> ancestors = new ArrayList<>(depth);
        for (int d = 0; d < depth; d++) {
            ancestors.add(ancestorAt(d));
        }
        return List.copyOf(ancestors);
    }

    /** The child index of this cube in its parent. */
    public int childIndex()
    {
        if (isRoot()) {
            throw new IllegalStateException("The root cube has no child index");
        }
        return childIndex(depth - 1);
    }

    /** The child index taken at {@code level} (0 is the root's child) on the path to this cube. */
    public int childIndex(int level)
    {
        if (level < 0 || level >= depth) {
            throw new IllegalArgumentException("Level %s out of range for depth %s".formatted(level, depth));
        }
        int levelBytes = levelBytes(dimensions);
        int offset = HEADER_BYTES + level * levelBytes;
        int childIndex = 0;
        for (int i = 0; i < levelBytes; i++) {
            childIndex = (childIndex << 8) | (bytes[offset + i] & 0xFF);
        }
        return childIndex;
    }

    /** Strict: a cube is not its own ancestor. */
    public boolean isAncestorOf(CubeId other)
    {
        return other.depth > depth
                && other.dimensions == dimensions
                && Arrays.equals(bytes, 0, bytes.length, other.bytes, 0, bytes.length);
    }

    public boolean isAncestorOrSelf(CubeId other)
    {
        return equals(other) || isAncestorOf(other);
    }

    /** The cell index of this cube along {@code dimension}: its region is [cell, cell + 1) / 2^depth. */
    public long cell(int dimension)
    {
        return cells[dimension];
    }

    /** Inclusive lower end of the region along {@code dimension}. */
    public double lowerBound(int dimension)
    {
        return Math.scalb((double) cells[dimension], -depth);
    }

    /**
     * Exclusive upper end of the region along {@code dimension}. Exact up to depth 52; deeper, the
     * nearest double (containment itself is exact, see {@link #contains(double[], int)}).
     */
    public double upperBound(int dimension)
    {
        return Math.scalb((double) (cells[dimension] + 1), -depth);
    }

    public boolean contains(double[] point)
    {
        if (point.length != dimensions) {
            throw new IllegalArgumentException("Point has %s coordinates, cube has %s dimensions".formatted(point.length, dimensions));
        }
        return contains(point, 0);
    }

    /** Whether the point at {@code coordinates[offset .. offset + D)} lies in this cube's region. */
    public boolean contains(double[] coordinates, int offset)
    {
        for (int j = 0; j < dimensions; j++) {
            double x = coordinates[offset + j];
            if (!(x >= 0.0 && x < 1.0)) {
                return false;
            }
            if (depth > 0 && fixedPoint(x) >>> (FIXED_POINT_BITS - depth) != cells[j]) {
                return false;
            }
        }
        return true;
    }

    public byte[] toBytes()
    {
        return bytes.clone();
    }

    /** The smallest byte string greater than the bytes of every cube in this cube's subtree. */
    public byte[] subtreeEndBytes()
    {
        int length = bytes.length;
        // the revision id is not negative, so the first byte is never 0xFF and this terminates
        while ((bytes[length - 1] & 0xFF) == 0xFF) {
            length--;
        }
        byte[] end = Arrays.copyOf(bytes, length);
        end[length - 1]++;
        return end;
    }

    @Override
    public int compareTo(CubeId other)
    {
        return compareBytes(bytes, other.bytes);
    }

    @Override
    public boolean equals(Object o)
    {
        return o instanceof CubeId other && hash == other.hash && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode()
    {
        return hash;
    }

    /** {@code "<revision>:<level>.<level>..."}, each level D binary digits, dimension 0 first; the root is {@code "<revision>:"}. */
    @Override
    public String toString()
    {
        StringBuilder builder = new StringBuilder(24 + depth * (dimensions + 1));
        builder.append(revisionId()).append(':');
        for (int level = 0; level < depth; level++) {
            if (level > 0) {
                builder.append('.');
            }
            int childIndex = childIndex(level);
            for (int j = 0; j < dimensions; j++) {
                builder.append((char) ('0' + ((childIndex >>> (dimensions - 1 - j)) & 1)));
            }
        }
        return builder.toString();
    }

    private void checkSameTree(CubeId other)
    {
        if (other.dimensions != dimensions || other.revisionId() != revisionId()) {
            throw new IllegalArgumentException("Cubes of different trees: %s and %s".formatted(this, other));
        }
    }

    static int levelBytes(int dimensions)
    {
        return (dimensions + 7) / 8;
    }

    private static long revisionId(byte[] bytes)
    {
        long id = 0;
        for (int i = 0; i < 8; i++) {
            id = (id << 8) | (bytes[i] & 0xFF);
        }
        return id;
    }

    private static void checkDimensions(int dimensions)
    {
        if (dimensions < 1 || dimensions > MAX_DIMENSIONS) {
            throw new IllegalArgumentException("Dimensions must be in [1, %s]: %s".formatted(MAX_DIMENSIONS, dimensions));
        }
    }
}

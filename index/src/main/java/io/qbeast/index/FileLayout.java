package io.qbeast.index;

import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The one rule that turns the cubes a writer holds into slices, row groups and files. The writer
 * (INSERT, CREATE TABLE AS and optimize), the simulations of {@code index/} and the documentation
 * follow it; readers rely on what it guarantees. A {@link Slice} is what the writer takes from its
 * runs at once (cubes whole, or a weight range of one cube); it is written as one row group, or,
 * when it is the rest of a large cube, as several (point parts):
 * <ul>
 *   <li><b>Depth-first order.</b> Row groups follow the cubes in pre-order (the order of
 *       {@link CubeId}), and a file is a run of consecutive row groups, so a file holds a
 *       contiguous pre-order range of cubes: its {@code _qbeast_cube} bounds are the first and the
 *       last cube it holds, and every cube in between lies in the subtree of their lowest common
 *       ancestor. Neither a row group nor a file spans two revisions.</li>
 *   <li><b>Row groups are small regions.</b> A cube of at least {@link Settings#minRowGroupBytes()}
 *       is one or more row groups of its own. Smaller cubes are packed with the cubes after them
 *       while all of them lie in the subtree of the first one's parent (siblings and their
 *       descendants: neighbours in space, never distant regions) and the pack holds at most the
 *       minimum; so Parquet row-group statistics of the indexed columns describe one compact region.</li>
 *   <li><b>Weight slices.</b> A cube that is large enough is cut in weight order into a head of
 *       1/16 of its rows, a middle up to 1/4 and the rest (then into pieces of at most
 *       {@link Settings#maxRowGroupBytes()}): a sample of fraction f reads a weight prefix of every
 *       cube it touches and skips most of each inner cube by the row groups' {@code _qbeast_weight}
 *       statistics. The head and the middle are written in ascending weight, and a pack cube after
 *       cube, each cube's first quarter ({@link #weightOrderedRows}) in ascending weight, so a
 *       sample's rows come first in each (the reader skips the pages above its bound by their
 *       weight bounds), and a page of a pack covers one cube's region or less.</li>
 *   <li><b>Point parts.</b> The rest of a large cube (weights above what most samples read) is
 *       put in point order ({@link RowOrder}: first
 *       indexed column, then the second) and written as {@link Slice#pointParts()} row groups of
 *       consecutive rows of at least a quarter of the minimum row group: each covers a narrow range
 *       of the first indexed column inside the cube, so a range predicate on it skips most of
 *       every cube it touches. In a pack (also of one small cube) the rest of each cube after its
 *       first quarter is in point order too, so the pages of that rest cover parts of the cube's
 *       region and the column indexes of the indexed columns let a range predicate skip them.</li>
 *   <li><b>Large files.</b> A file is cut before a slice that would take it past
 *       {@link Settings#targetFileBytes()} ({@link #cutsBefore}), never inside a slice: the
 *       point parts of a slice stay in one file.</li>
 * </ul>
 * Sizes are estimates: row groups are planned from in-memory bytes per row, and files are cut on
 * bytes actually written plus the next row group's estimate at the compression seen so far.
 */
public final class FileLayout
{
    /** Cumulative fractions of a large cube's rows (in weight order) where a new row group starts. */
    private static final double[] WEIGHT_CUTS = {1.0 / 16, 1.0 / 4};
    /** A weight-cut slice must be at least this fraction of the minimum row-group size. */
    private static final int MIN_SLICE_DIVISOR = 4;
    /** A point part is at least this fraction of the minimum row-group size. */
    private static final int MIN_PART_DIVISOR = 4;
    /** Point parts of one slice, at most (a bound on the row groups a footer describes). */
    private static final int MAX_POINT_PARTS = 64;

    private final Settings settings;

    public FileLayout(Settings settings)
    {
        this.settings = requireNonNull(settings, "settings is null");
    }

    /**
     * @param targetFileBytes a file is cut before it would exceed this many bytes on storage
     * @param minRowGroupBytes in-memory bytes below which a cube is packed with its neighbours
     * @param maxRowGroupBytes in-memory bytes a row group never exceeds (unless one row does)
     */
    public record Settings(long targetFileBytes, long minRowGroupBytes, long maxRowGroupBytes)
    {
        public Settings
        {
            if (targetFileBytes <= 0 || minRowGroupBytes <= 0 || maxRowGroupBytes <= 0) {
                throw new IllegalArgumentException("Sizes must be positive: %s, %s, %s".formatted(targetFileBytes, minRowGroupBytes, maxRowGroupBytes));
            }
            if (minRowGroupBytes > maxRowGroupBytes) {
                throw new IllegalArgumentException("Minimum row group size %s is above the maximum %s".formatted(minRowGroupBytes, maxRowGroupBytes));
            }
        }
    }

    /**
     * One planned slice: cubes {@code [firstCube, lastCube]} (positions in the planned cube list)
     * whole, or, when {@code firstCube == lastCube} and the cube is cut, its rows
     * {@code [firstRow, firstRow + rows)} in weight order. With {@code pointParts == 1} it is one
     * row group in ascending weight; with more, its rows are put in point order and written as
     * that many row groups of consecutive rows (sizes differing by at most one row).
     */
    public record Slice(int firstCube, int lastCube, long firstRow, long rows, int pointParts)
    {
        public Slice
        {
            if (firstCube < 0 || lastCube < firstCube || firstRow < 0 || rows <= 0) {
                throw new IllegalArgumentException("Invalid slice: cubes %s..%s, rows %s+%s".formatted(firstCube, lastCube, firstRow, rows));
            }
            if (firstCube != lastCube && firstRow != 0) {
                throw new IllegalArgumentException("A slice of several cubes holds them whole");
            }
            if (pointParts < 1 || pointParts > rows || (pointParts > 1 && firstCube != lastCube)) {
                throw new IllegalArgumentException("Invalid point parts %s for a slice of %s rows of cubes %s..%s".formatted(pointParts, rows, firstCube, lastCube));
            }
        }

        /** A slice written as one row group in ascending weight. */
        public Slice(int firstCube, int lastCube, long firstRow, long rows)
        {
            this(firstCube, lastCube, firstRow, rows, 1);
        }

        /** The rows of point part {@code part}: {@code [from, to)} of the slice's point order. */
        public long partStart(int part)
        {
            if (part < 0 || part > pointParts) {
                throw new IllegalArgumentException("Part %s of %s".formatted(part, pointParts));
            }
            return rows * part / pointParts;
        }

        public boolean isSingleCube()
        {
            return firstCube == lastCube;
        }

        /**
         * Whether the slice holds its cubes whole (a pack, also of one cube), given the rows of
         * every planned cube: then each cube's rows after {@link #weightOrderedRows} are in point order.
         */
        public boolean holdsWholeCubes(long[] rowsPerCube)
        {
            return pointParts == 1 && firstRow == 0 && (firstCube != lastCube || rows == rowsPerCube[firstCube]);
        }
    }

    /**
     * Rows of a packed cube kept in ascending weight before the rest of it in point order: the
     * share a large cube gives its head and middle (1/4). A sample that reads up to a quarter of
     * a packed cube's rows reads its first pages only; a larger one reads the whole cube.
     */
    public static int weightOrderedRows(int cubeRows)
    {
        return (int) Math.ceil(cubeRows * WEIGHT_CUTS[WEIGHT_CUTS.length - 1]);
    }

    public Settings settings()
    {
        return settings;
    }

    /**
     * Plans the slices of cubes in pre-order.
     *
     * @param cubes distinct cubes in ascending order (revision, then pre-order)
     * @param rows rows per cube, positive
     * @param bytesPerRow estimated in-memory bytes of one row
     */
    public List<Slice> slices(List<CubeId> cubes, long[] rows, double bytesPerRow)
    {
        requireNonNull(cubes, "cubes is null");
        requireNonNull(rows, "rows is null");
        if (cubes.size() != rows.length) {
            throw new IllegalArgumentException("%s cubes but %s row counts".formatted(cubes.size(), rows.length));
        }
        if (!(bytesPerRow > 0)) {
            throw new IllegalArgumentException("bytesPerRow must be positive: " + bytesPerRow);
        }
        long minRows = Math.max(1, (long) (settings.minRowGroupBytes() / bytesPerRow));
        long maxRows = Math.max(1, (long) (settings.maxRowGroupBytes() / bytesPerRow));
        long minSliceRows = Math.max(1, minRows / MIN_SLICE_DIVISOR);
        long partRows = Math.max(1, minRows / MIN_PART_DIVISOR);

        List<Slice> groups = new ArrayList<>();
        int packStart = -1;
        CubeId packAnchor = null;
        long packRows = 0;
        for (int cube = 0; cube < cubes.size(); cube++) {
            CubeId id = cubes.get(cube);
            if (rows[cube] <= 0) {
                throw new IllegalArgumentException("Cube %s has no rows".formatted(id));
            }
            if (cube > 0 && cubes.get(cube - 1).compareTo(id) >= 0) {
                throw new IllegalArgumentException("Cubes are not distinct and in order at " + id);
            }
            boolean fitsPack = packStart >= 0
                    && packAnchor.isAncestorOrSelf(id)
                    && packRows + rows[cube] <= minRows;
            if (packStart >= 0 && !fitsPack) {
                addPack(groups, packStart, cube - 1, packRows);
                packStart = -1;
            }
            if (rows[cube] >= minRows) {
                addCube(groups, cube, rows[cube], minSliceRows, maxRows, partRows);
                continue;
            }
            if (packStart < 0) {
                packStart = cube;
                packAnchor = id.isRoot() ? id : id.parent();
                packRows = 0;
            }
            packRows += rows[cube];
        }
        if (packStart >= 0) {
            addPack(groups, packStart, cubes.size() - 1, packRows);
        }
        return List.copyOf(groups);
    }

    // a large cube: weight cuts where the slices stay large enough, then pieces of at most maxRows;
    // the pieces of the rest are cut in point order into parts of at least partRows
    private static void addCube(List<Slice> groups, int cube, long rows, long minSliceRows, long maxRows, long partRows)
    {
        long start = 0;
        for (double cut : WEIGHT_CUTS) {
            long end = (long) Math.ceil(rows * cut);
            if (end - start >= minSliceRows && rows - end >= minSliceRows) {
                addPieces(groups, cube, start, end - start, maxRows, Long.MAX_VALUE);
                start = end;
            }
        }
        addPieces(groups, cube, start, rows - start, maxRows, partRows);
    }

    // a pack, of one cube or several, stays in (cube, weight) order: a sample reads a prefix of each cube (a small
    // cube alone in point parts made a 1% sample read the whole root of a small table)
    private static void addPack(List<Slice> groups, int firstCube, int lastCube, long rows)
    {
        groups.add(new Slice(firstCube, lastCube, 0, rows));
    }

    private static int pointParts(long rows, long partRows)
    {
        return (int) Math.max(1, Math.min(MAX_POINT_PARTS, rows / partRows));
    }

    private static void addPieces(List<Slice> groups, int cube, long firstRow, long rows, long maxRows, long partRows)
    {
        long pieces = Math.ceilDiv(rows, maxRows);
        long done = 0;
        for (long piece = 0; piece < pieces; piece++) {
            long size = (rows - done) / (pieces - piece);
            groups.add(new Slice(cube, cube, firstRow + done, size, partRows == Long.MAX_VALUE ? 1 : pointParts(size, partRows)));
            done += size;
        }
    }

    /**
     * Whether the open file is closed before the next slice, which then starts a new file.
     *
     * @param fileBytes bytes the open file holds so far (0 when it holds nothing yet)
     * @param nextSliceBytes estimated bytes of the next slice on storage
     * @param sameRevision whether the next row group is of the revision of the open file
     */
    public boolean cutsBefore(long fileBytes, long nextSliceBytes, boolean sameRevision)
    {
        return fileBytes > 0 && (!sameRevision || fileBytes + nextSliceBytes > settings.targetFileBytes());
    }
}

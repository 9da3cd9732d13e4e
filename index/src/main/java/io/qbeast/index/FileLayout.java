package io.qbeast.index;

import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The one rule that turns the cubes a writer holds into row groups and files. The writer (INSERT,
 * CREATE TABLE AS and optimize), the simulations of {@code index/} and the documentation follow it;
 * readers rely on what it guarantees:
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
 *   <li><b>Weight order inside a row group.</b> A row group's rows are in ascending weight, and a
 *       cube that is large enough is cut in weight order into a head of 1/16 of its rows, a middle
 *       up to 1/4 and the rest (then into pieces of at most {@link Settings#maxRowGroupBytes()}):
 *       a sample of fraction f reads a prefix of every cube it touches, and with the head cut
 *       off it skips most of each inner cube by the row groups' {@code _qbeast_weight} statistics.</li>
 *   <li><b>Large files.</b> A file is cut before a row group that would take it past
 *       {@link Settings#targetFileBytes()} ({@link #cutsBefore}), never inside a row group.</li>
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
     * One planned row group: cubes {@code [firstCube, lastCube]} (positions in the planned cube
     * list) whole, or, when {@code firstCube == lastCube} and the cube is cut, its rows
     * {@code [firstRow, firstRow + rows)} in weight order.
     */
    public record RowGroup(int firstCube, int lastCube, long firstRow, long rows)
    {
        public RowGroup
        {
            if (firstCube < 0 || lastCube < firstCube || firstRow < 0 || rows <= 0) {
                throw new IllegalArgumentException("Invalid row group: cubes %s..%s, rows %s+%s".formatted(firstCube, lastCube, firstRow, rows));
            }
            if (firstCube != lastCube && firstRow != 0) {
                throw new IllegalArgumentException("A row group of several cubes holds them whole");
            }
        }

        public boolean isSingleCube()
        {
            return firstCube == lastCube;
        }
    }

    public Settings settings()
    {
        return settings;
    }

    /**
     * Plans the row groups of cubes in pre-order.
     *
     * @param cubes distinct cubes in ascending order (revision, then pre-order)
     * @param rows rows per cube, positive
     * @param bytesPerRow estimated in-memory bytes of one row
     */
    public List<RowGroup> rowGroups(List<CubeId> cubes, long[] rows, double bytesPerRow)
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

        List<RowGroup> groups = new ArrayList<>();
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
                groups.add(new RowGroup(packStart, cube - 1, 0, packRows));
                packStart = -1;
            }
            if (rows[cube] >= minRows) {
                addCube(groups, cube, rows[cube], minSliceRows, maxRows);
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
            groups.add(new RowGroup(packStart, cubes.size() - 1, 0, packRows));
        }
        return List.copyOf(groups);
    }

    // a large cube: weight cuts where the slices stay large enough, then pieces of at most maxRows
    private static void addCube(List<RowGroup> groups, int cube, long rows, long minSliceRows, long maxRows)
    {
        long start = 0;
        for (double cut : WEIGHT_CUTS) {
            long end = (long) Math.ceil(rows * cut);
            if (end - start >= minSliceRows && rows - end >= minSliceRows) {
                addPieces(groups, cube, start, end - start, maxRows);
                start = end;
            }
        }
        addPieces(groups, cube, start, rows - start, maxRows);
    }

    private static void addPieces(List<RowGroup> groups, int cube, long firstRow, long rows, long maxRows)
    {
        long pieces = Math.ceilDiv(rows, maxRows);
        long done = 0;
        for (long piece = 0; piece < pieces; piece++) {
            long size = (rows - done) / (pieces - piece);
            groups.add(new RowGroup(cube, cube, firstRow + done, size));
            done += size;
        }
    }

    /**
     * Whether the open file is closed before the next row group, which then starts a new file.
     *
     * @param fileBytes bytes the open file holds so far (0 when it holds nothing yet)
     * @param nextRowGroupBytes estimated bytes of the next row group on storage
     * @param sameRevision whether the next row group is of the revision of the open file
     */
    public boolean cutsBefore(long fileBytes, long nextRowGroupBytes, boolean sameRevision)
    {
        return fileBytes > 0 && (!sameRevision || fileBytes + nextRowGroupBytes > settings.targetFileBytes());
    }
}

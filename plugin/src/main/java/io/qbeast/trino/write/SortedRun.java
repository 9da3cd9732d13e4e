package io.qbeast.trino.write;

import io.qbeast.index.CubeId;
import io.trino.spi.Page;

import java.util.List;

/**
 * Rows of one indexed batch of a page sink in (cube, weight) order: held in memory
 * ({@link BufferedRun}) or spilled to a local file ({@link SpilledRun}). Read once, through
 * {@link #cursor()}; {@link #close()} releases it.
 */
public interface SortedRun
        extends AutoCloseable
{
    /** The run's cubes, in ascending order. */
    List<CubeId> cubes();

    /** Rows of the cube at {@code cube} in {@link #cubes()}. */
    long rows(int cube);

    long rowCount();

    /** Bytes of memory the run holds. */
    long retainedBytes();

    /** The rows in (cube, weight) order; call once. */
    Cursor cursor();

    @Override
    void close();

    /** A position in a run; before the first row until {@link #advance()}. */
    interface Cursor
    {
        /** Moves to the next row; false when there is none. */
        boolean advance();

        /** The current row's cube, as a position in {@link SortedRun#cubes()}. */
        int cube();

        int weight();

        /** The page holding the current row's input channels. */
        Page page();

        int position();
    }
}

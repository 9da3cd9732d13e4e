package io.qbeast.trino.write;

import io.qbeast.index.CubeId;
import io.qbeast.index.FileLayout;
import io.trino.spi.Page;

import java.util.List;

import static com.google.common.base.Preconditions.checkState;
import static java.util.Objects.requireNonNull;

/**
 * Several runs seen as one, in (cube, weight) order, merged a slice at a time: a sink with more
 * spilled runs than it may merge at once writes them to a single new run through this view.
 */
public final class MergedRun
        implements SortedRun
{
    private final RunMerger merger;
    private final long[] rowsPerCube;
    private final long rowCount;
    private final int sliceRows;
    private boolean read;

    /** @param sliceRows rows merged at a time (and so referenced at once) */
    public MergedRun(RunMerger merger, int sliceRows)
    {
        this.merger = requireNonNull(merger, "merger is null");
        this.rowsPerCube = merger.rowsPerCube();
        long rows = 0;
        for (long cubeRows : rowsPerCube) {
            rows += cubeRows;
        }
        this.rowCount = rows;
        this.sliceRows = sliceRows;
    }

    @Override
    public List<CubeId> cubes()
    {
        return merger.cubes();
    }

    @Override
    public long rows(int cube)
    {
        return rowsPerCube[cube];
    }

    @Override
    public long rowCount()
    {
        return rowCount;
    }

    @Override
    public long retainedBytes()
    {
        return merger.retainedBytes();
    }

    @Override
    public Cursor cursor()
    {
        checkState(!read, "a merged run is read once");
        read = true;
        return new Cursor()
        {
            private final RowRefs refs = new RowRefs();
            private int cube;
            private long cubeOffset;
            private int index = -1;

            @Override
            public boolean advance()
            {
                index++;
                while (index >= refs.size()) {
                    if (cube < rowsPerCube.length && cubeOffset >= rowsPerCube[cube]) {
                        cube++;
                        cubeOffset = 0;
                    }
                    if (cube >= rowsPerCube.length) {
                        refs.clear();
                        return false;
                    }
                    long rows = Math.min(sliceRows, rowsPerCube[cube] - cubeOffset);
                    merger.fill(new FileLayout.Slice(cube, cube, cubeOffset, rows), refs);
                    cubeOffset += rows;
                    index = 0;
                }
                return true;
            }

            @Override
            public int cube()
            {
                return refs.cube(index);
            }

            @Override
            public int weight()
            {
                return refs.weight(index);
            }

            @Override
            public Page page()
            {
                return refs.page(index);
            }

            @Override
            public int position()
            {
                return refs.position(index);
            }
        };
    }

    /** The merged runs are closed by their owner. */
    @Override
    public void close() {}
}

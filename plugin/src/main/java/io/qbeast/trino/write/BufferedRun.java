package io.qbeast.trino.write;

import io.qbeast.index.CubeAssignment;
import io.qbeast.index.CubeId;
import io.trino.spi.Page;

import java.util.Arrays;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * A batch of buffered pages as the indexer assigned it, read in (cube, weight) order without
 * copying a row: the order is an array of row numbers over the pages.
 */
public final class BufferedRun
        implements SortedRun
{
    private final List<Page> pages;
    private final List<CubeId> cubes;
    private final long[] rowsPerCube;
    private final int[] weights;
    private final int[] cubeOfRow;
    // row numbers in (cube, weight) order
    private final int[] order;
    private final int[] pageOfRow;
    private final int[] positionOfRow;
    private final long pageBytes;

    /**
     * @param pages the batch's pages, rows numbered across them in order
     * @param assignment the indexer's result for the batch
     * @param weights the weight of every row
     */
    public BufferedRun(List<Page> pages, CubeAssignment assignment, int[] weights)
    {
        this.pages = List.copyOf(requireNonNull(pages, "pages is null"));
        this.cubes = assignment.cubes();
        this.rowsPerCube = assignment.rowsPerCube();
        this.weights = requireNonNull(weights, "weights is null");
        this.cubeOfRow = assignment.cubeOfRow();
        int rows = cubeOfRow.length;

        // the weight order, bucketed by cube (stable): (cube, weight) order
        int[] cubeStarts = new int[cubes.size() + 1];
        for (int row = 0; row < rows; row++) {
            cubeStarts[cubeOfRow[row] + 1]++;
        }
        for (int cube = 0; cube < cubes.size(); cube++) {
            cubeStarts[cube + 1] += cubeStarts[cube];
        }
        this.order = new int[rows];
        int[] fill = Arrays.copyOf(cubeStarts, cubes.size());
        for (int row : assignment.rowsInWeightOrder()) {
            order[fill[cubeOfRow[row]]++] = row;
        }

        this.pageOfRow = new int[rows];
        this.positionOfRow = new int[rows];
        long bytes = 0;
        int row = 0;
        for (int page = 0; page < this.pages.size(); page++) {
            Page current = this.pages.get(page);
            bytes += current.getRetainedSizeInBytes();
            for (int position = 0; position < current.getPositionCount(); position++) {
                pageOfRow[row] = page;
                positionOfRow[row] = position;
                row++;
            }
        }
        if (row != rows) {
            throw new IllegalArgumentException("Pages hold %s rows, the assignment %s".formatted(row, rows));
        }
        this.pageBytes = bytes;
    }

    @Override
    public List<CubeId> cubes()
    {
        return cubes;
    }

    @Override
    public long rows(int cube)
    {
        return rowsPerCube[cube];
    }

    @Override
    public long rowCount()
    {
        return order.length;
    }

    @Override
    public long retainedBytes()
    {
        return pageBytes + 20L * order.length;
    }

    @Override
    public Cursor cursor()
    {
        return new Cursor()
        {
            private int index = -1;
            private int row;

            @Override
            public boolean advance()
            {
                index++;
                if (index >= order.length) {
                    return false;
                }
                row = order[index];
                return true;
            }

            @Override
            public int cube()
            {
                return cubeOfRow[row];
            }

            @Override
            public int weight()
            {
                return weights[row];
            }

            @Override
            public Page page()
            {
                return pages.get(pageOfRow[row]);
            }

            @Override
            public int position()
            {
                return positionOfRow[row];
            }
        };
    }

    @Override
    public void close() {}
}

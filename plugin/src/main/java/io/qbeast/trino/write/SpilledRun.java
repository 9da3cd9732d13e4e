package io.qbeast.trino.write;

import io.qbeast.index.CubeId;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.block.IntArrayBlock;
import io.trino.spi.type.Type;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkState;
import static io.trino.spi.type.IntegerType.INTEGER;
import static java.util.Objects.requireNonNull;

/**
 * A sorted run written to a local {@link SpillFile}: pages of the input channels plus a weight
 * channel, each page the rows of one cube in ascending weight, cubes in order. Memory: the one
 * page being read.
 */
public final class SpilledRun
        implements SortedRun
{
    private final SpillFile file;
    private final List<CubeId> cubes;
    private final long[] rowsPerCube;
    private final long rowCount;
    private final long fileBytes;
    private SpillFile.Reader reader;

    private SpilledRun(SpillFile file, List<CubeId> cubes, long[] rowsPerCube, long rowCount, long fileBytes)
    {
        this.file = file;
        this.cubes = cubes;
        this.rowsPerCube = rowsPerCube;
        this.rowCount = rowCount;
        this.fileBytes = fileBytes;
    }

    /**
     * Writes {@code run} to a new spill file in {@code directory}.
     *
     * @param inputTypes types of the run's input channels
     * @param pageRows rows per spilled page at most
     */
    public static SpilledRun spill(SortedRun run, List<Type> inputTypes, Path directory, String prefix, SpillPageSerde serde, int pageRows)
    {
        requireNonNull(run, "run is null");
        SpillFile file = SpillFile.create(directory, prefix, serde);
        try {
            SortedRun.Cursor cursor = run.cursor();
            RowRefs refs = new RowRefs();
            boolean more = cursor.advance();
            while (more) {
                int cube = cursor.cube();
                refs.clear();
                while (more && cursor.cube() == cube && refs.size() < pageRows) {
                    refs.add(cursor.page(), cursor.position(), cursor.weight(), cube);
                    more = cursor.advance();
                }
                Block[] blocks = new Block[inputTypes.size() + 1];
                for (int channel = 0; channel < inputTypes.size(); channel++) {
                    blocks[channel] = refs.gather(channel, inputTypes.get(channel));
                }
                blocks[inputTypes.size()] = new IntArrayBlock(refs.size(), Optional.empty(), refs.weights());
                file.write(cube, new Page(refs.size(), blocks));
            }
            long bytes = file.finishWriting();
            long[] rows = new long[run.cubes().size()];
            for (int cube = 0; cube < rows.length; cube++) {
                rows[cube] = run.rows(cube);
            }
            return new SpilledRun(file, run.cubes(), rows, run.rowCount(), bytes);
        }
        catch (RuntimeException | Error e) {
            try {
                file.close();
            }
            catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    public Path path()
    {
        return file.path();
    }

    public long fileBytes()
    {
        return fileBytes;
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
        return rowCount;
    }

    @Override
    public long retainedBytes()
    {
        SpillFile.Reader current = reader;
        Page page = current == null ? null : current.page();
        return 64L * cubes.size() + (page == null ? 0 : page.getRetainedSizeInBytes());
    }

    @Override
    public Cursor cursor()
    {
        checkState(reader == null, "run %s is read once", file.path());
        reader = file.reader();
        return new Cursor()
        {
            private Page page;
            private Block weights;
            private int weightChannel;
            private int position;
            private int cube;

            @Override
            public boolean advance()
            {
                position++;
                while (page == null || position >= page.getPositionCount()) {
                    if (!reader.next()) {
                        page = null;
                        return false;
                    }
                    page = reader.page();
                    cube = reader.cube();
                    weightChannel = page.getChannelCount() - 1;
                    weights = page.getBlock(weightChannel);
                    position = 0;
                }
                return true;
            }

            @Override
            public int cube()
            {
                return cube;
            }

            @Override
            public int weight()
            {
                return INTEGER.getInt(weights, position);
            }

            @Override
            public Page page()
            {
                return page;
            }

            @Override
            public int position()
            {
                return position;
            }
        };
    }

    @Override
    public void close()
    {
        try {
            if (reader != null) {
                reader.close();
            }
        }
        finally {
            file.close();
        }
    }
}

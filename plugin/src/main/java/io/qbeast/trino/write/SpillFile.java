package io.qbeast.trino.write;

import io.airlift.slice.InputStreamSliceInput;
import io.airlift.slice.OutputStreamSliceOutput;
import io.airlift.slice.SliceInput;
import io.airlift.slice.SliceOutput;
import io.trino.spi.Page;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static com.google.common.base.Preconditions.checkState;
import static java.util.Objects.requireNonNull;

/**
 * A local temporary file of pages, each tagged with the cube its rows belong to, written once and
 * then read back once in the same order. {@link #close()} deletes it.
 */
public final class SpillFile
        implements Closeable
{
    private static final int BUFFER_SIZE = 64 * 1024;
    private static final int END = -1;

    private final Path path;
    private final SpillPageSerde serde;
    private SliceOutput output;
    private boolean deleted;

    private SpillFile(Path path, SpillPageSerde serde, SliceOutput output)
    {
        this.path = path;
        this.serde = serde;
        this.output = output;
    }

    /** Creates a new empty file in {@code directory} (created if missing) named after {@code prefix}. */
    public static SpillFile create(Path directory, String prefix, SpillPageSerde serde)
    {
        requireNonNull(serde, "serde is null");
        try {
            Files.createDirectories(directory);
            Path path = Files.createTempFile(directory, prefix, ".spill");
            try {
                return new SpillFile(path, serde, new OutputStreamSliceOutput(Files.newOutputStream(path), BUFFER_SIZE));
            }
            catch (IOException | RuntimeException e) {
                Files.deleteIfExists(path);
                throw e;
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException("Cannot create a spill file in " + directory, e);
        }
    }

    public Path path()
    {
        return path;
    }

    public void write(int cube, Page page)
    {
        checkState(output != null, "spill file %s is not open for writing", path);
        output.writeInt(cube);
        serde.writePage(output, page);
    }

    /** Ends writing; returns the file's size in bytes. */
    public long finishWriting()
    {
        checkState(output != null, "spill file %s is not open for writing", path);
        try (SliceOutput closing = output) {
            closing.writeInt(END);
            output = null;
        }
        catch (IOException e) {
            throw new UncheckedIOException("Cannot write spill file " + path, e);
        }
        try {
            return Files.size(path);
        }
        catch (IOException e) {
            throw new UncheckedIOException("Cannot read the size of spill file " + path, e);
        }
    }

    public Reader reader()
    {
        checkState(output == null && !deleted, "spill file %s is not written", path);
        try {
            return new Reader(new InputStreamSliceInput(Files.newInputStream(path), BUFFER_SIZE));
        }
        catch (IOException e) {
            throw new UncheckedIOException("Cannot open spill file " + path, e);
        }
    }

    /** Deletes the file; idempotent, never throws for a file that is already gone. */
    @Override
    public void close()
    {
        if (deleted) {
            return;
        }
        deleted = true;
        try {
            if (output != null) {
                output.close();
                output = null;
            }
        }
        catch (IOException | RuntimeException _) {
            // deleted next
        }
        try {
            Files.deleteIfExists(path);
        }
        catch (IOException e) {
            throw new UncheckedIOException("Cannot delete spill file " + path, e);
        }
    }

    /** Reads the pages back in the order they were written. */
    public final class Reader
            implements Closeable
    {
        private final SliceInput input;
        private int cube = END;
        private Page page;

        private Reader(SliceInput input)
        {
            this.input = input;
        }

        /** Moves to the next page; false at the end of the file. */
        public boolean next()
        {
            cube = input.readInt();
            if (cube == END) {
                page = null;
                return false;
            }
            page = serde.readPage(input);
            return true;
        }

        public int cube()
        {
            return cube;
        }

        public Page page()
        {
            return page;
        }

        @Override
        public void close()
        {
            input.close();
        }
    }
}

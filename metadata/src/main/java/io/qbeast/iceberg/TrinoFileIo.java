package io.qbeast.iceberg;

import com.google.common.collect.ImmutableMap;
import com.google.common.collect.Iterables;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.filesystem.TrinoInputFile;
import io.trino.filesystem.TrinoInputStream;
import io.trino.filesystem.TrinoOutputFile;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.io.SupportsBulkOperations;

import java.io.ByteArrayOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * Iceberg {@link org.apache.iceberg.io.FileIO} over a Trino {@link TrinoFileSystem}: Iceberg
 * metadata, manifests and data files are read and written through the same file systems Trino
 * uses ({@code fs.local.enabled}, {@code fs.native-s3.enabled}, ...), so no Hadoop is
 * needed. Built programmatically (through a catalog's {@code ioBuilder}); never loaded by class
 * name, so {@link #initialize(Map)} only records the properties.
 */
public final class TrinoFileIo
        implements SupportsBulkOperations
{
    private static final int DELETE_BATCH_SIZE = 1000;

    private final transient TrinoFileSystem fileSystem;
    private Map<String, String> properties;

    public TrinoFileIo(TrinoFileSystem fileSystem)
    {
        this(fileSystem, ImmutableMap.of());
    }

    public TrinoFileIo(TrinoFileSystem fileSystem, Map<String, String> properties)
    {
        this.fileSystem = requireNonNull(fileSystem, "fileSystem is null");
        this.properties = ImmutableMap.copyOf(properties);
    }

    public TrinoFileSystem fileSystem()
    {
        return fileSystem;
    }

    @Override
    public InputFile newInputFile(String path)
    {
        return new TrinoIcebergInputFile(fileSystem.newInputFile(Location.of(path)));
    }

    @Override
    public InputFile newInputFile(String path, long length)
    {
        return new TrinoIcebergInputFile(fileSystem.newInputFile(Location.of(path), length));
    }

    @Override
    public OutputFile newOutputFile(String path)
    {
        return new TrinoIcebergOutputFile(fileSystem, Location.of(path));
    }

    @Override
    public void deleteFile(String path)
    {
        try {
            fileSystem.deleteFile(Location.of(path));
        }
        catch (IOException e) {
            throw new UncheckedIOException("Failed to delete file: " + path, e);
        }
    }

    @Override
    public void deleteFiles(Iterable<String> paths)
            throws BulkDeletionFailureException
    {
        int failed = 0;
        IOException firstFailure = null;
        for (List<String> batch : Iterables.partition(paths, DELETE_BATCH_SIZE)) {
            List<Location> locations = new ArrayList<>(batch.size());
            for (String path : batch) {
                locations.add(Location.of(path));
            }
            try {
                fileSystem.deleteFiles(locations);
            }
            catch (IOException e) {
                failed += batch.size();
                if (firstFailure == null) {
                    firstFailure = e;
                }
            }
        }
        if (failed > 0) {
            BulkDeletionFailureException exception = new BulkDeletionFailureException(failed);
            exception.addSuppressed(firstFailure);
            throw exception;
        }
    }

    @Override
    public Map<String, String> properties()
    {
        return properties;
    }

    @Override
    public void initialize(Map<String, String> properties)
    {
        this.properties = ImmutableMap.copyOf(properties);
    }

    @Override
    public void close() {}

    private record TrinoIcebergInputFile(TrinoInputFile file)
            implements InputFile
    {
        @Override
        public long getLength()
        {
            try {
                return file.length();
            }
            catch (FileNotFoundException e) {
                throw new NotFoundException(e, "File does not exist: %s", location());
            }
            catch (IOException e) {
                throw new UncheckedIOException("Failed to get the length of " + location(), e);
            }
        }

        @Override
        public SeekableInputStream newStream()
        {
            try {
                return new TrinoSeekableInputStream(file.newStream());
            }
            catch (FileNotFoundException e) {
                throw new NotFoundException(e, "File does not exist: %s", location());
            }
            catch (IOException e) {
                throw new UncheckedIOException("Failed to open " + location(), e);
            }
        }

        @Override
        public String location()
        {
            return file.location().toString();
        }

        @Override
        public boolean exists()
        {
            try {
                return file.exists();
            }
            catch (IOException e) {
                throw new UncheckedIOException("Failed to check whether " + location() + " exists", e);
            }
        }
    }

    private record TrinoIcebergOutputFile(TrinoFileSystem fileSystem, Location path)
            implements OutputFile
    {
        @Override
        public PositionOutputStream create()
        {
            try {
                return new CountingPositionOutputStream(fileSystem.newOutputFile(path).create());
            }
            catch (IOException e) {
                throw new UncheckedIOException("Failed to create " + path, e);
            }
        }

        @Override
        public PositionOutputStream createOrOverwrite()
        {
            // Trino file systems overwrite only whole contents: buffer, then write once on close
            TrinoOutputFile file = fileSystem.newOutputFile(path);
            ByteArrayOutputStream buffer = new ByteArrayOutputStream();
            return new CountingPositionOutputStream(new OutputStream()
            {
                private boolean closed;

                @Override
                public void write(int b)
                {
                    buffer.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len)
                {
                    buffer.write(b, off, len);
                }

                @Override
                public void close()
                        throws IOException
                {
                    if (!closed) {
                        closed = true;
                        file.createOrOverwrite(buffer.toByteArray());
                    }
                }
            });
        }

        @Override
        public String location()
        {
            return path.toString();
        }

        @Override
        public InputFile toInputFile()
        {
            return new TrinoIcebergInputFile(fileSystem.newInputFile(path));
        }
    }

    private static final class TrinoSeekableInputStream
            extends SeekableInputStream
    {
        private final TrinoInputStream stream;

        private TrinoSeekableInputStream(TrinoInputStream stream)
        {
            this.stream = stream;
        }

        @Override
        public long getPos()
                throws IOException
        {
            return stream.getPosition();
        }

        @Override
        public void seek(long position)
                throws IOException
        {
            stream.seek(position);
        }

        @Override
        public int read()
                throws IOException
        {
            return stream.read();
        }

        @Override
        public int read(byte[] b, int off, int len)
                throws IOException
        {
            return stream.read(b, off, len);
        }

        @Override
        public long skip(long n)
                throws IOException
        {
            return stream.skip(n);
        }

        @Override
        public void close()
                throws IOException
        {
            stream.close();
        }
    }

    private static final class CountingPositionOutputStream
            extends PositionOutputStream
    {
        private final OutputStream delegate;
        private long position;

        private CountingPositionOutputStream(OutputStream delegate)
        {
            this.delegate = delegate;
        }

        @Override
        public long getPos()
        {
            return position;
        }

        @Override
        public void write(int b)
                throws IOException
        {
            delegate.write(b);
            position++;
        }

        @Override
        public void write(byte[] b, int off, int len)
                throws IOException
        {
            delegate.write(b, off, len);
            position += len;
        }

        @Override
        public void flush()
                throws IOException
        {
            delegate.flush();
        }

        @Override
        public void close()
                throws IOException
        {
            delegate.close();
        }
    }
}

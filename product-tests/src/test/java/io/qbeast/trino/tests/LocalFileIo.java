package io.qbeast.trino.tests;

import org.apache.iceberg.Files;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * An Iceberg {@link FileIO} over the local file system for {@code local:///} locations, the way
 * Trino's local file system sees them: {@code local:///a/b} is {@code <local.root>/a/b}. The REST
 * catalog server of the tests writes table metadata with it where the Trino servers (with
 * {@code local.location = <local.root>}) read it.
 */
public class LocalFileIo
        implements FileIO
{
    public static final String ROOT_PROPERTY = "local.root";
    private static final String SCHEME = "local:///";

    private Path root;

    public LocalFileIo() {}

    @Override
    public void initialize(Map<String, String> properties)
    {
        String value = properties.get(ROOT_PROPERTY);
        if (value == null) {
            throw new IllegalArgumentException("missing catalog property " + ROOT_PROPERTY);
        }
        root = Path.of(value).toAbsolutePath().normalize();
    }

    private File file(String location)
    {
        if (!location.startsWith(SCHEME)) {
            throw new IllegalArgumentException("not a local:/// location: " + location);
        }
        Path path = root.resolve(location.substring(SCHEME.length())).normalize();
        if (!path.startsWith(root)) {
            throw new IllegalArgumentException("outside " + root + ": " + location);
        }
        return path.toFile();
    }

    @Override
    public InputFile newInputFile(String location)
    {
        return new LocatedInputFile(location, Files.localInput(file(location)));
    }

    @Override
    public OutputFile newOutputFile(String location)
    {
        OutputFile output = Files.localOutput(file(location));
        return new OutputFile()
        {
            @Override
            public org.apache.iceberg.io.PositionOutputStream create()
            {
                return output.create();
            }

            @Override
            public org.apache.iceberg.io.PositionOutputStream createOrOverwrite()
            {
                return output.createOrOverwrite();
            }

            @Override
            public String location()
            {
                return location;
            }

            @Override
            public InputFile toInputFile()
            {
                return newInputFile(location);
            }
        };
    }

    @Override
    public void deleteFile(String location)
    {
        try {
            java.nio.file.Files.deleteIfExists(file(location).toPath());
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public Map<String, String> properties()
    {
        return Map.of(ROOT_PROPERTY, root.toString());
    }

    private record LocatedInputFile(String location, InputFile delegate)
            implements InputFile
    {
        @Override
        public long getLength()
        {
            return delegate.getLength();
        }

        @Override
        public org.apache.iceberg.io.SeekableInputStream newStream()
        {
            return delegate.newStream();
        }

        @Override
        public boolean exists()
        {
            return delegate.exists();
        }
    }
}

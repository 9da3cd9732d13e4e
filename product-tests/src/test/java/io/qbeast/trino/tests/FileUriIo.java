package io.qbeast.trino.tests;

import org.apache.iceberg.Files;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.Map;

/**
 * An Iceberg {@link FileIO} for standard {@code file:} URIs: {@code file:///a/b} is the file
 * {@code /a/b} ({@link Path#of(URI)}), read and written by Iceberg's own local files
 * ({@link Files#localInput}, {@link Files#localOutput}). No location is translated: this is what
 * Iceberg's {@code HadoopFileIO} does for {@code file:}, which cannot run in the test JVM: Hadoop's
 * {@code UserGroupInformation} calls {@code Subject.getSubject}, unsupported on Java 25.
 */
public class FileUriIo
        implements FileIO
{
    public FileUriIo() {}

    @Override
    public void initialize(Map<String, String> properties) {}

    private static File file(String location)
    {
        URI uri = URI.create(location);
        if (!"file".equals(uri.getScheme())) {
            throw new IllegalArgumentException("not a file: URI: " + location);
        }
        return Path.of(uri).toFile();
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
        // the location as given (Iceberg's local file would report a bare path, which the catalog records)
        return new OutputFile()
        {
            @Override
            public PositionOutputStream create()
            {
                return output.create();
            }

            @Override
            public PositionOutputStream createOrOverwrite()
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

    private record LocatedInputFile(String location, InputFile delegate)
            implements InputFile
    {
        @Override
        public long getLength()
        {
            return delegate.getLength();
        }

        @Override
        public SeekableInputStream newStream()
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

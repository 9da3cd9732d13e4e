package io.qbeast.trino.catalog;

import io.trino.filesystem.FileEntry;
import io.trino.filesystem.FileIterator;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.filesystem.TrinoInputFile;
import io.trino.filesystem.TrinoOutputFile;
import io.trino.filesystem.local.LocalFileSystem;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Collection;
import java.util.Optional;
import java.util.Set;

import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static io.qbeast.trino.catalog.QbeastFileSystemFactory.FILE_SCHEME;
import static io.qbeast.trino.catalog.QbeastFileSystemFactory.LOCAL_SCHEME;

/**
 * The local file system seen through {@code file:} URIs: {@code file:///a/b} is the path
 * {@code /a/b}, and what it lists is named {@code file:///...} again.
 *
 * <p>Trino's {@link LocalFileSystem} rooted at {@code /} opens {@code file:} locations as absolute
 * paths, but names every listed file {@code local:///...}. Such a name, given back to the
 * connector's file systems, resolves under {@code local.location}, where the file is not: a
 * delete of it silently deletes nothing (a missing file is not an error), so a failed write's
 * files and orphans stayed on disk. Listing results are renamed here, the one place that knows
 * both schemes.
 */
final class AbsoluteLocalFileSystem
        implements TrinoFileSystem
{
    private static final String LOCAL_PREFIX = LOCAL_SCHEME + ":///";
    private static final String FILE_PREFIX = FILE_SCHEME + ":///";

    private final TrinoFileSystem files = new LocalFileSystem(Path.of("/"));

    @Override
    public TrinoInputFile newInputFile(Location location)
    {
        return files.newInputFile(location);
    }

    @Override
    public TrinoInputFile newInputFile(Location location, long length)
    {
        return files.newInputFile(location, length);
    }

    @Override
    public TrinoInputFile newInputFile(Location location, long length, Instant lastModified)
    {
        return files.newInputFile(location, length, lastModified);
    }

    @Override
    public TrinoOutputFile newOutputFile(Location location)
    {
        return files.newOutputFile(location);
    }

    @Override
    public void deleteFile(Location location)
            throws IOException
    {
        files.deleteFile(location);
    }

    @Override
    public void deleteFiles(Collection<Location> locations)
            throws IOException
    {
        files.deleteFiles(locations);
    }

    @Override
    public void deleteDirectory(Location location)
            throws IOException
    {
        files.deleteDirectory(location);
    }

    @Override
    public void renameFile(Location source, Location target)
            throws IOException
    {
        files.renameFile(source, target);
    }

    @Override
    public FileIterator listFiles(Location location)
            throws IOException
    {
        FileIterator listed = files.listFiles(location);
        return new FileIterator()
        {
            @Override
            public boolean hasNext()
                    throws IOException
            {
                return listed.hasNext();
            }

            @Override
            public FileEntry next()
                    throws IOException
            {
                FileEntry entry = listed.next();
                return new FileEntry(asFileUri(entry.location()), entry.length(), entry.lastModified(), entry.blocks());
            }
        };
    }

    @Override
    public Optional<Boolean> directoryExists(Location location)
            throws IOException
    {
        return files.directoryExists(location);
    }

    @Override
    public void createDirectory(Location location)
            throws IOException
    {
        files.createDirectory(location);
    }

    @Override
    public void renameDirectory(Location source, Location target)
            throws IOException
    {
        files.renameDirectory(source, target);
    }

    @Override
    public Set<Location> listDirectories(Location location)
            throws IOException
    {
        return files.listDirectories(location).stream()
                .map(AbsoluteLocalFileSystem::asFileUri)
                .collect(toImmutableSet());
    }

    @Override
    public Optional<Location> createTemporaryDirectory(Location targetPath, String temporaryPrefix, String relativePrefix)
            throws IOException
    {
        return files.createTemporaryDirectory(targetPath, temporaryPrefix, relativePrefix)
                .map(AbsoluteLocalFileSystem::asFileUri);
    }

    /** {@code local:///a/b} (relative to the root {@code /}) as {@code file:///a/b}. */
    static Location asFileUri(Location location)
    {
        String name = location.toString();
        return name.startsWith(LOCAL_PREFIX)
                ? Location.of(FILE_PREFIX + name.substring(LOCAL_PREFIX.length()))
                : location;
    }
}

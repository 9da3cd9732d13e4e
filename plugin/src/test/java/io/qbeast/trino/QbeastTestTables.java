package io.qbeast.trino;

import io.qbeast.iceberg.IcebergCatalogs;
import io.qbeast.iceberg.IcebergCatalogs.IcebergCatalog;
import io.qbeast.iceberg.TrinoFileIo;
import io.trino.filesystem.FileEntry;
import io.trino.filesystem.FileIterator;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.filesystem.local.LocalFileSystemFactory;
import io.trino.spi.security.ConnectorIdentity;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Test access to what a {@link QbeastQueryRunner} wrote: the Iceberg tables (through a second
 * JDBC catalog on the same SQLite file) and the files of the local warehouse.
 */
public final class QbeastTestTables
        implements Closeable
{
    private final TrinoFileSystem fileSystem;
    private final IcebergCatalog catalog;

    public QbeastTestTables(Path root)
    {
        fileSystem = new LocalFileSystemFactory(root).create(ConnectorIdentity.ofUser("test"));
        catalog = IcebergCatalogs.jdbc(
                QbeastQueryRunner.CATALOG,
                "jdbc:sqlite:" + root.resolve("warehouse").resolve(IcebergCatalogs.DEFAULT_SQLITE_FILE_NAME),
                Optional.empty(),
                Optional.empty(),
                "local:///warehouse",
                _ -> new TrinoFileIo(fileSystem));
    }

    public Table table(String name)
    {
        return catalog.catalog().loadTable(TableIdentifier.of(QbeastQueryRunner.SCHEMA, name));
    }

    /** The Iceberg catalog itself, to create and change tables as another engine would. */
    public org.apache.iceberg.catalog.Catalog catalog()
    {
        return catalog.catalog();
    }

    public TrinoFileSystem fileSystem()
    {
        return fileSystem;
    }

    /** Every file under {@code location}, recursively. */
    public Set<String> listFiles(String location)
    {
        Set<String> files = new TreeSet<>();
        try {
            FileIterator iterator = fileSystem.listFiles(Location.of(location));
            while (iterator.hasNext()) {
                FileEntry entry = iterator.next();
                files.add(entry.location().toString());
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    /** The directories directly under {@code location}. */
    public Set<String> listDirectories(String location)
    {
        try {
            Set<String> directories = new TreeSet<>();
            fileSystem.listDirectories(Location.of(location)).forEach(directory -> directories.add(directory.toString()));
            return directories;
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close()
            throws IOException
    {
        catalog.close();
    }
}

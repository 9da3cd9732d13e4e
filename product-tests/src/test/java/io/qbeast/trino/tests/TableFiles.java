package io.qbeast.trino.tests;

import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.io.FileIO;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static java.util.Objects.requireNonNull;

/**
 * A qbeast table's data files on disk against the files its Iceberg metadata references, read
 * independently of Trino: the table's entry in the embedded SQLite catalog of a local warehouse
 * ({@code <warehouse>/qbeast-catalog.db}, the quickstart's setup), its metadata file and every
 * snapshot's manifests (through {@link FileUriIo}). A file in the table's {@code data/} folder
 * that no snapshot ever added is an <em>orphan</em>: written by a statement that never
 * committed (killed, failed, lost a race) and not cleaned up.
 * <p>
 * Locations are {@code file:///...} URIs, as Iceberg and {@code "t$files"} store them for a
 * {@code file:} warehouse.
 */
public final class TableFiles
{
    private static final String SCHEME = "file://";

    private final Path warehouse;
    private final String schema;
    private final String table;

    public TableFiles(Path warehouse, String schema, String table)
    {
        this.warehouse = requireNonNull(warehouse, "warehouse is null").toAbsolutePath().normalize();
        this.schema = requireNonNull(schema, "schema is null");
        this.table = requireNonNull(table, "table is null");
    }

    /** The metadata the catalog points to now (what a new transaction of the connector reads). */
    public TableMetadata currentMetadata()
    {
        return TableMetadataParser.read(fileIo(), metadataLocation());
    }

    /** Every regular file under the table's {@code data/} folder, as {@code file:} URIs. */
    public Set<String> dataFolderFiles()
    {
        Path data = localPath(currentMetadata().location()).resolve("data");
        Set<String> files = new TreeSet<>();
        if (!Files.isDirectory(data)) {
            return files;
        }
        try (Stream<Path> walk = Files.walk(data)) {
            walk.filter(Files::isRegularFile)
                    .forEach(file -> files.add(SCHEME + file.toAbsolutePath().normalize()));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    /** The data files of the current snapshot (what {@code "t$files"} lists). */
    public Set<String> currentDataFiles()
    {
        TableMetadata metadata = currentMetadata();
        Snapshot current = metadata.currentSnapshot();
        Set<String> files = new TreeSet<>();
        if (current == null) {
            return files;
        }
        FileIO io = fileIo();
        for (ManifestFile manifest : current.dataManifests(io)) {
            // a manifest reader iterates the live entries: added and existing, not deleted
            try (ManifestReader<DataFile> reader = ManifestFiles.read(manifest, io)) {
                for (DataFile file : reader) {
                    files.add(file.location());
                }
            }
            catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return files;
    }

    /**
     * The data files any snapshot of the current metadata added: the current files and those an
     * optimize replaced (still referenced by older snapshots, deleted only by snapshot expiry).
     */
    public Set<String> referencedDataFiles()
    {
        TableMetadata metadata = currentMetadata();
        FileIO io = fileIo();
        Set<String> files = new TreeSet<>();
        for (Snapshot snapshot : metadata.snapshots()) {
            for (ContentFile<?> file : snapshot.addedDataFiles(io)) {
                files.add(file.location());
            }
            for (ContentFile<?> file : snapshot.addedDeleteFiles(io)) {
                files.add(file.location());
            }
        }
        return files;
    }

    /** Files in the data folder that no snapshot references: what a failed or killed write left behind. */
    public Set<String> orphans()
    {
        Set<String> orphans = new TreeSet<>(dataFolderFiles());
        orphans.removeAll(referencedDataFiles());
        return orphans;
    }

    private String metadataLocation()
    {
        Path catalog = warehouse.resolve("qbeast-catalog.db");
        if (!Files.isRegularFile(catalog)) {
            throw new IllegalStateException("no SQLite catalog at " + catalog);
        }
        // read-only: the running server owns the catalog file
        try (Connection connection = DriverManager.getConnection("jdbc:sqlite:file:" + catalog + "?mode=ro");
                PreparedStatement statement = connection.prepareStatement(
                        "SELECT metadata_location FROM iceberg_tables WHERE table_namespace = ? AND table_name = ?")) {
            statement.setString(1, schema);
            statement.setString(2, table);
            List<String> locations = new ArrayList<>();
            try (ResultSet resultSet = statement.executeQuery()) {
                while (resultSet.next()) {
                    locations.add(resultSet.getString(1));
                }
            }
            if (locations.size() != 1) {
                throw new IllegalStateException("%s.%s: %d catalog entries in %s: %s".formatted(schema, table, locations.size(), catalog, locations));
            }
            return locations.getFirst();
        }
        catch (SQLException e) {
            throw new IllegalStateException("cannot read the catalog " + catalog, e);
        }
    }

    private FileIO fileIo()
    {
        return new FileUriIo();
    }

    private Path localPath(String location)
    {
        if (!location.startsWith(SCHEME)) {
            throw new IllegalArgumentException("not a file: location: " + location);
        }
        return Path.of(URI.create(location)).normalize();
    }
}

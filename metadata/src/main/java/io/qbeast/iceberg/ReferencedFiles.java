package io.qbeast.iceberg;

import org.apache.iceberg.ContentFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionStatisticsFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.io.CloseableIterator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The names of every file a table's metadata references: of each snapshot still in the metadata
 * (so any a query or time travel can read) its manifest list, manifests and their data and delete
 * files; the current and previous metadata files; statistics files. What a table's location holds
 * beyond these is an orphan: a file written by a write that never committed, or left behind.
 *
 * <p>Compared by file name, not location: one file can be written as two location strings
 * ({@code local:///a//b} and {@code local:///a/b}), and every file Iceberg and qbeast write has a
 * unique name (a UUID in it), so a name match is the same file; a mismatch of spelling could
 * otherwise delete a live file.
 */
public final class ReferencedFiles
{
    // written by Hadoop-style catalogs beside the metadata files; never referenced, never an orphan
    private static final String VERSION_HINT = "version-hint.text";

    private ReferencedFiles() {}

    /** The names of every file the metadata references, snapshots' files and metadata files alike. */
    public static Set<String> names(Table table)
    {
        TableMetadata metadata = ((HasTableOperations) table).operations().current();
        Set<String> names = new HashSet<>();
        snapshotFiles(table).forEach(location -> names.add(fileName(location)));
        if (metadata.metadataFileLocation() != null) {
            names.add(fileName(metadata.metadataFileLocation()));
        }
        metadata.previousFiles().forEach(entry -> names.add(fileName(entry.file())));
        names.add(VERSION_HINT);
        return names;
    }

    /**
     * The locations of the files the table's snapshots use: of each snapshot its manifest list,
     * manifests, data and delete files; the statistics files.
     */
    public static Set<String> snapshotFiles(Table table)
    {
        TableMetadata metadata = ((HasTableOperations) table).operations().current();
        Set<String> locations = new HashSet<>();
        Set<String> manifestsRead = new HashSet<>();
        for (Snapshot snapshot : metadata.snapshots()) {
            if (snapshot.manifestListLocation() != null) {
                locations.add(snapshot.manifestListLocation());
            }
            for (ManifestFile manifest : snapshot.allManifests(table.io())) {
                if (manifestsRead.add(manifest.path())) {
                    locations.add(manifest.path());
                    addContentFiles(table, metadata, manifest, locations);
                }
            }
        }
        metadata.statisticsFiles().stream().map(StatisticsFile::path).forEach(locations::add);
        metadata.partitionStatisticsFiles().stream().map(PartitionStatisticsFile::path).forEach(locations::add);
        return locations;
    }

    private static void addContentFiles(Table table, TableMetadata metadata, ManifestFile manifest, Set<String> locations)
    {
        try (ManifestReader<? extends ContentFile<?>> reader = reader(table, metadata, manifest);
                CloseableIterator<? extends ContentFile<?>> files = reader.select(List.of("file_path")).iterator()) {
            while (files.hasNext()) {
                locations.add(files.next().location());
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException("Failed to read manifest " + manifest.path(), e);
        }
    }

    private static ManifestReader<? extends ContentFile<?>> reader(Table table, TableMetadata metadata, ManifestFile manifest)
    {
        return switch (manifest.content()) {
            case DATA -> ManifestFiles.read(manifest, table.io(), metadata.specsById());
            case DELETES -> ManifestFiles.readDeleteManifest(manifest, table.io(), metadata.specsById());
        };
    }

    public static String fileName(String location)
    {
        return location.substring(location.lastIndexOf('/') + 1);
    }
}

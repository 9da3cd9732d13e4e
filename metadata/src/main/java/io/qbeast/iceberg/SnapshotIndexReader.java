package io.qbeast.iceberg;

import io.qbeast.index.FileFacts;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.qbeast.iceberg.QbeastTableProperties.CUBE_COLUMN;
import static io.qbeast.iceberg.QbeastTableProperties.WEIGHT_COLUMN;
import static java.util.Objects.requireNonNull;

/**
 * Reads the index of a snapshot from its manifests: for every live data file the lower and upper
 * bounds of {@code _qbeast_cube} (binary, full length) and {@code _qbeast_weight} (int) and the
 * record count become one {@link FileFacts}; the revision is the first 8 bytes (big-endian) of the
 * cube bound. Needs only the table metadata file and a {@link FileIO}, not the catalog, so page
 * sinks on workers can read it.
 */
public final class SnapshotIndexReader
{
    private static final int REVISION_ID_BYTES = Long.BYTES;

    private SnapshotIndexReader() {}

    public static SnapshotIndex read(FileIO io, String metadataLocation, long snapshotId)
    {
        return read(io, TableMetadataParser.read(io, metadataLocation), snapshotId);
    }

    public static SnapshotIndex read(FileIO io, TableMetadata metadata, long snapshotId)
    {
        return read(io, metadata, snapshotId, Set.of());
    }

    /** The index of the snapshot without the files at {@code excludedLocations} (what an optimize keeps). */
    public static SnapshotIndex read(FileIO io, String metadataLocation, long snapshotId, Set<String> excludedLocations)
    {
        return read(io, TableMetadataParser.read(io, metadataLocation), snapshotId, excludedLocations);
    }

    public static SnapshotIndex read(FileIO io, TableMetadata metadata, long snapshotId, Set<String> excludedLocations)
    {
        requireNonNull(excludedLocations, "excludedLocations is null");
        requireNonNull(io, "io is null");
        Snapshot snapshot = metadata.snapshot(snapshotId);
        if (snapshot == null) {
            throw new IllegalArgumentException("Snapshot %s is not in table metadata %s".formatted(snapshotId, metadata.metadataFileLocation()));
        }
        Schema schema = metadata.schema();
        Types.NestedField cubeField = schema.findField(CUBE_COLUMN);
        Types.NestedField weightField = schema.findField(WEIGHT_COLUMN);

        Map<Long, List<FileFacts>> factsByRevision = new LinkedHashMap<>();
        long unindexedFiles = 0;
        long unindexedRows = 0;
        for (ManifestFile manifest : snapshot.dataManifests(io)) {
            try (ManifestReader<DataFile> reader = ManifestFiles.read(manifest, io, metadata.specsById());
                    CloseableIterator<DataFile> files = reader.iterator()) {
                while (files.hasNext()) {
                    DataFile file = files.next();
                    if (!excludedLocations.isEmpty() && excludedLocations.contains(file.location())) {
                        continue;
                    }
                    FileFacts facts = cubeField == null || weightField == null ? null : facts(file, cubeField.fieldId(), weightField.fieldId());
                    if (facts == null) {
                        unindexedFiles++;
                        unindexedRows += file.recordCount();
                        continue;
                    }
                    factsByRevision.computeIfAbsent(revisionId(facts.minCube()), _ -> new ArrayList<>()).add(facts);
                }
            }
            catch (IOException e) {
                throw new UncheckedIOException("Failed to read manifest " + manifest.path(), e);
            }
        }
        return new SnapshotIndex(snapshotId, factsByRevision, unindexedFiles, unindexedRows);
    }

    /** The block facts of an indexed file; null when the file lacks bounds of an index column. */
    public static FileFacts facts(DataFile file, int cubeFieldId, int weightFieldId)
    {
        byte[] minCube = bound(file.lowerBounds(), cubeFieldId);
        byte[] maxCube = bound(file.upperBounds(), cubeFieldId);
        byte[] minWeight = bound(file.lowerBounds(), weightFieldId);
        byte[] maxWeight = bound(file.upperBounds(), weightFieldId);
        if (minCube == null || maxCube == null || minWeight == null || maxWeight == null || minCube.length <= REVISION_ID_BYTES) {
            return null;
        }
        return new FileFacts(
                minCube,
                maxCube,
                Conversions.<Integer>fromByteBuffer(Types.IntegerType.get(), ByteBuffer.wrap(minWeight)),
                Conversions.<Integer>fromByteBuffer(Types.IntegerType.get(), ByteBuffer.wrap(maxWeight)),
                file.recordCount());
    }

    public static long revisionId(byte[] cube)
    {
        return ByteBuffer.wrap(cube, 0, REVISION_ID_BYTES).getLong();
    }

    private static byte[] bound(Map<Integer, ByteBuffer> bounds, int fieldId)
    {
        if (bounds == null) {
            return null;
        }
        ByteBuffer buffer = bounds.get(fieldId);
        if (buffer == null) {
            return null;
        }
        ByteBuffer duplicate = buffer.duplicate();
        byte[] bytes = new byte[duplicate.remaining()];
        duplicate.get(bytes);
        return bytes;
    }
}

package io.qbeast.trino.catalog;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import com.google.common.util.concurrent.UncheckedExecutionException;
import io.qbeast.iceberg.SnapshotIndex;
import io.qbeast.iceberg.SnapshotIndexReader;
import io.qbeast.iceberg.TrinoFileIo;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.spi.TrinoException;

import java.util.concurrent.ExecutionException;

import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_INVALID_METADATA;

/**
 * The index of recently used snapshots, read from their manifests once per node: snapshots are
 * immutable, so an entry never goes stale, and every sink of an INSERT shares one read.
 */
public class IndexStateCache
{
    private static final long MAX_WEIGHT = 256L * 1024 * 1024;

    private final Cache<String, SnapshotIndex> cache = CacheBuilder.newBuilder()
            .maximumWeight(MAX_WEIGHT)
            .weigher((String _, SnapshotIndex index) -> (int) Math.min(Integer.MAX_VALUE, index.estimatedSizeInBytes()))
            .build();

    public SnapshotIndex get(TrinoFileSystem fileSystem, String metadataLocation, long snapshotId)
    {
        try {
            return cache.get(metadataLocation + "#" + snapshotId, () -> SnapshotIndexReader.read(new TrinoFileIo(fileSystem), metadataLocation, snapshotId));
        }
        catch (ExecutionException | UncheckedExecutionException e) {
            throw new TrinoException(QBEAST_INVALID_METADATA, "Failed to read the index of snapshot %s from %s: %s".formatted(snapshotId, metadataLocation, e.getCause().getMessage()), e.getCause());
        }
    }
}

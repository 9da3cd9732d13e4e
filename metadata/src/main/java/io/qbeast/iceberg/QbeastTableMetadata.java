package io.qbeast.iceberg;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.qbeast.index.Revision;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import static java.util.Objects.requireNonNull;

/**
 * The qbeast entries of an Iceberg table's properties, parsed once: the indexed columns in index
 * order, the cube size if the table sets one, and the committed revisions in commit order (the
 * last is the current one). {@link QbeastTableProperties} names the keys and writes them; every
 * reader of them goes through {@link #of}, so the rules for a missing, listed-but-absent or
 * malformed entry are the same for the writer, the pruner, optimize and the system tables.
 *
 * @param revisions every {@code qbeast.revision.<id>} entry by id, including any not yet listed
 *         (a file can name its revision before the list does, in a commit that raced it)
 * @param revisionIds the ids of {@code qbeast.revisions}, in commit order
 */
public record QbeastTableMetadata(List<String> indexedColumns, OptionalLong cubeSize, Map<Long, Revision> revisions, List<Long> revisionIds)
{
    public QbeastTableMetadata
    {
        indexedColumns = ImmutableList.copyOf(requireNonNull(indexedColumns, "indexedColumns is null"));
        requireNonNull(cubeSize, "cubeSize is null");
        revisions = ImmutableMap.copyOf(requireNonNull(revisions, "revisions is null"));
        revisionIds = ImmutableList.copyOf(requireNonNull(revisionIds, "revisionIds is null"));
        for (long id : revisionIds) {
            if (!revisions.containsKey(id)) {
                throw new IllegalArgumentException("Table property %s lists revision %s but %s is missing".formatted(QbeastTableProperties.REVISIONS, id, QbeastTableProperties.revisionKey(id)));
            }
        }
    }

    /**
     * The qbeast metadata of a table, or empty if it is not a qbeast table (no indexed columns).
     *
     * @throws IllegalArgumentException if an entry is malformed; the message names the property
     */
    public static Optional<QbeastTableMetadata> of(Map<String, String> properties)
    {
        if (!QbeastTableProperties.isQbeastTable(properties)) {
            return Optional.empty();
        }
        ImmutableMap.Builder<Long, Revision> revisions = ImmutableMap.builder();
        properties.forEach((key, json) -> {
            if (key.startsWith(QbeastTableProperties.REVISION_PREFIX)) {
                // keyed as the key says, as every reader found them before this class
                try {
                    revisions.put(Long.parseLong(key.substring(QbeastTableProperties.REVISION_PREFIX.length())), RevisionJsonReader.read(json));
                }
                catch (RuntimeException e) {
                    throw new IllegalArgumentException("Invalid table property %s: %s".formatted(key, e.getMessage()), e);
                }
            }
        });
        return Optional.of(new QbeastTableMetadata(
                QbeastTableProperties.indexedColumns(properties),
                QbeastTableProperties.cubeSize(properties),
                revisions.buildOrThrow(),
                QbeastTableProperties.revisionIds(properties)));
    }

    /** The current (last committed) revision; empty for a table never written. */
    public Optional<Revision> currentRevision()
    {
        return revisionIds.isEmpty() ? Optional.empty() : Optional.of(revisions.get(revisionIds.getLast()));
    }

    /** The revision of an id, listed or not; empty if the table has no such entry. */
    public Optional<Revision> revision(long id)
    {
        return Optional.ofNullable(revisions.get(id));
    }

    /** The table's cube size, or {@code defaultCubeSize} if it sets none. */
    public long cubeSize(long defaultCubeSize)
    {
        return cubeSize.orElse(defaultCubeSize);
    }
}

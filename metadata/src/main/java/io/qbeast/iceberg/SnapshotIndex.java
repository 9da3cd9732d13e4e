package io.qbeast.iceberg;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.qbeast.index.FileFacts;
import io.qbeast.index.IndexState;
import io.qbeast.index.Revision;

import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * The index as one snapshot's manifests record it: the block facts of every indexed data file,
 * grouped by the revision its cubes belong to, and the count of unindexed files (files without
 * bounds for the index columns, e.g. written by another engine).
 */
public record SnapshotIndex(long snapshotId, Map<Long, List<FileFacts>> factsByRevision, long unindexedFiles, long unindexedRows)
{
    public SnapshotIndex
    {
        requireNonNull(factsByRevision, "factsByRevision is null");
        ImmutableMap.Builder<Long, List<FileFacts>> copy = ImmutableMap.builder();
        factsByRevision.forEach((id, facts) -> copy.put(id, ImmutableList.copyOf(facts)));
        factsByRevision = copy.buildOrThrow();
    }

    public static SnapshotIndex empty()
    {
        return new SnapshotIndex(-1, ImmutableMap.of(), 0, 0);
    }

    public List<FileFacts> facts(long revisionId)
    {
        return factsByRevision.getOrDefault(revisionId, ImmutableList.of());
    }

    /** The index state of one revision in this snapshot (empty when none of its files are here). */
    public IndexState state(Revision revision)
    {
        List<FileFacts> facts = facts(revision.id());
        return facts.isEmpty() ? IndexState.empty(revision) : IndexState.of(revision, facts);
    }

    /** Approximate heap footprint, for caches. */
    public long estimatedSizeInBytes()
    {
        long size = 64;
        for (List<FileFacts> facts : factsByRevision.values()) {
            for (FileFacts fact : facts) {
                size += 64 + fact.minCube().length + fact.maxCube().length;
            }
        }
        return size;
    }
}

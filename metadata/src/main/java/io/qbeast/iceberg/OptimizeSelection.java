package io.qbeast.iceberg;

import com.google.common.collect.ImmutableList;
import io.qbeast.index.CubeId;
import io.qbeast.index.FileFacts;
import org.apache.iceberg.DataFile;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import static java.util.Objects.requireNonNull;

/**
 * Which data files an optimize rewrites, decided from the manifests alone.
 *
 * <p>A rewrite re-indexes its rows against the tree of the files it keeps, so a row may land in
 * any cube on its path, including a kept cube, which would then own one block more. To leave
 * every cube with one block, {@link Mode#FRAGMENTED} therefore rewrites all candidate files (the
 * table, or the files a {@code WHERE} selects) as soon as any of them needs it, and nothing
 * otherwise. A candidate set needs it when it holds an unindexed file, a file of an older
 * revision, or two files of the newest revision written by different commits whose cube ranges
 * (pre-order intervals between their cube bounds) overlap: such files may hold blocks of the
 * same cube. Files written by one commit never count (one write gives every cube one block), so
 * an optimize is followed by nothing to do.
 */
public final class OptimizeSelection
{
    public enum Mode
    {
        /** Rewrite the candidates when any of them is fragmented, unindexed or of an older revision. */
        FRAGMENTED,
        /** Rewrite every candidate. */
        ALL,
        /** Rewrite the candidates of one revision. */
        REVISION,
        /** Rewrite the candidates without index columns. */
        UNINDEXED,
    }

    private OptimizeSelection() {}

    /**
     * @param candidates the live data files in scope (all, or those a {@code WHERE} may match)
     * @param revision the revision of {@link Mode#REVISION}
     * @param newestRevision the table's current revision, if it has one
     * @param cubeFieldId field id of {@code _qbeast_cube}, or -1 if the table lacks it
     * @param weightFieldId field id of {@code _qbeast_weight}, or -1 if the table lacks it
     */
    public static List<DataFile> select(Mode mode, OptionalLong revision, OptionalLong newestRevision, List<DataFile> candidates, int cubeFieldId, int weightFieldId)
    {
        requireNonNull(mode, "mode is null");
        requireNonNull(candidates, "candidates is null");
        return switch (mode) {
            case ALL -> ImmutableList.copyOf(candidates);
            case REVISION -> {
                long id = revision.orElseThrow(() -> new IllegalArgumentException("Mode REVISION needs a revision"));
                yield candidates.stream()
                        .filter(file -> facts(file, cubeFieldId, weightFieldId).map(facts -> SnapshotIndexReader.revisionId(facts.minCube()) == id).orElse(false))
                        .collect(ImmutableList.toImmutableList());
            }
            case UNINDEXED -> candidates.stream()
                    .filter(file -> facts(file, cubeFieldId, weightFieldId).isEmpty())
                    .collect(ImmutableList.toImmutableList());
            case FRAGMENTED -> needsRewrite(candidates, newestRevision, cubeFieldId, weightFieldId) ? ImmutableList.copyOf(candidates) : ImmutableList.of();
        };
    }

    static boolean needsRewrite(List<DataFile> candidates, OptionalLong newestRevision, int cubeFieldId, int weightFieldId)
    {
        List<Block> blocks = new ArrayList<>();
        for (DataFile file : candidates) {
            Optional<FileFacts> facts = facts(file, cubeFieldId, weightFieldId);
            if (facts.isEmpty() || newestRevision.isEmpty() || SnapshotIndexReader.revisionId(facts.get().minCube()) != newestRevision.getAsLong()) {
                return true;
            }
            blocks.add(new Block(facts.get().minCube(), facts.get().maxCube(), writeOf(file)));
        }
        return overlapAcrossWrites(blocks);
    }

    /** Whether two blocks of different writes have overlapping cube ranges. */
    static boolean overlapAcrossWrites(List<Block> blocks)
    {
        List<Block> sorted = new ArrayList<>(blocks);
        sorted.sort(Comparator.comparing(Block::minCube, CubeId::compareBytes));
        // blocks whose range may still reach the next block's start, and the writes among them
        List<Block> open = new ArrayList<>();
        for (Block block : sorted) {
            open.removeIf(other -> CubeId.compareBytes(other.maxCube(), block.minCube()) < 0);
            for (Block other : open) {
                if (!other.write().equals(block.write())) {
                    return true;
                }
            }
            open.add(block);
        }
        return false;
    }

    record Block(byte[] minCube, byte[] maxCube, Object write) {}

    /** The commit that wrote a file: its sequence number (files of one commit share it); unknown (v1 tables): the file alone. */
    private static Object writeOf(DataFile file)
    {
        Long sequenceNumber = file.fileSequenceNumber();
        return sequenceNumber == null || sequenceNumber == 0 ? file.location() : sequenceNumber;
    }

    private static Optional<FileFacts> facts(DataFile file, int cubeFieldId, int weightFieldId)
    {
        if (cubeFieldId < 0 || weightFieldId < 0) {
            return Optional.empty();
        }
        return Optional.ofNullable(SnapshotIndexReader.facts(file, cubeFieldId, weightFieldId));
    }
}

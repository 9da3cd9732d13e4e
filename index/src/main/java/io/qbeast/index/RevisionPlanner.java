package io.qbeast.index;

import io.qbeast.index.transform.DoubleLinearTransformation;
import io.qbeast.index.transform.LongLinearTransformation;
import io.qbeast.index.transform.OrderedBytesTransformation;
import io.qbeast.index.transform.Transformation;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Chooses the revision a batch of rows is indexed with.
 *
 * <p><b>First revision.</b> {@link #propose} derives each linear column's bounds from the batch's
 * minimum and maximum, padded by the head-room and snapped outward to an aligned grid (see
 * {@link AlignedBounds}); string columns get quantile boundaries from the batch's sample; hash and
 * boolean columns need nothing. The id is the content hash ({@link Revision#create}), so several
 * writers of one INSERT into an empty table, each proposing from its own part of the data, normally
 * arrive at the very same revision; when they do not, each file still names the revision it was
 * written with and queries visit every revision.
 *
 * <p><b>Later batches.</b> Values outside a linear column's bounds clamp to the edge coordinates,
 * which keeps the index correct but piles them into edge cells. A batch therefore needs a new
 * revision only when, for some linear column, more than {@code maxOutsideFraction} of its rows fall
 * outside the bounds ({@link #needsNewRevision}). The new revision ({@link #widen}) widens the
 * columns that overflow so, keeps every column's old bounds inside its new ones, grows an
 * overflowing side by at least the old width, and snaps to the grid again, so drifting data makes a
 * logarithmic number of revisions and writers widening the same revision agree. Quantile boundaries are never out of bounds (their outer bins
 * are open), so they are re-chosen only when optimize proposes a fresh revision.
 */
public final class RevisionPlanner
{
    public static final double DEFAULT_MAX_OUTSIDE_FRACTION = 0.05;
    public static final double DEFAULT_HEADROOM = 1.0 / 16;
    public static final int DEFAULT_QUANTILE_BOUNDARIES = 63;
    /** Longest stored quantile boundary (and sampled value) in bytes, which bounds the revision's size. */
    public static final int MAX_BOUNDARY_LENGTH = 256;

    private final double maxOutsideFraction;
    private final double headroom;
    private final int quantileBoundaries;

    /**
     * @param maxOutsideFraction fraction of a batch's rows that may lie outside a column's bounds
     *        before a new revision is made
     * @param headroom fraction of a column's value span added on each side of new bounds
     * @param quantileBoundaries number of quantile boundaries of a string column (bins = boundaries + 1)
     */
    public RevisionPlanner(double maxOutsideFraction, double headroom, int quantileBoundaries)
    {
        if (!(maxOutsideFraction >= 0 && maxOutsideFraction < 1)) {
            throw new IllegalArgumentException("maxOutsideFraction must be in [0, 1): " + maxOutsideFraction);
        }
        if (!(headroom >= 0 && headroom <= 1)) {
            throw new IllegalArgumentException("headroom must be in [0, 1]: " + headroom);
        }
        if (quantileBoundaries < 1) {
            throw new IllegalArgumentException("quantileBoundaries must be positive: " + quantileBoundaries);
        }
        this.maxOutsideFraction = maxOutsideFraction;
        this.headroom = headroom;
        this.quantileBoundaries = quantileBoundaries;
    }

    public static RevisionPlanner defaults()
    {
        return new RevisionPlanner(DEFAULT_MAX_OUTSIDE_FRACTION, DEFAULT_HEADROOM, DEFAULT_QUANTILE_BOUNDARIES);
    }

    /** A revision for the profiled batch alone, one dimension per profile in order. */
    public Revision propose(List<? extends ColumnProfile> profiles, long cubeSize)
    {
        requireNonNull(profiles, "profiles is null");
        List<IndexedColumn> columns = new ArrayList<>(profiles.size());
        for (ColumnProfile profile : profiles) {
            columns.add(new IndexedColumn(profile.name(), initialTransformation(profile)));
        }
        return Revision.create(columns, cubeSize);
    }

    /**
     * Whether more than the allowed fraction of some linear column's rows lie outside its bounds.
     * The profiles must come from {@link ColumnProfile#forColumn} on the revision's columns.
     */
    public boolean needsNewRevision(Revision current, List<? extends ColumnProfile> profiles)
    {
        checkProfiles(current, profiles);
        return profiles.stream().anyMatch(this::overflows);
    }

    /** Whether more than the allowed fraction of the profiled rows lie outside a linear column's bounds. */
    private boolean overflows(ColumnProfile profile)
    {
        return switch (profile) {
            case LongColumnProfile column -> column.outside() > maxOutsideFraction * column.rows();
            case DoubleColumnProfile column -> column.outside() > maxOutsideFraction * column.rows();
            case BytesColumnProfile _, FixedColumnProfile _ -> false;
        };
    }

    /**
     * The revision to index the profiled batch with if the current one no longer fits it (see
     * {@link #needsNewRevision}), or empty to keep the current one. The columns that overflow
     * (more than the allowed fraction outside, the rule that asks for the revision) are widened;
     * the others, and the cube size, carry over, their few outside values clamped as in a batch
     * that keeps its revision. Widening a column for a single outlier would make writers that
     * share a batch disagree: only the one that received the outlier would widen it.
     */
    public Optional<Revision> widen(Revision current, List<? extends ColumnProfile> profiles)
    {
        if (!needsNewRevision(current, profiles)) {
            return Optional.empty();
        }
        List<IndexedColumn> columns = new ArrayList<>(current.dimensions());
        for (int dimension = 0; dimension < current.dimensions(); dimension++) {
            IndexedColumn column = current.column(dimension);
            Transformation widened = switch (profiles.get(dimension)) {
                case LongColumnProfile profile when overflows(profile) ->
                        AlignedBounds.widened((LongLinearTransformation) column.transformation(), profile.min(), profile.max(), headroom);
                case DoubleColumnProfile profile when overflows(profile) ->
                        AlignedBounds.widened((DoubleLinearTransformation) column.transformation(), profile.min(), profile.max(), headroom);
                default -> column.transformation();
            };
            columns.add(new IndexedColumn(column.name(), widened));
        }
        if (columns.equals(current.columns())) {
            // the bounds cannot grow (they already span the whole domain)
            return Optional.empty();
        }
        return Optional.of(Revision.create(columns, current.cubeSize()));
    }

    private Transformation initialTransformation(ColumnProfile profile)
    {
        return switch (profile) {
            case LongColumnProfile column -> column.values() == 0
                    ? AlignedBounds.covering(0L, 0L, headroom)
                    : AlignedBounds.covering(column.min(), column.max(), headroom);
            case DoubleColumnProfile column -> column.values() == 0
                    ? AlignedBounds.covering(0.0, 0.0, headroom)
                    : AlignedBounds.covering(column.min(), column.max(), headroom);
            case BytesColumnProfile column -> OrderedBytesTransformation.fromSample(column.sample(), quantileBoundaries, MAX_BOUNDARY_LENGTH);
            case FixedColumnProfile column -> column.transformation();
        };
    }

    private static void checkProfiles(Revision current, List<? extends ColumnProfile> profiles)
    {
        requireNonNull(current, "current is null");
        requireNonNull(profiles, "profiles is null");
        if (profiles.size() != current.dimensions()) {
            throw new IllegalArgumentException("Expected %s column profiles, got %s".formatted(current.dimensions(), profiles.size()));
        }
        for (int dimension = 0; dimension < current.dimensions(); dimension++) {
            IndexedColumn column = current.column(dimension);
            ColumnProfile profile = profiles.get(dimension);
            Optional<? extends Transformation> bounds = switch (profile) {
                case LongColumnProfile linear -> linear.bounds();
                case DoubleColumnProfile linear -> linear.bounds();
                case FixedColumnProfile fixed -> Optional.of(fixed.transformation());
                case BytesColumnProfile _ -> Optional.empty();
            };
            if (!profile.name().equals(column.name()) || !bounds.equals(Optional.of(column.transformation()))) {
                throw new IllegalArgumentException("Profile %s does not belong to column %s of revision %s: create it with ColumnProfile.forColumn"
                        .formatted(profile.name(), column.name(), current.id()));
            }
        }
    }
}

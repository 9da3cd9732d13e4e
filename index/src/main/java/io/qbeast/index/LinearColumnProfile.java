package io.qbeast.index;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The counting shared by the profiles of linear columns ({@link LongColumnProfile},
 * {@link DoubleColumnProfile}): rows, values, and values outside the bounds of the column's current
 * transformation, if any. The subclasses keep their own minimum and maximum, unboxed.
 */
abstract sealed class LinearColumnProfile<T>
        permits LongColumnProfile, DoubleColumnProfile
{
    private final String name;
    private final T bounds;
    private long rows;
    private long values;
    private long outside;

    /** A profile for choosing the bounds of a first revision. */
    LinearColumnProfile(String name)
    {
        this.name = requireNonNull(name, "name is null");
        this.bounds = null;
    }

    /** A profile that also counts the values outside the bounds of the column's current transformation. */
    LinearColumnProfile(String name, T bounds)
    {
        this.name = requireNonNull(name, "name is null");
        this.bounds = requireNonNull(bounds, "bounds is null");
    }

    /** Counts a row with a value, and whether that value lies outside the profile's bounds. */
    final void countValue(boolean outsideBounds)
    {
        rows++;
        values++;
        if (outsideBounds) {
            outside++;
        }
    }

    /** The bounds to test a value against, or null when the profile has none. */
    final T boundsOrNull()
    {
        return bounds;
    }

    /** Counts a row without a value (a NULL; for doubles also NaN and infinities). */
    public void addNull()
    {
        rows++;
    }

    public String name()
    {
        return name;
    }

    public Optional<T> bounds()
    {
        return Optional.ofNullable(bounds);
    }

    /** Rows seen, NULLs (and, for doubles, NaN and infinities) included. */
    public long rows()
    {
        return rows;
    }

    /** Values seen: non-null values, or finite values for doubles. */
    public long values()
    {
        return values;
    }

    /** Values counted by {@link #values()} that lie outside {@link #bounds()}. */
    public long outside()
    {
        return outside;
    }

    /** Throws unless the profile has seen a value; {@code kind} names them in the message ("values", "finite values"). */
    final void checkValues(String kind)
    {
        if (values == 0) {
            throw new IllegalStateException("No " + kind + " in the profile of column " + name);
        }
    }
}

package io.qbeast.index;

import io.qbeast.index.transform.LongLinearTransformation;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** Bounds of the values of a {@link io.qbeast.index.transform.ValueDomain#LONG} column in one batch. */
public final class LongColumnProfile
        implements ColumnProfile
{
    private final String name;
    private final LongLinearTransformation bounds;
    private long rows;
    private long values;
    private long outside;
    private long min = Long.MAX_VALUE;
    private long max = Long.MIN_VALUE;

    /** A profile for choosing the bounds of a first revision. */
    public LongColumnProfile(String name)
    {
        this.name = requireNonNull(name, "name is null");
        this.bounds = null;
    }

    /** A profile that also counts the values outside the bounds of the column's current transformation. */
    public LongColumnProfile(String name, LongLinearTransformation bounds)
    {
        this.name = requireNonNull(name, "name is null");
        this.bounds = requireNonNull(bounds, "bounds is null");
    }

    public void add(long value)
    {
        rows++;
        values++;
        min = Math.min(min, value);
        max = Math.max(max, value);
        if (bounds != null && !bounds.contains(value)) {
            outside++;
        }
    }

    public void addNull()
    {
        rows++;
    }

    @Override
    public String name()
    {
        return name;
    }

    public Optional<LongLinearTransformation> bounds()
    {
        return Optional.ofNullable(bounds);
    }

    /** Rows seen, NULLs included. */
    public long rows()
    {
        return rows;
    }

    /** Non-null values seen. */
    public long values()
    {
        return values;
    }

    /** Values outside {@link #bounds()}. */
    public long outside()
    {
        return outside;
    }

    public long min()
    {
        checkValues();
        return min;
    }

    public long max()
    {
        checkValues();
        return max;
    }

    private void checkValues()
    {
        if (values == 0) {
            throw new IllegalStateException("No values in the profile of column " + name);
        }
    }
}

package io.qbeast.index;

import io.qbeast.index.transform.LongLinearTransformation;

/** Bounds of the values of a {@link io.qbeast.index.transform.ValueDomain#LONG} column in one batch. */
public final class LongColumnProfile
        extends LinearColumnProfile<LongLinearTransformation>
        implements ColumnProfile
{
    private long min = Long.MAX_VALUE;
    private long max = Long.MIN_VALUE;

    /** A profile for choosing the bounds of a first revision. */
    public LongColumnProfile(String name)
    {
        super(name);
    }

    /** A profile that also counts the values outside the bounds of the column's current transformation. */
    public LongColumnProfile(String name, LongLinearTransformation bounds)
    {
        super(name, bounds);
    }

    public void add(long value)
    {
        min = Math.min(min, value);
        max = Math.max(max, value);
        LongLinearTransformation bounds = boundsOrNull();
        countValue(bounds != null && !bounds.contains(value));
    }

    public long min()
    {
        checkValues("values");
        return min;
    }

    public long max()
    {
        checkValues("values");
        return max;
    }
}

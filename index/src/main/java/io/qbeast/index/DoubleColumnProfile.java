package io.qbeast.index;

import io.qbeast.index.transform.DoubleLinearTransformation;

/**
 * Bounds of the finite values of a {@link io.qbeast.index.transform.ValueDomain#DOUBLE} column in
 * one batch. NaN and infinities are counted but neither bound nor out of bounds: no finite bounds
 * can hold them, and their coordinates (the edges) are right whatever the bounds.
 */
public final class DoubleColumnProfile
        extends LinearColumnProfile<DoubleLinearTransformation>
        implements ColumnProfile
{
    private double min = Double.POSITIVE_INFINITY;
    private double max = Double.NEGATIVE_INFINITY;

    /** A profile for choosing the bounds of a first revision. */
    public DoubleColumnProfile(String name)
    {
        super(name);
    }

    /** A profile that also counts the values outside the bounds of the column's current transformation. */
    public DoubleColumnProfile(String name, DoubleLinearTransformation bounds)
    {
        super(name, bounds);
    }

    public void add(double value)
    {
        if (!Double.isFinite(value)) {
            addNull();
            return;
        }
        min = Math.min(min, value);
        max = Math.max(max, value);
        DoubleLinearTransformation bounds = boundsOrNull();
        countValue(bounds != null && !bounds.contains(value));
    }

    /** The smallest finite value (0.0 for both zeros). */
    public double min()
    {
        checkValues("finite values");
        return min + 0.0;
    }

    public double max()
    {
        checkValues("finite values");
        return max + 0.0;
    }
}

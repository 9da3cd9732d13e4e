package io.qbeast.index;

import io.qbeast.index.transform.DoubleLinearTransformation;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Bounds of the finite values of a {@link io.qbeast.index.transform.ValueDomain#DOUBLE} column in
 * one batch. NaN and infinities are counted but neither bound nor out of bounds: no finite bounds
 * can hold them, and their coordinates (the edges) are right whatever the bounds.
 */
public final class DoubleColumnProfile
        implements ColumnProfile
{
    private final String name;
    private final DoubleLinearTransformation bounds;
    private long rows;
    private long values;
    private long outside;
    private double min = Double.POSITIVE_INFINITY;
    private double max = Double.NEGATIVE_INFINITY;

    /** A profile for choosing the bounds of a first revision. */
    public DoubleColumnProfile(String name)
    {
        this.name = requireNonNull(name, "name is null");
        this.bounds = null;
    }

    /** A profile that also counts the values outside the bounds of the column's current transformation. */
    public DoubleColumnProfile(String name, DoubleLinearTransformation bounds)
    {
        this.name = requireNonNull(name, "name is null");
        this.bounds = requireNonNull(bounds, "bounds is null");
    }

    public void add(double value)
    {
        rows++;
        if (!Double.isFinite(value)) {
            return;
        }
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

    public Optional<DoubleLinearTransformation> bounds()
    {
        return Optional.ofNullable(bounds);
    }

    /** Rows seen, NULLs, NaN and infinities included. */
    public long rows()
    {
        return rows;
    }

    /** Finite values seen. */
    public long values()
    {
        return values;
    }

    /** Finite values outside {@link #bounds()}. */
    public long outside()
    {
        return outside;
    }

    /** The smallest finite value (0.0 for both zeros). */
    public double min()
    {
        checkValues();
        return min + 0.0;
    }

    public double max()
    {
        checkValues();
        return max + 0.0;
    }

    private void checkValues()
    {
        if (values == 0) {
            throw new IllegalStateException("No finite values in the profile of column " + name);
        }
    }
}

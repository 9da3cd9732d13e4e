package io.qbeast.index.transform;

/**
 * {@code (value - min) / (max - min)} over bounds {@code [min, max]}, with values outside the bounds
 * clamped to the edges. For numbers, dates, times, timestamps and decimals.
 */
public sealed interface LinearTransformation
        extends Transformation
        permits LongLinearTransformation, DoubleLinearTransformation
{
    @Override
    default boolean preservesOrder()
    {
        return true;
    }
}

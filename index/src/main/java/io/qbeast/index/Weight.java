package io.qbeast.index;

/**
 * Row weights: uniform pseudo-random signed 32-bit integers, stored with every row.
 *
 * <p>A sample of fraction {@code f} is exactly the rows whose weight is below
 * {@link #upperBound(double) upperBound(f)}. Bounds are {@code long} so that "everything" is
 * expressible ({@code Integer.MAX_VALUE + 1}).
 */
public final class Weight
{
    public static final int MIN = Integer.MIN_VALUE;
    public static final int MAX = Integer.MAX_VALUE;

    /** The exclusive bound that selects no row. */
    public static final long NONE = Integer.MIN_VALUE;
    /** The exclusive bound that selects every row. */
    public static final long ALL = Integer.MAX_VALUE + 1L;

    private static final double RANGE = 0x1p32;

    private Weight() {}

    /**
     * The exclusive weight bound of a sample of {@code fraction} of the rows: {@code NONE} for 0,
     * {@code ALL} for 1, monotone in between: {@code ⌊f · 2^32 + ½⌋ − 2^31}, f · 2^32 rounded to
     * the nearest integer (halves up). The one owner of this rule: README states it, and
     * TestQbeastSampling checks the bound EXPLAIN prints against it.
     */
    public static long upperBound(double fraction)
    {
        if (!(fraction >= 0.0 && fraction <= 1.0)) {
            throw new IllegalArgumentException("Sample fraction must be in [0, 1]: " + fraction);
        }
        return MIN + Math.round(fraction * RANGE);
    }

    /** The fraction of all weights that are below {@code weight}: (weight - MIN) / 2^32. */
    public static double fraction(int weight)
    {
        return (weight - (long) MIN) / RANGE;
    }

    /** The fraction of all weights below an exclusive bound, inverse of {@link #upperBound}. */
    public static double fractionOfBound(long bound)
    {
        if (bound < NONE || bound > ALL) {
            throw new IllegalArgumentException("Weight bound out of range: " + bound);
        }
        return (bound - MIN) / RANGE;
    }
}

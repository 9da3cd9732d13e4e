package io.qbeast.index;

import io.qbeast.index.transform.DoubleLinearTransformation;
import io.qbeast.index.transform.LongLinearTransformation;

/**
 * Bounds snapped outward to a grid, so that writers who see different parts of the same data
 * usually choose identical bounds (and, through content ids, the identical revision).
 *
 * <p>The required interval {@code [low, high]} first gets head-room: a fraction of its span on each
 * side, except that it never crosses zero (a column of non-negative values keeps 0 as its floor,
 * since counts, ids and epoch times start there; likewise for non-positive values). Then, for the
 * smallest power of two {@code u} such that at most {@value #MAX_UNITS} grid units
 * {@code [k·u, (k+1)·u)} cover the interval, the bounds are the union of those units: for longs
 * {@code [k·u, (k+m)·u - 1]}, for doubles {@code [k·u, (k+m)·u]}. Two writers disagree only if their
 * observed minima or maxima straddle a grid line, or their spans straddle the point where {@code u}
 * doubles; with units of 1/8 to 1/4 of the span, that needs their extremes to differ by a sizeable
 * part of the span, which random parts of one data set rarely do.
 */
final class AlignedBounds
{
    static final int MAX_UNITS = 8;
    // for doubles: the finest grid unit, so that 1 / (max - min) stays finite
    private static final int MIN_DOUBLE_EXPONENT = -1000;

    private AlignedBounds() {}

    static LongLinearTransformation covering(long low, long high, double headroom)
    {
        checkOrder(low <= high, low, high);
        double span = high == low ? Math.max(1.0, Math.abs((double) low) / 16) : distance(low, high);
        long delta = (long) Math.ceil(headroom * span);
        long paddedLow = low >= 0 ? Math.max(0, saturatedAdd(low, -delta)) : saturatedAdd(low, -delta);
        long paddedHigh = high < 0 ? Math.min(-1, saturatedAdd(high, delta)) : saturatedAdd(high, delta);
        double width = Math.max(span, distance(paddedLow, paddedHigh));
        for (int exponent = Math.max(0, Math.getExponent(width) - 4); exponent < Long.SIZE - 1; exponent++) {
            long unit = 1L << exponent;
            long first = Math.floorDiv(paddedLow, unit);
            long last = Math.floorDiv(paddedHigh, unit);
            if (last - first < MAX_UNITS) {
                // last * unit + unit - 1 cannot overflow: the largest multiple of unit is 2^63 - unit
                return new LongLinearTransformation(first * unit, last * unit + (unit - 1));
            }
        }
        return new LongLinearTransformation(Long.MIN_VALUE, Long.MAX_VALUE);
    }

    static DoubleLinearTransformation covering(double low, double high, double headroom)
    {
        checkOrder(Double.isFinite(low) && Double.isFinite(high) && low <= high, low, high);
        double span = high - low;
        if (span == 0) {
            span = low == 0 ? 1.0 : Math.abs(low) / 16;
        }
        span = Math.min(Math.max(span, Math.scalb(1.0, MIN_DOUBLE_EXPONENT)), Double.MAX_VALUE);
        double delta = headroom * span;
        double paddedLow = clamp(low - delta);
        double paddedHigh = clamp(high + delta);
        if (low >= 0) {
            paddedLow = Math.max(0.0, paddedLow);
        }
        if (high <= 0) {
            paddedHigh = Math.min(0.0, paddedHigh);
        }
        double width = Math.max(span, clamp(paddedHigh - paddedLow));
        for (int exponent = Math.max(MIN_DOUBLE_EXPONENT, Math.getExponent(width) - 4); exponent <= Double.MAX_EXPONENT; exponent++) {
            double unit = Math.scalb(1.0, exponent);
            double first = Math.floor(paddedLow / unit);
            double last = Math.ceil(paddedHigh / unit);
            if (last == first) {
                last = first + 1;
            }
            // the top unit may end past Double.MAX_VALUE: the bound is then MAX_VALUE, which still holds every finite value
            double min = clamp(first * unit);
            double max = clamp(last * unit);
            // near 2^53 units per value, first + 1 may round back to first: then the grid is too fine to use
            if (last - first <= MAX_UNITS && min <= paddedLow && max >= paddedHigh && min < max) {
                return new DoubleLinearTransformation(min, max);
            }
        }
        return new DoubleLinearTransformation(low >= 0 ? 0.0 : -Double.MAX_VALUE, high <= 0 ? 0.0 : Double.MAX_VALUE);
    }

    /**
     * Bounds holding the current bounds and {@code [low, high]}. A side that must grow grows by at
     * least the current width, so data that drifts (timestamps, ids) needs a number of revisions
     * logarithmic, not linear, in how far it drifts.
     */
    static LongLinearTransformation widened(LongLinearTransformation current, long low, long high, double headroom)
    {
        checkOrder(low <= high, low, high);
        long width = (long) Math.min(Long.MAX_VALUE, distance(current.min(), current.max()) + 1);
        long required = Math.min(current.min(), low);
        long requiredHigh = Math.max(current.max(), high);
        if (low < current.min()) {
            required = Math.min(required, saturatedAdd(current.min(), -width));
        }
        if (high > current.max()) {
            requiredHigh = Math.max(requiredHigh, saturatedAdd(current.max(), width));
        }
        return covering(required, requiredHigh, headroom);
    }

    static DoubleLinearTransformation widened(DoubleLinearTransformation current, double low, double high, double headroom)
    {
        checkOrder(Double.isFinite(low) && Double.isFinite(high) && low <= high, low, high);
        double width = clamp(current.max() - current.min());
        double required = Math.min(current.min(), low);
        double requiredHigh = Math.max(current.max(), high);
        if (low < current.min()) {
            required = Math.min(required, clamp(current.min() - width));
        }
        if (high > current.max()) {
            requiredHigh = Math.max(requiredHigh, clamp(current.max() + width));
        }
        return covering(required, requiredHigh, headroom);
    }

    // high - low (high >= low) as a double, exact up to rounding even where both are near the ends of the long range
    private static double distance(long low, long high)
    {
        long difference = high - low;
        return difference >= 0 ? difference : ((difference >>> 1) | (difference & 1)) * 2.0;
    }

    private static long saturatedAdd(long value, long delta)
    {
        long sum = value + delta;
        // overflow iff both operands have the same sign and the sum's sign differs
        if (((value ^ sum) & (delta ^ sum)) < 0) {
            return delta < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return sum;
    }

    private static double clamp(double value)
    {
        return Math.max(-Double.MAX_VALUE, Math.min(Double.MAX_VALUE, value));
    }

    private static void checkOrder(boolean valid, Object low, Object high)
    {
        if (!valid) {
            throw new IllegalArgumentException("Invalid value bounds [%s, %s]".formatted(low, high));
        }
    }
}

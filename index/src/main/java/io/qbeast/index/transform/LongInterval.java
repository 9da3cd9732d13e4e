package io.qbeast.index.transform;

import java.util.Optional;

/**
 * A non-empty closed interval of longs: the form both long-domain transformations map to
 * coordinates, after exclusive bounds are turned into inclusive ones without overflow.
 */
record LongInterval(long low, long high)
{
    static Optional<LongInterval> of(long low, boolean lowInclusive, long high, boolean highInclusive)
    {
        if (!lowInclusive) {
            if (low == Long.MAX_VALUE) {
                return Optional.empty();
            }
            low++;
        }
        if (!highInclusive) {
            if (high == Long.MIN_VALUE) {
                return Optional.empty();
            }
            high--;
        }
        return low > high ? Optional.empty() : Optional.of(new LongInterval(low, high));
    }
}

package io.qbeast.index.transform;

/**
 * Maps a signed 128-bit integer (two's complement, as {@code high} and {@code low} 64-bit halves)
 * into the {@link ValueDomain#DOUBLE} domain, for long decimals: their unscaled values share one
 * scale per column, so the order of unscaled values is the order of the decimals.
 */
public final class SignedInt128
{
    private SignedInt128() {}

    /**
     * The nearest double (ties to even), like {@code BigInteger.doubleValue()} but without
     * allocating. Correct rounding is monotone, so the linear transformation stays monotone.
     */
    public static double toDouble(long high, long low)
    {
        if (high == (low >> 63)) {
            return low;
        }
        boolean negative = high < 0;
        if (negative) {
            low = -low;
            high = ~high + (low == 0 ? 1 : 0);
        }
        // the magnitude is at least 2^63; keep its top 64 bits and fold the rest into a sticky bit
        int shift = 64 - Long.numberOfLeadingZeros(high);
        long top;
        boolean sticky;
        if (shift == 0) {
            top = low;
            sticky = false;
        }
        else if (shift == Long.SIZE) {
            top = high;
            sticky = low != 0;
        }
        else {
            top = (high << (Long.SIZE - shift)) | (low >>> shift);
            sticky = (low << (Long.SIZE - shift)) != 0;
        }
        double magnitude = Math.scalb(LongLinearTransformation.unsignedToDouble(top | (sticky ? 1 : 0)), shift);
        return negative ? -magnitude : magnitude;
    }
}

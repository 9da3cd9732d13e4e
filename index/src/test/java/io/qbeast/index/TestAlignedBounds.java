package io.qbeast.index;

import io.qbeast.index.transform.DoubleLinearTransformation;
import io.qbeast.index.transform.LongLinearTransformation;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class TestAlignedBounds
{
    private static final double HEADROOM = RevisionPlanner.DEFAULT_HEADROOM;

    @Test
    void testLongBoundsCoverAlignAndStayTight()
    {
        Random random = new Random(71);
        for (int i = 0; i < 200_000; i++) {
            long a = randomLong(random);
            long b = random.nextInt(10) == 0 ? a : randomLong(random);
            long low = Math.min(a, b);
            long high = Math.max(a, b);
            LongLinearTransformation bounds = AlignedBounds.covering(low, high, HEADROOM);
            assertThat(bounds.contains(low) && bounds.contains(high)).as("[%s, %s] in %s", low, high, bounds).isTrue();
            if (low >= 0) {
                assertThat(bounds.min()).isGreaterThanOrEqualTo(0);
            }
            if (high < 0) {
                assertThat(bounds.max()).isLessThan(0);
            }
            // aligned: the bounds are at most MAX_UNITS whole units of a power of two
            BigInteger min = BigInteger.valueOf(bounds.min());
            BigInteger end = BigInteger.valueOf(bounds.max()).add(BigInteger.ONE);
            BigInteger width = end.subtract(min);
            int unitExponent = Math.min(min.signum() == 0 ? 64 : min.getLowestSetBit(), end.signum() == 0 ? 64 : end.getLowestSetBit());
            unitExponent = Math.min(unitExponent, width.getLowestSetBit());
            assertThat(width.shiftRight(unitExponent).longValueExact()).as("%s", bounds).isLessThanOrEqualTo(AlignedBounds.MAX_UNITS);
            // tight: with head-room 1/16 the bounds are at most 16/7 * 9/8 times the span, plus rounding
            double span = (double) high - (double) low;
            if (span >= 64 && bounds.min() != Long.MIN_VALUE && bounds.max() != Long.MAX_VALUE) {
                assertThat(width.doubleValue()).as("%s for [%s, %s]", bounds, low, high).isLessThanOrEqualTo(2.6 * span + 16);
            }
        }
    }

    @Test
    void testDoubleBoundsCoverAlignAndStayTight()
    {
        Random random = new Random(72);
        for (int i = 0; i < 200_000; i++) {
            double a = randomDouble(random);
            double b = random.nextInt(10) == 0 ? a : randomDouble(random);
            double low = Math.min(a, b);
            double high = Math.max(a, b);
            DoubleLinearTransformation bounds = AlignedBounds.covering(low, high, HEADROOM);
            assertThat(bounds.contains(low) && bounds.contains(high)).as("[%s, %s] in %s", low, high, bounds).isTrue();
            if (low >= 0) {
                assertThat(bounds.min()).isGreaterThanOrEqualTo(0.0);
            }
            if (high <= 0 && low < 0) {
                assertThat(bounds.max()).isLessThanOrEqualTo(0.0);
            }
            double span = high - low;
            if (bounds.max() < Double.MAX_VALUE && bounds.min() > -Double.MAX_VALUE && span > 1e-290 && Double.isFinite(span)) {
                // aligned: both bounds are multiples of a power of two of which at most MAX_UNITS fit between them
                double unit = Math.min(Math.min(lowestPowerOfTwo(bounds.min()), lowestPowerOfTwo(bounds.max())), lowestPowerOfTwo(bounds.max() - bounds.min()));
                assertThat((bounds.max() - bounds.min()) / unit).as("%s", bounds).isLessThanOrEqualTo(AlignedBounds.MAX_UNITS);
                if (span >= Math.ulp(Math.max(Math.abs(low), Math.abs(high))) * 1e6) {
                    assertThat(bounds.max() - bounds.min()).as("%s for [%s, %s]", bounds, low, high).isLessThanOrEqualTo(2.6 * span);
                }
            }
        }
    }

    @Test
    void testWideningKeepsOldBoundsAndGrowsGeometrically()
    {
        Random random = new Random(73);
        for (int i = 0; i < 50_000; i++) {
            long a = randomLong(random);
            long b = randomLong(random);
            LongLinearTransformation current = AlignedBounds.covering(Math.min(a, b), Math.max(a, b), HEADROOM);
            long c = randomLong(random);
            long d = randomLong(random);
            LongLinearTransformation widened = AlignedBounds.widened(current, Math.min(c, d), Math.max(c, d), HEADROOM);
            assertThat(widened.contains(current.min()) && widened.contains(current.max())).isTrue();
            assertThat(widened.contains(c) && widened.contains(d)).isTrue();
            BigInteger currentWidth = BigInteger.valueOf(current.max()).subtract(BigInteger.valueOf(current.min())).add(BigInteger.ONE);
            BigInteger widenedWidth = BigInteger.valueOf(widened.max()).subtract(BigInteger.valueOf(widened.min())).add(BigInteger.ONE);
            boolean grew = Math.min(c, d) < current.min() || Math.max(c, d) > current.max();
            boolean saturated = widened.min() == Long.MIN_VALUE || widened.max() == Long.MAX_VALUE;
            if (grew && !saturated) {
                assertThat(widenedWidth).as("%s widened by [%s, %s] to %s", current, Math.min(c, d), Math.max(c, d), widened).isGreaterThanOrEqualTo(currentWidth.shiftLeft(1));
            }

            double x = randomDouble(random);
            double y = randomDouble(random);
            DoubleLinearTransformation doubles = AlignedBounds.covering(Math.min(x, y), Math.max(x, y), HEADROOM);
            double p = randomDouble(random);
            DoubleLinearTransformation widenedDoubles = AlignedBounds.widened(doubles, p, p, HEADROOM);
            assertThat(widenedDoubles.contains(doubles.min()) && widenedDoubles.contains(doubles.max()) && widenedDoubles.contains(p)).isTrue();
        }
    }

    private static double lowestPowerOfTwo(double value)
    {
        if (value == 0) {
            return Double.MAX_VALUE;
        }
        // the largest power of two dividing the value
        double power = Math.ulp(value);
        while (Math.floor(value / (power * 2)) * power * 2 == value && power * 2 < Double.MAX_VALUE) {
            power *= 2;
        }
        return power;
    }

    private static long randomLong(Random random)
    {
        return switch (random.nextInt(6)) {
            case 0 -> random.nextLong();
            case 1 -> random.nextBoolean() ? Long.MIN_VALUE + random.nextInt(100) : Long.MAX_VALUE - random.nextInt(100);
            case 2 -> random.nextInt(100) - 20;
            case 3 -> 1_700_000_000_000_000L + random.nextLong(86_400_000_000L);
            default -> random.nextLong() >> random.nextInt(64);
        };
    }

    private static double randomDouble(Random random)
    {
        return switch (random.nextInt(6)) {
            case 0 -> random.nextBoolean() ? Double.MAX_VALUE : -Double.MAX_VALUE;
            case 1 -> (random.nextDouble() - 0.3) * 1000;
            case 2 -> random.nextBoolean() ? 0.0 : Double.MIN_VALUE * random.nextInt(10);
            case 3 -> Math.scalb(random.nextDouble() - 0.5, random.nextInt(2000) - 1000);
            case 4 -> 1e15 + random.nextInt(100);
            default -> random.nextGaussian() * 10 + 50;
        };
    }
}

package io.qbeast.index.transform;

import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class TestSignedInt128
{
    @Test
    void testRoundsLikeBigInteger()
    {
        Random random = new Random(41);
        List<BigInteger> values = new ArrayList<>();
        BigInteger two = BigInteger.TWO;
        for (int exponent : new int[] {0, 52, 53, 54, 62, 63, 64, 65, 116, 117, 126, 127}) {
            for (int delta = -3; delta <= 3; delta++) {
                values.add(two.pow(exponent).add(BigInteger.valueOf(delta)));
                values.add(two.pow(exponent).negate().add(BigInteger.valueOf(delta)));
            }
        }
        for (int i = 0; i < 100_000; i++) {
            // random magnitudes, and ties: a 54-bit odd significand shifted up has a half-way low bit pattern
            BigInteger value = switch (random.nextInt(3)) {
                case 0 -> new BigInteger(1 + random.nextInt(127), random);
                case 1 -> BigInteger.valueOf(random.nextLong() | (1L << 53) | 1).shiftLeft(random.nextInt(70));
                default -> new BigInteger(127, random).setBit(random.nextInt(127));
            };
            values.add(random.nextBoolean() ? value.negate() : value);
        }
        BigInteger min = two.pow(127).negate();
        BigInteger max = two.pow(127).subtract(BigInteger.ONE);
        values.add(min);
        values.add(max);
        for (BigInteger value : values) {
            if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
                continue;
            }
            long high = value.shiftRight(64).longValue();
            long low = value.longValue();
            assertThat(SignedInt128.toDouble(high, low)).as(value.toString()).isEqualTo(value.doubleValue());
        }
        // correct rounding is monotone; check it directly on sorted neighbours too
        List<BigInteger> sorted = values.stream().filter(value -> value.compareTo(min) >= 0 && value.compareTo(max) <= 0).sorted().toList();
        for (int i = 1; i < sorted.size(); i++) {
            BigInteger a = sorted.get(i - 1);
            BigInteger b = sorted.get(i);
            assertThat(SignedInt128.toDouble(a.shiftRight(64).longValue(), a.longValue()))
                    .isLessThanOrEqualTo(SignedInt128.toDouble(b.shiftRight(64).longValue(), b.longValue()));
        }
    }
}

package io.qbeast.index;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

final class TestWeight
{
    @Test
    void testBoundsOfEmptyAndFullSamples()
    {
        assertThat(Weight.upperBound(0)).isEqualTo(Integer.MIN_VALUE);
        assertThat(Weight.upperBound(1)).isEqualTo(Integer.MAX_VALUE + 1L);
        // nothing is below the empty bound, everything is below the full one
        assertThat((long) Integer.MIN_VALUE < Weight.upperBound(0)).isFalse();
        assertThat((long) Integer.MAX_VALUE < Weight.upperBound(1)).isTrue();
        assertThatThrownBy(() -> Weight.upperBound(-0.1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Weight.upperBound(1.1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Weight.upperBound(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void testUpperBoundIsMonotoneAndInvertsFraction()
    {
        SplittableRandom random = new SplittableRandom(1);
        double previous = 0;
        long previousBound = Weight.upperBound(0);
        double[] fractions = random.doubles(10_000).sorted().toArray();
        for (double fraction : fractions) {
            long bound = Weight.upperBound(fraction);
            assertThat(bound).isGreaterThanOrEqualTo(previousBound);
            assertThat(Weight.fractionOfBound(bound)).isCloseTo(fraction, within(1e-9));
            previousBound = bound;
            previous = fraction;
        }
        assertThat(previous).isLessThan(1);
        assertThat(Weight.fraction(Integer.MIN_VALUE)).isEqualTo(0.0);
        assertThat(Weight.fraction(0)).isEqualTo(0.5);
        assertThat(Weight.fraction(Integer.MAX_VALUE)).isCloseTo(1.0, within(1e-9));
    }

    @Test
    void testSampleOfFractionSelectsThatFractionOfGeneratedWeights()
    {
        int[] weights = new int[1_000_000];
        new WeightGenerator(7).fill(weights, 0, weights.length);
        for (double fraction : new double[] {0.001, 0.01, 0.1, 0.5, 0.9}) {
            long bound = Weight.upperBound(fraction);
            long selected = 0;
            for (int weight : weights) {
                if (weight < bound) {
                    selected++;
                }
            }
            // binomial: 5 standard deviations
            double sigma = Math.sqrt(weights.length * fraction * (1 - fraction));
            assertThat((double) selected).isCloseTo(weights.length * fraction, within(5 * sigma));
        }
    }

    @Test
    void testGeneratorIsDeterministicAndUniform()
    {
        WeightGenerator first = new WeightGenerator(42);
        WeightGenerator second = new WeightGenerator(42);
        int[] filled = new int[100_000];
        second.fill(filled, 0, filled.length);
        int[] buckets = new int[64];
        for (int i = 0; i < filled.length; i++) {
            int weight = first.next();
            assertThat(weight).isEqualTo(filled[i]);
            buckets[(int) ((weight - (long) Integer.MIN_VALUE) >>> 26)]++;
        }
        // chi-square with 63 degrees of freedom; 120 is far in the tail
        double expected = filled.length / 64.0;
        double chiSquare = 0;
        for (int count : buckets) {
            chiSquare += (count - expected) * (count - expected) / expected;
        }
        assertThat(chiSquare).isLessThan(120);
        assertThat(new WeightGenerator(43).next()).isNotEqualTo(new WeightGenerator(42).next());
    }

    @Test
    void testFillChecksItsRange()
    {
        assertThatThrownBy(() -> new WeightGenerator(1).fill(new int[4], 2, 3)).isInstanceOf(IndexOutOfBoundsException.class);
    }
}

package io.qbeast.index.transform;

import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.util.List;
import java.util.Random;

import static io.qbeast.index.transform.Transformation.MAX_COORDINATE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestLongLinearTransformation
{
    private static final List<LongLinearTransformation> TRANSFORMATIONS = List.of(
            new LongLinearTransformation(0, 1023),
            new LongLinearTransformation(-5, 5),
            new LongLinearTransformation(7, 7),
            new LongLinearTransformation(Long.MIN_VALUE, Long.MAX_VALUE),
            new LongLinearTransformation(Long.MIN_VALUE, 0),
            new LongLinearTransformation(-1, Long.MAX_VALUE),
            new LongLinearTransformation(1_600_000_000_000_000L, 1_800_000_000_000_000L),
            new LongLinearTransformation(Long.MAX_VALUE - 3, Long.MAX_VALUE));

    @Test
    void testMonotoneOverWholeDomain()
    {
        Random random = new Random(1);
        for (LongLinearTransformation transformation : TRANSFORMATIONS) {
            for (int i = 0; i < 100_000; i++) {
                long a = value(random, transformation);
                long b = value(random, transformation);
                long low = Math.min(a, b);
                long high = Math.max(a, b);
                double lowCoordinate = transformation.coordinate(low);
                double highCoordinate = transformation.coordinate(high);
                assertThat(lowCoordinate).as("%s: %s <= %s", transformation, low, high).isLessThanOrEqualTo(highCoordinate);
                assertThat(lowCoordinate).isBetween(0.0, MAX_COORDINATE);
                assertThat(highCoordinate).isBetween(0.0, MAX_COORDINATE);
            }
        }
    }

    @Test
    void testEdgesAndClamping()
    {
        for (LongLinearTransformation transformation : TRANSFORMATIONS) {
            assertThat(transformation.coordinate(transformation.min())).isEqualTo(0.0);
            assertThat(transformation.coordinate(Long.MIN_VALUE)).isEqualTo(0.0);
            assertThat(transformation.coordinate(transformation.max())).isLessThan(1.0);
            assertThat(transformation.coordinate(Long.MAX_VALUE)).isLessThan(1.0);
            if (transformation.max() < Long.MAX_VALUE) {
                assertThat(transformation.coordinate(transformation.max() + 1)).isEqualTo(MAX_COORDINATE);
            }
        }
    }

    @Test
    void testIntegersOfTheBoundsSplitTheUnitIntervalEvenly()
    {
        // bounds aligned to a power of two put cell edges on round values
        LongLinearTransformation transformation = new LongLinearTransformation(1024, 2047);
        for (long value = 1024; value <= 2047; value++) {
            assertThat(transformation.coordinate(value)).isEqualTo((value - 1024) / 1024.0);
        }
        LongLinearTransformation full = new LongLinearTransformation(Long.MIN_VALUE, Long.MAX_VALUE);
        assertThat(full.coordinate(0)).isEqualTo(0.5);
        assertThat(full.coordinate(-4096)).isLessThan(0.5);
    }

    @Test
    void testRangeIsConservative()
    {
        Random random = new Random(2);
        for (LongLinearTransformation transformation : TRANSFORMATIONS) {
            for (int i = 0; i < 20_000; i++) {
                long low = value(random, transformation);
                long high = random.nextInt(4) == 0 ? low : value(random, transformation);
                boolean lowInclusive = random.nextBoolean();
                boolean highInclusive = random.nextBoolean();
                CoordinateRanges ranges = transformation.range(low, lowInclusive, high, highInclusive);
                boolean empty = true;
                for (int j = 0; j < 20; j++) {
                    long value = j < 2 ? (j == 0 ? low : high) : value(random, transformation);
                    boolean matches = (lowInclusive ? value >= low : value > low) && (highInclusive ? value <= high : value < high);
                    if (matches) {
                        empty = false;
                        assertThat(ranges.contains(transformation.coordinate(value)))
                                .as("%s: %s in range %s%s, %s%s", transformation, value, lowInclusive ? "[" : "(", low, high, highInclusive ? "]" : ")")
                                .isTrue();
                    }
                }
                if (!empty) {
                    assertThat(ranges.isNone()).isFalse();
                }
            }
        }
    }

    @Test
    void testRangeIsExactForEmptyAndPointRanges()
    {
        LongLinearTransformation transformation = new LongLinearTransformation(0, 99);
        assertThat(transformation.range(5, false, 6, false).isNone()).isTrue();
        assertThat(transformation.range(6, true, 5, true).isNone()).isTrue();
        assertThat(transformation.range(Long.MAX_VALUE, false, Long.MAX_VALUE, true).isNone()).isTrue();
        assertThat(transformation.range(Long.MIN_VALUE, true, Long.MIN_VALUE, false).isNone()).isTrue();
        assertThat(transformation.range(5, false, 7, false)).isEqualTo(transformation.point(6));
        assertThat(transformation.range(Long.MIN_VALUE, true, Long.MAX_VALUE, true).isAll()).isTrue();
    }

    @Test
    void testContainsAndUnion()
    {
        LongLinearTransformation transformation = new LongLinearTransformation(-10, 10);
        assertThat(transformation.contains(-10)).isTrue();
        assertThat(transformation.contains(10)).isTrue();
        assertThat(transformation.contains(11)).isFalse();
        assertThat(transformation.contains(-11)).isFalse();
        LongLinearTransformation union = transformation.union(5, 100);
        assertThat(union.min()).isEqualTo(-10);
        assertThat(union.max()).isEqualTo(100);
        assertThat(transformation.union(-3, 3)).isSameAs(transformation);
        assertThatThrownBy(() -> new LongLinearTransformation(1, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void testUnsignedToDoubleIsCorrectlyRounded()
    {
        Random random = new Random(3);
        for (int i = 0; i < 100_000; i++) {
            long value = random.nextLong();
            double expected = new BigInteger(Long.toUnsignedString(value)).doubleValue();
            assertThat(LongLinearTransformation.unsignedToDouble(value)).isEqualTo(expected);
        }
    }

    // values concentrated where mistakes happen: the bounds, just outside them, and the domain's ends
    private static long value(Random random, LongLinearTransformation transformation)
    {
        return switch (random.nextInt(8)) {
            case 0 -> random.nextLong();
            case 1 -> transformation.min() + random.nextInt(5) - 2;
            case 2 -> transformation.max() + random.nextInt(5) - 2;
            case 3 -> random.nextBoolean() ? Long.MIN_VALUE + random.nextInt(3) : Long.MAX_VALUE - random.nextInt(3);
            case 4 -> random.nextInt(2001) - 1000;
            default -> transformation.min() + (long) (random.nextDouble() * ((double) transformation.max() - transformation.min()));
        };
    }
}

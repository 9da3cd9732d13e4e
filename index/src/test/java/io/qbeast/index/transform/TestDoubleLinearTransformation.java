package io.qbeast.index.transform;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static io.qbeast.index.transform.Transformation.MAX_COORDINATE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.offset;

class TestDoubleLinearTransformation
{
    private static final double[] SPECIAL = {
            Double.NaN, Double.longBitsToDouble(0x7ff0000000000001L), Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
            0.0, -0.0, Double.MAX_VALUE, -Double.MAX_VALUE, Double.MIN_VALUE, -Double.MIN_VALUE, Double.MIN_NORMAL, 1.0, -1.0};

    private static final List<DoubleLinearTransformation> TRANSFORMATIONS = List.of(
            new DoubleLinearTransformation(0.0, 1.0),
            new DoubleLinearTransformation(-1e-300, 1e-300),
            new DoubleLinearTransformation(-Double.MAX_VALUE, Double.MAX_VALUE),
            new DoubleLinearTransformation(1e15, 1e15 + 2),
            new DoubleLinearTransformation(-273.15, 1e6),
            new DoubleLinearTransformation(Double.MAX_VALUE / 2, Double.MAX_VALUE));

    @Test
    void testMonotoneOverWholeDomainInSqlOrder()
    {
        Random random = new Random(11);
        for (DoubleLinearTransformation transformation : TRANSFORMATIONS) {
            for (int i = 0; i < 100_000; i++) {
                double a = value(random, transformation);
                double b = value(random, transformation);
                double low = DoubleLinearTransformation.compare(a, b) <= 0 ? a : b;
                double high = low == a ? b : a;
                double lowCoordinate = transformation.coordinate(low);
                double highCoordinate = transformation.coordinate(high);
                assertThat(lowCoordinate).as("%s: %s <= %s", transformation, low, high).isLessThanOrEqualTo(highCoordinate);
                assertThat(lowCoordinate).isBetween(0.0, MAX_COORDINATE);
                assertThat(highCoordinate).isBetween(0.0, MAX_COORDINATE);
                assertThat(Double.doubleToRawLongBits(lowCoordinate)).as("no -0.0").isNotEqualTo(Double.doubleToRawLongBits(-0.0));
            }
        }
    }

    @Test
    void testSpecialValuesHaveDefinedPlaces()
    {
        for (DoubleLinearTransformation transformation : TRANSFORMATIONS) {
            assertThat(transformation.coordinate(Double.NEGATIVE_INFINITY)).isEqualTo(0.0);
            assertThat(transformation.coordinate(-Double.MAX_VALUE)).isEqualTo(0.0);
            assertThat(transformation.coordinate(transformation.min())).isEqualTo(0.0);
            assertThat(transformation.coordinate(transformation.max())).isEqualTo(MAX_COORDINATE);
            assertThat(transformation.coordinate(Double.POSITIVE_INFINITY)).isEqualTo(MAX_COORDINATE);
            assertThat(transformation.coordinate(Double.NaN)).isEqualTo(MAX_COORDINATE);
            assertThat(transformation.coordinate(Double.longBitsToDouble(0xfff0000000000123L))).isEqualTo(MAX_COORDINATE);
            assertThat(transformation.coordinate(-0.0)).isEqualTo(transformation.coordinate(0.0));
            assertThat(transformation.contains(Double.NaN)).isFalse();
            assertThat(transformation.contains(Double.POSITIVE_INFINITY)).isFalse();
        }
        // the widest bounds do not overflow: 0 sits in the middle
        assertThat(new DoubleLinearTransformation(-Double.MAX_VALUE, Double.MAX_VALUE).coordinate(0.0)).isCloseTo(0.5, offset(1e-15));
        assertThat(new DoubleLinearTransformation(-4, 4).coordinate(2)).isEqualTo(0.75);
    }

    @Test
    void testRangeIsConservative()
    {
        Random random = new Random(12);
        for (DoubleLinearTransformation transformation : TRANSFORMATIONS) {
            for (int i = 0; i < 20_000; i++) {
                double low = value(random, transformation);
                double high = random.nextInt(4) == 0 ? low : value(random, transformation);
                boolean lowInclusive = random.nextBoolean();
                boolean highInclusive = random.nextBoolean();
                CoordinateRanges ranges = transformation.range(low, lowInclusive, high, highInclusive);
                for (int j = 0; j < 20; j++) {
                    double value = j < 2 ? (j == 0 ? low : high) : value(random, transformation);
                    int fromLow = DoubleLinearTransformation.compare(value, low);
                    int toHigh = DoubleLinearTransformation.compare(value, high);
                    boolean matches = (lowInclusive ? fromLow >= 0 : fromLow > 0) && (highInclusive ? toHigh <= 0 : toHigh < 0);
                    if (matches) {
                        assertThat(ranges.contains(transformation.coordinate(value)))
                                .as("%s: %s in range %s%s, %s%s", transformation, value, lowInclusive ? "[" : "(", low, high, highInclusive ? "]" : ")")
                                .isTrue();
                    }
                }
            }
        }
    }

    @Test
    void testUnboundedRangesAndEmptyRanges()
    {
        DoubleLinearTransformation transformation = new DoubleLinearTransformation(0, 100);
        assertThat(transformation.range(Double.NEGATIVE_INFINITY, true, Double.NaN, true).isAll()).isTrue();
        assertThat(transformation.range(Double.NaN, true, Double.NaN, true)).isEqualTo(CoordinateRanges.point(MAX_COORDINATE));
        assertThat(transformation.range(5, true, 4, true).isNone()).isTrue();
        assertThat(transformation.range(5, true, 5, false).isNone()).isTrue();
        assertThat(transformation.range(Double.NaN, true, 5, true).isNone()).isTrue();
        assertThat(transformation.range(-0.0, true, 0.0, true)).isEqualTo(transformation.point(0.0));
    }

    @Test
    void testInvalidBounds()
    {
        assertThatThrownBy(() -> new DoubleLinearTransformation(1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DoubleLinearTransformation(0, Double.POSITIVE_INFINITY)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DoubleLinearTransformation(Double.NaN, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DoubleLinearTransformation(0, Double.MIN_VALUE)).isInstanceOf(IllegalArgumentException.class);
        assertThat(new DoubleLinearTransformation(-0.0, 1)).isEqualTo(new DoubleLinearTransformation(0.0, 1));
    }

    @Test
    void testContainsAndUnion()
    {
        DoubleLinearTransformation transformation = new DoubleLinearTransformation(-1, 1);
        assertThat(transformation.contains(-1)).isTrue();
        assertThat(transformation.contains(1)).isTrue();
        assertThat(transformation.contains(Math.nextUp(1.0))).isFalse();
        DoubleLinearTransformation union = transformation.union(0.5, 7);
        assertThat(union.min()).isEqualTo(-1);
        assertThat(union.max()).isEqualTo(7);
        assertThat(transformation.union(0, 0.5)).isSameAs(transformation);
        assertThatThrownBy(() -> transformation.union(0, Double.NaN)).isInstanceOf(IllegalArgumentException.class);
    }

    private static double value(Random random, DoubleLinearTransformation transformation)
    {
        double span = transformation.max() - transformation.min();
        return switch (random.nextInt(8)) {
            case 0 -> SPECIAL[random.nextInt(SPECIAL.length)];
            case 1 -> Double.longBitsToDouble(random.nextLong());
            case 2 -> transformation.min() + (random.nextInt(5) - 2) * Math.ulp(transformation.min());
            case 3 -> transformation.max() + (random.nextInt(5) - 2) * Math.ulp(transformation.max());
            case 4 -> (random.nextDouble() * 2 - 1) * 1000;
            default -> transformation.min() + random.nextDouble() * (Double.isFinite(span) ? span : Double.MAX_VALUE);
        };
    }
}

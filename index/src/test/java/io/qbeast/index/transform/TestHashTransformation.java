package io.qbeast.index.transform;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;

import static io.qbeast.index.transform.Transformation.MAX_COORDINATE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestHashTransformation
{
    private static final int CELLS = 64;

    private final HashTransformation longs = new HashTransformation(ValueDomain.LONG);
    private final HashTransformation doubles = new HashTransformation(ValueDomain.DOUBLE);
    private final HashTransformation bytes = new HashTransformation(ValueDomain.BYTES);

    @Test
    void testValuesEqualInSqlHaveEqualCoordinates()
    {
        assertThat(doubles.coordinate(-0.0)).isEqualTo(doubles.coordinate(0.0));
        assertThat(doubles.coordinate(Double.longBitsToDouble(0x7ff0000000000001L))).isEqualTo(doubles.coordinate(Double.NaN));
        assertThat(doubles.coordinate(Double.longBitsToDouble(0xfff8000000000000L))).isEqualTo(doubles.coordinate(Double.NaN));
        Random random = new Random(31);
        for (int i = 0; i < 10_000; i++) {
            byte[] value = new byte[random.nextInt(40)];
            random.nextBytes(value);
            byte[] buffer = new byte[value.length + 16];
            random.nextBytes(buffer);
            int offset = random.nextInt(16);
            System.arraycopy(value, 0, buffer, offset, value.length);
            assertThat(bytes.coordinate(buffer, offset, value.length)).isEqualTo(bytes.coordinate(value.clone()));
        }
    }

    @Test
    void testCoordinatesAreUniformAndBelowOne()
    {
        int rows = 128_000;
        int[] longCells = new int[CELLS];
        int[] doubleCells = new int[CELLS];
        int[] bytesCells = new int[CELLS];
        for (int i = 0; i < rows; i++) {
            // sequential keys and common prefixes: the inputs a hash must scatter
            longCells[cell(longs.coordinate(i))]++;
            doubleCells[cell(doubles.coordinate(i * 0.5))]++;
            bytesCells[cell(bytes.coordinate(("https://www.example.com/item/" + i).getBytes(StandardCharsets.UTF_8)))]++;
        }
        for (int[] cells : new int[][] {longCells, doubleCells, bytesCells}) {
            // 2000 expected per cell, standard deviation about 44: 15% is more than 6 deviations
            assertThat(Arrays.stream(cells).min().orElseThrow()).isGreaterThan(rows / CELLS * 85 / 100);
            assertThat(Arrays.stream(cells).max().orElseThrow()).isLessThan(rows / CELLS * 115 / 100);
        }
        assertThat(longs.coordinate(Long.MIN_VALUE)).isBetween(0.0, MAX_COORDINATE);
        assertThat(longs.coordinate(-1)).isBetween(0.0, MAX_COORDINATE);
        assertThat(bytes.coordinate(new byte[0])).isBetween(0.0, MAX_COORDINATE);
    }

    @Test
    void testOnlyEqualityPrunes()
    {
        assertThat(longs.preservesOrder()).isFalse();
        assertThat(longs.point(42)).isEqualTo(CoordinateRanges.point(longs.coordinate(42)));
        assertThat(longs.range(0, true, 1_000_000, true).isAll()).isTrue();
        assertThat(longs.range(Long.MIN_VALUE, true, Long.MAX_VALUE, true).isAll()).isTrue();
        assertThat(longs.range(5, false, 6, false).isNone()).isTrue();
        assertThat(doubles.range(1.0, true, 2.0, true).isAll()).isTrue();
        assertThat(doubles.range(1.0, true, 1.0, true)).isEqualTo(doubles.point(1.0));
        assertThat(doubles.range(2.0, true, 1.0, true).isNone()).isTrue();
        byte[] a = {1};
        byte[] b = {2};
        assertThat(bytes.range(a, true, b, true).isAll()).isTrue();
        assertThat(bytes.range(a, true, null, true).isAll()).isTrue();
        assertThat(bytes.range(a, true, a.clone(), true)).isEqualTo(bytes.point(a));
        assertThat(bytes.range(b, true, a, true).isNone()).isTrue();
    }

    @Test
    void testShortIntegerRangesAreEnumerated()
    {
        Random random = new Random(32);
        for (int i = 0; i < 1_000; i++) {
            long low = random.nextBoolean() ? random.nextLong() : Long.MAX_VALUE - random.nextInt(100);
            long high = low + random.nextInt(HashTransformation.MAX_ENUMERATED_VALUES);
            if (high < low) {
                continue;
            }
            CoordinateRanges ranges = longs.range(low, true, high, true);
            assertThat(ranges.isAll()).isFalse();
            for (long value = low; value <= high && value >= low; value++) {
                assertThat(ranges.contains(longs.coordinate(value))).isTrue();
                if (value == Long.MAX_VALUE) {
                    break;
                }
            }
            // exactly the members' coordinates, nothing in between
            Set<Double> members = new HashSet<>();
            for (long value = low; ; value++) {
                members.add(longs.coordinate(value));
                if (value == high) {
                    break;
                }
            }
            assertThat(ranges.ranges()).allMatch(range -> range.low() == range.high() && members.contains(range.low()));
            assertThat(ranges.ranges()).hasSize(members.size());
        }
    }

    @Test
    void testHashesAreStable()
    {
        // the hashes are part of the stored format: data written with them must be found by later versions
        assertThat(Double.doubleToLongBits(longs.coordinate(0))).isEqualTo(Double.doubleToLongBits(0.6118225421857174));
        assertThat(Double.doubleToLongBits(longs.coordinate(1))).isEqualTo(0x3fecbfb804bc27ddL);
        assertThat(Double.doubleToLongBits(doubles.coordinate(1.5))).isEqualTo(0x3fde1273f593ade8L);
        assertThat(Double.doubleToLongBits(bytes.coordinate("qbeast".getBytes(StandardCharsets.UTF_8)))).isEqualTo(0x3fecbee64099445bL);
        assertThat(Double.doubleToLongBits(bytes.coordinate("a longer value of 24 b.".getBytes(StandardCharsets.UTF_8)))).isEqualTo(0x3fb95b6f558fb290L);
    }

    @Test
    void testRejectsBoolean()
    {
        assertThatThrownBy(() -> new HashTransformation(ValueDomain.BOOLEAN)).isInstanceOf(IllegalArgumentException.class);
    }

    private static int cell(double coordinate)
    {
        assertThat(coordinate).isBetween(0.0, MAX_COORDINATE);
        return (int) (coordinate * CELLS);
    }
}

package io.qbeast.index.transform;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static io.qbeast.index.transform.Transformation.MAX_COORDINATE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestCoordinateRanges
{
    // coordinates on a coarse grid, so random intervals touch, overlap and nest often
    private static final int GRID = 32;

    @Test
    void testOperationsAgreeWithMembership()
    {
        Random random = new Random(51);
        for (int i = 0; i < 5_000; i++) {
            List<CoordinateRange> aRanges = randomRanges(random);
            List<CoordinateRange> bRanges = randomRanges(random);
            CoordinateRanges a = new CoordinateRanges(aRanges);
            CoordinateRanges b = new CoordinateRanges(bRanges);
            CoordinateRanges union = a.union(b);
            CoordinateRanges intersection = a.intersect(b);
            for (double probe : probes()) {
                boolean inA = aRanges.stream().anyMatch(range -> range.contains(probe));
                boolean inB = bRanges.stream().anyMatch(range -> range.contains(probe));
                assertThat(a.contains(probe)).isEqualTo(inA);
                assertThat(union.contains(probe)).isEqualTo(inA || inB);
                assertThat(intersection.contains(probe)).isEqualTo(inA && inB);
            }
            // a cell [low, high) intersects iff some member coordinate lies in it
            for (int cell = 0; cell < GRID; cell++) {
                double low = cell / (double) GRID;
                double high = (cell + 1) / (double) GRID;
                boolean expected = aRanges.stream().anyMatch(range -> range.low() < high && range.high() >= low);
                assertThat(a.intersects(low, high)).as("%s meets [%s, %s)", a, low, high).isEqualTo(expected);
            }
            // normalized: sorted, disjoint, not adjacent; so equal sets are equal records
            for (int j = 1; j < union.ranges().size(); j++) {
                assertThat(union.ranges().get(j).low()).isGreaterThan(Math.nextUp(union.ranges().get(j - 1).high()));
            }
            List<CoordinateRange> shuffled = new ArrayList<>(aRanges);
            shuffled.addAll(bRanges);
            Collections.shuffle(shuffled, random);
            assertThat(new CoordinateRanges(shuffled)).isEqualTo(union);
            assertThat(b.union(a)).isEqualTo(union);
        }
    }

    @Test
    void testAllAndNone()
    {
        assertThat(CoordinateRanges.all().isAll()).isTrue();
        assertThat(CoordinateRanges.all().contains(MAX_COORDINATE)).isTrue();
        assertThat(CoordinateRanges.none().isNone()).isTrue();
        assertThat(CoordinateRanges.none().intersects(0, 1)).isFalse();
        assertThat(CoordinateRanges.of(0, 0.5).union(CoordinateRanges.of(0.25, MAX_COORDINATE)).isAll()).isTrue();
        assertThat(CoordinateRanges.all().intersect(CoordinateRanges.point(0.3))).isEqualTo(CoordinateRanges.point(0.3));
        assertThat(CoordinateRanges.point(0.5).intersects(0.25, 0.5)).isFalse();
        assertThat(CoordinateRanges.point(0.5).intersects(0.5, 0.75)).isTrue();
        assertThat(new CoordinateRange(-0.0, 0.0)).isEqualTo(CoordinateRange.point(0.0));
        assertThatThrownBy(() -> new CoordinateRange(0.5, 0.25)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CoordinateRange(0, 1.0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CoordinateRange(Double.NaN, 0.5)).isInstanceOf(IllegalArgumentException.class);
    }

    private static List<CoordinateRange> randomRanges(Random random)
    {
        List<CoordinateRange> ranges = new ArrayList<>();
        int count = random.nextInt(5);
        for (int i = 0; i < count; i++) {
            double a = gridPoint(random);
            double b = random.nextInt(3) == 0 ? a : gridPoint(random);
            ranges.add(new CoordinateRange(Math.min(a, b), Math.max(a, b)));
        }
        return ranges;
    }

    private static double gridPoint(Random random)
    {
        int step = random.nextInt(GRID + 1);
        return step == GRID ? MAX_COORDINATE : step / (double) GRID;
    }

    private static List<Double> probes()
    {
        List<Double> probes = new ArrayList<>();
        for (int step = 0; step <= GRID; step++) {
            double point = step == GRID ? MAX_COORDINATE : step / (double) GRID;
            probes.add(point);
            probes.add(Math.nextUp(point) < 1 ? Math.nextUp(point) : point);
            probes.add(Math.max(0, Math.nextDown(point)));
            probes.add(Math.min(MAX_COORDINATE, point + 0.5 / GRID));
        }
        return probes;
    }
}

package io.qbeast.index.transform;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TestBooleanTransformation
{
    private final BooleanTransformation transformation = new BooleanTransformation();

    @Test
    void testOrderAndCells()
    {
        assertThat(transformation.nullCoordinate()).isLessThan(transformation.coordinate(false));
        assertThat(transformation.coordinate(false)).isLessThan(transformation.coordinate(true));
        // the first split of the dimension separates false from true, the second NULL from false
        assertThat((int) (transformation.coordinate(false) * 2)).isNotEqualTo((int) (transformation.coordinate(true) * 2));
        assertThat((int) (transformation.nullCoordinate() * 4)).isNotEqualTo((int) (transformation.coordinate(false) * 4));
    }

    @Test
    void testRangesMatchExactlyTheValuesInThem()
    {
        boolean[] values = {false, true};
        for (boolean low : values) {
            for (boolean high : values) {
                for (boolean lowInclusive : values) {
                    for (boolean highInclusive : values) {
                        CoordinateRanges ranges = transformation.range(low, lowInclusive, high, highInclusive);
                        for (boolean value : values) {
                            int fromLow = Boolean.compare(value, low);
                            int toHigh = Boolean.compare(value, high);
                            boolean matches = (lowInclusive ? fromLow >= 0 : fromLow > 0) && (highInclusive ? toHigh <= 0 : toHigh < 0);
                            assertThat(ranges.contains(transformation.coordinate(value)))
                                    .as("%s in %s%s, %s%s", value, lowInclusive ? "[" : "(", low, high, highInclusive ? "]" : ")")
                                    .isEqualTo(matches);
                        }
                    }
                }
            }
        }
        assertThat(transformation.nullRange().contains(transformation.nullCoordinate())).isTrue();
    }
}

package io.qbeast.index.transform;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Supplier;

import static io.qbeast.index.transform.Transformation.MAX_COORDINATE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestOrderedBytesTransformation
{
    private static final int BOUNDARIES = 63;
    private static final int CELLS = 64;
    // with 64 bins for 64 cells, nearly every cell holds data; a prefix-only mapping would use one
    private static final int MIN_OCCUPIED_CELLS = 56;
    private static final String[] WORDS = {"products", "blog", "search", "user", "item", "2024", "a", "zz", "index.html", "?q="};

    @Test
    void testMonotoneOverRandomByteStrings()
    {
        Random random = new Random(21);
        for (OrderedBytesTransformation transformation : transformations(random)) {
            for (int i = 0; i < 50_000; i++) {
                byte[] a = value(random, transformation);
                byte[] b = value(random, transformation);
                byte[] low = Arrays.compareUnsigned(a, b) <= 0 ? a : b;
                byte[] high = low == a ? b : a;
                double lowCoordinate = transformation.coordinate(low);
                double highCoordinate = transformation.coordinate(high);
                assertThat(lowCoordinate).as("%s <= %s", Arrays.toString(low), Arrays.toString(high)).isLessThanOrEqualTo(highCoordinate);
                assertThat(lowCoordinate).isBetween(0.0, MAX_COORDINATE);
                assertThat(highCoordinate).isBetween(0.0, MAX_COORDINATE);
            }
        }
    }

    @Test
    void testOffsetAndLengthReadOnlyTheValue()
    {
        Random random = new Random(22);
        for (OrderedBytesTransformation transformation : transformations(random)) {
            for (int i = 0; i < 2_000; i++) {
                byte[] value = value(random, transformation);
                byte[] buffer = new byte[value.length + 20];
                random.nextBytes(buffer);
                int offset = random.nextInt(10);
                System.arraycopy(value, 0, buffer, offset, value.length);
                assertThat(transformation.coordinate(buffer, offset, value.length)).isEqualTo(transformation.coordinate(value));
            }
        }
    }

    @Test
    void testEmptyAndVeryLongStrings()
    {
        Random random = new Random(23);
        byte[] huge = new byte[1 << 20];
        Arrays.fill(huge, (byte) 'x');
        byte[] hugeAndMore = Arrays.copyOf(huge, huge.length + 1);
        hugeAndMore[huge.length] = (byte) 0xFF;
        List<byte[]> sample = new ArrayList<>(List.of(huge, hugeAndMore, new byte[0], "x".getBytes(StandardCharsets.UTF_8)));
        for (int i = 0; i < 100; i++) {
            sample.add(randomText(random));
        }
        OrderedBytesTransformation transformation = OrderedBytesTransformation.fromSample(sample, BOUNDARIES, 256);
        for (int i = 0; i < transformation.boundaryCount(); i++) {
            assertThat(transformation.boundary(i).length).isLessThanOrEqualTo(256);
        }
        List<byte[]> ordered = new ArrayList<>(List.of(new byte[0], "x".getBytes(StandardCharsets.UTF_8), huge, hugeAndMore, new byte[] {(byte) 0xFF}));
        for (int i = 1; i < ordered.size(); i++) {
            assertThat(transformation.coordinate(ordered.get(i - 1))).isLessThanOrEqualTo(transformation.coordinate(ordered.get(i)));
        }
        assertThat(transformation.coordinate(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF}))
                .isLessThan(1.0);
    }

    @Test
    void testUrlsWithOneCommonPrefixSpreadOverCells()
    {
        Random random = new Random(24);
        assertSpreads(() -> url(random));
    }

    @Test
    void testIsoDatesSpreadOverCells()
    {
        Random random = new Random(25);
        long start = Instant.parse("2024-01-01T00:00:00Z").getEpochSecond();
        assertSpreads(() -> Instant.ofEpochSecond(start + random.nextInt(366 * 86_400)).toString().getBytes(StandardCharsets.UTF_8));
    }

    private static void assertSpreads(Supplier<byte[]> values)
    {
        List<byte[]> sample = new ArrayList<>();
        for (int i = 0; i < 4_096; i++) {
            sample.add(values.get());
        }
        OrderedBytesTransformation transformation = OrderedBytesTransformation.fromSample(sample, BOUNDARIES, 256);
        // measured on fresh values of the same distribution, not on the sample itself
        int[] cells = new int[CELLS];
        int rows = 20_000;
        for (int i = 0; i < rows; i++) {
            cells[(int) (transformation.coordinate(values.get()) * CELLS)]++;
        }
        long occupied = Arrays.stream(cells).filter(count -> count > 0).count();
        assertThat(occupied).isGreaterThanOrEqualTo(MIN_OCCUPIED_CELLS);
        // and no cell swallows the data: at most 4x its fair share
        assertThat(Arrays.stream(cells).max().orElseThrow()).isLessThanOrEqualTo(4 * rows / (CELLS - 2));
        // deeper levels keep splitting: values are not collapsed onto few coordinates
        Set<Double> coordinates = new HashSet<>();
        for (int i = 0; i < 1_000; i++) {
            coordinates.add(transformation.coordinate(values.get()));
        }
        assertThat(coordinates.size()).isGreaterThan(900);
    }

    @Test
    void testRangeIsConservative()
    {
        Random random = new Random(26);
        for (OrderedBytesTransformation transformation : transformations(random)) {
            for (int i = 0; i < 10_000; i++) {
                byte[] low = random.nextInt(8) == 0 ? null : value(random, transformation);
                byte[] high = random.nextInt(8) == 0 ? null : random.nextInt(4) == 0 && low != null ? low : value(random, transformation);
                boolean lowInclusive = random.nextBoolean();
                boolean highInclusive = random.nextBoolean();
                CoordinateRanges ranges = transformation.range(low, lowInclusive, high, highInclusive);
                for (int j = 0; j < 20; j++) {
                    byte[] value = j == 0 && low != null ? low : j == 1 && high != null ? high : value(random, transformation);
                    boolean matches = (low == null || (lowInclusive ? Arrays.compareUnsigned(value, low) >= 0 : Arrays.compareUnsigned(value, low) > 0))
                            && (high == null || (highInclusive ? Arrays.compareUnsigned(value, high) <= 0 : Arrays.compareUnsigned(value, high) < 0));
                    if (matches) {
                        assertThat(ranges.contains(transformation.coordinate(value))).isTrue();
                    }
                }
            }
        }
        OrderedBytesTransformation transformation = transformations(random).getFirst();
        assertThat(transformation.range(null, true, null, true).isAll()).isTrue();
        assertThat(transformation.range(new byte[] {2}, true, new byte[] {1}, true).isNone()).isTrue();
        assertThat(transformation.range(new byte[] {1}, true, new byte[] {1}, false).isNone()).isTrue();
    }

    @Test
    void testBoundariesAreStrictlyIncreasingQuantiles()
    {
        Random random = new Random(27);
        List<byte[]> sample = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            sample.add(url(random));
        }
        OrderedBytesTransformation transformation = OrderedBytesTransformation.fromSample(sample, BOUNDARIES, 256);
        assertThat(transformation.boundaryCount()).isEqualTo(BOUNDARIES);
        byte[] min = sample.stream().min(Arrays::compareUnsigned).orElseThrow();
        assertThat(transformation.boundary(0)).isEqualTo(min);
        // the sample's distinct values split evenly: each inner bin holds about (distinct - 1) / 62 of them
        List<byte[]> boundaries = transformation.boundaries();
        int[] bins = new int[BOUNDARIES + 1];
        Set<byte[]> distinct = new TreeSet<>(Arrays::compareUnsigned);
        distinct.addAll(sample);
        for (byte[] value : distinct) {
            bins[(int) boundaries.stream().filter(boundary -> Arrays.compareUnsigned(boundary, value) <= 0).count()]++;
        }
        double perBin = (distinct.size() - 1) / (double) (BOUNDARIES - 1);
        for (int bin = 1; bin < BOUNDARIES; bin++) {
            assertThat((double) bins[bin]).as("bin %s", bin).isBetween(Math.floor(perBin), Math.ceil(perBin));
        }
        assertThat(bins[BOUNDARIES]).isEqualTo(1);
        assertThat(bins[0]).isZero();

        List<byte[]> few = List.of(new byte[] {3}, new byte[] {1}, new byte[] {3}, new byte[] {2});
        OrderedBytesTransformation small = OrderedBytesTransformation.fromSample(few, BOUNDARIES, 256);
        assertThat(small.boundaries()).containsExactly(new byte[] {1}, new byte[] {2}, new byte[] {3});
        assertThat(OrderedBytesTransformation.fromSample(List.of(), BOUNDARIES, 256).boundaryCount()).isZero();

        assertThatThrownBy(() -> new OrderedBytesTransformation(List.of(new byte[] {2}, new byte[] {1})))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("strictly increasing");
        assertThatThrownBy(() -> new OrderedBytesTransformation(List.of(new byte[] {1}, new byte[] {1})))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void testEqualityAndCopies()
    {
        byte[] boundary = {1, 2, 3};
        OrderedBytesTransformation transformation = new OrderedBytesTransformation(List.of(boundary));
        boundary[0] = 9;
        assertThat(transformation.boundary(0)).isEqualTo(new byte[] {1, 2, 3});
        transformation.boundary(0)[0] = 9;
        assertThat(transformation).isEqualTo(new OrderedBytesTransformation(List.of(new byte[] {1, 2, 3})));
        assertThat(transformation.hashCode()).isEqualTo(new OrderedBytesTransformation(List.of(new byte[] {1, 2, 3})).hashCode());
        assertThat(transformation).isNotEqualTo(new OrderedBytesTransformation(List.of(new byte[] {1, 2, 4})));
    }

    private static List<OrderedBytesTransformation> transformations(Random random)
    {
        List<OrderedBytesTransformation> transformations = new ArrayList<>();
        transformations.add(new OrderedBytesTransformation(List.of()));
        transformations.add(new OrderedBytesTransformation(List.of(new byte[] {'m'})));
        transformations.add(new OrderedBytesTransformation(List.of(new byte[0], new byte[] {0}, new byte[] {0, 0, 0, 0, 0, 0, 0, 1}, new byte[] {(byte) 0xFF})));
        for (Function<Random, byte[]> generator : List.<Function<Random, byte[]>>of(TestOrderedBytesTransformation::url, TestOrderedBytesTransformation::randomText, TestOrderedBytesTransformation::randomBytes)) {
            List<byte[]> sample = new ArrayList<>();
            for (int i = 0; i < 2_000; i++) {
                sample.add(generator.apply(random));
            }
            transformations.add(OrderedBytesTransformation.fromSample(sample, BOUNDARIES, 256));
            transformations.add(OrderedBytesTransformation.fromSample(sample, 3, 4));
        }
        return transformations;
    }

    // values concentrated where mistakes happen: near boundaries (equal, prefixes, extensions), empty, extreme bytes
    private static byte[] value(Random random, OrderedBytesTransformation transformation)
    {
        int choice = random.nextInt(8);
        if (choice < 4 && transformation.boundaryCount() > 0) {
            byte[] boundary = transformation.boundary(random.nextInt(transformation.boundaryCount()));
            return switch (choice) {
                case 0 -> boundary;
                case 1 -> Arrays.copyOf(boundary, random.nextInt(boundary.length + 1));
                case 2 -> {
                    byte[] longer = Arrays.copyOf(boundary, boundary.length + 1 + random.nextInt(8));
                    for (int i = boundary.length; i < longer.length; i++) {
                        longer[i] = (byte) (random.nextBoolean() ? 0 : random.nextBoolean() ? 0xFF : random.nextInt(256));
                    }
                    yield longer;
                }
                default -> {
                    byte[] changed = boundary.length == 0 ? new byte[1] : boundary.clone();
                    int position = random.nextInt(changed.length);
                    changed[position] = (byte) (changed[position] + (random.nextBoolean() ? 1 : -1));
                    yield changed;
                }
            };
        }
        return switch (choice) {
            case 4 -> url(random);
            case 5 -> randomText(random);
            case 6 -> random.nextBoolean() ? new byte[0] : new byte[random.nextInt(3)];
            default -> randomBytes(random);
        };
    }

    private static byte[] url(Random random)
    {
        StringBuilder url = new StringBuilder("https://www.example.com/");
        int segments = 1 + random.nextInt(4);
        for (int i = 0; i < segments; i++) {
            url.append(WORDS[random.nextInt(WORDS.length)]).append(random.nextInt(1000)).append('/');
        }
        return url.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] randomText(Random random)
    {
        StringBuilder text = new StringBuilder();
        int length = random.nextInt(12);
        for (int i = 0; i < length; i++) {
            text.append(random.nextInt(10) == 0 ? (char) (0xE0 + random.nextInt(20)) : (char) ('a' + random.nextInt(26)));
        }
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] randomBytes(Random random)
    {
        byte[] bytes = new byte[random.nextInt(10)];
        random.nextBytes(bytes);
        return bytes;
    }
}

package io.qbeast.index;

import io.qbeast.index.transform.BooleanTransformation;
import io.qbeast.index.transform.DoubleLinearTransformation;
import io.qbeast.index.transform.HashTransformation;
import io.qbeast.index.transform.LongLinearTransformation;
import io.qbeast.index.transform.OrderedBytesTransformation;
import io.qbeast.index.transform.ValueDomain;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.LongSupplier;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestRevisionPlanner
{
    private static final long CUBE_SIZE = 10_000;
    private static final long DAY_MICROS = 86_400_000_000L;
    private static final int ROWS = 20_000;

    private final RevisionPlanner planner = RevisionPlanner.defaults();

    /**
     * Writers of one INSERT into an empty table see different parts of the data. For the common
     * case of bounded data (ids, amounts, dates and timestamps of a period, uniform measurements)
     * they should make the same revision, which the id shows.
     */
    @Test
    void testWritersOfDifferentHalvesAgree()
    {
        Random random = new Random(81);
        int trials = 300;
        int agreements = 0;
        for (int trial = 0; trial < trials; trial++) {
            long idBase = random.nextLong(1_000_000_000L);
            long idCount = 1 + random.nextLong(100_000_000L);
            long periodStart = 1_500_000_000_000_000L + random.nextLong(300_000_000_000_000L);
            long periodDays = 1 + random.nextInt(400);
            double amountScale = Math.pow(10, random.nextInt(12) - 4);
            LongSupplier ids = () -> idBase + random.nextLong(idCount);
            LongSupplier timestamps = () -> periodStart + random.nextLong(periodDays * DAY_MICROS);

            List<ColumnProfile> first = newProfiles();
            List<ColumnProfile> second = newProfiles();
            for (int row = 0; row < ROWS; row++) {
                List<ColumnProfile> writer = random.nextBoolean() ? first : second;
                ((LongColumnProfile) writer.get(0)).add(ids.getAsLong());
                ((LongColumnProfile) writer.get(1)).add(timestamps.getAsLong());
                ((DoubleColumnProfile) writer.get(2)).add(random.nextDouble() * amountScale);
            }
            Revision a = planner.propose(first, CUBE_SIZE);
            Revision b = planner.propose(second, CUBE_SIZE);
            assertContainsProfiledValues(a, first);
            assertContainsProfiledValues(b, second);
            if (a.id() == b.id()) {
                assertThat(a).isEqualTo(b);
                agreements++;
            }
        }
        assertThat(agreements).isGreaterThanOrEqualTo(trials * 95 / 100);
    }

    @Test
    void testFewValuesOutsideKeepTheRevision()
    {
        Revision current = proposeLongs(0, 1000);
        LongLinearTransformation bounds = (LongLinearTransformation) current.transformation(0);
        for (int outsidePercent : new int[] {0, 1, 4, 5, 6, 50, 100}) {
            LongColumnProfile profile = (LongColumnProfile) ColumnProfile.forColumn(current.column(0));
            for (int row = 0; row < 1000; row++) {
                profile.add(row < outsidePercent * 10 ? bounds.max() + 1 + row : bounds.min() + row % 100);
            }
            boolean expected = outsidePercent > RevisionPlanner.DEFAULT_MAX_OUTSIDE_FRACTION * 100;
            assertThat(planner.needsNewRevision(current, List.of(profile))).as("%s%% outside", outsidePercent).isEqualTo(expected);
            assertThat(planner.widen(current, List.of(profile)).isPresent()).isEqualTo(expected);
        }
        // NULLs are rows too: 10 values outside among 10 values and 990 NULLs are 1% of the rows
        LongColumnProfile profile = (LongColumnProfile) ColumnProfile.forColumn(current.column(0));
        for (int row = 0; row < 1000; row++) {
            if (row < 10) {
                profile.add(bounds.max() + 1);
            }
            else {
                profile.addNull();
            }
        }
        assertThat(planner.needsNewRevision(current, List.of(profile))).isFalse();
    }

    @Test
    void testWideningIncludesNewValuesOfOverflowingColumnsAndKeepsOldBounds()
    {
        Random random = new Random(82);
        for (int trial = 0; trial < 2_000; trial++) {
            List<ColumnProfile> initial = newProfiles();
            fill(random, initial, random.nextInt(1000), 500);
            Revision current = planner.propose(initial, CUBE_SIZE);

            List<ColumnProfile> batch = current.columns().stream().map(ColumnProfile::forColumn).toList();
            fill(random, batch, random.nextInt(1000) - 200, 200 + random.nextInt(5000));
            Optional<Revision> widened = planner.widen(current, batch);
            assertThat(widened.isPresent()).isEqualTo(planner.needsNewRevision(current, batch));
            if (widened.isEmpty()) {
                continue;
            }
            Revision next = widened.get();
            assertThat(next.id()).isNotEqualTo(current.id());
            assertThat(next.cubeSize()).isEqualTo(current.cubeSize());
            // the overflowing columns now hold the batch's values; the others keep their bounds
            List<ColumnProfile> overflowing = IntStream.range(0, batch.size())
                    .mapToObj(dimension -> overflows(batch.get(dimension)) ? batch.get(dimension) : ColumnProfile.forColumn(current.column(dimension)))
                    .toList();
            assertContainsProfiledValues(next, overflowing);
            for (int dimension = 0; dimension < current.dimensions(); dimension++) {
                if (!overflows(batch.get(dimension))) {
                    assertThat(next.transformation(dimension)).isEqualTo(current.transformation(dimension));
                }
                switch (current.transformation(dimension)) {
                    case LongLinearTransformation old -> {
                        LongLinearTransformation now = (LongLinearTransformation) next.transformation(dimension);
                        assertThat(now.contains(old.min()) && now.contains(old.max())).isTrue();
                    }
                    case DoubleLinearTransformation old -> {
                        DoubleLinearTransformation now = (DoubleLinearTransformation) next.transformation(dimension);
                        assertThat(now.contains(old.min()) && now.contains(old.max())).isTrue();
                    }
                    default -> assertThat(next.transformation(dimension)).isEqualTo(current.transformation(dimension));
                }
            }
            // the same batch fits the widened revision
            assertThat(planner.widen(next, replay(overflowing, next))).isEmpty();
        }
    }

    @Test
    void testDriftingDataMakesLogarithmicallyManyRevisions()
    {
        Random random = new Random(83);
        long start = 1_700_000_000_000_000L;
        Revision current = null;
        int revisions = 0;
        int days = 1_000;
        for (int day = 0; day < days; day++) {
            long dayStart = start + day * DAY_MICROS;
            LongSupplier timestamps = () -> dayStart + random.nextLong(DAY_MICROS);
            if (current == null) {
                LongColumnProfile profile = new LongColumnProfile("ts");
                for (int row = 0; row < 1_000; row++) {
                    profile.add(timestamps.getAsLong());
                }
                current = planner.propose(List.of(profile), CUBE_SIZE);
                revisions++;
                continue;
            }
            LongColumnProfile profile = (LongColumnProfile) ColumnProfile.forColumn(current.column(0));
            for (int row = 0; row < 1_000; row++) {
                profile.add(timestamps.getAsLong());
            }
            Optional<Revision> widened = planner.widen(current, List.of(profile));
            if (widened.isPresent()) {
                current = widened.get();
                revisions++;
                LongLinearTransformation bounds = (LongLinearTransformation) current.transformation(0);
                assertThat(bounds.contains(profile.min()) && bounds.contains(profile.max())).isTrue();
            }
        }
        // growth by at least the current width each time: about log2(1000 days / 1 day) + a few
        assertThat(revisions).isBetween(2, 2 + (int) Math.ceil(Math.log(days) / Math.log(2)));
    }

    @Test
    void testWritersWideningTheSameRevisionAgree()
    {
        Random random = new Random(84);
        int trials = 300;
        int agreements = 0;
        for (int trial = 0; trial < trials; trial++) {
            LongColumnProfile seed = new LongColumnProfile("ts");
            long start = 1_600_000_000_000_000L + random.nextLong(100_000_000_000_000L);
            for (int row = 0; row < 1_000; row++) {
                seed.add(start + random.nextLong(DAY_MICROS));
            }
            Revision current = planner.propose(List.of(seed), CUBE_SIZE);
            // the next INSERT brings a later period, split between two writers
            long next = start + (1 + random.nextInt(30)) * DAY_MICROS;
            long length = (1 + random.nextInt(10)) * DAY_MICROS;
            LongColumnProfile first = (LongColumnProfile) ColumnProfile.forColumn(current.column(0));
            LongColumnProfile second = (LongColumnProfile) ColumnProfile.forColumn(current.column(0));
            for (int row = 0; row < ROWS; row++) {
                (random.nextBoolean() ? first : second).add(next + random.nextLong(length));
            }
            Revision a = planner.widen(current, List.of(first)).orElseThrow();
            Revision b = planner.widen(current, List.of(second)).orElseThrow();
            if (a.equals(b)) {
                agreements++;
            }
        }
        assertThat(agreements).isGreaterThanOrEqualTo(trials * 95 / 100);
    }

    /**
     * A batch split between writers, in which one column drifts past its bounds and another has a
     * few outliers: every writer widens the drifting column alike and keeps the other's bounds,
     * where widening for any outlier would give a different revision to each writer that got one.
     */
    @Test
    void testWritersAgreeDespiteFewOutliers()
    {
        Random random = new Random(85);
        int trials = 300;
        int agreements = 0;
        for (int trial = 0; trial < trials; trial++) {
            LongColumnProfile ts = new LongColumnProfile("ts");
            DoubleColumnProfile amount = new DoubleColumnProfile("amount");
            long start = 1_600_000_000_000_000L + random.nextLong(100_000_000_000_000L);
            for (int row = 0; row < 1_000; row++) {
                ts.add(start + random.nextLong(DAY_MICROS));
                amount.add(random.nextDouble() * 1_000);
            }
            Revision current = planner.propose(List.of(ts, amount), CUBE_SIZE);
            long next = start + (1 + random.nextInt(30)) * DAY_MICROS;
            long length = (1 + random.nextInt(10)) * DAY_MICROS;
            List<List<ColumnProfile>> writers = List.of(
                    current.columns().stream().map(ColumnProfile::forColumn).toList(),
                    current.columns().stream().map(ColumnProfile::forColumn).toList(),
                    current.columns().stream().map(ColumnProfile::forColumn).toList());
            for (int row = 0; row < ROWS; row++) {
                List<ColumnProfile> writer = writers.get(random.nextInt(writers.size()));
                ((LongColumnProfile) writer.get(0)).add(next + random.nextLong(length));
                // one row in a thousand beyond the amounts seen so far
                ((DoubleColumnProfile) writer.get(1)).add(random.nextInt(1_000) == 0 ? 1_000 + random.nextDouble() * 100_000 : random.nextDouble() * 1_000);
            }
            List<Revision> widened = writers.stream().map(writer -> planner.widen(current, writer).orElseThrow()).toList();
            for (Revision revision : widened) {
                assertThat(revision.transformation(1)).isEqualTo(current.transformation(1));
            }
            if (widened.stream().distinct().count() == 1) {
                agreements++;
            }
        }
        assertThat(agreements).isGreaterThanOrEqualTo(trials * 95 / 100);
    }

    /**
     * The writers of one statement each profile a random part of the rows. A string column of 1,000
     * values (SSB's p_brand) reaches every writer with every value, so they propose the same
     * revision; from samples of 4,096 each writer missed some rare values and proposed its own.
     */
    @Test
    void testWritersOfOneColumnValueSetAgree()
    {
        List<byte[]> brands = IntStream.range(0, 1000)
                .mapToObj(brand -> "MFGR#%d%d%02d".formatted(1 + brand / 200, 1 + brand / 40 % 5, brand % 40).getBytes(StandardCharsets.UTF_8))
                .toList();
        Random random = new Random(29);
        List<Long> ids = new ArrayList<>();
        for (int writer = 0; writer < 4; writer++) {
            BytesColumnProfile profile = new BytesColumnProfile("p_brand");
            for (int row = 0; row < 300_000; row++) {
                // skewed frequencies: the first brands are up to ten times as frequent as the last
                byte[] value = brands.get(Math.min(999, (int) (1000 * Math.pow(random.nextDouble(), 1.5))));
                profile.add(value, 0, value.length);
            }
            assertThat(profile.isExhaustive()).isTrue();
            assertThat(profile.sample()).hasSize(1000);
            ids.add(planner.propose(List.of(profile), CUBE_SIZE).id());
        }
        assertThat(ids).as("revision ids of the four writers").containsOnly(ids.getFirst());

        // beyond the sample size of distinct values the sample decides
        BytesColumnProfile many = new BytesColumnProfile("key");
        for (int row = 0; row < 10_000; row++) {
            byte[] value = ("key-" + row).getBytes(StandardCharsets.UTF_8);
            many.add(value, 0, value.length);
        }
        assertThat(many.isExhaustive()).isFalse();
        assertThat(many.sample()).hasSize(BytesColumnProfile.DEFAULT_SAMPLE_SIZE);
    }

    @Test
    void testStringHashAndBooleanColumns()
    {
        Random random = new Random(85);
        BytesColumnProfile urls = new BytesColumnProfile("url");
        for (int row = 0; row < 10_000; row++) {
            if (row % 10 == 0) {
                urls.addNull();
            }
            else {
                byte[] huge = ("https://www.example.com/" + random.nextInt(100_000) + "/").repeat(1 + random.nextInt(3)).getBytes(StandardCharsets.UTF_8);
                urls.add(huge, 0, huge.length);
            }
        }
        assertThat(urls.rows()).isEqualTo(10_000);
        assertThat(urls.values()).isEqualTo(9_000);
        assertThat(urls.sample()).hasSize(BytesColumnProfile.DEFAULT_SAMPLE_SIZE);
        List<ColumnProfile> profiles = List.of(
                urls,
                new FixedColumnProfile("key", new HashTransformation(ValueDomain.LONG)),
                new FixedColumnProfile("flag", new BooleanTransformation()));
        Revision revision = planner.propose(profiles, CUBE_SIZE);
        OrderedBytesTransformation quantiles = (OrderedBytesTransformation) revision.transformation(0);
        assertThat(quantiles.boundaryCount()).isEqualTo(RevisionPlanner.DEFAULT_QUANTILE_BOUNDARIES);
        assertThat(revision.transformation(1)).isEqualTo(new HashTransformation(ValueDomain.LONG));
        assertThat(revision.transformation(2)).isEqualTo(new BooleanTransformation());

        // quantile, hash and boolean columns never need a new revision
        List<ColumnProfile> later = revision.columns().stream().map(ColumnProfile::forColumn).toList();
        assertThat(later).allMatch(FixedColumnProfile.class::isInstance);
        assertThat(planner.widen(revision, later)).isEmpty();
    }

    @Test
    void testColumnsWithoutUsableValues()
    {
        LongColumnProfile nulls = new LongColumnProfile("nulls");
        nulls.addNull();
        DoubleColumnProfile special = new DoubleColumnProfile("special");
        special.add(Double.NaN);
        special.add(Double.POSITIVE_INFINITY);
        LongColumnProfile single = new LongColumnProfile("single");
        single.add(Long.MAX_VALUE);
        DoubleColumnProfile zeros = new DoubleColumnProfile("zeros");
        zeros.add(-0.0);
        Revision revision = planner.propose(List.of(nulls, special, single, zeros), CUBE_SIZE);
        assertThat(((LongLinearTransformation) revision.transformation(2)).contains(Long.MAX_VALUE)).isTrue();
        assertThat(((DoubleLinearTransformation) revision.transformation(3)).contains(0.0)).isTrue();
        assertThat(special.rows()).isEqualTo(2);
        assertThat(special.outside()).isZero();

        // the widest bounds cannot grow, and hold everything
        LongLinearTransformation full = new LongLinearTransformation(Long.MIN_VALUE, Long.MAX_VALUE);
        Revision widest = Revision.create(List.of(new IndexedColumn("x", full)), CUBE_SIZE);
        LongColumnProfile profile = (LongColumnProfile) ColumnProfile.forColumn(widest.column(0));
        profile.add(Long.MIN_VALUE);
        profile.add(Long.MAX_VALUE);
        assertThat(planner.widen(widest, List.of(profile))).isEmpty();
    }

    @Test
    void testProfilesMustBelongToTheRevision()
    {
        Revision current = proposeLongs(0, 100);
        assertThatThrownBy(() -> planner.needsNewRevision(current, List.of(new LongColumnProfile("x"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ColumnProfile.forColumn");
        assertThatThrownBy(() -> planner.needsNewRevision(current, List.of(new LongColumnProfile("x", new LongLinearTransformation(0, 5)))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> planner.needsNewRevision(current, List.of()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RevisionPlanner(1.5, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LongColumnProfile("x").min()).isInstanceOf(IllegalStateException.class);
    }

    private Revision proposeLongs(long low, long high)
    {
        LongColumnProfile profile = new LongColumnProfile("x");
        profile.add(low);
        profile.add(high);
        return planner.propose(List.of(profile), CUBE_SIZE);
    }

    private static List<ColumnProfile> newProfiles()
    {
        return List.of(
                new LongColumnProfile("id"),
                new LongColumnProfile("ts"),
                new DoubleColumnProfile("amount"),
                new FixedColumnProfile("customer", new HashTransformation(ValueDomain.BYTES)),
                new FixedColumnProfile("flag", new BooleanTransformation()));
    }

    // values around a random center; some NULLs, NaN and infinities
    private static void fill(Random random, List<ColumnProfile> profiles, long center, int rows)
    {
        double scale = Math.pow(10, random.nextInt(6));
        for (int row = 0; row < rows; row++) {
            for (ColumnProfile profile : profiles) {
                switch (profile) {
                    case LongColumnProfile column -> {
                        if (random.nextInt(20) == 0) {
                            column.addNull();
                        }
                        else {
                            column.add(center + (long) (random.nextGaussian() * scale));
                        }
                    }
                    case DoubleColumnProfile column -> column.add(random.nextInt(50) == 0 ? Double.NaN : center + random.nextGaussian() * scale);
                    default -> {}
                }
            }
        }
    }

    // the profiled batch's extremes, replayed against another revision's bounds
    private static List<ColumnProfile> replay(List<ColumnProfile> batch, Revision revision)
    {
        List<ColumnProfile> profiles = new ArrayList<>();
        for (int dimension = 0; dimension < revision.dimensions(); dimension++) {
            ColumnProfile profile = ColumnProfile.forColumn(revision.column(dimension));
            switch (batch.get(dimension)) {
                case LongColumnProfile old when old.values() > 0 -> {
                    ((LongColumnProfile) profile).add(old.min());
                    ((LongColumnProfile) profile).add(old.max());
                }
                case DoubleColumnProfile old when old.values() > 0 -> {
                    ((DoubleColumnProfile) profile).add(old.min());
                    ((DoubleColumnProfile) profile).add(old.max());
                }
                default -> {}
            }
            profiles.add(profile);
        }
        return profiles;
    }

    // the planner's rule, restated: more than 5% of the rows outside a linear column's bounds
    private static boolean overflows(ColumnProfile profile)
    {
        return switch (profile) {
            case LinearColumnProfile column -> column.outside() > RevisionPlanner.DEFAULT_MAX_OUTSIDE_FRACTION * column.rows();
            default -> false;
        };
    }

    private static void assertContainsProfiledValues(Revision revision, List<ColumnProfile> profiles)
    {
        for (int dimension = 0; dimension < revision.dimensions(); dimension++) {
            switch (profiles.get(dimension)) {
                case LongColumnProfile profile when profile.values() > 0 -> {
                    LongLinearTransformation bounds = (LongLinearTransformation) revision.transformation(dimension);
                    assertThat(bounds.contains(profile.min()) && bounds.contains(profile.max())).as("%s holds %s..%s", bounds, profile.min(), profile.max()).isTrue();
                }
                case DoubleColumnProfile profile when profile.values() > 0 -> {
                    DoubleLinearTransformation bounds = (DoubleLinearTransformation) revision.transformation(dimension);
                    assertThat(bounds.contains(profile.min()) && bounds.contains(profile.max())).as("%s holds %s..%s", bounds, profile.min(), profile.max()).isTrue();
                }
                default -> {}
            }
        }
    }
}

package io.qbeast.index;

import io.qbeast.index.FileLayout.Settings;
import io.qbeast.index.FileLayout.Slice;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestFileLayout
{
    // bytesPerRow 1: 1000 rows make the minimum row group, 8000 the maximum
    private static final FileLayout LAYOUT = new FileLayout(new Settings(1_000_000, 1000, 8000));
    private static final CubeId ROOT = CubeId.root(1, 2);

    @Test
    void testPlansEveryCubeInOrderWithExactSlices()
    {
        Cubes cubes = new Cubes()
                .add(ROOT, 5000)
                .add(ROOT.child(0), 300)
                .add(ROOT.child(0).child(0), 200)
                .add(ROOT.child(0).child(1), 200)
                .add(ROOT.child(1), 1000)
                .add(ROOT.child(1).child(2), 700)
                .add(ROOT.child(1).child(3), 400)
                .add(ROOT.child(2), 20000)
                .add(ROOT.child(3), 10);
        List<Slice> groups = assertValidLayout(LAYOUT, cubes, 1.0);
        assertThat(groups).containsExactly(
                // root: head ceil(5000/16), middle to ceil(5000/4), the rest in point parts of at least min/4
                new Slice(0, 0, 0, 313),
                new Slice(0, 0, 313, 937),
                new Slice(0, 0, 1250, 3750, 15),
                // small child 0 and its children pack under the root
                new Slice(1, 3, 0, 700),
                // exactly the minimum: its own row groups; the 1/16 head would be under min/4 = 250 rows
                new Slice(4, 4, 0, 250),
                new Slice(4, 4, 250, 750, 3),
                // 700 + 400 would pass the minimum: each alone, in weight order (a sample reads a prefix)
                new Slice(5, 5, 0, 700),
                new Slice(6, 6, 0, 400),
                // 20000 rows: 1250, 3750, then 15000 in two pieces of at most 8000, 30 point parts each
                new Slice(7, 7, 0, 1250),
                new Slice(7, 7, 1250, 3750),
                new Slice(7, 7, 5000, 7500, 30),
                new Slice(7, 7, 12500, 7500, 30),
                new Slice(8, 8, 0, 10));
    }

    @Test
    void testEmptyAndSingleCube()
    {
        assertThat(LAYOUT.slices(List.of(), new long[0], 1.0)).isEmpty();
        assertThat(LAYOUT.slices(List.of(ROOT), new long[] {1}, 1.0)).containsExactly(new Slice(0, 0, 0, 1));
        assertThat(LAYOUT.slices(List.of(ROOT.child(3)), new long[] {999}, 1.0)).containsExactly(new Slice(0, 0, 0, 999));
        assertThat(LAYOUT.slices(List.of(ROOT.child(3)), new long[] {1000}, 1.0)).containsExactly(new Slice(0, 0, 0, 250), new Slice(0, 0, 250, 750, 3));
        assertThat(LAYOUT.settings()).isEqualTo(new Settings(1_000_000, 1000, 8000));
        // the result is immutable
        List<Slice> groups = LAYOUT.slices(List.of(ROOT), new long[] {5}, 1.0);
        assertThatThrownBy(() -> groups.add(new Slice(0, 0, 0, 1))).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void testLargeCubeNeverSharesARowGroup()
    {
        CubeId parent = ROOT.child(2);
        // small, large, small: all three lie under one parent, but the large one is alone
        Cubes cubes = new Cubes()
                .add(parent, 10)
                .add(parent.child(0), 1000)
                .add(parent.child(1), 10)
                .add(parent.child(2), 10);
        List<Slice> groups = assertValidLayout(LAYOUT, cubes, 1.0);
        assertThat(groups).containsExactly(
                new Slice(0, 0, 0, 10),
                new Slice(1, 1, 0, 250),
                new Slice(1, 1, 250, 750, 3),
                new Slice(2, 3, 0, 20));

        // at 2.5 bytes a row, 400 rows are the minimum (1000 bytes) and 399 rows are not (a large
        // cube of 399 rows would be cut at its quarter)
        cubes = new Cubes()
                .add(parent, 10)
                .add(parent.child(0), 400)
                .add(parent.child(1), 399)
                .add(parent.child(2), 400);
        groups = assertValidLayout(LAYOUT, cubes, 2.5);
        assertThat(groups).containsExactly(
                new Slice(0, 0, 0, 10),
                new Slice(1, 1, 0, 100),
                new Slice(1, 1, 100, 300, 3),
                new Slice(2, 2, 0, 399),
                new Slice(3, 3, 0, 100),
                new Slice(3, 3, 100, 300, 3));

        // a row larger than a row group: every cube is large and alone
        cubes = new Cubes().add(ROOT, 1).add(ROOT.child(0), 1).add(ROOT.child(1), 1);
        groups = assertValidLayout(LAYOUT, cubes, 10_000);
        assertThat(groups).containsExactly(new Slice(0, 0, 0, 1), new Slice(1, 1, 0, 1), new Slice(2, 2, 0, 1));
    }

    @Test
    void testSmallSiblingsArePacked()
    {
        CubeId parent = CubeId.root(3, 3).child(5);
        Cubes cubes = new Cubes().add(parent, 4000);
        for (CubeId child : parent.children()) {
            cubes.add(child, 100);
        }
        List<Slice> groups = assertValidLayout(LAYOUT, cubes, 1.0);
        assertThat(groups).containsExactly(
                new Slice(0, 0, 0, 250),
                new Slice(0, 0, 250, 750),
                new Slice(0, 0, 1000, 3000, 12),
                new Slice(1, 8, 0, 800));

        // 8 x 300 rows: packs of 3, 3 and 2 children
        cubes = new Cubes().add(parent, 4000);
        for (CubeId child : parent.children()) {
            cubes.add(child, 300);
        }
        groups = assertValidLayout(LAYOUT, cubes, 1.0);
        List<Slice> packs = groups.subList(3, groups.size());
        assertThat(packs).hasSizeLessThan(8);
        assertThat(packs).containsExactly(new Slice(1, 3, 0, 900), new Slice(4, 6, 0, 900), new Slice(7, 8, 0, 600));

        // the parent absent, the children still pack
        cubes = new Cubes();
        for (CubeId child : parent.children()) {
            cubes.add(child, 120);
        }
        assertThat(assertValidLayout(LAYOUT, cubes, 1.0)).containsExactly(new Slice(0, 7, 0, 960));
    }

    @Test
    void testPackStaysInTheSubtreeOfTheFirstCubesParent()
    {
        CubeId p = ROOT.child(1);
        // descendants of siblings pack with them
        Cubes cubes = new Cubes()
                .add(p, 1000)
                .add(p.child(0), 100)
                .add(p.child(0).child(3), 100)
                .add(p.child(0).child(3).child(1), 100)
                .add(p.child(1), 100)
                .add(ROOT.child(2).child(0), 100);
        List<Slice> groups = assertValidLayout(LAYOUT, cubes, 1.0);
        assertThat(groups).containsExactly(
                new Slice(0, 0, 0, 250),
                new Slice(0, 0, 250, 750, 3),
                new Slice(1, 4, 0, 400),
                // not under p
                new Slice(5, 5, 0, 100));

        // a pack that starts at depth 2 is anchored at depth 1: it does not take its parent's sibling
        cubes = new Cubes()
                .add(p, 1000)
                .add(p.child(0), 1000)
                .add(p.child(0).child(1), 100)
                .add(p.child(0).child(2), 100)
                .add(p.child(1), 100)
                .add(p.child(2), 100);
        groups = assertValidLayout(LAYOUT, cubes, 1.0);
        assertThat(groups.subList(4, groups.size())).containsExactly(new Slice(2, 3, 0, 200), new Slice(4, 5, 0, 200));

        // a pack started by the root takes the whole tree of its revision
        cubes = new Cubes()
                .add(ROOT, 100)
                .add(ROOT.child(0), 100)
                .add(ROOT.child(0).child(2), 100)
                .add(ROOT.child(3).child(3).child(3), 100);
        assertThat(assertValidLayout(LAYOUT, cubes, 1.0)).containsExactly(new Slice(0, 3, 0, 400));
    }

    @Test
    void testPacksNeverSpanRevisions()
    {
        CubeId otherRoot = CubeId.root(2, 2);
        Cubes cubes = new Cubes()
                .add(ROOT, 100)
                .add(ROOT.child(3), 100)
                .add(otherRoot, 100)
                .add(otherRoot.child(0), 100);
        assertThat(assertValidLayout(LAYOUT, cubes, 1.0)).containsExactly(new Slice(0, 1, 0, 200), new Slice(2, 3, 0, 200));

        // two roots alone
        cubes = new Cubes().add(ROOT, 1).add(otherRoot, 1);
        assertThat(assertValidLayout(LAYOUT, cubes, 1.0)).containsExactly(new Slice(0, 0, 0, 1), new Slice(1, 1, 0, 1));

        // the last leaf of one revision and the first of the next, without their roots
        cubes = new Cubes()
                .add(ROOT.child(3).child(3), 10)
                .add(otherRoot.child(0).child(0), 10);
        assertThat(assertValidLayout(LAYOUT, cubes, 1.0)).containsExactly(new Slice(0, 0, 0, 10), new Slice(1, 1, 0, 10));

        // same revision id, other dimensions: another tree, not packed either
        CubeId threeDimensions = CubeId.root(1, 3);
        cubes = new Cubes().add(ROOT, 10).add(threeDimensions, 10);
        assertThat(cubes.cubes()).containsExactly(ROOT, threeDimensions);
        assertThat(assertValidLayout(LAYOUT, cubes, 1.0)).hasSize(2);
    }

    @Test
    void testPacksNeverSpanDistantRegions()
    {
        CubeId a = ROOT.child(0);
        CubeId b = ROOT.child(1);
        // the end of a's subtree and the start of b's subtree, b itself absent
        Cubes cubes = new Cubes()
                .add(ROOT, 1000)
                .add(a, 1000)
                .add(a.child(2), 10)
                .add(a.child(3), 10)
                .add(a.child(3).child(3), 10)
                .add(b.child(0), 10)
                .add(b.child(0).child(0), 10)
                .add(b.child(1), 10);
        List<Slice> groups = assertValidLayout(LAYOUT, cubes, 1.0);
        assertThat(groups.subList(4, groups.size())).containsExactly(new Slice(2, 4, 0, 30), new Slice(5, 7, 0, 30));

        // deeper: the last leaf under a.3 and the first leaf under b.0
        cubes = new Cubes()
                .add(a.child(3).child(2).child(3), 10)
                .add(a.child(3).child(3).child(3), 10)
                .add(b.child(0).child(0).child(0), 10)
                .add(b.child(0).child(0).child(1), 10);
        assertThat(assertValidLayout(LAYOUT, cubes, 1.0)).containsExactly(
                new Slice(0, 0, 0, 10),
                new Slice(1, 1, 0, 10),
                new Slice(2, 3, 0, 20));

        // 3 dimensions: the last child of level-1 cube 6 and the first child of level-1 cube 7
        CubeId root3 = CubeId.root(4, 3);
        cubes = new Cubes()
                .add(root3, 5000)
                .add(root3.child(6), 5000)
                .add(root3.child(6).child(7), 10)
                .add(root3.child(7), 5000)
                .add(root3.child(7).child(0), 10);
        groups = assertValidLayout(LAYOUT, cubes, 1.0);
        assertThat(groups).filteredOn(group -> group.firstCube() <= 2 && group.lastCube() >= 2).containsExactly(new Slice(2, 2, 0, 10));
        assertThat(groups).filteredOn(group -> group.firstCube() <= 4 && group.lastCube() >= 4).containsExactly(new Slice(4, 4, 0, 10));
    }

    @Test
    void testWeightCuts()
    {
        // a maximum large enough that no slice is cut into pieces
        FileLayout layout = new FileLayout(new Settings(1L << 40, 1000, 1_000_000));
        assertThat(layout.slices(List.of(ROOT), new long[] {16_000}, 1.0)).containsExactly(
                new Slice(0, 0, 0, 1000),
                new Slice(0, 0, 1000, 3000),
                new Slice(0, 0, 4000, 12_000, 48));
        assertThat(layout.slices(List.of(ROOT), new long[] {16_001}, 1.0)).containsExactly(
                new Slice(0, 0, 0, 1001),
                new Slice(0, 0, 1001, 3000),
                new Slice(0, 0, 4001, 12_000, 48));

        for (long rows = 4000; rows <= 200_000; rows += 997) {
            List<Slice> groups = layout.slices(List.of(ROOT), new long[] {rows}, 1.0);
            long head = ceilDiv(rows, 16);
            long quarter = ceilDiv(rows, 4);
            assertThat(groups).as("%s rows", rows).containsExactly(
                    new Slice(0, 0, 0, head),
                    new Slice(0, 0, head, quarter - head),
                    new Slice(0, 0, quarter, rows - quarter, (int) Math.min(64, (rows - quarter) / 250)));
        }

        // min/4 = 250 rows: the head of 3984 rows would be 249, so only the quarter is cut off
        assertThat(layout.slices(List.of(ROOT), new long[] {3984}, 1.0)).containsExactly(
                new Slice(0, 0, 0, 996),
                new Slice(0, 0, 996, 2988, 11));
        assertThat(layout.slices(List.of(ROOT), new long[] {3985}, 1.0)).containsExactly(
                new Slice(0, 0, 0, 250),
                new Slice(0, 0, 250, 747),
                new Slice(0, 0, 997, 2988, 11));

        // just above the minimum: no slice under min/4
        for (long rows = 1000; rows < 4000; rows++) {
            List<Slice> groups = layout.slices(List.of(ROOT), new long[] {rows}, 1.0);
            assertThat(groups).as("%s rows", rows).hasSizeBetween(1, 3);
            assertThat(groups).as("%s rows", rows).allSatisfy(group -> assertThat(group.rows()).isGreaterThanOrEqualTo(250));
            assertThat(groups.stream().mapToLong(Slice::rows).sum()).isEqualTo(rows);
            // a slice ends at a weight cut or at the end of the cube
            for (Slice group : groups) {
                long end = group.firstRow() + group.rows();
                assertThat(end).as("%s rows", rows).isIn(ceilDiv(rows, 16), ceilDiv(rows, 4), rows);
            }
        }
        assertThat(layout.slices(List.of(ROOT), new long[] {1001}, 1.0)).containsExactly(
                new Slice(0, 0, 0, 251),
                new Slice(0, 0, 251, 750, 3));

        // 4 bytes a row: 250 rows make the minimum, slices and parts of at least 62 rows
        assertThat(layout.slices(List.of(ROOT), new long[] {4000}, 4.0)).containsExactly(
                new Slice(0, 0, 0, 250),
                new Slice(0, 0, 250, 750),
                new Slice(0, 0, 1000, 3000, 48));
    }

    @Test
    void testMaximumRowGroupPieces()
    {
        // 1000 to 4000 rows a row group
        FileLayout layout = new FileLayout(new Settings(1L << 40, 1000, 4000));
        long rows = 40_003;
        List<Slice> groups = layout.slices(List.of(ROOT), new long[] {rows}, 1.0);
        assertValidLayout(layout, new Cubes().add(ROOT, rows), 1.0);
        assertThat(groups).allSatisfy(group -> assertThat(group.rows()).isBetween(1L, 4000L));
        assertThat(groups.stream().mapToLong(Slice::rows).sum()).isEqualTo(rows);
        // the weight cuts at 2501 and 10001 are row-group boundaries
        assertThat(groups).extracting(Slice::firstRow).contains(0L, 2501L, 10_001L);
        long[] sliceBounds = {0, 2501, 10_001, rows};
        for (int slice = 0; slice < 3; slice++) {
            long start = sliceBounds[slice];
            long end = sliceBounds[slice + 1];
            List<Slice> pieces = groups.stream().filter(group -> group.firstRow() >= start && group.firstRow() < end).toList();
            assertThat(pieces.getLast().firstRow() + pieces.getLast().rows()).isEqualTo(end);
            assertThat(pieces).hasSize((int) ceilDiv(end - start, 4000));
            long smallest = pieces.stream().mapToLong(Slice::rows).min().orElseThrow();
            long largest = pieces.stream().mapToLong(Slice::rows).max().orElseThrow();
            assertThat(largest - smallest).as("slice %s", slice).isLessThanOrEqualTo(1);
        }
        assertThat(groups).hasSize(1 + 2 + 8);

        // min == max: every row group of a large cube is at most the minimum
        layout = new FileLayout(new Settings(1L << 40, 1000, 1000));
        groups = assertValidLayout(layout, new Cubes().add(ROOT, 10_007), 1.0);
        assertThat(groups).allSatisfy(group -> assertThat(group.rows()).isLessThanOrEqualTo(1000));
        assertThat(groups.stream().mapToLong(Slice::rows).sum()).isEqualTo(10_007);

        // a row larger than the maximum: one row a row group
        layout = new FileLayout(new Settings(1L << 40, 100, 200));
        assertThat(layout.slices(List.of(ROOT), new long[] {5}, 500)).containsExactly(
                new Slice(0, 0, 0, 1),
                new Slice(0, 0, 1, 1),
                new Slice(0, 0, 2, 1),
                new Slice(0, 0, 3, 1),
                new Slice(0, 0, 4, 1));
    }

    // REAL BUG (fails against FileLayout as written): addPieces computes the piece count as
    // (rows + maxRows - 1) / maxRows, which overflows when maxRows is near Long.MAX_VALUE (a valid
    // Settings, e.g. maxRowGroupBytes = Long.MAX_VALUE for "no maximum", or any maxRowGroupBytes whose
    // maxRowGroupBytes / bytesPerRow saturates the long cast). The count becomes 0 and every slice of
    // every large cube is silently dropped: its rows are in no row group. Math.ceilDiv(rows, maxRows)
    // would not overflow.
    @Test
    void testUnboundedMaximumKeepsEveryRow()
    {
        FileLayout layout = new FileLayout(new Settings(Long.MAX_VALUE, 1000, Long.MAX_VALUE));
        assertThat(layout.slices(List.of(ROOT), new long[] {16_000}, 1.0)).containsExactly(
                new Slice(0, 0, 0, 1000),
                new Slice(0, 0, 1000, 3000),
                new Slice(0, 0, 4000, 12_000, 48));
    }

    @Test
    void testCutsBefore()
    {
        FileLayout layout = new FileLayout(new Settings(1000, 10, 100));
        // an empty file takes any row group, of any revision and size
        assertThat(layout.cutsBefore(0, 0, true)).isFalse();
        assertThat(layout.cutsBefore(0, 5000, true)).isFalse();
        assertThat(layout.cutsBefore(0, 5000, false)).isFalse();
        assertThat(layout.cutsBefore(0, 1, false)).isFalse();
        // another revision starts a new file
        assertThat(layout.cutsBefore(1, 0, false)).isTrue();
        assertThat(layout.cutsBefore(1, 1, false)).isTrue();
        assertThat(layout.cutsBefore(999, 1, false)).isTrue();
        // otherwise only past the target
        assertThat(layout.cutsBefore(1, 1, true)).isFalse();
        assertThat(layout.cutsBefore(500, 500, true)).isFalse();
        assertThat(layout.cutsBefore(999, 1, true)).isFalse();
        assertThat(layout.cutsBefore(500, 501, true)).isTrue();
        assertThat(layout.cutsBefore(1000, 1, true)).isTrue();
        assertThat(layout.cutsBefore(1000, 0, true)).isFalse();
        assertThat(layout.cutsBefore(2000, 0, true)).isTrue();
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 1000; i++) {
            long fileBytes = random.nextLong(0, 3000);
            long next = random.nextLong(0, 3000);
            boolean sameRevision = random.nextBoolean();
            boolean expected = fileBytes > 0 && (!sameRevision || fileBytes + next > 1000);
            assertThat(layout.cutsBefore(fileBytes, next, sameRevision)).as("%s + %s, %s", fileBytes, next, sameRevision).isEqualTo(expected);
        }
    }

    @Test
    void testArgumentValidation()
    {
        assertThatThrownBy(() -> new FileLayout(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> LAYOUT.slices(null, new long[0], 1)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> LAYOUT.slices(List.of(), null, 1)).isInstanceOf(NullPointerException.class);

        // lengths
        assertThatThrownBy(() -> LAYOUT.slices(List.of(ROOT, ROOT.child(0)), new long[] {1}, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LAYOUT.slices(List.of(ROOT), new long[] {1, 1}, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LAYOUT.slices(List.of(), new long[] {1}, 1))
                .isInstanceOf(IllegalArgumentException.class);

        // order and duplicates
        assertThatThrownBy(() -> LAYOUT.slices(List.of(ROOT.child(1), ROOT.child(0)), new long[] {1, 1}, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LAYOUT.slices(List.of(ROOT.child(0), ROOT), new long[] {1, 1}, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LAYOUT.slices(List.of(ROOT.child(0), ROOT.child(0)), new long[] {1, 1}, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LAYOUT.slices(List.of(ROOT, ROOT.child(2), ROOT.child(2).child(0), ROOT.child(1)), new long[] {1, 1, 1, 1}, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LAYOUT.slices(List.of(CubeId.root(2, 2), CubeId.root(1, 2)), new long[] {1, 1}, 1))
                .isInstanceOf(IllegalArgumentException.class);
        // duplicates even when large (no early return for large cubes)
        assertThatThrownBy(() -> LAYOUT.slices(List.of(ROOT, ROOT), new long[] {5000, 5000}, 1))
                .isInstanceOf(IllegalArgumentException.class);

        // rows
        assertThatThrownBy(() -> LAYOUT.slices(List.of(ROOT), new long[] {0}, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LAYOUT.slices(List.of(ROOT), new long[] {-5}, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LAYOUT.slices(List.of(ROOT, ROOT.child(0), ROOT.child(1)), new long[] {10, 10, 0}, 1))
                .isInstanceOf(IllegalArgumentException.class);

        // bytes per row
        for (double bytesPerRow : new double[] {0, -0.0, -1, Double.NaN, Double.NEGATIVE_INFINITY}) {
            assertThatThrownBy(() -> LAYOUT.slices(List.of(ROOT), new long[] {1}, bytesPerRow))
                    .as("%s bytes per row", bytesPerRow)
                    .isInstanceOf(IllegalArgumentException.class);
        }
        // a tiny positive size is fine: every cube is small (min/bpr saturates)
        assertThat(LAYOUT.slices(List.of(ROOT, ROOT.child(0)), new long[] {10, 10}, 1e-300)).containsExactly(new Slice(0, 1, 0, 20));

        // settings
        assertThatThrownBy(() -> new Settings(0, 1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Settings(-1, 1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Settings(1, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Settings(1, -1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Settings(1, 1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Settings(1, 1, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Settings(1, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Settings(100, 11, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThat(new Settings(1, 10, 10).minRowGroupBytes()).isEqualTo(10);
        // the target file size is independent of the row-group sizes
        assertThat(new Settings(1, 10, 20).targetFileBytes()).isEqualTo(1);

        // row groups
        assertThatThrownBy(() -> new Slice(-1, 0, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Slice(2, 1, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Slice(0, 0, -1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Slice(0, 0, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Slice(0, 1, 5, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThat(new Slice(3, 3, 5, 10).isSingleCube()).isTrue();
        assertThat(new Slice(3, 4, 0, 10).isSingleCube()).isFalse();
        // point parts: at least one, at most one a row, never in a pack
        assertThat(new Slice(3, 3, 5, 10).pointParts()).isEqualTo(1);
        assertThatThrownBy(() -> new Slice(0, 0, 0, 10, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Slice(0, 0, 0, 10, 11)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Slice(0, 1, 0, 10, 2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Slice(0, 0, 0, 10, 2).partStart(3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Slice(0, 0, 0, 10, 2).partStart(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void testPointPartsOfTheRest()
    {
        FileLayout layout = new FileLayout(new Settings(1L << 40, 1000, 1_000_000));
        // only the rest is cut into parts: the head and the middle stay one weight-ordered row group each
        List<Slice> slices = layout.slices(List.of(ROOT), new long[] {10_000}, 1.0);
        assertThat(slices).extracting(Slice::pointParts).containsExactly(1, 1, 30);
        // parts are consecutive, cover the slice, and differ by at most one row
        Slice rest = slices.getLast();
        assertThat(rest.partStart(0)).isZero();
        assertThat(rest.partStart(rest.pointParts())).isEqualTo(rest.rows());
        for (int part = 0; part < rest.pointParts(); part++) {
            long size = rest.partStart(part + 1) - rest.partStart(part);
            assertThat(size).isBetween(rest.rows() / rest.pointParts(), rest.rows() / rest.pointParts() + 1);
        }
        // parts of at least min/4 rows; the count is bounded for very large cubes
        assertThat(layout.slices(List.of(ROOT), new long[] {1332}, 1.0).getLast()).isEqualTo(new Slice(0, 0, 333, 999, 3));
        assertThat(layout.slices(List.of(ROOT), new long[] {1333}, 1.0).getLast()).isEqualTo(new Slice(0, 0, 334, 999, 3));
        assertThat(layout.slices(List.of(ROOT), new long[] {800_000}, 1.0).getLast().pointParts()).isEqualTo(64);
        // a small cube alone, like a pack of several, stays one row group of whole cubes (a weight
        // head of a quarter, then point order); the slices of a cut cube do not hold it whole
        assertThat(layout.slices(List.of(ROOT), new long[] {800}, 1.0)).containsExactly(new Slice(0, 0, 0, 800));
        assertThat(layout.slices(List.of(ROOT), new long[] {499}, 1.0)).containsExactly(new Slice(0, 0, 0, 499, 1));
        assertThat(layout.slices(List.of(ROOT, ROOT.child(0)), new long[] {400, 400}, 1.0)).containsExactly(new Slice(0, 1, 0, 800));
        assertThat(new Slice(0, 0, 0, 800).holdsWholeCubes(new long[] {800})).isTrue();
        assertThat(new Slice(0, 1, 0, 800).holdsWholeCubes(new long[] {400, 400})).isTrue();
        assertThat(slices).noneMatch(slice -> slice.holdsWholeCubes(new long[] {10_000}));
        assertThat(FileLayout.weightOrderedRows(800)).isEqualTo(200);
        assertThat(FileLayout.weightOrderedRows(801)).isEqualTo(201);
        assertThat(FileLayout.weightOrderedRows(1)).isEqualTo(1);
    }

    @Test
    void testRandomTrees()
    {
        for (int seed = 0; seed < 20; seed++) {
            SplittableRandom random = new SplittableRandom(1000 + seed);
            for (int trial = 0; trial < 10; trial++) {
                long minBytes = 500 + random.nextInt(1500);
                long maxBytes = minBytes * (1 + random.nextInt(8));
                FileLayout layout = new FileLayout(new Settings(minBytes * (1 + random.nextInt(20)), minBytes, maxBytes));
                double bytesPerRow = new double[] {1, 1.5, 3.7, 16}[random.nextInt(4)];
                long minRows = Math.max(1, (long) (minBytes / bytesPerRow));
                int dimensions = 2 + random.nextInt(2);
                Cubes cubes = new Cubes();
                int revisions = 1 + random.nextInt(2);
                for (int revision = 0; revision < revisions; revision++) {
                    addRandomTree(random, cubes, CubeId.root(10 + revision, dimensions), minRows);
                }
                if (cubes.size() == 0) {
                    continue;
                }
                List<Slice> groups = assertValidLayout(layout, cubes, bytesPerRow);
                assertFilesAreValid(layout, cubes, groups, bytesPerRow);
            }
        }
    }

    // every cube of the subtree: present mostly (an inner cube may be absent), up to depth 4
    private static void addRandomTree(SplittableRandom random, Cubes cubes, CubeId cube, long minRows)
    {
        if (random.nextInt(10) != 0) {
            long rows = switch (random.nextInt(4)) {
                case 0 -> random.nextLong(minRows, 5 * minRows + 1);
                case 1 -> random.nextLong(Math.max(1, minRows / 3), minRows + 1);
                default -> random.nextLong(1, Math.max(1, minRows / 3) + 1);
            };
            cubes.add(cube, rows);
        }
        if (cube.depth() == 4) {
            return;
        }
        double childProbability = cube.dimensions() == 2 ? 0.55 : 0.3;
        for (CubeId child : cube.children()) {
            if (random.nextDouble() < childProbability) {
                addRandomTree(random, cubes, child, minRows);
            }
        }
    }

    /**
     * Checks the documented invariants of a plan and returns it: the row groups are the cubes in
     * order with exact, contiguous slices; large cubes are alone; packs are bounded, in the subtree
     * of their first cube's parent, of one revision, and greedy (a small cube that would fit with room
     * to spare is not left out).
     */
    private static List<Slice> assertValidLayout(FileLayout layout, Cubes input, double bytesPerRow)
    {
        List<CubeId> cubes = input.cubes();
        long[] rows = input.rows();
        List<Slice> groups = layout.slices(cubes, rows, bytesPerRow);
        Settings settings = layout.settings();
        long minRows = Math.max(1, (long) (settings.minRowGroupBytes() / bytesPerRow));
        long maxRows = Math.max(1, (long) (settings.maxRowGroupBytes() / bytesPerRow));
        long minSliceRows = Math.max(1, minRows / 4);

        // 1. every cube in order, rows exact, slices contiguous
        int nextCube = 0;
        long nextRow = 0;
        int previousLast = -1;
        for (Slice group : groups) {
            assertThat(group.firstCube()).as("%s after cube %s row %s", group, nextCube, nextRow).isEqualTo(nextCube);
            assertThat(group.lastCube()).isLessThan(cubes.size());
            if (group.isSingleCube()) {
                assertThat(group.firstRow()).as("%s", group).isEqualTo(nextRow);
                nextRow += group.rows();
                assertThat(nextRow).as("%s", group).isLessThanOrEqualTo(rows[group.firstCube()]);
                if (nextRow == rows[group.firstCube()]) {
                    nextCube++;
                    nextRow = 0;
                }
            }
            else {
                assertThat(nextRow).isZero();
                long sum = 0;
                for (int cube = group.firstCube(); cube <= group.lastCube(); cube++) {
                    sum += rows[cube];
                }
                assertThat(group.rows()).as("%s", group).isEqualTo(sum);
                nextCube = group.lastCube() + 1;
            }
            // ranges are increasing and only a cut cube continues in the next row group
            assertThat(group.firstCube()).isGreaterThanOrEqualTo(previousLast);
            if (group.firstCube() == previousLast) {
                assertThat(group.isSingleCube()).isTrue();
                assertThat(group.firstRow()).isPositive();
            }
            previousLast = group.lastCube();
            // never over the maximum (a row is at most one row group); point parts of at least min/4, at most 64
            assertThat(group.rows()).as("%s", group).isLessThanOrEqualTo(maxRows);
            if (group.pointParts() > 1) {
                assertThat(group.rows() / group.pointParts()).as("%s", group).isGreaterThanOrEqualTo(Math.max(1, minRows / 4));
                assertThat(group.pointParts()).isLessThanOrEqualTo(64);
            }
        }
        assertThat(nextCube).isEqualTo(cubes.size());
        assertThat(nextRow).isZero();

        for (int index = 0; index < groups.size(); index++) {
            Slice group = groups.get(index);
            boolean large = rows[group.firstCube()] >= minRows;
            if (large) {
                // 2. a large cube is alone, and its slices are not under min/4
                assertThat(group.isSingleCube()).as("%s", group).isTrue();
                assertThat(group.rows()).as("%s of %s", group, rows[group.firstCube()]).isGreaterThanOrEqualTo(Math.min(minSliceRows, rows[group.firstCube()]));
                // 5. point parts only past the first quarter of a large cube (what samples read stays in weight order)
                if (group.pointParts() > 1) {
                    assertThat(group.firstRow()).as("%s", group).isGreaterThanOrEqualTo((rows[group.firstCube()] + 3) / 4);
                }
                continue;
            }
            // 3. a pack: whole small cubes (one or several), bounded, in the subtree of the first
            // cube's parent, in weight order
            assertThat(group.firstRow()).isZero();
            assertThat(group.pointParts()).as("%s", group).isEqualTo(1);
            assertThat(group.rows()).as("%s", group).isLessThanOrEqualTo(minRows);
            CubeId first = cubes.get(group.firstCube());
            CubeId anchor = first.isRoot() ? first : first.parent();
            for (int cube = group.firstCube(); cube <= group.lastCube(); cube++) {
                CubeId id = cubes.get(cube);
                assertThat(rows[cube]).as("%s in %s", id, group).isLessThan(minRows);
                if (cube > group.firstCube()) {
                    // 4. one revision, within the anchor's region
                    assertThat(id.revisionId()).isEqualTo(first.revisionId());
                    assertThat(anchor.isAncestorOf(id)).as("%s under %s", id, anchor).isTrue();
                    for (int dimension = 0; dimension < id.dimensions(); dimension++) {
                        assertThat(id.lowerBound(dimension)).isGreaterThanOrEqualTo(anchor.lowerBound(dimension));
                        assertThat(id.upperBound(dimension)).isLessThanOrEqualTo(anchor.upperBound(dimension));
                    }
                }
            }
            // greedy: the next small cube under the anchor that fits well is in the pack
            int next = group.lastCube() + 1;
            if (next < cubes.size() && rows[next] < minRows && anchor.isAncestorOrSelf(cubes.get(next))) {
                assertThat(group.rows() + rows[next])
                        .as("%s left out of %s", cubes.get(next), group)
                        .isGreaterThanOrEqualTo(minRows);
            }
        }
        return groups;
    }

    // files made with cutsBefore: one revision each, over the target only when one row group
    private static void assertFilesAreValid(FileLayout layout, Cubes input, List<Slice> groups, double bytesPerRow)
    {
        List<CubeId> cubes = input.cubes();
        long target = layout.settings().targetFileBytes();
        long fileBytes = 0;
        int fileGroups = 0;
        long fileRevision = -1;
        for (Slice group : groups) {
            long revision = cubes.get(group.firstCube()).revisionId();
            long bytes = (long) Math.ceil(group.rows() * bytesPerRow);
            if (layout.cutsBefore(fileBytes, bytes, revision == fileRevision)) {
                fileBytes = 0;
                fileGroups = 0;
            }
            if (fileGroups > 0) {
                assertThat(revision).isEqualTo(fileRevision);
                assertThat(fileBytes + bytes).isLessThanOrEqualTo(target);
            }
            fileRevision = revision;
            fileBytes += bytes;
            fileGroups++;
        }
    }

    private static long ceilDiv(long a, long b)
    {
        return (a + b - 1) / b;
    }

    /** Cubes with their rows, kept in order. */
    private static final class Cubes
    {
        private final Map<CubeId, Long> rows = new TreeMap<>();

        Cubes add(CubeId cube, long cubeRows)
        {
            assertThat(rows.put(cube, cubeRows)).isNull();
            return this;
        }

        int size()
        {
            return rows.size();
        }

        List<CubeId> cubes()
        {
            List<CubeId> cubes = new ArrayList<>(rows.keySet());
            assertThat(cubes).isSorted();
            return cubes;
        }

        long[] rows()
        {
            return rows.values().stream().mapToLong(Long::longValue).toArray();
        }
    }
}

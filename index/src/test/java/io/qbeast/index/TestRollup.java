package io.qbeast.index;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestRollup
{
    @Test
    void testGroupsAreBoundedConnectedAndCoverEveryCubeOnce()
    {
        SplittableRandom random = new SplittableRandom(21);
        for (PointDistribution distribution : PointDistribution.values()) {
            for (int dimensions : new int[] {1, 2, 4, 8}) {
                int rows = 5_000 + random.nextInt(30_000);
                double[] coordinates = distribution.generate(random.nextLong(), rows, dimensions);
                int[] weights = TestBatchIndexer.weights(rows, random.nextLong());
                CubeAssignment assignment = new BatchIndexer(10).assign(IndexState.empty(2, dimensions, 300), coordinates, weights, rows);
                for (long cap : new long[] {1, 150, 300, 1000, 50_000}) {
                    assertValidGroups(assignment.cubes(), assignment.rowsPerCube(), cap);
                }
            }
        }
    }

    @Test
    void testRandomTreesAndSizes()
    {
        SplittableRandom random = new SplittableRandom(22);
        for (int trial = 0; trial < 200; trial++) {
            int dimensions = 1 + random.nextInt(8);
            Set<CubeId> cubes = new HashSet<>();
            for (int i = 0; i < 1 + random.nextInt(200); i++) {
                cubes.add(TestCubeId.randomCube(random, 1, dimensions, random.nextInt(6)));
            }
            List<CubeId> sorted = new ArrayList<>(cubes);
            sorted.sort(null);
            long[] rows = new long[sorted.size()];
            for (int i = 0; i < rows.length; i++) {
                // mostly small cubes, some full, a few oversized
                rows[i] = switch (random.nextInt(10)) {
                    case 0 -> 1000 + random.nextInt(2000);
                    case 1, 2 -> 500 + random.nextInt(500);
                    default -> 1 + random.nextInt(200);
                };
            }
            assertValidGroups(sorted, rows, 1000);
        }
    }

    @Test
    void testWideTreesDoNotMakeHugeFiles()
    {
        // Qbeast's parent-only rollup puts a full parent and 256 small children in one file
        CubeId parent = CubeId.root(1, 8).child(3);
        List<CubeId> cubes = new ArrayList<>();
        cubes.add(parent);
        cubes.addAll(parent.children());
        long[] rows = new long[cubes.size()];
        rows[0] = 1000;
        for (int i = 1; i < rows.length; i++) {
            rows[i] = 900;
        }
        List<CubeGroup> groups = assertValidGroups(cubes, rows, 1000);
        assertThat(groups).hasSize(cubes.size());

        for (int i = 1; i < rows.length; i++) {
            rows[i] = 90;
        }
        groups = assertValidGroups(cubes, rows, 1000);
        // 256 * 90 rows pack 11 to a group
        assertThat(groups.size()).isLessThanOrEqualTo(1 + (256 + 10) / 11 + 1);
    }

    @Test
    void testSmallWritesBecomeOneFile()
    {
        CubeId root = CubeId.root(1, 2);
        List<CubeId> cubes = List.of(root, root.child(0), root.child(0).child(3), root.child(2));
        List<CubeGroup> groups = Rollup.group(cubes, new long[] {10, 20, 30, 40}, 1000);
        assertThat(groups).containsExactly(new CubeGroup(root, cubes, 100));
    }

    @Test
    void testRejectsInvalidInput()
    {
        CubeId root = CubeId.root(1, 2);
        assertThatThrownBy(() -> Rollup.group(List.of(root.child(1), root), new long[] {1, 1}, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Rollup.group(List.of(root), new long[] {1, 1}, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Rollup.group(List.of(root), new long[] {1}, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(Rollup.group(List.of(), new long[0], 10)).isEmpty();
    }

    static List<CubeGroup> assertValidGroups(List<CubeId> cubes, long[] rows, long cap)
    {
        List<CubeGroup> groups = Rollup.group(cubes, rows, cap);
        Set<CubeId> seen = new HashSet<>();
        long total = 0;
        long oversized = 0;
        for (CubeGroup group : groups) {
            long groupRows = 0;
            for (CubeId member : group.members()) {
                int index = cubes.indexOf(member);
                assertThat(index).isNotNegative();
                assertThat(seen.add(member)).as("%s in two groups", member).isTrue();
                assertThat(group.root().isAncestorOrSelf(member)).isTrue();
                groupRows += rows[index];
            }
            assertThat(CubeId.lowestCommonAncestor(group.members().getFirst(), group.members().getLast())).isEqualTo(group.root());
            assertThat(group.members()).isSorted();
            assertThat(group.rows()).isEqualTo(groupRows);
            if (group.members().size() > 1) {
                assertThat(groupRows).as("group %s", group).isLessThanOrEqualTo(cap);
            }
            else if (groupRows > cap) {
                oversized++;
            }
            total += groupRows;
        }
        assertThat(seen).hasSameSizeAs(cubes);
        assertThat(total).isEqualTo(Arrays.stream(rows).sum());
        // few files: first-fit decreasing leaves at most one bin at most half full, and that one is
        // handed up, so every group closed below the top is more than half full
        assertThat(groups.size() - oversized).isLessThanOrEqualTo(2 * total / cap + 1);
        return groups;
    }
}

package io.qbeast.index;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

final class TestIndexState
{
    private static final CubeId ROOT = CubeId.root(9, 2);

    @Test
    void testSingleCubeFilesCountExactly()
    {
        SplittableRandom random = new SplittableRandom(41);
        List<FileFacts> files = new ArrayList<>();
        Map<CubeId, Long> rows = new HashMap<>();
        Map<CubeId, Integer> blocks = new HashMap<>();
        Map<CubeId, Integer> minWeights = new HashMap<>();
        for (int i = 0; i < 300; i++) {
            CubeId cube = randomCube(random, 1 + random.nextInt(4));
            int a = random.nextInt();
            int b = random.nextInt();
            long count = 1 + random.nextInt(1000);
            files.add(FileFacts.of(cube, cube, Math.min(a, b), Math.max(a, b), count));
            rows.merge(cube, count, Long::sum);
            blocks.merge(cube, 1, Integer::sum);
            minWeights.merge(cube, Math.min(a, b), Math::min);
        }
        IndexState state = IndexState.of(9, 2, 500, files);
        assertThat(state.rowCount()).isEqualTo(rows.values().stream().mapToLong(Long::longValue).sum());
        assertThat(state.cubes().stream().map(CubeState::cube).toList()).isSorted();
        for (CubeState cube : state.cubes()) {
            assertThat(cube.rowCount()).isEqualTo(rows.getOrDefault(cube.cube(), 0L));
            assertThat(cube.blockCount()).isEqualTo(blocks.getOrDefault(cube.cube(), 0));
            boolean hasRowsBelow = rows.keySet().stream().anyMatch(other -> cube.cube().isAncestorOf(other));
            assertThat(cube.inner()).isEqualTo(hasRowsBelow);
            long expectedBound = minWeights.entrySet().stream()
                    .filter(entry -> cube.cube().isAncestorOf(entry.getKey()))
                    .mapToLong(Map.Entry::getValue)
                    .min()
                    .orElse(Weight.ALL);
            assertThat(cube.weightBound()).isEqualTo(expectedBound);
            long subtreeRows = rows.entrySet().stream()
                    .filter(entry -> cube.cube().isAncestorOrSelf(entry.getKey()))
                    .mapToLong(Map.Entry::getValue)
                    .sum();
            assertThat(cube.subtreeRowCount()).isEqualTo(subtreeRows);
            // every ancestor of a cube with rows is known
            if (!cube.cube().isRoot()) {
                assertThat(state.cube(cube.cube().parent())).isPresent();
            }
        }
        assertThat(rows.keySet()).allSatisfy(cube -> assertThat(state.cube(cube)).isPresent());
    }

    @Test
    void testPlusEqualsBuildingFromAllFiles()
    {
        SplittableRandom random = new SplittableRandom(42);
        List<FileFacts> first = randomFiles(random, 50);
        List<FileFacts> second = randomFiles(random, 50);
        List<FileFacts> all = new ArrayList<>(first);
        all.addAll(second);
        IndexState incremental = IndexState.of(9, 2, 500, first).plus(second);
        IndexState whole = IndexState.of(9, 2, 500, all);
        assertThat(incremental.cubes()).isEqualTo(whole.cubes());
        assertThat(incremental.files()).isEqualTo(all);
        assertThat(IndexState.empty(9, 2, 500).plus(all).cubes()).isEqualTo(whole.cubes());
    }

    @Test
    void testGroupRowsStayBetweenTheirBounds()
    {
        SplittableRandom random = new SplittableRandom(43);
        List<FileFacts> files = randomFiles(random, 200);
        IndexState state = IndexState.of(9, 2, 500, files);
        long attributed = state.cubes().stream().mapToLong(CubeState::rowCount).sum();
        // rounding each cube's share moves at most half a row per cube
        assertThat((double) attributed).isCloseTo(state.rowCount(), within(state.cubes().size() / 2.0 + 1));

        // a group alone: its rows go only to known cubes between its bounds
        CubeId low = ROOT.child(1).child(2);
        CubeId high = ROOT.child(1).child(3).child(0);
        CubeId outside = ROOT.child(2);
        IndexState group = IndexState.of(9, 2, 500, List.of(
                FileFacts.of(low, high, -5, 100, 600),
                FileFacts.of(outside, outside, 7, 8, 10)));
        assertThat(group.cube(outside).orElseThrow().rowCount()).isEqualTo(10);
        assertThat(group.cube(ROOT.child(1)).orElseThrow().rowCount()).isZero();
        assertThat(group.cube(low).orElseThrow().rowCount() + group.cube(high).orElseThrow().rowCount() + group.cube(ROOT.child(1).child(3)).orElseThrow().rowCount()).isBetween(599L, 601L);
        // the group's root has no rows of its own in it, so all its rows are below the root
        assertThat(group.cube(ROOT.child(1)).orElseThrow().weightBound()).isEqualTo(-5);
        assertThat(group.cube(ROOT.child(1)).orElseThrow().inner()).isTrue();
        assertThat(group.cube(ROOT).orElseThrow().subtreeRowCount()).isEqualTo(610);
        assertThat(group.cube(ROOT).orElseThrow().subtreeMinWeight()).isEqualTo(-5);
        assertThat(group.cube(ROOT.child(1).child(3)).orElseThrow().minWeight()).isEqualTo(-5);
    }

    @Test
    void testRejectsFilesOfAnotherTree()
    {
        FileFacts other = FileFacts.of(CubeId.root(8, 2), CubeId.root(8, 2), 0, 1, 1);
        assertThatThrownBy(() -> IndexState.of(9, 2, 500, List.of(other))).isInstanceOf(IllegalArgumentException.class);
        FileFacts otherDimensions = FileFacts.of(CubeId.root(9, 3), CubeId.root(9, 3), 0, 1, 1);
        assertThatThrownBy(() -> IndexState.of(9, 2, 500, List.of(otherDimensions))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FileFacts.of(ROOT.child(1), ROOT, 0, 1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FileFacts.of(ROOT, ROOT, 2, 1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FileFacts.of(ROOT, ROOT, 0, 1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(IndexState.empty(9, 2, 500).cubes()).isEmpty();
        assertThat(IndexState.empty(9, 2, 500).cube(ROOT)).isEmpty();
    }

    @Test
    void testFileFactsValueSemantics()
    {
        FileFacts facts = FileFacts.of(ROOT.child(1), ROOT.child(1).child(3), 1, 2, 3);
        assertThat(facts).isEqualTo(FileFacts.of(ROOT.child(1), ROOT.child(1).child(3), 1, 2, 3));
        assertThat(facts.hashCode()).isEqualTo(FileFacts.of(ROOT.child(1), ROOT.child(1).child(3), 1, 2, 3).hashCode());
        assertThat(facts.root()).isEqualTo(ROOT.child(1));
        assertThat(FileFacts.of(ROOT.child(1).child(2), ROOT.child(1).child(3), 1, 2, 3).root()).isEqualTo(ROOT.child(1));
        byte[] bytes = facts.minCube();
        bytes[0] = 1;
        assertThat(facts.minCubeId()).isEqualTo(ROOT.child(1));
    }

    private static List<FileFacts> randomFiles(SplittableRandom random, int count)
    {
        List<FileFacts> files = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            CubeId a = randomCube(random, random.nextInt(5));
            CubeId b = random.nextInt(3) == 0 ? randomCube(random, random.nextInt(5)) : a;
            CubeId min = a.compareTo(b) <= 0 ? a : b;
            CubeId max = a.compareTo(b) <= 0 ? b : a;
            int x = random.nextInt();
            int y = random.nextInt();
            files.add(FileFacts.of(min, max, Math.min(x, y), Math.max(x, y), 1 + random.nextInt(1000)));
        }
        return files;
    }

    private static CubeId randomCube(SplittableRandom random, int depth)
    {
        return TestCubeId.randomCube(random, 9, 2, depth);
    }
}

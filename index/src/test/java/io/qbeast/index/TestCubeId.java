package io.qbeast.index;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestCubeId
{
    @Test
    void testByteOrderIsDepthFirstPreOrder()
    {
        for (int dimensions : new int[] {1, 2, 3}) {
            List<CubeId> preOrder = new ArrayList<>();
            enumerate(CubeId.root(5, dimensions), 9 / dimensions, preOrder);
            assertPreOrderMatchesBytes(preOrder);
        }
        // two bytes per level
        List<CubeId> preOrder = new ArrayList<>();
        enumerateSome(CubeId.root(Long.MAX_VALUE, 9), 3, new SplittableRandom(3), preOrder);
        assertPreOrderMatchesBytes(preOrder);
    }

    private static void assertPreOrderMatchesBytes(List<CubeId> preOrder)
    {
        List<byte[]> bytes = new ArrayList<>(preOrder.stream().map(CubeId::toBytes).toList());
        Collections.shuffle(bytes, new Random(1));
        bytes.sort(CubeId::compareBytes);
        assertThat(bytes.stream().map(CubeId::fromBytes).toList()).containsExactlyElementsOf(preOrder);
        List<CubeId> sorted = new ArrayList<>(preOrder);
        Collections.shuffle(sorted, new Random(2));
        sorted.sort(null);
        assertThat(sorted).containsExactlyElementsOf(preOrder);
    }

    private static void enumerate(CubeId cube, int depth, List<CubeId> out)
    {
        out.add(cube);
        if (cube.depth() < depth) {
            for (int i = 0; i < (1 << cube.dimensions()); i++) {
                enumerate(cube.child(i), depth, out);
            }
        }
    }

    private static void enumerateSome(CubeId cube, int depth, SplittableRandom random, List<CubeId> out)
    {
        out.add(cube);
        if (cube.depth() < depth) {
            int[] children = random.ints(6, 0, 1 << cube.dimensions()).distinct().sorted().toArray();
            for (int child : children) {
                enumerateSome(cube.child(child), depth, random, out);
            }
        }
    }

    @Test
    void testSubtreeIsOneContiguousByteRange()
    {
        SplittableRandom random = new SplittableRandom(11);
        for (int dimensions : new int[] {1, 2, 5, 8, 9, 16, 31}) {
            List<CubeId> cubes = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                cubes.add(randomCube(random, 3, dimensions, random.nextInt(6)));
            }
            // close relatives, so that ancestor pairs exist
            for (int i = 0; i < 100; i++) {
                CubeId cube = cubes.get(random.nextInt(cubes.size()));
                if (!cube.isRoot()) {
                    cubes.add(cube.parent());
                }
            }
            for (CubeId a : cubes) {
                byte[] start = a.toBytes();
                byte[] end = a.subtreeEndBytes();
                for (CubeId b : cubes) {
                    byte[] bytes = b.toBytes();
                    boolean inRange = CubeId.compareBytes(start, bytes) <= 0 && CubeId.compareBytes(bytes, end) < 0;
                    assertThat(inRange).as("%s in subtree of %s", b, a).isEqualTo(a.isAncestorOrSelf(b));
                    if (a.isAncestorOf(b)) {
                        assertThat(Arrays.equals(start, 0, start.length, bytes, 0, start.length)).isTrue();
                    }
                }
            }
        }
    }

    @Test
    void testStringAndBytesRoundTrip()
    {
        SplittableRandom random = new SplittableRandom(12);
        for (int i = 0; i < 2000; i++) {
            int dimensions = 1 + random.nextInt(CubeId.MAX_DIMENSIONS);
            CubeId cube = randomCube(random, random.nextLong(0, Long.MAX_VALUE), dimensions, random.nextInt(Math.min(CubeId.MAX_DEPTH, 200 / dimensions) + 1));
            assertThat(CubeId.fromBytes(cube.toBytes())).isEqualTo(cube);
            assertThat(CubeId.parse(cube.toString(), dimensions)).isEqualTo(cube);
            if (!cube.isRoot()) {
                assertThat(CubeId.parse(cube.toString())).isEqualTo(cube);
            }
            assertThat(cube.toBytes()).hasSize(9 + cube.depth() * ((dimensions + 7) / 8));
        }
        assertThat(CubeId.root(7, 2).child(0b10).child(0b01).toString()).isEqualTo("7:10.01");
        assertThat(CubeId.root(7, 2).toString()).isEqualTo("7:");
        assertThatThrownBy(() -> CubeId.parse("7:")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CubeId.parse("7:10.1")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CubeId.parse("7:12")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CubeId.fromBytes(new byte[] {0, 0, 0, 0, 0, 0, 0, 7, 2, 4})).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CubeId.fromBytes(new byte[] {0, 0, 0, 0, 0, 0, 0, 7, 0})).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void testNavigation()
    {
        SplittableRandom random = new SplittableRandom(13);
        for (int i = 0; i < 500; i++) {
            int dimensions = 1 + random.nextInt(16);
            CubeId cube = randomCube(random, 9, dimensions, 1 + random.nextInt(20));
            CubeId parent = cube.parent();
            assertThat(parent.child(cube.childIndex())).isEqualTo(cube);
            assertThat(parent.depth()).isEqualTo(cube.depth() - 1);
            assertThat(parent.isAncestorOf(cube)).isTrue();
            assertThat(cube.isAncestorOf(parent)).isFalse();
            assertThat(cube.isAncestorOf(cube)).isFalse();
            List<CubeId> ancestors = cube.ancestors();
            assertThat(ancestors).hasSize(cube.depth());
            assertThat(ancestors.getFirst().isRoot()).isTrue();
            for (int d = 0; d < ancestors.size(); d++) {
                assertThat(ancestors.get(d).depth()).isEqualTo(d);
                assertThat(ancestors.get(d).isAncestorOf(cube)).isTrue();
            }
            assertThat(CubeId.lowestCommonAncestor(cube, parent)).isEqualTo(parent);
            CubeId sibling = parent.child((cube.childIndex() + 1) % (1 << dimensions));
            assertThat(CubeId.lowestCommonAncestor(cube, sibling)).isEqualTo(parent);
        }
        CubeId root = CubeId.root(1, 3);
        assertThat(root.children()).hasSize(8).allSatisfy(child -> assertThat(child.parent()).isEqualTo(root));
        assertThat(root.children()).isSorted();
        assertThatThrownBy(root::parent).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> root.child(8)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CubeId.root(1, 32)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CubeId.root(-1, 2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CubeId.lowestCommonAncestor(CubeId.root(1, 2), CubeId.root(2, 2))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void testRegionsHalveEveryDimension()
    {
        CubeId cube = CubeId.root(1, 2).child(0b10).child(0b01);
        // dimension 0: upper then lower half; dimension 1: lower then upper half
        assertThat(cube.lowerBound(0)).isEqualTo(0.5);
        assertThat(cube.upperBound(0)).isEqualTo(0.75);
        assertThat(cube.lowerBound(1)).isEqualTo(0.25);
        assertThat(cube.upperBound(1)).isEqualTo(0.5);
        assertThat(cube.contains(new double[] {0.5, 0.25})).isTrue();
        assertThat(cube.contains(new double[] {0.75, 0.25})).isFalse();
        assertThat(cube.contains(new double[] {0.6, 0.5})).isFalse();
    }

    @Test
    void testEveryPointIsInExactlyOneCubePerLevel()
    {
        SplittableRandom random = new SplittableRandom(14);
        for (int dimensions : new int[] {1, 2, 3}) {
            List<CubeId> level = List.of(CubeId.root(3, dimensions));
            for (int depth = 1; depth <= 4; depth++) {
                List<CubeId> next = new ArrayList<>();
                for (CubeId cube : level) {
                    next.addAll(cube.children());
                }
                level = next;
                for (int i = 0; i < 200; i++) {
                    double[] point = random.doubles(dimensions).toArray();
                    if (i == 0) {
                        Arrays.fill(point, Math.nextDown(1.0));
                    }
                    if (i == 1) {
                        Arrays.fill(point, 0.0);
                    }
                    List<CubeId> containing = level.stream().filter(cube -> cube.contains(point)).toList();
                    assertThat(containing).hasSize(1);
                    CubeId cube = containing.getFirst();
                    for (int j = 0; j < dimensions; j++) {
                        assertThat(point[j]).isGreaterThanOrEqualTo(cube.lowerBound(j)).isLessThan(cube.upperBound(j));
                    }
                }
            }
        }
        // containment stays exact below double precision of the bounds
        double x = Math.nextDown(1.0);
        CubeId deep = CubeId.root(1, 1);
        for (int depth = 0; depth < CubeId.MAX_DEPTH; depth++) {
            deep = deep.child(1);
            assertThat(deep.contains(new double[] {x})).isEqualTo(depth < 53);
        }
    }

    @Test
    void testDistinctCubesHaveDistinctEncodings()
    {
        Set<String> strings = new HashSet<>();
        Set<CubeId> cubes = new HashSet<>();
        List<CubeId> all = new ArrayList<>();
        enumerate(CubeId.root(1, 2), 4, all);
        for (CubeId cube : all) {
            assertThat(strings.add(cube.toString())).isTrue();
            assertThat(cubes.add(CubeId.fromBytes(cube.toBytes()))).isTrue();
        }
    }

    static CubeId randomCube(SplittableRandom random, long revision, int dimensions, int depth)
    {
        CubeId cube = CubeId.root(revision, dimensions);
        for (int d = 0; d < depth; d++) {
            cube = cube.child((int) random.nextLong(1L << dimensions));
        }
        return cube;
    }
}

package io.qbeast.iceberg;

import io.qbeast.iceberg.OptimizeSelection.Block;
import io.qbeast.index.CubeId;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class TestOptimizeSelection
{
    private static final CubeId ROOT = CubeId.root(7, 2);

    @Test
    void testBlocksOfOneWriteNeverCount()
    {
        CubeId a = ROOT.child(0);
        CubeId b = ROOT.child(3);
        // nested ranges of one write (a group spanning another group) are not fragmentation
        assertThat(OptimizeSelection.overlapAcrossWrites(List.of(
                block(ROOT, b, 1L),
                block(a, a.child(2), 1L),
                block(b.child(1), b.child(1), 1L)))).isFalse();
    }

    @Test
    void testSharedCubeOfTwoWritesCounts()
    {
        CubeId a = ROOT.child(1);
        assertThat(OptimizeSelection.overlapAcrossWrites(List.of(block(ROOT, ROOT, 1L), block(ROOT, ROOT, 2L)))).isTrue();
        // a group of write 1 spans the single-cube block of write 2
        assertThat(OptimizeSelection.overlapAcrossWrites(List.of(block(ROOT, ROOT.child(3), 1L), block(a, a, 2L)))).isTrue();
        // disjoint subtrees of two writes do not
        assertThat(OptimizeSelection.overlapAcrossWrites(List.of(block(ROOT.child(0), ROOT.child(0).child(3), 1L), block(a, a.child(2), 2L)))).isFalse();
    }

    @Test
    void testAgreesWithBruteForce()
    {
        Random random = new Random(42);
        for (int trial = 0; trial < 500; trial++) {
            List<Block> blocks = new ArrayList<>();
            int count = 1 + random.nextInt(6);
            for (int i = 0; i < count; i++) {
                CubeId first = randomCube(random);
                CubeId second = randomCube(random);
                CubeId min = first.compareTo(second) <= 0 ? first : second;
                CubeId max = first.compareTo(second) <= 0 ? second : first;
                blocks.add(block(min, max, (long) random.nextInt(3)));
            }
            boolean expected = false;
            for (Block x : blocks) {
                for (Block y : blocks) {
                    boolean overlap = CubeId.compareBytes(x.minCube(), y.maxCube()) <= 0 && CubeId.compareBytes(y.minCube(), x.maxCube()) <= 0;
                    expected |= overlap && !x.write().equals(y.write());
                }
            }
            assertThat(OptimizeSelection.overlapAcrossWrites(blocks)).as("trial %s: %s", trial, blocks).isEqualTo(expected);
        }
    }

    private static CubeId randomCube(Random random)
    {
        CubeId cube = ROOT;
        int depth = random.nextInt(4);
        for (int level = 0; level < depth; level++) {
            cube = cube.child(random.nextInt(4));
        }
        return cube;
    }

    private static Block block(CubeId min, CubeId max, Object write)
    {
        return new Block(min.toBytes(), max.toBytes(), write);
    }
}

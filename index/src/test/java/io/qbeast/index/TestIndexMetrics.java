package io.qbeast.index;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

final class TestIndexMetrics
{
    @Test
    void testMetricsDescribeTheTree()
    {
        for (int dimensions : new int[] {1, 2, 4}) {
            long cubeSize = 1000;
            int rows = 50_000;
            // one file per cube, so that the state is exact
            SimulatedTable table = new SimulatedTable(1, dimensions, cubeSize, 1, new BatchIndexer());
            table.write(PointDistribution.UNIFORM.generate(dimensions, rows, dimensions), TestBatchIndexer.weights(rows, dimensions), rows);
            IndexMetrics metrics = IndexMetrics.of(table.state);

            assertThat(metrics.rowCount()).isEqualTo(rows);
            assertThat(metrics.cubeCount()).isEqualTo(table.state.cubes().size());
            assertThat(metrics.innerCubeCount()).isEqualTo((int) table.state.cubes().stream().filter(CubeState::inner).count());
            assertThat(metrics.maxDepth()).isEqualTo(table.trueRows.keySet().stream().mapToInt(CubeId::depth).max().orElseThrow());
            // a full tree of depth d holds cubeSize * (1 + 2^D + ... + 2^(dD)) rows; ours cannot be shallower
            double capacityAboveMinimum = 0;
            for (int depth = 0; depth < metrics.minimumDepth(); depth++) {
                capacityAboveMinimum += Math.pow(2, dimensions * depth) * cubeSize;
            }
            assertThat(capacityAboveMinimum).isLessThan(rows);
            assertThat(metrics.maxDepth()).isGreaterThanOrEqualTo(metrics.minimumDepth());
            assertThat(metrics.averageFanOut()).isGreaterThan(1).isLessThanOrEqualTo(1 << dimensions);
            // one write: inner cubes hold exactly the cube size
            assertThat(metrics.innerFill()).hasSize(5).allSatisfy(fill -> assertThat(fill).isEqualTo(1.0));
            assertThat(metrics.levels().stream().mapToLong(IndexMetrics.Level::rows).sum()).isEqualTo(rows);
            assertThat(metrics.levels().stream().mapToInt(IndexMetrics.Level::cubes).sum()).isEqualTo(metrics.cubeCount());
            assertThat(metrics.averageBlocksPerCube()).isEqualTo(1.0);
            assertThat(metrics.fileCount()).isEqualTo(table.trueRows.size());
            assertThat(metrics.report()).contains("cubes " + metrics.cubeCount()).contains("depth " + metrics.maxDepth());
        }
    }

    @Test
    void testBlocksPerCubeGrowWithAppends()
    {
        SimulatedTable table = new SimulatedTable(1, 2, 1000, 1000, new BatchIndexer());
        table.write(PointDistribution.UNIFORM.generate(1, 20_000, 2), TestBatchIndexer.weights(20_000, 1), 20_000);
        double before = IndexMetrics.of(table.state).averageBlocksPerCube();
        for (int i = 0; i < 10; i++) {
            table.write(PointDistribution.UNIFORM.generate(10 + i, 5000, 2), TestBatchIndexer.weights(5000, 10 + i), 5000);
        }
        IndexMetrics after = IndexMetrics.of(table.state);
        assertThat(after.averageBlocksPerCube()).isGreaterThan(before + 5);
        assertThat(after.maxBlocksPerCube()).isGreaterThanOrEqualTo(11);
    }
}

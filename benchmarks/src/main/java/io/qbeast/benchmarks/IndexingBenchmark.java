package io.qbeast.benchmarks;

import io.qbeast.index.BatchIndexer;
import io.qbeast.index.CubeAssignment;
import io.qbeast.index.CubeGroup;
import io.qbeast.index.IndexState;
import io.qbeast.index.Rollup;
import io.qbeast.index.WeightGenerator;
import io.qbeast.index.transform.LongLinearTransformation;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The write path of the index on one core: raw BIGINT values to points (linear transformation),
 * weights, cube assignment of the whole batch against an empty tree, and rollup into file groups.
 * Rows per second per core = rows / (ms per op) * 1000.
 *
 * <p>{@code java -jar benchmarks/target/benchmarks.jar IndexingBenchmark -wi 1 -i 3 -f 1}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms8g", "-Xmx8g", "-XX:+UseParallelGC"})
@Warmup(iterations = 2)
@Measurement(iterations = 5)
public class IndexingBenchmark
{
    @Param({"1", "2", "4", "8"})
    public int dimensions;

    @Param({"100000", "1000000"})
    public long cubeSize;

    @Param("10000000")
    public int rows;

    private long[] values;
    private LongLinearTransformation[] transformations;
    private double[] coordinates;
    private int[] weights;
    private IndexState state;
    private final BatchIndexer indexer = new BatchIndexer();

    @Setup
    public void setUp()
    {
        SplittableRandom random = new SplittableRandom(42);
        values = new long[rows * dimensions];
        for (int i = 0; i < values.length; i++) {
            values[i] = random.nextLong(1_000_000_000_000L);
        }
        transformations = new LongLinearTransformation[dimensions];
        for (int j = 0; j < dimensions; j++) {
            transformations[j] = new LongLinearTransformation(0, 1_000_000_000_000L);
        }
        coordinates = new double[rows * dimensions];
        weights = new int[rows];
        state = IndexState.empty(1, dimensions, cubeSize);
    }

    @Benchmark
    public int pointWeightAssignRollup()
    {
        toPoints();
        new WeightGenerator(7).fill(weights, 0, rows);
        CubeAssignment assignment = indexer.assign(state, coordinates, weights, rows);
        List<CubeGroup> groups = Rollup.group(assignment.cubes(), assignment.rowsPerCube(), cubeSize);
        return groups.size();
    }

    @Benchmark
    public int assignOnly()
    {
        if (coordinates[0] == 0 && coordinates[coordinates.length - 1] == 0) {
            toPoints();
            new WeightGenerator(7).fill(weights, 0, rows);
        }
        return indexer.assign(state, coordinates, weights, rows).cubeCount();
    }

    private void toPoints()
    {
        for (int row = 0; row < rows; row++) {
            int offset = row * dimensions;
            for (int j = 0; j < dimensions; j++) {
                coordinates[offset + j] = transformations[j].coordinate(values[offset + j]);
            }
        }
    }
}

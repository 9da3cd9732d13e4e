package io.qbeast.trino.parquet;

import io.trino.spi.block.Block;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.IntegerType.INTEGER;

/**
 * The weight of a row as every reader sees it: the stored {@code _qbeast_weight}, or for a row
 * without one (a file of another engine, or a null value) a weight derived from the file and the
 * row's position. The one owner of that rule: samples ({@code WeightFilter}) and merge row ids
 * ({@link MergeRowIds}) must agree, or an updated row would leave the samples it was in.
 */
final class RowWeights
{
    private RowWeights() {}

    /**
     * @param weights the stored weights of a page, or null when the file has none
     * @param rowNumbers the file row numbers of the same page (read only for rows without a stored weight)
     */
    static int weightOf(Block weights, Block rowNumbers, int position, long fileSeed)
    {
        if (weights != null && !weights.isNull(position)) {
            return INTEGER.getInt(weights, position);
        }
        return derivedWeight(fileSeed, BIGINT.getLong(rowNumbers, position));
    }

    /**
     * A uniform pseudo-random 32-bit weight for a row that has none, stable across reads of the
     * same file (the SplitMix64 finalizer over seed and position).
     */
    static int derivedWeight(long fileSeed, long rowNumber)
    {
        long z = fileSeed + (rowNumber + 1) * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z = z ^ (z >>> 31);
        return (int) (z >>> 32);
    }
}

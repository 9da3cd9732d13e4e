package io.qbeast.trino.parquet;

import io.airlift.slice.Slice;
import io.trino.spi.block.Block;
import io.trino.spi.block.IntArrayBlock;
import io.trino.spi.block.RowBlock;
import io.trino.spi.block.RunLengthEncodedBlock;
import io.trino.spi.block.VariableWidthBlock;
import io.trino.spi.connector.SourcePage;

import java.util.Optional;

import static io.trino.spi.type.IntegerType.INTEGER;
import static java.util.Objects.requireNonNull;

/**
 * The merge row id of each row a page source returns (see
 * {@code QbeastColumnHandle.MERGE_ROW_ID_TYPE}): the data file's path as the manifest names it,
 * the row's position in the file (the reader's row numbers, so they count every row of the file,
 * read or not) and its weight: the stored one, or for a row without one the weight a sample gives
 * it ({@link RowWeights#weightOf}), so an updated row stays in the same samples.
 *
 * @param outputChannel the page source's channel of the row id
 * @param withWeights false for the scan of a change that updates no row: the weights are null
 * @param weightChannel the reader channel of {@code _qbeast_weight}, or -1 when the file has none
 * @param rowNumberChannel the reader channel of the row numbers
 */
record MergeRowIds(int outputChannel, boolean withWeights, int weightChannel, int rowNumberChannel, Slice path, long fileSeed)
{
    MergeRowIds
    {
        requireNonNull(path, "path is null");
    }

    /** The row ids of the page's rows at {@code selection} (all rows when null). */
    Block block(SourcePage page, int[] selection)
    {
        Block rowNumbers = page.getBlock(rowNumberChannel);
        Block weights = weightChannel < 0 ? null : page.getBlock(weightChannel);
        if (selection != null) {
            rowNumbers = rowNumbers.getPositions(selection, 0, selection.length);
            weights = weights == null ? null : weights.getPositions(selection, 0, selection.length);
        }
        int count = rowNumbers.getPositionCount();
        Block rowWeights;
        if (withWeights) {
            int[] values = new int[count];
            for (int position = 0; position < count; position++) {
                values[position] = RowWeights.weightOf(weights, rowNumbers, position, fileSeed);
            }
            rowWeights = new IntArrayBlock(count, Optional.empty(), values);
        }
        else {
            rowWeights = RunLengthEncodedBlock.create(INTEGER, null, count);
        }
        Block pathValue = new VariableWidthBlock(1, path, new int[] {0, path.length()}, Optional.empty());
        return RowBlock.fromFieldBlocks(count, new Block[] {
                RunLengthEncodedBlock.create(pathValue, count),
                rowNumbers,
                rowWeights});
    }
}

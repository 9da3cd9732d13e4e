package io.qbeast.trino.parquet;

import io.trino.spi.block.Block;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.type.Type;

import java.util.Arrays;
import java.util.List;
import java.util.Set;

import static com.google.common.base.Preconditions.checkArgument;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.TypeUtils.readNativeValue;
import static java.util.Objects.requireNonNull;

/**
 * Drops the deleted rows of a batch: {@link DeletedRows} bound to the reader's channels for one
 * split. Position deletes are matched on the reader's file row numbers (a split is a row-group
 * range of its file, and the reader numbers rows over the whole file, as delete files do);
 * equality deletes on the values of their columns, which the reader reads even when they are
 * not projected.
 */
final class DeleteFilter
        implements RowSelection
{
    private final int rowNumberChannel;
    private final long[] positions;
    private final List<BoundEquality> equalities;

    /**
     * @param rowNumberChannel reader channel of the file row numbers; -1 when there are no position deletes
     */
    DeleteFilter(int rowNumberChannel, long[] positions, List<BoundEquality> equalities)
    {
        checkArgument(positions.length == 0 || rowNumberChannel >= 0, "position deletes need the row number channel");
        this.rowNumberChannel = rowNumberChannel;
        this.positions = requireNonNull(positions, "positions is null");
        this.equalities = List.copyOf(requireNonNull(equalities, "equalities is null"));
    }

    /**
     * Keeps the rows of the batch that no delete removes.
     *
     * @param selection positions to consider, ascending; {@code null}: all
     * @return the positions kept, ascending; {@code null} when all rows are kept
     */
    @Override
    public int[] apply(SourcePage page, int[] selection)
    {
        int count = selection == null ? page.getPositionCount() : selection.length;
        int[] kept = new int[count];
        for (int i = 0; i < count; i++) {
            kept[i] = selection == null ? i : selection[i];
        }
        if (positions.length > 0 && count > 0) {
            Block rowNumbers = page.getBlock(rowNumberChannel);
            int retained = 0;
            for (int i = 0; i < count; i++) {
                int position = kept[i];
                if (Arrays.binarySearch(positions, BIGINT.getLong(rowNumbers, position)) < 0) {
                    kept[retained++] = position;
                }
            }
            count = retained;
        }
        for (BoundEquality equality : equalities) {
            if (count == 0) {
                break;
            }
            count = equality.retainLive(page, kept, count);
        }
        if (selection == null && count == page.getPositionCount()) {
            return null;
        }
        return Arrays.copyOf(kept, count);
    }

    /**
     * One equality delete set on the reader's channels.
     *
     * @param channels reader channel of each equality column, -1 for a column the file lacks (its values are null)
     */
    record BoundEquality(int[] channels, List<Type> types, Set<List<Object>> keys)
    {
        BoundEquality
        {
            checkArgument(channels.length == types.size(), "channels and types differ in length");
            channels = channels.clone();
            types = List.copyOf(types);
            requireNonNull(keys, "keys is null");
        }

        // compacts positions[0, count) to the rows whose key is not deleted; returns how many are left
        int retainLive(SourcePage page, int[] positions, int count)
        {
            if (keys.isEmpty()) {
                return count;
            }
            Block[] blocks = new Block[channels.length];
            for (int column = 0; column < channels.length; column++) {
                blocks[column] = channels[column] < 0 ? null : page.getBlock(channels[column]);
            }
            Object[] values = new Object[channels.length];
            List<Object> key = Arrays.asList(values);
            int retained = 0;
            for (int i = 0; i < count; i++) {
                int position = positions[i];
                for (int column = 0; column < values.length; column++) {
                    values[column] = blocks[column] == null ? null : readNativeValue(types.get(column), blocks[column], position);
                }
                if (!keys.contains(key)) {
                    positions[retained++] = position;
                }
            }
            return retained;
        }
    }
}

package io.qbeast.trino.write;

import io.airlift.slice.Slices;
import io.trino.spi.Page;
import io.trino.spi.block.Bitmap;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.ByteArrayBlock;
import io.trino.spi.block.IntArrayBlock;
import io.trino.spi.block.LongArrayBlock;
import io.trino.spi.block.ShortArrayBlock;
import io.trino.spi.block.ValueBlock;
import io.trino.spi.block.VariableWidthBlock;
import io.trino.spi.type.Type;

import java.util.Arrays;
import java.util.Optional;

/**
 * Rows chosen for one output page, by reference: the page holding each, its position there, its
 * weight and its cube. {@link #gather} copies one channel of the referenced rows into a new block,
 * in reference order.
 */
public final class RowRefs
{
    private Page[] pages = new Page[0];
    private int[] positions = new int[0];
    private int[] weights = new int[0];
    private int[] cubes = new int[0];
    private int size;

    public int size()
    {
        return size;
    }

    public void clear()
    {
        Arrays.fill(pages, 0, size, null);
        size = 0;
    }

    public void add(Page page, int position, int weight, int cube)
    {
        if (size == pages.length) {
            int capacity = Math.max(1024, size * 2);
            pages = Arrays.copyOf(pages, capacity);
            positions = Arrays.copyOf(positions, capacity);
            weights = Arrays.copyOf(weights, capacity);
            cubes = Arrays.copyOf(cubes, capacity);
        }
        pages[size] = page;
        positions[size] = position;
        weights[size] = weight;
        cubes[size] = cube;
        size++;
    }

    public int weight(int index)
    {
        return weights[index];
    }

    public int cube(int index)
    {
        return cubes[index];
    }

    public Page page(int index)
    {
        return pages[index];
    }

    public int position(int index)
    {
        return positions[index];
    }

    /** The weights of the rows, in order. */
    public int[] weights()
    {
        return Arrays.copyOf(weights, size);
    }

    /** Orders the rows by ascending weight (ties keep their order). */
    public void sortByWeight()
    {
        // (weight, index) in one long: the signed weight in the high half orders signed longs
        // as the weights, the index below keeps ties in order; a primitive sort
        long[] keys = new long[size];
        for (int i = 0; i < size; i++) {
            keys[i] = (long) weights[i] << 32 | i;
        }
        Arrays.sort(keys);
        int[] order = new int[size];
        for (int i = 0; i < size; i++) {
            order[i] = (int) keys[i];
        }
        reorder(order);
    }

    /** Puts the rows in the given order: row {@code i} becomes the row at {@code order[i]}. */
    public void reorder(int[] order)
    {
        if (order.length != size) {
            throw new IllegalArgumentException("An order of %s rows for %s rows".formatted(order.length, size));
        }
        Page[] sortedPages = new Page[pages.length];
        int[] sortedPositions = new int[positions.length];
        int[] sortedWeights = new int[weights.length];
        int[] sortedCubes = new int[cubes.length];
        for (int i = 0; i < size; i++) {
            int from = order[i];
            sortedPages[i] = pages[from];
            sortedPositions[i] = positions[from];
            sortedWeights[i] = weights[from];
            sortedCubes[i] = cubes[from];
        }
        pages = sortedPages;
        positions = sortedPositions;
        weights = sortedWeights;
        cubes = sortedCubes;
    }

    /** The cube of each row, in order. */
    public int[] cubes()
    {
        return Arrays.copyOf(cubes, size);
    }

    /**
     * A new block of {@code type} holding channel {@code channel} of the referenced rows. This copy
     * runs twice per written row (into a spilled run, then into a row group) in reference order,
     * which jumps between pages: the common value blocks (fixed-width numbers, varchar and
     * varbinary) are copied into arrays sized once, the rest through a block builder.
     */
    public Block gather(int channel, Type type)
    {
        ValueBlock[] values = new ValueBlock[size];
        int[] valuePositions = new int[size];
        Page lastPage = null;
        Block block = null;
        ValueBlock valueBlock = null;
        boolean sameKind = true;
        for (int i = 0; i < size; i++) {
            if (pages[i] != lastPage) {
                lastPage = pages[i];
                block = lastPage.getBlock(channel);
                valueBlock = block.getUnderlyingValueBlock();
                // the copies below are typed by the blocks: only blocks of the type's own kind take
                // them (others go to the builder, which refuses a block of another type)
                sameKind &= valueBlock.getClass() == type.getValueBlockType();
            }
            values[i] = valueBlock;
            valuePositions[i] = block.getUnderlyingValuePosition(positions[i]);
        }
        if (size > 0 && sameKind) {
            switch (values[0]) {
                case LongArrayBlock _ -> {
                    long[] out = new long[size];
                    for (int i = 0; i < size; i++) {
                        out[i] = ((LongArrayBlock) values[i]).getLong(valuePositions[i]);
                    }
                    return new LongArrayBlock(size, validity(values, valuePositions), out);
                }
                case IntArrayBlock _ -> {
                    int[] out = new int[size];
                    for (int i = 0; i < size; i++) {
                        out[i] = ((IntArrayBlock) values[i]).getInt(valuePositions[i]);
                    }
                    return new IntArrayBlock(size, validity(values, valuePositions), out);
                }
                case ShortArrayBlock _ -> {
                    short[] out = new short[size];
                    for (int i = 0; i < size; i++) {
                        out[i] = ((ShortArrayBlock) values[i]).getShort(valuePositions[i]);
                    }
                    return new ShortArrayBlock(size, validity(values, valuePositions), out);
                }
                case ByteArrayBlock _ -> {
                    byte[] out = new byte[size];
                    for (int i = 0; i < size; i++) {
                        out[i] = ((ByteArrayBlock) values[i]).getByte(valuePositions[i]);
                    }
                    return new ByteArrayBlock(size, validity(values, valuePositions), out);
                }
                case VariableWidthBlock _ -> {
                    return gatherVariableWidth(values, valuePositions);
                }
                default -> {}
            }
        }
        return gatherWithBuilder(type, values, valuePositions);
    }

    private Block gatherVariableWidth(ValueBlock[] values, int[] valuePositions)
    {
        int[] offsets = new int[size + 1];
        for (int i = 0; i < size; i++) {
            offsets[i + 1] = Math.addExact(offsets[i], ((VariableWidthBlock) values[i]).getSliceLength(valuePositions[i]));
        }
        byte[] bytes = new byte[offsets[size]];
        for (int i = 0; i < size; i++) {
            VariableWidthBlock block = (VariableWidthBlock) values[i];
            int length = offsets[i + 1] - offsets[i];
            if (length > 0) {
                block.getRawSlice().getBytes(block.getRawSliceOffset(valuePositions[i]), bytes, offsets[i], length);
            }
        }
        return new VariableWidthBlock(size, Slices.wrappedBuffer(bytes), offsets, validity(values, valuePositions));
    }

    // the gathered positions' validity, bit-packed as the blocks take it (a set bit: not null);
    // empty when none is null
    private Optional<long[]> validity(ValueBlock[] values, int[] valuePositions)
    {
        long[] valid = null;
        for (int i = 0; i < size; i++) {
            if (values[i].mayHaveNull() && values[i].isNull(valuePositions[i])) {
                if (valid == null) {
                    valid = Bitmap.allocateWords(size, true);
                }
                Bitmap.clear(valid, 0, i);
            }
        }
        return Optional.ofNullable(valid);
    }

    // any other block: through a builder, runs of consecutive positions of one block as ranges
    private Block gatherWithBuilder(Type type, ValueBlock[] values, int[] valuePositions)
    {
        BlockBuilder builder = type.createBlockBuilder(null, size);
        int i = 0;
        while (i < size) {
            int end = i + 1;
            while (end < size && values[end] == values[i] && valuePositions[end] == valuePositions[i] + (end - i)) {
                end++;
            }
            if (end - i == 1) {
                builder.append(values[i], valuePositions[i]);
            }
            else {
                builder.appendRange(values[i], valuePositions[i], end - i);
            }
            i = end;
        }
        return builder.build();
    }
}

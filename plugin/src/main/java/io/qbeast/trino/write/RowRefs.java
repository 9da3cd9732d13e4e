package io.qbeast.trino.write;

import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.ValueBlock;
import io.trino.spi.type.Type;

import java.util.Arrays;

/**
 * Rows chosen for one output page, by reference: the page holding each, its position there, its
 * weight and its cube. {@link #gather} copies one channel of the referenced rows into a new block,
 * in reference order, copying runs of consecutive positions of one page as ranges.
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
        Page[] sortedPages = new Page[pages.length];
        int[] sortedPositions = new int[positions.length];
        int[] sortedWeights = new int[weights.length];
        int[] sortedCubes = new int[cubes.length];
        for (int i = 0; i < size; i++) {
            int from = (int) keys[i];
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

    /** A new block of {@code type} holding channel {@code channel} of the referenced rows. */
    public Block gather(int channel, Type type)
    {
        BlockBuilder builder = type.createBlockBuilder(null, size);
        int i = 0;
        while (i < size) {
            Page page = pages[i];
            Block block = page.getBlock(channel);
            ValueBlock values = block.getUnderlyingValueBlock();
            int position = positions[i];
            if (block != values) {
                builder.append(values, block.getUnderlyingValuePosition(position));
                i++;
                continue;
            }
            int end = i + 1;
            while (end < size && pages[end] == page && positions[end] == position + (end - i)) {
                end++;
            }
            if (end - i == 1) {
                builder.append(values, position);
            }
            else {
                builder.appendRange(values, position, end - i);
            }
            i = end;
        }
        return builder.build();
    }
}

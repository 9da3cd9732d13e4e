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
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Rows chosen for one output page, by reference: the page holding each, its position there, its
 * weight and its cube. {@link #gather} copies one channel of the referenced rows into a new block,
 * in reference order.
 *
 * <p>A row names its page by an ordinal into the distinct pages referenced, so that a gather
 * resolves each page's block once, not once per row: rows in (cube, weight) order jump between
 * pages on almost every row, and resolving a block (interface calls on blocks of many classes)
 * cost a third of the gather in a profile of a lineitem CTAS.
 */
public final class RowRefs
{
    private Page[] pages = new Page[0];
    private int pageCount;
    private final Map<Page, Integer> pageOrdinals = new IdentityHashMap<>();
    private Page lastPage;
    private int lastOrdinal;

    private int[] ordinals = new int[0];
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
        Arrays.fill(pages, 0, pageCount, null);
        pageCount = 0;
        pageOrdinals.clear();
        lastPage = null;
        size = 0;
    }

    public void add(Page page, int position, int weight, int cube)
    {
        if (size == positions.length) {
            int capacity = Math.max(1024, size * 2);
            ordinals = Arrays.copyOf(ordinals, capacity);
            positions = Arrays.copyOf(positions, capacity);
            weights = Arrays.copyOf(weights, capacity);
            cubes = Arrays.copyOf(cubes, capacity);
        }
        ordinals[size] = ordinal(page);
        positions[size] = position;
        weights[size] = weight;
        cubes[size] = cube;
        size++;
    }

    private int ordinal(Page page)
    {
        if (page == lastPage) {
            return lastOrdinal;
        }
        Integer ordinal = pageOrdinals.get(page);
        if (ordinal == null) {
            if (pageCount == pages.length) {
                pages = Arrays.copyOf(pages, Math.max(16, pageCount * 2));
            }
            ordinal = pageCount;
            pages[pageCount++] = page;
            pageOrdinals.put(page, ordinal);
        }
        lastPage = page;
        lastOrdinal = ordinal;
        return ordinal;
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
        return pages[ordinals[index]];
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

    /**
     * Orders the rows by cube, then by ascending weight (ties keep their order): a stable counting
     * sort of the weight order by cube.
     */
    public void sortByCubeThenWeight()
    {
        sortByWeight();
        if (size == 0) {
            return;
        }
        int lowest = Integer.MAX_VALUE;
        int highest = Integer.MIN_VALUE;
        for (int i = 0; i < size; i++) {
            lowest = Math.min(lowest, cubes[i]);
            highest = Math.max(highest, cubes[i]);
        }
        int[] starts = new int[highest - lowest + 2];
        for (int i = 0; i < size; i++) {
            starts[cubes[i] - lowest + 1]++;
        }
        for (int cube = 1; cube < starts.length; cube++) {
            starts[cube] += starts[cube - 1];
        }
        int[] order = new int[size];
        for (int i = 0; i < size; i++) {
            order[starts[cubes[i] - lowest]++] = i;
        }
        reorder(order);
    }

    /** Puts the rows in the given order: row {@code i} becomes the row at {@code order[i]}. */
    public void reorder(int[] order)
    {
        if (order.length != size) {
            throw new IllegalArgumentException("An order of %s rows for %s rows".formatted(order.length, size));
        }
        int[] sortedOrdinals = new int[ordinals.length];
        int[] sortedPositions = new int[positions.length];
        int[] sortedWeights = new int[weights.length];
        int[] sortedCubes = new int[cubes.length];
        for (int i = 0; i < size; i++) {
            int from = order[i];
            sortedOrdinals[i] = ordinals[from];
            sortedPositions[i] = positions[from];
            sortedWeights[i] = weights[from];
            sortedCubes[i] = cubes[from];
        }
        ordinals = sortedOrdinals;
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
     * which jumps between pages: when every page's block is a value block of the type's own kind
     * (fixed-width numbers, varchar and varbinary), the values are copied from the blocks' arrays
     * into arrays sized once; any other mix (dictionaries, run-length blocks, other types) goes
     * through a block builder.
     */
    public Block gather(int channel, Type type)
    {
        ValueBlock[] blocks = new ValueBlock[pageCount];
        Block[] indirect = null;
        boolean sameKind = true;
        boolean mayHaveNull = false;
        for (int page = 0; page < pageCount; page++) {
            Block block = pages[page].getBlock(channel);
            ValueBlock valueBlock = block.getUnderlyingValueBlock();
            // the copies below are typed by the blocks: only blocks of the type's own kind take
            // them (others go to the builder, which refuses a block of another type)
            sameKind &= valueBlock.getClass() == type.getValueBlockType();
            blocks[page] = valueBlock;
            mayHaveNull |= valueBlock.mayHaveNull();
            if (block != valueBlock) {
                // a dictionary or run-length block: its rows' positions in the value block differ
                if (indirect == null) {
                    indirect = new Block[pageCount];
                }
                indirect[page] = block;
            }
        }
        int[] valuePositions = this.positions;
        if (indirect != null) {
            valuePositions = new int[size];
            for (int i = 0; i < size; i++) {
                Block block = indirect[ordinals[i]];
                valuePositions[i] = block == null ? this.positions[i] : block.getUnderlyingValuePosition(this.positions[i]);
            }
        }
        if (size == 0 || !sameKind) {
            return gatherWithBuilder(type, blocks, valuePositions);
        }
        Optional<long[]> validity = mayHaveNull ? validity(blocks, valuePositions) : Optional.empty();
        return switch (blocks[ordinals[0]]) {
            case LongArrayBlock _ -> {
                long[][] raw = new long[pageCount][];
                int[] base = new int[pageCount];
                for (int page = 0; page < pageCount; page++) {
                    LongArrayBlock block = (LongArrayBlock) blocks[page];
                    raw[page] = block.getRawValues();
                    base[page] = block.getRawValuesOffset();
                }
                long[] out = new long[size];
                for (int i = 0; i < size; i++) {
                    int page = ordinals[i];
                    out[i] = raw[page][base[page] + valuePositions[i]];
                }
                yield new LongArrayBlock(size, validity, out);
            }
            case IntArrayBlock _ -> {
                int[][] raw = new int[pageCount][];
                int[] base = new int[pageCount];
                for (int page = 0; page < pageCount; page++) {
                    IntArrayBlock block = (IntArrayBlock) blocks[page];
                    raw[page] = block.getRawValues();
                    base[page] = block.getRawValuesOffset();
                }
                int[] out = new int[size];
                for (int i = 0; i < size; i++) {
                    int page = ordinals[i];
                    out[i] = raw[page][base[page] + valuePositions[i]];
                }
                yield new IntArrayBlock(size, validity, out);
            }
            case ShortArrayBlock _ -> {
                short[] out = new short[size];
                for (int i = 0; i < size; i++) {
                    out[i] = ((ShortArrayBlock) blocks[ordinals[i]]).getShort(valuePositions[i]);
                }
                yield new ShortArrayBlock(size, validity, out);
            }
            case ByteArrayBlock _ -> {
                byte[] out = new byte[size];
                for (int i = 0; i < size; i++) {
                    out[i] = ((ByteArrayBlock) blocks[ordinals[i]]).getByte(valuePositions[i]);
                }
                yield new ByteArrayBlock(size, validity, out);
            }
            case VariableWidthBlock _ -> gatherVariableWidth(blocks, valuePositions, validity);
            default -> gatherWithBuilder(type, blocks, valuePositions);
        };
    }

    private Block gatherVariableWidth(ValueBlock[] blocks, int[] valuePositions, Optional<long[]> validity)
    {
        int[][] rawOffsets = new int[pageCount][];
        int[] base = new int[pageCount];
        byte[][] bytes = new byte[pageCount][];
        int[] bytesBase = new int[pageCount];
        for (int page = 0; page < pageCount; page++) {
            VariableWidthBlock block = (VariableWidthBlock) blocks[page];
            rawOffsets[page] = block.getRawOffsets();
            base[page] = block.getRawArrayBase();
            bytes[page] = block.getRawSlice().byteArray();
            bytesBase[page] = block.getRawSlice().byteArrayOffset();
        }
        // one read of each row's offsets: its start is kept for the copy
        int[] offsets = new int[size + 1];
        int[] starts = new int[size];
        for (int i = 0; i < size; i++) {
            int page = ordinals[i];
            int[] pageOffsets = rawOffsets[page];
            int at = base[page] + valuePositions[i];
            starts[i] = pageOffsets[at];
            offsets[i + 1] = Math.addExact(offsets[i], pageOffsets[at + 1] - pageOffsets[at]);
        }
        byte[] out = new byte[offsets[size]];
        for (int i = 0; i < size; i++) {
            int length = offsets[i + 1] - offsets[i];
            if (length > 0) {
                int page = ordinals[i];
                System.arraycopy(bytes[page], bytesBase[page] + starts[i], out, offsets[i], length);
            }
        }
        return new VariableWidthBlock(size, Slices.wrappedBuffer(out), offsets, validity);
    }

    // the gathered valuePositions' validity, bit-packed as the blocks take it (a set bit: not null);
    // empty when none is null
    private Optional<long[]> validity(ValueBlock[] blocks, int[] valuePositions)
    {
        long[] valid = null;
        for (int i = 0; i < size; i++) {
            ValueBlock block = blocks[ordinals[i]];
            if (block.mayHaveNull() && block.isNull(valuePositions[i])) {
                if (valid == null) {
                    valid = Bitmap.allocateWords(size, true);
                }
                Bitmap.clear(valid, 0, i);
            }
        }
        return Optional.ofNullable(valid);
    }

    // any other block: through a builder, runs of consecutive valuePositions of one value block as ranges
    private Block gatherWithBuilder(Type type, ValueBlock[] blocks, int[] valuePositions)
    {
        BlockBuilder builder = type.createBlockBuilder(null, size);
        int i = 0;
        while (i < size) {
            int end = i + 1;
            while (end < size && blocks[ordinals[end]] == blocks[ordinals[i]] && valuePositions[end] == valuePositions[i] + (end - i)) {
                end++;
            }
            if (end - i == 1) {
                builder.append(blocks[ordinals[i]], valuePositions[i]);
            }
            else {
                builder.appendRange(blocks[ordinals[i]], valuePositions[i], end - i);
            }
            i = end;
        }
        return builder.build();
    }
}

package io.qbeast.trino.write;

import com.google.common.collect.ImmutableMap;
import io.airlift.slice.SliceInput;
import io.airlift.slice.SliceOutput;
import io.trino.spi.Page;
import io.trino.spi.block.ArrayBlockEncoding;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockEncoding;
import io.trino.spi.block.BlockEncodingSerde;
import io.trino.spi.block.ByteArrayBlockEncoding;
import io.trino.spi.block.DictionaryBlockEncoding;
import io.trino.spi.block.Fixed12BlockEncoding;
import io.trino.spi.block.Int128ArrayBlockEncoding;
import io.trino.spi.block.IntArrayBlockEncoding;
import io.trino.spi.block.LongArrayBlockEncoding;
import io.trino.spi.block.MapBlockEncoding;
import io.trino.spi.block.RowBlockEncoding;
import io.trino.spi.block.RunLengthBlockEncoding;
import io.trino.spi.block.ShortArrayBlockEncoding;
import io.trino.spi.block.VariableWidthBlockEncoding;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeId;
import io.trino.spi.type.TypeManager;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

/**
 * The serialization of spilled pages: the SPI's own block encodings (the raw arrays of each block,
 * no compression: spill files are local, short-lived and read once), looked up by block class as
 * the engine's serde does; map types, which map blocks carry, by their type id.
 */
public final class SpillPageSerde
        implements BlockEncodingSerde
{
    // the fixed-width encodings' null compaction without the Vector API: the engine turns that on
    // only where it detected the CPU support (its own config), which a plugin cannot see
    private static final boolean VECTORIZE_NULLS = false;

    private static final List<BlockEncoding> ENCODINGS = List.of(
            new ByteArrayBlockEncoding(VECTORIZE_NULLS, VECTORIZE_NULLS),
            new ShortArrayBlockEncoding(VECTORIZE_NULLS, VECTORIZE_NULLS),
            new IntArrayBlockEncoding(VECTORIZE_NULLS, VECTORIZE_NULLS),
            new LongArrayBlockEncoding(VECTORIZE_NULLS, VECTORIZE_NULLS),
            new Fixed12BlockEncoding(),
            new Int128ArrayBlockEncoding(),
            new VariableWidthBlockEncoding(),
            new ArrayBlockEncoding(),
            new MapBlockEncoding(),
            new RowBlockEncoding(),
            new DictionaryBlockEncoding(),
            new RunLengthBlockEncoding());

    private final TypeManager typeManager;
    private final Map<Class<?>, BlockEncoding> byClass;
    private final Map<String, BlockEncoding> byName;

    public SpillPageSerde(TypeManager typeManager)
    {
        this.typeManager = requireNonNull(typeManager, "typeManager is null");
        ImmutableMap.Builder<Class<?>, BlockEncoding> classes = ImmutableMap.builder();
        ImmutableMap.Builder<String, BlockEncoding> names = ImmutableMap.builder();
        for (BlockEncoding encoding : ENCODINGS) {
            classes.put(encoding.getBlockClass(), encoding);
            names.put(encoding.getName(), encoding);
        }
        this.byClass = classes.buildOrThrow();
        this.byName = names.buildOrThrow();
    }

    public void writePage(SliceOutput output, Page page)
    {
        output.writeInt(page.getPositionCount());
        output.writeInt(page.getChannelCount());
        for (int channel = 0; channel < page.getChannelCount(); channel++) {
            writeBlock(output, page.getBlock(channel));
        }
    }

    public Page readPage(SliceInput input)
    {
        int positions = input.readInt();
        int channels = input.readInt();
        Block[] blocks = new Block[channels];
        for (int channel = 0; channel < channels; channel++) {
            blocks[channel] = readBlock(input);
        }
        return new Page(positions, blocks);
    }

    @Override
    public void writeBlock(SliceOutput output, Block block)
    {
        BlockEncoding encoding = byClass.get(block.getClass());
        if (encoding == null) {
            throw new IllegalArgumentException("No spill encoding for block class " + block.getClass().getName());
        }
        Optional<Block> replacement = encoding.replacementBlockForWrite(block);
        if (replacement.isPresent()) {
            writeBlock(output, replacement.get());
            return;
        }
        byte[] name = encoding.getName().getBytes(UTF_8);
        output.writeInt(name.length);
        output.writeBytes(name);
        encoding.writeBlock(this, output, block);
    }

    @Override
    public Block readBlock(SliceInput input)
    {
        byte[] name = new byte[input.readInt()];
        input.readBytes(name);
        BlockEncoding encoding = byName.get(new String(name, UTF_8));
        if (encoding == null) {
            throw new IllegalArgumentException("Unknown spill block encoding " + new String(name, UTF_8));
        }
        return encoding.readBlock(this, input);
    }

    @Override
    public Type readType(SliceInput input)
    {
        byte[] id = new byte[input.readInt()];
        input.readBytes(id);
        return typeManager.getType(TypeId.of(new String(id, UTF_8)));
    }

    @Override
    public void writeType(SliceOutput output, Type type)
    {
        byte[] id = type.getTypeId().getId().getBytes(UTF_8);
        output.writeInt(id.length);
        output.writeBytes(id);
    }
}

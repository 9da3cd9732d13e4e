package io.qbeast.trino.write;

import io.airlift.slice.DynamicSliceOutput;
import io.airlift.slice.Slice;
import io.airlift.slice.SliceInput;
import io.airlift.slice.Slices;
import io.trino.spi.Page;
import io.trino.spi.block.ArrayBlock;
import io.trino.spi.block.ArrayBlockBuilder;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.DictionaryBlock;
import io.trino.spi.block.MapBlockBuilder;
import io.trino.spi.block.RowBlock;
import io.trino.spi.block.RowBlockBuilder;
import io.trino.spi.block.RunLengthEncodedBlock;
import io.trino.spi.type.ArrayType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.Int128;
import io.trino.spi.type.LongTimestampWithTimeZone;
import io.trino.spi.type.MapType;
import io.trino.spi.type.RowType;
import io.trino.spi.type.TimeZoneKey;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeDescriptor;
import io.trino.spi.type.VarcharType;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.BooleanType.BOOLEAN;
import static io.trino.spi.type.DateTimeEncoding.packDateTimeWithZone;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.SmallintType.SMALLINT;
import static io.trino.spi.type.TimestampType.TIMESTAMP_MICROS;
import static io.trino.spi.type.TimestampWithTimeZoneType.TIMESTAMP_TZ_MICROS;
import static io.trino.spi.type.TimestampWithTimeZoneType.TIMESTAMP_TZ_MILLIS;
import static io.trino.spi.type.TinyintType.TINYINT;
import static io.trino.spi.type.UuidType.UUID;
import static io.trino.spi.type.UuidType.javaUuidToTrinoUuid;
import static io.trino.spi.type.VarbinaryType.VARBINARY;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static io.trino.spi.type.VarcharType.createVarcharType;
import static io.trino.type.InternalTypeManager.TESTING_TYPE_MANAGER;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestSpillPageSerde
{
    private static final SpillPageSerde SERDE = new SpillPageSerde(TESTING_TYPE_MANAGER);
    private static final MapType MAP_VARCHAR_BIGINT = (MapType) TESTING_TYPE_MANAGER.getType(
            TypeDescriptor.mapType(VARCHAR.getTypeDescriptor(), BIGINT.getTypeDescriptor()));
    private static final RowType ROW_A_B = RowType.rowType(RowType.field("a", BIGINT), RowType.field("b", VARCHAR));
    private static final ArrayType ARRAY_BIGINT = new ArrayType(BIGINT);

    /** Every type the sink can meet, one column each, with the block class it is held in. */
    private static final List<Type> TYPES = List.of(
            BIGINT, // LongArrayBlock
            INTEGER, // IntArrayBlock
            SMALLINT, // ShortArrayBlock
            TINYINT, // ByteArrayBlock
            BOOLEAN, // ByteArrayBlock
            REAL, // IntArrayBlock
            DOUBLE, // LongArrayBlock
            DecimalType.createDecimalType(10, 2), // short decimal: LongArrayBlock
            DecimalType.createDecimalType(30, 5), // long decimal: Int128ArrayBlock
            DATE, // IntArrayBlock
            TIMESTAMP_MICROS, // LongArrayBlock
            TIMESTAMP_TZ_MILLIS, // short timestamp with time zone: LongArrayBlock
            TIMESTAMP_TZ_MICROS, // LongTimestampWithTimeZone: Fixed12Block
            VARCHAR, // VariableWidthBlock
            createVarcharType(20),
            VARBINARY, // VariableWidthBlock
            UUID, // Int128ArrayBlock
            ARRAY_BIGINT, // ArrayBlock
            MAP_VARCHAR_BIGINT, // MapBlock, its type written by id
            ROW_A_B, // RowBlock
            new ArrayType(ROW_A_B), // nesting
            (MapType) TESTING_TYPE_MANAGER.getType(TypeDescriptor.mapType(BIGINT.getTypeDescriptor(), ARRAY_BIGINT.getTypeDescriptor())));

    private static final TimeZoneKey MADRID = TimeZoneKey.getTimeZoneKey("Europe/Madrid");

    @Test
    void testValueBlocksWithNulls()
    {
        Random random = new Random(1);
        Page page = page(random, 300, 0.2);
        assertRoundTrip(List.of(page));
    }

    @Test
    void testValueBlocksWithoutNullsAndAllNulls()
    {
        Random random = new Random(2);
        Page noNulls = page(random, 100, 0);
        for (int channel = 0; channel < noNulls.getChannelCount(); channel++) {
            assertThat(noNulls.getBlock(channel).mayHaveNull()).as("channel %s", channel).isFalse();
        }
        Page allNulls = page(random, 50, 1);
        for (int channel = 0; channel < allNulls.getChannelCount(); channel++) {
            assertThat(allNulls.getBlock(channel).isNull(0)).isTrue();
        }
        assertRoundTrip(List.of(noNulls, allNulls));
    }

    @Test
    void testSingleRowAndEmptyPages()
    {
        Random random = new Random(3);
        Page one = page(random, 1, 0);
        Page empty = page(random, 0, 0);
        Page noChannels = new Page(17);
        List<Page> read = assertRoundTrip(List.of(one, empty, noChannels));
        assertThat(read.get(1).getPositionCount()).isZero();
        assertThat(read.get(1).getChannelCount()).isEqualTo(TYPES.size());
        assertThat(read.get(2).getPositionCount()).isEqualTo(17);
        assertThat(read.get(2).getChannelCount()).isZero();
    }

    @Test
    void testRegionsOfValueBlocks()
    {
        Random random = new Random(4);
        Page page = page(random, 400, 0.2);
        // regions keep the arrays of the whole block with an offset: only the region is written
        assertRoundTrip(List.of(page.getRegion(0, 10), page.getRegion(123, 200), page.getRegion(399, 1)));
        // positions copied out of order
        int[] positions = {5, 3, 3, 399, 0, 250, 17};
        assertRoundTrip(List.of(page.copyPositions(positions, 0, positions.length)));
    }

    @Test
    void testDictionaryBlocks()
    {
        Random random = new Random(5);
        Page dictionaries = page(random, 40, 0.2);
        int positions = 500;
        Block[] blocks = new Block[TYPES.size()];
        Block[] compact = new Block[TYPES.size()];
        Block[] sequential = new Block[TYPES.size()];
        for (int channel = 0; channel < TYPES.size(); channel++) {
            Block dictionary = dictionaries.getBlock(channel);
            // ids over part of the dictionary (not compact: the encoding writes a compacted copy)
            int[] ids = new int[positions];
            for (int i = 0; i < positions; i++) {
                ids[i] = random.nextInt(10, 30);
            }
            blocks[channel] = DictionaryBlock.create(positions, dictionary, ids);
            assertThat(blocks[channel]).isInstanceOf(DictionaryBlock.class);
            // ids over all of it, repeated
            int[] all = new int[positions];
            for (int i = 0; i < positions; i++) {
                all[i] = i % dictionary.getPositionCount();
            }
            compact[channel] = DictionaryBlock.create(positions, dictionary, all);
            // each dictionary entry once, in order: written as the dictionary itself
            int[] identity = new int[dictionary.getPositionCount()];
            for (int i = 0; i < identity.length; i++) {
                identity[i] = i;
            }
            sequential[channel] = DictionaryBlock.create(identity.length, dictionary, identity);
        }
        assertRoundTrip(List.of(new Page(positions, blocks), new Page(positions, compact), new Page(40, sequential)));
    }

    @Test
    void testRunLengthEncodedBlocks()
    {
        Random random = new Random(6);
        Page values = page(random, 2, 0);
        Page nulls = page(random, 1, 1);
        int positions = 1000;
        Block[] blocks = new Block[TYPES.size() * 2];
        for (int channel = 0; channel < TYPES.size(); channel++) {
            blocks[channel] = RunLengthEncodedBlock.create(values.getBlock(channel).getRegion(1, 1), positions);
            blocks[TYPES.size() + channel] = RunLengthEncodedBlock.create(nulls.getBlock(channel), positions);
            assertThat(blocks[channel]).isInstanceOf(RunLengthEncodedBlock.class);
            assertThat(blocks[TYPES.size() + channel]).isInstanceOf(RunLengthEncodedBlock.class);
        }
        List<Type> types = new ArrayList<>(TYPES);
        types.addAll(TYPES);
        List<Page> read = assertRoundTrip(List.of(new Page(positions, blocks)), types);
        assertThat(read.getFirst().getBlock(0)).isInstanceOf(RunLengthEncodedBlock.class);
    }

    @Test
    void testNestedDictionaryAndRunLength()
    {
        // an array whose elements are a dictionary, a row whose field is run-length encoded
        Block elements = DictionaryBlock.create(6, bigints(100L, null, 300L), new int[] {0, 1, 2, 2, 1, 0});
        // validity bits, position 0 the lowest: the second array is null
        Block arrays = ArrayBlock.fromElementBlock(4, Optional.of(new long[] {0b1101}), new int[] {0, 2, 2, 5, 6}, elements);
        Block rows = RowBlock.fromFieldBlocks(4, new Block[] {
                RunLengthEncodedBlock.create(bigints(7L), 4),
                DictionaryBlock.create(4, varchars("x", null), new int[] {1, 0, 0, 1})});
        assertRoundTrip(List.of(new Page(4, arrays, rows)), List.of(ARRAY_BIGINT, ROW_A_B));
    }

    @Test
    void testLargeValues()
    {
        // values far above the buffer sizes of the spill file
        Random random = new Random(7);
        BlockBuilder builder = VARBINARY.createBlockBuilder(null, 3);
        byte[] large = new byte[300_000];
        random.nextBytes(large);
        VARBINARY.writeSlice(builder, Slices.wrappedBuffer(large));
        builder.appendNull();
        VARBINARY.writeSlice(builder, Slices.EMPTY_SLICE);
        assertRoundTrip(List.of(new Page(builder.build())), List.of(VARBINARY));
    }

    @Test
    void testUnknownEncodingName()
    {
        DynamicSliceOutput output = new DynamicSliceOutput(64);
        byte[] name = "NO_SUCH_ENCODING".getBytes(UTF_8);
        output.writeInt(name.length);
        output.writeBytes(name);
        assertThatThrownBy(() -> SERDE.readBlock(output.slice().getInput()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("NO_SUCH_ENCODING");
    }

    @Test
    void testTypeRoundTrip()
    {
        for (Type type : TYPES) {
            DynamicSliceOutput output = new DynamicSliceOutput(64);
            SERDE.writeType(output, type);
            assertThat(SERDE.readType(output.slice().getInput())).isEqualTo(type);
        }
    }

    private static List<Page> assertRoundTrip(List<Page> pages)
    {
        return assertRoundTrip(pages, TYPES);
    }

    /** Writes the pages one after another, reads them back and compares them value by value. */
    private static List<Page> assertRoundTrip(List<Page> pages, List<Type> types)
    {
        DynamicSliceOutput output = new DynamicSliceOutput(1024);
        for (Page page : pages) {
            SERDE.writePage(output, page);
        }
        Slice written = output.slice();
        SliceInput input = written.getInput();
        List<Page> read = new ArrayList<>();
        for (Page page : pages) {
            Page actual = SERDE.readPage(input);
            assertSamePage(actual, page, types);
            read.add(actual);
        }
        assertThat(input.isReadable()).as("bytes left after the last page").isFalse();
        return read;
    }

    private static void assertSamePage(Page actual, Page expected, List<Type> types)
    {
        assertThat(actual.getPositionCount()).isEqualTo(expected.getPositionCount());
        assertThat(actual.getChannelCount()).isEqualTo(expected.getChannelCount());
        for (int channel = 0; channel < expected.getChannelCount(); channel++) {
            Type type = types.get(channel);
            Block actualBlock = actual.getBlock(channel);
            Block expectedBlock = expected.getBlock(channel);
            assertThat(actualBlock.getPositionCount()).as("positions of channel %s (%s)", channel, type).isEqualTo(expectedBlock.getPositionCount());
            for (int position = 0; position < expectedBlock.getPositionCount(); position++) {
                assertThat(actualBlock.isNull(position)).as("null at %s of channel %s (%s)", position, channel, type).isEqualTo(expectedBlock.isNull(position));
                assertThat(type.getObjectValue(actualBlock, position))
                        .as("value at %s of channel %s (%s)", position, channel, type)
                        .isEqualTo(type.getObjectValue(expectedBlock, position));
            }
        }
    }

    private static Page page(Random random, int positions, double nullFraction)
    {
        Block[] blocks = new Block[TYPES.size()];
        for (int channel = 0; channel < TYPES.size(); channel++) {
            Type type = TYPES.get(channel);
            BlockBuilder builder = type.createBlockBuilder(null, positions);
            for (int position = 0; position < positions; position++) {
                if (nullFraction > 0 && random.nextDouble() < nullFraction) {
                    builder.appendNull();
                }
                else {
                    appendRandom(type, builder, random);
                }
            }
            blocks[channel] = builder.build();
        }
        return new Page(positions, blocks);
    }

    /** A random non-null value of {@code type} (NaN and infinities among the floating point values). */
    static void appendRandom(Type type, BlockBuilder builder, Random random)
    {
        if (type == BIGINT || type == TIMESTAMP_MICROS) {
            type.writeLong(builder, random.nextLong());
        }
        else if (type == INTEGER) {
            type.writeLong(builder, random.nextInt());
        }
        else if (type == SMALLINT) {
            type.writeLong(builder, (short) random.nextInt());
        }
        else if (type == TINYINT) {
            type.writeLong(builder, (byte) random.nextInt());
        }
        else if (type == BOOLEAN) {
            type.writeBoolean(builder, random.nextBoolean());
        }
        else if (type == REAL) {
            float value = random.nextInt(20) == 0 ? Float.NaN : (float) random.nextGaussian() * 1e6f;
            type.writeLong(builder, Float.floatToIntBits(value));
        }
        else if (type == DOUBLE) {
            double value = random.nextInt(20) == 0 ? Double.NEGATIVE_INFINITY : random.nextGaussian() * 1e12;
            type.writeDouble(builder, value);
        }
        else if (type == DATE) {
            type.writeLong(builder, random.nextInt(-100_000, 100_000));
        }
        else if (type == TIMESTAMP_TZ_MILLIS) {
            type.writeLong(builder, packDateTimeWithZone(random.nextLong(-1L << 40, 1L << 40), MADRID));
        }
        else if (type == TIMESTAMP_TZ_MICROS) {
            long millis = random.nextLong(-1L << 40, 1L << 40);
            int picos = random.nextInt(1000) * 1_000_000;
            type.writeObject(builder, LongTimestampWithTimeZone.fromEpochMillisAndFraction(millis, picos, random.nextBoolean() ? MADRID : TimeZoneKey.UTC_KEY));
        }
        else if (type == UUID) {
            type.writeSlice(builder, javaUuidToTrinoUuid(new java.util.UUID(random.nextLong(), random.nextLong())));
        }
        else if (type == VARBINARY) {
            byte[] bytes = new byte[random.nextInt(40)];
            random.nextBytes(bytes);
            type.writeSlice(builder, Slices.wrappedBuffer(bytes));
        }
        else if (type instanceof VarcharType) {
            type.writeSlice(builder, Slices.utf8Slice(randomString(random, 15)));
        }
        else if (type instanceof DecimalType decimal) {
            if (decimal.isShort()) {
                type.writeLong(builder, random.nextLong(-9_999_999_999L, 9_999_999_999L));
            }
            else {
                BigInteger value = new BigInteger(96, random);
                type.writeObject(builder, Int128.valueOf(random.nextBoolean() ? value : value.negate()));
            }
        }
        else if (type instanceof ArrayType arrayType) {
            ((ArrayBlockBuilder) builder).buildEntry(elements -> {
                int length = random.nextInt(5);
                for (int i = 0; i < length; i++) {
                    if (random.nextInt(6) == 0) {
                        elements.appendNull();
                    }
                    else {
                        appendRandom(arrayType.getElementType(), elements, random);
                    }
                }
            });
        }
        else if (type instanceof MapType mapType) {
            ((MapBlockBuilder) builder).buildEntry((keys, values) -> {
                int length = random.nextInt(4);
                for (int i = 0; i < length; i++) {
                    // distinct keys
                    if (mapType.getKeyType() == BIGINT) {
                        BIGINT.writeLong(keys, i * 1000L + random.nextInt(1000));
                    }
                    else {
                        VARCHAR.writeSlice(keys, Slices.utf8Slice(i + "-" + randomString(random, 5)));
                    }
                    if (random.nextInt(5) == 0) {
                        values.appendNull();
                    }
                    else {
                        appendRandom(mapType.getValueType(), values, random);
                    }
                }
            });
        }
        else if (type instanceof RowType rowType) {
            ((RowBlockBuilder) builder).buildEntry(fields -> {
                for (int field = 0; field < rowType.getFields().size(); field++) {
                    if (random.nextInt(5) == 0) {
                        fields.get(field).appendNull();
                    }
                    else {
                        appendRandom(rowType.getFields().get(field).getType(), fields.get(field), random);
                    }
                }
            });
        }
        else {
            throw new AssertionError("no generator for " + type);
        }
    }

    private static String randomString(Random random, int maxLength)
    {
        int length = random.nextInt(maxLength + 1);
        StringBuilder text = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            // mostly ASCII, some multi-byte code points
            text.appendCodePoint(random.nextInt(8) == 0 ? 0x4E00 + random.nextInt(100) : 'a' + random.nextInt(26));
        }
        return text.toString();
    }

    private static Block bigints(Long... values)
    {
        BlockBuilder builder = BIGINT.createBlockBuilder(null, values.length);
        for (Long value : values) {
            if (value == null) {
                builder.appendNull();
            }
            else {
                BIGINT.writeLong(builder, value);
            }
        }
        return builder.build();
    }

    private static Block varchars(String... values)
    {
        BlockBuilder builder = VARCHAR.createBlockBuilder(null, values.length);
        for (String value : values) {
            if (value == null) {
                builder.appendNull();
            }
            else {
                VARCHAR.writeSlice(builder, Slices.utf8Slice(value));
            }
        }
        return builder.build();
    }
}

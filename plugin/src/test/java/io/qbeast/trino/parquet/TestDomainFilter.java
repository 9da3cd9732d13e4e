package io.qbeast.trino.parquet;

import io.airlift.slice.Slice;
import io.airlift.slice.Slices;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.DictionaryBlock;
import io.trino.spi.block.LongArrayBlock;
import io.trino.spi.block.MapBlockBuilder;
import io.trino.spi.block.RunLengthEncodedBlock;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.EquatableValueSet;
import io.trino.spi.predicate.EquatableValueSet.ValueEntry;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.ValueSet;
import io.trino.spi.type.CharType;
import io.trino.spi.type.Chars;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.Int128;
import io.trino.spi.type.MapType;
import io.trino.spi.type.TimeType;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeOperators;
import io.trino.spi.type.VarcharType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static io.trino.spi.function.InvocationConvention.InvocationArgumentConvention.NEVER_NULL;
import static io.trino.spi.function.InvocationConvention.InvocationReturnConvention.FAIL_ON_NULL;
import static io.trino.spi.function.InvocationConvention.simpleConvention;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.BooleanType.BOOLEAN;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.SmallintType.SMALLINT;
import static io.trino.spi.type.TinyintType.TINYINT;
import static io.trino.spi.type.TypeUtils.readNativeValue;
import static io.trino.spi.type.TypeUtils.writeNativeValue;
import static io.trino.spi.type.UuidType.UUID;
import static io.trino.spi.type.UuidType.javaUuidToTrinoUuid;
import static io.trino.spi.type.VarbinaryType.VARBINARY;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link DomainFilter} must keep exactly the rows {@code Domain.includesNullableValue} keeps on the
 * boxed values: compared by brute force over random domains and blocks of every type it has a
 * fast path for, and of types it leaves to the boxed path.
 */
final class TestDomainFilter
{
    private static final TypeOperators TYPE_OPERATORS = new TypeOperators();
    // comparable, not orderable: its domains are equatable value sets
    private static final MapType MAP = new MapType(BIGINT, BIGINT, TYPE_OPERATORS);

    private static final double[] SPECIAL_DOUBLES = {
            Double.NaN, Double.longBitsToDouble(0x7ff8000000000001L), Double.longBitsToDouble(0xfff8000000000000L),
            -0.0, 0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
            Double.MIN_VALUE, -Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE, Double.MIN_NORMAL,
            1.0, -1.0, Math.nextUp(1.0), Math.nextDown(1.0), Math.nextDown(Double.MAX_VALUE), 0.1, (double) 0.1f};
    private static final float[] SPECIAL_FLOATS = {
            Float.NaN, Float.intBitsToFloat(0x7fc00001), Float.intBitsToFloat(0xffc00000),
            -0.0f, 0.0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY,
            Float.MIN_VALUE, -Float.MIN_VALUE, Float.MAX_VALUE, -Float.MAX_VALUE, Float.MIN_NORMAL,
            1.0f, -1.0f, Math.nextUp(1.0f), Math.nextDown(1.0f), Math.nextDown(Float.MAX_VALUE), 0.1f};

    /**
     * A type and generators of its native values: {@code values} for rows, {@code bounds} for
     * domains (no NaN: Trino rejects NaN range bounds). Both favor a small pool so that rows hit
     * bounds and IN-list entries often.
     */
    record Case(String name, Type type, Function<Random, Object> values, Function<Random, Object> bounds, boolean equatable)
    {
        Case(Type type, Function<Random, Object> values)
        {
            this(type.getDisplayName(), type, values, values, false);
        }

        @Override
        public String toString()
        {
            return name;
        }
    }

    static Stream<Case> cases()
    {
        return Stream.of(
                new Case(BIGINT, random -> integer(random, Long.MIN_VALUE, Long.MAX_VALUE)),
                new Case(INTEGER, random -> integer(random, Integer.MIN_VALUE, Integer.MAX_VALUE)),
                new Case(SMALLINT, random -> integer(random, Short.MIN_VALUE, Short.MAX_VALUE)),
                new Case(TINYINT, random -> integer(random, Byte.MIN_VALUE, Byte.MAX_VALUE)),
                new Case(DATE, random -> integer(random, Integer.MIN_VALUE, Integer.MAX_VALUE)),
                new Case(DecimalType.createDecimalType(10, 2), random -> integer(random, -9_999_999_999L, 9_999_999_999L)),
                new Case(DecimalType.createDecimalType(18, 0), random -> integer(random, -999_999_999_999_999_999L, 999_999_999_999_999_999L)),
                new Case(DecimalType.createDecimalType(30, 5), random -> Int128.valueOf(integer(random, Long.MIN_VALUE, Long.MAX_VALUE))),
                new Case(TimestampType.createTimestampType(6), random -> integer(random, Long.MIN_VALUE, Long.MAX_VALUE)),
                new Case(TimestampType.createTimestampType(3), random -> Math.floorDiv(integer(random, Long.MIN_VALUE, Long.MAX_VALUE), 1000) * 1000),
                new Case(TimeType.createTimeType(6), random -> integer(random, 0, 86_399_999_999L) * 1_000_000),
                new Case(TimeType.createTimeType(12), random -> integer(random, 0, 86_399_999_999_999_999L)),
                new Case("double", DOUBLE, random -> randomDouble(random, true), random -> randomDouble(random, false), false),
                new Case("real", REAL, random -> randomReal(random, true), random -> randomReal(random, false), false),
                new Case(VARCHAR, random -> randomString(random, 4)),
                new Case(VarcharType.createVarcharType(10), random -> randomString(random, 10)),
                new Case(VARBINARY, TestDomainFilter::randomBytes),
                new Case(BOOLEAN, Random::nextBoolean),
                // boxed path: padding semantics, long decimals, uuid order, equatable value sets
                new Case(CharType.createCharType(5), random -> Chars.truncateToLengthAndTrimSpaces(Slices.utf8Slice(randomChars(random, "ab é", 6)), 5)),
                new Case("uuid", UUID, TestDomainFilter::randomUuid, TestDomainFilter::randomUuid, false),
                new Case("map(bigint, bigint) equatable", MAP, TestDomainFilter::randomMap, TestDomainFilter::randomMap, true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void testMatchesBoxedPath(Case testCase)
    {
        Type type = testCase.type();
        Random random = new Random(testCase.name().hashCode());
        for (int round = 0; round < 400; round++) {
            Domain domain = randomDomain(testCase, random);
            DomainFilter filter = DomainFilter.of(domain, type);
            for (Block block : randomBlocks(testCase, random)) {
                int[] positions = randomPositions(random, block == null ? 100 : block.getPositionCount());
                assertSameAsBoxed(filter, domain, type, block, positions);
            }
        }
    }

    @Test
    void testSpecialDoubles()
    {
        List<Object> values = new ArrayList<>();
        for (double value : SPECIAL_DOUBLES) {
            values.add(value);
        }
        List<Object> bounds = values.stream().filter(value -> !Double.isNaN((Double) value)).toList();
        assertSpecialValues(DOUBLE, values, bounds);
    }

    @Test
    void testSpecialReals()
    {
        List<Object> values = new ArrayList<>();
        for (float value : SPECIAL_FLOATS) {
            values.add((long) Float.floatToRawIntBits(value));
        }
        List<Object> bounds = values.stream().filter(value -> !Float.isNaN(Float.intBitsToFloat((int) (long) (Long) value))).toList();
        assertSpecialValues(REAL, values, bounds);
    }

    @Test
    void testIntegerExtremes()
    {
        List<Object> values = List.of(Long.MIN_VALUE, Long.MIN_VALUE + 1, -1L, 0L, 1L, Long.MAX_VALUE - 1, Long.MAX_VALUE);
        assertSpecialValues(BIGINT, values, values);
        List<Object> times = List.of(0L, 1L, 86_399_999_999_999_998L, 86_399_999_999_999_999L);
        assertSpecialValues(TimeType.createTimeType(12), times, times);
    }

    @Test
    void testUnsignedByteOrder()
    {
        List<Object> values = Stream.of(new byte[0], new byte[] {0}, new byte[] {0, 0}, new byte[] {1}, new byte[] {0x7f}, new byte[] {(byte) 0x80},
                        new byte[] {(byte) 0xff}, new byte[] {(byte) 0xff, 0}, new byte[] {'a'}, new byte[] {'a', (byte) 0x80})
                .map(bytes -> (Object) Slices.wrappedBuffer(bytes))
                .toList();
        assertSpecialValues(VARBINARY, values, values);
        assertSpecialValues(VARCHAR, values, values);
    }

    // every value against every one- and two-sided range of the bounds, and IN lists of them
    private static void assertSpecialValues(Type type, List<Object> values, List<Object> bounds)
    {
        List<Object> rows = new ArrayList<>(values);
        rows.add(null);
        Block block = block(type, rows);
        List<Domain> domains = new ArrayList<>();
        domains.add(Domain.all(type));
        domains.add(Domain.none(type));
        domains.add(Domain.onlyNull(type));
        domains.add(Domain.notNull(type));
        domains.add(Domain.multipleValues(type, bounds));
        for (Object low : bounds) {
            domains.add(Domain.singleValue(type, low));
            domains.add(Domain.create(ValueSet.ofRanges(Range.greaterThan(type, low)), false));
            domains.add(Domain.create(ValueSet.ofRanges(Range.greaterThanOrEqual(type, low)), true));
            domains.add(Domain.create(ValueSet.ofRanges(Range.lessThan(type, low)), false));
            domains.add(Domain.create(ValueSet.ofRanges(Range.lessThanOrEqual(type, low)), false));
            domains.add(Domain.create(ValueSet.ofRanges(Range.greaterThan(type, low)).complement(), false));
            for (Object high : bounds) {
                long comparison = compare(type, low, high);
                if (comparison < 0) {
                    for (int inclusive = 0; inclusive < 4; inclusive++) {
                        domains.add(Domain.create(ValueSet.ofRanges(Range.range(type, low, (inclusive & 1) != 0, high, (inclusive & 2) != 0)), false));
                    }
                }
                else if (comparison == 0) {
                    domains.add(Domain.create(ValueSet.ofRanges(Range.range(type, low, true, high, true)), false));
                }
            }
        }
        int[] all = IntStream.range(0, rows.size()).toArray();
        for (Domain domain : domains) {
            assertSameAsBoxed(DomainFilter.of(domain, type), domain, type, block, all);
        }
    }

    @Test
    void testRowFilterMatchesBoxedPath()
    {
        Random random = new Random(42);
        List<Case> cases = List.of(
                new Case(BIGINT, r -> integer(r, -1000, 1000)),
                new Case(VARCHAR, r -> randomString(r, 3)),
                new Case("double", DOUBLE, r -> randomDouble(r, true), r -> randomDouble(r, false), false),
                new Case(CharType.createCharType(5), r -> Chars.truncateToLengthAndTrimSpaces(Slices.utf8Slice(randomChars(r, "ab ", 6)), 5)));
        for (int round = 0; round < 500; round++) {
            int positionCount = 1 + random.nextInt(300);
            List<Block> blocks = new ArrayList<>();
            for (Case testCase : cases) {
                blocks.add(block(testCase.type(), randomValues(testCase, random, positionCount)));
            }
            Page page = new Page(positionCount, blocks.toArray(Block[]::new));

            int filterCount = random.nextInt(4);
            int[] channels = new int[filterCount];
            List<Domain> domains = new ArrayList<>();
            List<Type> types = new ArrayList<>();
            for (int i = 0; i < filterCount; i++) {
                int column = random.nextInt(cases.size());
                // now and then a column the file lacks
                channels[i] = random.nextInt(10) == 0 ? -1 : column;
                Case testCase = cases.get(column);
                domains.add(random.nextInt(3) == 0 ? Domain.all(testCase.type()) : randomDomain(testCase, random));
                types.add(testCase.type());
            }
            int[] selection = random.nextBoolean() ? null : randomSelection(random, positionCount);

            QbeastParquetPageSource.RowFilter rowFilter = new QbeastParquetPageSource.RowFilter(channels, domains, types);
            int[] expected = boxedRowFilter(page, channels, domains, types, selection);
            int[] selectionCopy = selection == null ? null : selection.clone();
            assertThat(rowFilter.apply(SourcePage.create(page), selection)).isEqualTo(expected);
            // the caller's selection is not changed
            assertThat(selection).isEqualTo(selectionCopy);
        }
    }

    @Test
    void testRowFilterKeepingEveryRowReturnsNull()
    {
        Page page = new Page(block(BIGINT, List.of(1L, 2L, 3L)));
        QbeastParquetPageSource.RowFilter rowFilter = new QbeastParquetPageSource.RowFilter(new int[] {0}, List.of(Domain.notNull(BIGINT)), List.of(BIGINT));
        assertThat(rowFilter.apply(SourcePage.create(page), null)).isNull();
        // with a selection, the kept positions are returned even when all are kept
        assertThat(rowFilter.apply(SourcePage.create(page), new int[] {0, 2})).containsExactly(0, 2);
        QbeastParquetPageSource.RowFilter none = new QbeastParquetPageSource.RowFilter(new int[] {-1}, List.of(Domain.notNull(BIGINT)), List.of(BIGINT));
        assertThat(none.apply(SourcePage.create(page), null)).isEmpty();
    }

    /**
     * Not a test: timings of the boxed and compiled paths, run with
     * {@code -Dtest=TestDomainFilter#benchmark -Dqbeast.benchmark=true}.
     */
    @Test
    @EnabledIfSystemProperty(named = "qbeast.benchmark", matches = "true")
    void benchmark()
    {
        int rows = 10_000_000;
        int batch = 8192;
        Random random = new Random(1);
        List<Block> longs = new ArrayList<>();
        List<Block> strings = new ArrayList<>();
        for (int start = 0; start < rows; start += batch) {
            int size = Math.min(batch, rows - start);
            long[] values = new long[size];
            List<Object> slices = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                values[i] = random.nextInt(1_000_000);
                slices.add(Slices.utf8Slice("value-" + random.nextInt(10_000)));
            }
            longs.add(new LongArrayBlock(size, Optional.empty(), values));
            strings.add(block(VARCHAR, slices));
        }
        List<Object> longList = new ArrayList<>();
        List<Object> stringList = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            longList.add((long) random.nextInt(1_000_000));
            stringList.add(Slices.utf8Slice("value-" + random.nextInt(10_000)));
        }
        time("bigint one range (10% kept)", BIGINT, Domain.create(ValueSet.ofRanges(Range.range(BIGINT, 100_000L, true, 200_000L, false)), false), longs);
        time("bigint IN 50 values", BIGINT, Domain.multipleValues(BIGINT, longList), longs);
        time("varchar IN 50 values", VARCHAR, Domain.multipleValues(VARCHAR, stringList), strings);
        time("varchar one range", VARCHAR, Domain.create(ValueSet.ofRanges(Range.range(VARCHAR, Slices.utf8Slice("value-1"), true, Slices.utf8Slice("value-2"), false)), false), strings);
    }

    private static void time(String name, Type type, Domain domain, List<Block> blocks)
    {
        DomainFilter filter = DomainFilter.of(domain, type);
        int[] positions = new int[blocks.getFirst().getPositionCount()];
        long boxedBest = Long.MAX_VALUE;
        long compiledBest = Long.MAX_VALUE;
        long boxedKept = 0;
        long compiledKept = 0;
        for (int iteration = 0; iteration < 5; iteration++) {
            long start = System.nanoTime();
            boxedKept = 0;
            for (Block block : blocks) {
                boxedKept += boxedFilter(domain, type, block, positions);
            }
            boxedBest = Math.min(boxedBest, System.nanoTime() - start);

            start = System.nanoTime();
            compiledKept = 0;
            for (Block block : blocks) {
                compiledKept += compiledFilter(filter, block, positions);
            }
            compiledBest = Math.min(compiledBest, System.nanoTime() - start);
        }
        assertThat(compiledKept).isEqualTo(boxedKept);
        System.out.printf("%-30s boxed %8.1f ms, compiled %7.1f ms, %5.1fx, %d kept%n", name, boxedBest / 1e6, compiledBest / 1e6, (double) boxedBest / compiledBest, compiledKept);
    }

    // the loop of the row filter before DomainFilter
    private static int boxedFilter(Domain domain, Type type, Block block, int[] positions)
    {
        int count = block.getPositionCount();
        for (int i = 0; i < count; i++) {
            positions[i] = i;
        }
        int kept = 0;
        for (int i = 0; i < count; i++) {
            int position = positions[i];
            if (domain.includesNullableValue(readNativeValue(type, block, position))) {
                positions[kept++] = position;
            }
        }
        return kept;
    }

    private static int compiledFilter(DomainFilter filter, Block block, int[] positions)
    {
        int count = block.getPositionCount();
        for (int i = 0; i < count; i++) {
            positions[i] = i;
        }
        return filter.filter(block, positions, count);
    }

    private static void assertSameAsBoxed(DomainFilter filter, Domain domain, Type type, Block block, int[] positions)
    {
        List<Integer> expected = new ArrayList<>();
        for (int position : positions) {
            Object value = block == null ? null : readNativeValue(type, block, position);
            if (domain.includesNullableValue(value)) {
                expected.add(position);
            }
        }
        int[] filtered = positions.clone();
        int kept = filter.filter(block, filtered, filtered.length);
        assertThat(Arrays.stream(filtered, 0, kept).boxed().toList())
                .as("%s over %s", domain, block == null ? "a missing column" : block)
                .isEqualTo(expected);
    }

    // the row filter as it was before DomainFilter: every value boxed
    private static int[] boxedRowFilter(Page page, int[] channels, List<Domain> domains, List<Type> types, int[] selection)
    {
        int[] candidates = selection == null ? IntStream.range(0, page.getPositionCount()).toArray() : selection;
        int[] kept = Arrays.stream(candidates)
                .filter(position -> {
                    for (int i = 0; i < channels.length; i++) {
                        Object value = channels[i] < 0 ? null : readNativeValue(types.get(i), page.getBlock(channels[i]), position);
                        if (!domains.get(i).includesNullableValue(value)) {
                            return false;
                        }
                    }
                    return true;
                })
                .toArray();
        return selection == null && kept.length == page.getPositionCount() ? null : kept;
    }

    private static Domain randomDomain(Case testCase, Random random)
    {
        Type type = testCase.type();
        boolean nullAllowed = random.nextBoolean();
        if (testCase.equatable() && random.nextInt(4) != 0) {
            Set<ValueEntry> entries = new HashSet<>();
            int count = random.nextInt(8);
            for (int i = 0; i < count; i++) {
                entries.add(ValueEntry.create(type, testCase.bounds().apply(random)));
            }
            return Domain.create(new EquatableValueSet(type, random.nextBoolean(), entries), nullAllowed);
        }
        return switch (testCase.equatable() ? 0 : random.nextInt(10)) {
            case 0 -> switch (random.nextInt(4)) {
                case 0 -> Domain.all(type);
                case 1 -> Domain.none(type);
                case 2 -> Domain.onlyNull(type);
                default -> Domain.notNull(type);
            };
            case 1 -> Domain.singleValue(type, testCase.bounds().apply(random), nullAllowed);
            case 2, 3 -> Domain.create(ValueSet.ofRanges(randomRange(testCase, random)), nullAllowed);
            case 4, 5 -> {
                int count = 1 + random.nextInt(random.nextBoolean() ? 5 : 200);
                List<Object> values = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    values.add(testCase.bounds().apply(random));
                }
                yield Domain.multipleValues(type, values, nullAllowed);
            }
            case 6, 7 -> Domain.create(randomRanges(testCase, random), nullAllowed);
            case 8 -> Domain.create(randomRanges(testCase, random).complement(), nullAllowed);
            default -> Domain.create(randomRanges(testCase, random).intersect(randomRanges(testCase, random).complement()), nullAllowed);
        };
    }

    private static ValueSet randomRanges(Case testCase, Random random)
    {
        int count = 1 + random.nextInt(6);
        List<Range> ranges = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ranges.add(randomRange(testCase, random));
        }
        return ValueSet.ofRanges(ranges);
    }

    private static Range randomRange(Case testCase, Random random)
    {
        Type type = testCase.type();
        Object low = testCase.bounds().apply(random);
        return switch (random.nextInt(7)) {
            case 0 -> Range.greaterThan(type, low);
            case 1 -> Range.greaterThanOrEqual(type, low);
            case 2 -> Range.lessThan(type, low);
            case 3 -> Range.lessThanOrEqual(type, low);
            case 4 -> Range.equal(type, low);
            default -> {
                Object high = testCase.bounds().apply(random);
                long comparison = compare(type, low, high);
                if (comparison == 0) {
                    yield Range.equal(type, low);
                }
                if (comparison > 0) {
                    Object swap = low;
                    low = high;
                    high = swap;
                }
                yield Range.range(type, low, random.nextBoolean(), high, random.nextBoolean());
            }
        };
    }

    // flat, a region of a larger block, dictionaries smaller and larger than the block, a run, a missing column
    private static List<Block> randomBlocks(Case testCase, Random random)
    {
        Type type = testCase.type();
        int positionCount = 1 + random.nextInt(200);
        List<Block> blocks = new ArrayList<>();
        blocks.add(block(type, randomValues(testCase, random, positionCount)));

        int before = random.nextInt(5);
        Block larger = block(type, randomValues(testCase, random, before + positionCount + random.nextInt(5)));
        blocks.add(larger.getRegion(before, positionCount));

        for (int dictionarySize : new int[] {1 + random.nextInt(Math.max(1, positionCount / 4)), positionCount + 1 + random.nextInt(50)}) {
            Block dictionary = block(type, randomValues(testCase, random, dictionarySize));
            int[] ids = new int[positionCount];
            for (int i = 0; i < positionCount; i++) {
                ids[i] = random.nextInt(dictionarySize);
            }
            blocks.add(DictionaryBlock.create(positionCount, dictionary, ids));
        }

        Object value = random.nextInt(4) == 0 ? null : testCase.values().apply(random);
        blocks.add(RunLengthEncodedBlock.create(type, value, positionCount));
        blocks.add(null);
        return blocks;
    }

    private static List<Object> randomValues(Case testCase, Random random, int count)
    {
        // some blocks have no nulls, some have many
        int nullPercent = switch (random.nextInt(3)) {
            case 0 -> 0;
            case 1 -> 10;
            default -> 50;
        };
        List<Object> values = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            values.add(random.nextInt(100) < nullPercent ? null : testCase.values().apply(random));
        }
        return values;
    }

    private static int[] randomPositions(Random random, int positionCount)
    {
        return random.nextBoolean() ? IntStream.range(0, positionCount).toArray() : randomSelection(random, positionCount);
    }

    private static int[] randomSelection(Random random, int positionCount)
    {
        return IntStream.range(0, positionCount).filter(_ -> random.nextBoolean()).toArray();
    }

    private static Block block(Type type, List<Object> values)
    {
        BlockBuilder builder = type.createBlockBuilder(null, values.size());
        for (Object value : values) {
            writeNativeValue(type, builder, value);
        }
        return builder.build();
    }

    // Trino's order of two values, as ranges use it
    private static long compare(Type type, Object left, Object right)
    {
        MethodHandle comparison = TYPE_OPERATORS.getComparisonUnorderedLastOperator(type, simpleConvention(FAIL_ON_NULL, NEVER_NULL, NEVER_NULL));
        try {
            return (long) comparison.invoke(left, right);
        }
        catch (Throwable e) {
            throw new RuntimeException(e);
        }
    }

    // mostly near zero and the extremes, so that values and bounds meet
    private static long integer(Random random, long min, long max)
    {
        return switch (random.nextInt(8)) {
            case 0 -> min + random.nextInt(3);
            case 1 -> max - random.nextInt(3);
            case 2 -> random.nextLong(min, max) + (random.nextBoolean() ? 1 : 0);
            default -> Math.clamp(random.nextInt(41) - 20, min, max);
        };
    }

    private static double randomDouble(Random random, boolean nan)
    {
        return switch (random.nextInt(4)) {
            case 0 -> {
                double value = SPECIAL_DOUBLES[random.nextInt(SPECIAL_DOUBLES.length)];
                yield !nan && Double.isNaN(value) ? 0.0 : value;
            }
            case 1 -> random.nextGaussian() * 1e10;
            default -> (random.nextInt(21) - 10) / 2.0;
        };
    }

    private static long randomReal(Random random, boolean nan)
    {
        float value = switch (random.nextInt(4)) {
            case 0 -> {
                float special = SPECIAL_FLOATS[random.nextInt(SPECIAL_FLOATS.length)];
                yield !nan && Float.isNaN(special) ? -0.0f : special;
            }
            case 1 -> (float) (random.nextGaussian() * 1e10);
            default -> (random.nextInt(21) - 10) / 2.0f;
        };
        return Float.floatToRawIntBits(value);
    }

    // short strings over an alphabet with multi-byte characters (bytes above 0x7f) and NUL
    private static Slice randomString(Random random, int maxLength)
    {
        return Slices.utf8Slice(randomChars(random, "abz\u0000é\u00ff€", maxLength));
    }

    private static String randomChars(Random random, String alphabet, int maxLength)
    {
        int length = random.nextInt(Math.min(maxLength, 4) + 1);
        StringBuilder builder = new StringBuilder();
        for (int i = 0; i < length; i++) {
            builder.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return builder.toString();
    }

    private static Slice randomBytes(Random random)
    {
        byte[] alphabet = {0, 1, 'a', 0x7f, (byte) 0x80, (byte) 0xfe, (byte) 0xff};
        byte[] bytes = new byte[random.nextInt(4)];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = alphabet[random.nextInt(alphabet.length)];
        }
        return Slices.wrappedBuffer(bytes);
    }

    private static Object randomMap(Random random)
    {
        MapBlockBuilder builder = MAP.createBlockBuilder(null, 1);
        builder.buildEntry((keys, values) -> {
            BIGINT.writeLong(keys, random.nextInt(3));
            BIGINT.writeLong(values, random.nextInt(2));
        });
        return MAP.getObject(builder.build(), 0);
    }

    private static Slice randomUuid(Random random)
    {
        return javaUuidToTrinoUuid(new java.util.UUID(random.nextInt(3) - 1, random.nextInt(5) - 2L));
    }
}

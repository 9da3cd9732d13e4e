package io.qbeast.trino.parquet;

import io.airlift.slice.Slice;
import io.airlift.slice.Slices;
import io.qbeast.trino.handle.QbeastColumnHandle;
import io.qbeast.trino.handle.RowPredicate;
import io.qbeast.trino.handle.RowPredicate.Call;
import io.qbeast.trino.handle.RowPredicate.ColumnValue;
import io.qbeast.trino.handle.RowPredicate.DoubleConstant;
import io.qbeast.trino.handle.RowPredicate.Like;
import io.qbeast.trino.handle.RowPredicate.LongConstant;
import io.qbeast.trino.handle.RowPredicate.Operator;
import io.qbeast.trino.handle.RowPredicate.SliceConstant;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.block.IntArrayBlock;
import io.trino.spi.block.LongArrayBlock;
import io.trino.spi.block.VariableWidthBlock;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarcharType;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.ToIntFunction;

import static io.trino.spi.StandardErrorCode.DIVISION_BY_ZERO;
import static io.trino.spi.StandardErrorCode.NUMERIC_VALUE_OUT_OF_RANGE;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static java.util.Objects.requireNonNull;

/**
 * The {@link RowPredicate}s of a table handle compiled once per split into kernels over a page's
 * blocks: a row is kept when every predicate is TRUE (NULL and FALSE drop it, as in a
 * {@code WHERE}). Each kernel evaluates one node for a batch of positions into primitive arrays
 * (longs, doubles, slices by offset, three-valued booleans), so no value is boxed per row.
 *
 * <p>Semantics are the engine's: integer and bigint arithmetic fails with the engine's errors
 * ({@code NUMERIC_VALUE_OUT_OF_RANGE} with its message on overflow, {@code DIVISION_BY_ZERO}),
 * truncating division and a remainder with the dividend's sign (Java's); double arithmetic and
 * comparisons are IEEE (NaN equals nothing, {@code -0.0 = 0.0}); varchar compares bytes unsigned;
 * an operation with a NULL argument is NULL and is not evaluated. {@code AND} and {@code OR}
 * evaluate a term only for the rows the terms before it have not decided, in order, as the
 * engine's compiled filters do, so a term is never evaluated on a row the engine would not
 * evaluate it on.
 */
public final class RowPredicateFilter
        implements RowSelection
{
    private static final byte FALSE = 0;
    private static final byte TRUE = 1;
    private static final byte NULL = 2;

    private final Condition[] conjuncts;

    private RowPredicateFilter(Condition[] conjuncts)
    {
        this.conjuncts = conjuncts;
    }

    /**
     * @param channels the page channel of each column the predicates read; -1 for a column the file lacks (all NULL)
     */
    public static RowPredicateFilter compile(List<RowPredicate> predicates, ToIntFunction<QbeastColumnHandle> channels)
    {
        requireNonNull(channels, "channels is null");
        return new RowPredicateFilter(predicates.stream().map(predicate -> condition(predicate, channels)).toArray(Condition[]::new));
    }

    /** The columns the predicates read. */
    public static Set<QbeastColumnHandle> columns(List<RowPredicate> predicates)
    {
        Set<QbeastColumnHandle> columns = new LinkedHashSet<>();
        predicates.forEach(predicate -> addColumns(predicate, columns));
        return columns;
    }

    private static void addColumns(RowPredicate predicate, Set<QbeastColumnHandle> columns)
    {
        switch (predicate) {
            case ColumnValue column -> columns.add(column.column());
            case Call call -> call.arguments().forEach(argument -> addColumns(argument, columns));
            case Like like -> addColumns(like.value(), columns);
            default -> {}
        }
    }

    /**
     * The page source's step: the rows of a batch's selection that every predicate keeps.
     *
     * @param selection positions to consider, ascending; {@code null}: all
     * @return the positions kept, ascending; {@code null} when all rows are kept
     */
    @Override
    public int[] apply(SourcePage page, int[] selection)
    {
        int count = selection == null ? page.getPositionCount() : selection.length;
        int[] kept = selection == null ? new int[count] : selection.clone();
        if (selection == null) {
            for (int i = 0; i < count; i++) {
                kept[i] = i;
            }
        }
        int keptCount = filter(page, kept, count);
        if (selection == null && keptCount == count) {
            return null;
        }
        return Arrays.copyOf(kept, keptCount);
    }

    /**
     * Compacts {@code positions[0..count)} in place, in order, to the rows where every predicate is TRUE.
     *
     * @return how many positions were kept, at the start of {@code positions}
     */
    public int filter(SourcePage page, int[] positions, int count)
    {
        for (Condition conjunct : conjuncts) {
            if (count == 0) {
                return 0;
            }
            byte[] results = conjunct.evaluate(page, positions, count);
            int kept = 0;
            for (int i = 0; i < count; i++) {
                positions[kept] = positions[i];
                kept += results[i] == TRUE ? 1 : 0;
            }
            count = kept;
        }
        return count;
    }

    // ---- compilation ----

    private static Condition condition(RowPredicate predicate, ToIntFunction<QbeastColumnHandle> channels)
    {
        if (predicate instanceof Like like) {
            return new LikeCondition(slices(like.value(), channels), LikeMatcher.compile(like.pattern(), like.escape())
                    .orElseThrow(() -> new IllegalArgumentException("Invalid LIKE pattern: " + like.pattern())));
        }
        Call call = (Call) predicate;
        List<RowPredicate> arguments = call.arguments();
        return switch (call.operator()) {
            case EQUAL, NOT_EQUAL, LESS_THAN, LESS_THAN_OR_EQUAL, GREATER_THAN, GREATER_THAN_OR_EQUAL -> comparison(call.operator(), arguments.get(0), arguments.get(1), channels);
            case IS_NULL -> new IsNullCondition(values(arguments.getFirst(), channels));
            case NOT -> new NotCondition(condition(arguments.getFirst(), channels));
            case AND, OR -> new LogicalCondition(call.operator() == Operator.AND, arguments.stream().map(argument -> condition(argument, channels)).toArray(Condition[]::new));
            case IN -> in(arguments, channels);
            default -> throw new IllegalArgumentException("Not a condition: " + predicate);
        };
    }

    private static Condition comparison(Operator operator, RowPredicate left, RowPredicate right, ToIntFunction<QbeastColumnHandle> channels)
    {
        return switch (family(left.type())) {
            case LONG -> new LongComparison(operator, longs(left, channels), longs(right, channels));
            case DOUBLE -> new DoubleComparison(operator, doubles(left, channels), doubles(right, channels));
            case SLICE -> new SliceComparison(operator, slices(left, channels), slices(right, channels));
        };
    }

    private static Condition in(List<RowPredicate> arguments, ToIntFunction<QbeastColumnHandle> channels)
    {
        RowPredicate value = arguments.getFirst();
        List<RowPredicate> list = arguments.subList(1, arguments.size());
        return switch (family(value.type())) {
            case LONG -> new LongIn(longs(value, channels), list.stream().mapToLong(constant -> ((LongConstant) constant).value()).sorted().toArray());
            case DOUBLE -> new DoubleIn(doubles(value, channels), list.stream().mapToDouble(constant -> ((DoubleConstant) constant).value()).toArray());
            case SLICE -> new SliceIn(slices(value, channels), list.stream().map(constant -> Slices.wrappedBuffer(((SliceConstant) constant).value())).toArray(Slice[]::new));
        };
    }

    private static Values values(RowPredicate value, ToIntFunction<QbeastColumnHandle> channels)
    {
        return switch (family(value.type())) {
            case LONG -> longs(value, channels);
            case DOUBLE -> doubles(value, channels);
            case SLICE -> slices(value, channels);
        };
    }

    private static LongValues longs(RowPredicate value, ToIntFunction<QbeastColumnHandle> channels)
    {
        return switch (value) {
            case ColumnValue column -> new LongColumn(channels.applyAsInt(column.column()), column.type());
            case LongConstant constant -> new LongConstantValues(constant.value());
            case Call call when call.operator() == Operator.CAST -> longs(call.arguments().getFirst(), channels); // widening: same longs
            case Call call when call.operator() == Operator.NEGATE -> new LongArithmetic(Operator.NEGATE, call.type(), longs(call.arguments().getFirst(), channels), null);
            case Call call -> new LongArithmetic(call.operator(), call.type(), longs(call.arguments().get(0), channels), longs(call.arguments().get(1), channels));
            default -> throw new IllegalArgumentException("Not an integer value: " + value);
        };
    }

    private static DoubleValues doubles(RowPredicate value, ToIntFunction<QbeastColumnHandle> channels)
    {
        return switch (value) {
            case ColumnValue column -> new DoubleColumn(channels.applyAsInt(column.column()));
            case DoubleConstant constant -> new DoubleConstantValues(constant.value());
            case Call call when call.operator() == Operator.CAST -> new LongToDouble(longs(call.arguments().getFirst(), channels));
            case Call call when call.operator() == Operator.NEGATE -> new DoubleArithmetic(Operator.NEGATE, doubles(call.arguments().getFirst(), channels), null);
            case Call call -> new DoubleArithmetic(call.operator(), doubles(call.arguments().get(0), channels), doubles(call.arguments().get(1), channels));
            default -> throw new IllegalArgumentException("Not a double value: " + value);
        };
    }

    private static SliceValues slices(RowPredicate value, ToIntFunction<QbeastColumnHandle> channels)
    {
        return switch (value) {
            case ColumnValue column -> new SliceColumn(channels.applyAsInt(column.column()));
            case SliceConstant constant -> new SliceConstantValues(Slices.wrappedBuffer(constant.value()));
            case Call call when call.operator() == Operator.CAST -> slices(call.arguments().getFirst(), channels); // widening: same bytes
            default -> throw new IllegalArgumentException("Not a varchar value: " + value);
        };
    }

    private enum Family
    {
        LONG, DOUBLE, SLICE
    }

    private static Family family(Type type)
    {
        if (type.equals(DOUBLE)) {
            return Family.DOUBLE;
        }
        if (type instanceof VarcharType) {
            return Family.SLICE;
        }
        return Family.LONG;
    }

    private static int[] grow(int[] array, int count)
    {
        return array.length >= count ? array : new int[Math.max(count, array.length * 2)];
    }

    // ---- values: each kernel owns its output arrays, reused from batch to batch ----

    /** Values of one node for a batch of positions: {@code nulls[i]} and the family's value arrays, dense by batch index. */
    private abstract static class Values
    {
        boolean[] nulls = new boolean[0];

        abstract void evaluate(SourcePage page, int[] positions, int count);

        void ensureNulls(int count)
        {
            if (nulls.length < count) {
                nulls = new boolean[Math.max(count, nulls.length * 2)];
            }
        }
    }

    private abstract static class LongValues
            extends Values
    {
        long[] values = new long[0];

        void ensure(int count)
        {
            ensureNulls(count);
            if (values.length < count) {
                values = new long[Math.max(count, values.length * 2)];
            }
        }
    }

    private static final class LongColumn
            extends LongValues
    {
        private final int channel;
        private final Type type;

        LongColumn(int channel, Type type)
        {
            this.channel = channel;
            this.type = type;
        }

        @Override
        void evaluate(SourcePage page, int[] positions, int count)
        {
            ensure(count);
            if (channel < 0) {
                Arrays.fill(nulls, 0, count, true);
                return;
            }
            Block block = page.getBlock(channel);
            switch (block) {
                case LongArrayBlock longs -> {
                    for (int i = 0; i < count; i++) {
                        int position = positions[i];
                        nulls[i] = longs.isNull(position);
                        values[i] = longs.getLong(position);
                    }
                }
                case IntArrayBlock ints -> {
                    for (int i = 0; i < count; i++) {
                        int position = positions[i];
                        nulls[i] = ints.isNull(position);
                        values[i] = ints.getInt(position);
                    }
                }
                default -> {
                    for (int i = 0; i < count; i++) {
                        int position = positions[i];
                        nulls[i] = block.isNull(position);
                        values[i] = nulls[i] ? 0 : type.getLong(block, position);
                    }
                }
            }
        }
    }

    private static final class LongConstantValues
            extends LongValues
    {
        private final long value;
        private int filled;

        LongConstantValues(long value)
        {
            this.value = value;
        }

        @Override
        void evaluate(SourcePage page, int[] positions, int count)
        {
            if (count > filled) {
                ensure(count);
                Arrays.fill(values, 0, values.length, value);
                filled = values.length;
            }
        }
    }

    private static final class LongArithmetic
            extends LongValues
    {
        private final Operator operator;
        private final boolean bigint;
        private final LongValues left;
        private final LongValues right;

        LongArithmetic(Operator operator, Type type, LongValues left, LongValues right)
        {
            this.operator = operator;
            this.bigint = type.equals(BIGINT);
            this.left = left;
            this.right = right;
        }

        @Override
        void evaluate(SourcePage page, int[] positions, int count)
        {
            ensure(count);
            left.evaluate(page, positions, count);
            if (right != null) {
                right.evaluate(page, positions, count);
            }
            long[] a = left.values;
            for (int i = 0; i < count; i++) {
                boolean isNull = left.nulls[i] || (right != null && right.nulls[i]);
                nulls[i] = isNull;
                if (!isNull) {
                    values[i] = right == null ? negate(a[i]) : apply(a[i], right.values[i]);
                }
            }
        }

        private long negate(long value)
        {
            if (bigint ? value == Long.MIN_VALUE : value == Integer.MIN_VALUE) {
                throw new TrinoException(NUMERIC_VALUE_OUT_OF_RANGE, typeName() + " negation overflow: " + value);
            }
            return -value;
        }

        private long apply(long a, long b)
        {
            return switch (operator) {
                case ADD -> {
                    long sum = a + b;
                    // bigint: the sum's sign differs from both operands'; integer: the long sum is outside int
                    if (bigint ? ((a ^ sum) & (b ^ sum)) < 0 : sum != (int) sum) {
                        throw overflow("addition", "+", a, b);
                    }
                    yield sum;
                }
                case SUBTRACT -> {
                    long difference = a - b;
                    if (bigint ? ((a ^ b) & (a ^ difference)) < 0 : difference != (int) difference) {
                        throw overflow("subtraction", "-", a, b);
                    }
                    yield difference;
                }
                case MULTIPLY -> multiply(a, b);
                case DIVIDE -> {
                    if (b == 0) {
                        throw new TrinoException(DIVISION_BY_ZERO, "Division by zero");
                    }
                    if (b == -1 && a == (bigint ? Long.MIN_VALUE : Integer.MIN_VALUE)) {
                        throw overflow("division", "/", a, b);
                    }
                    yield a / b;
                }
                case MODULUS -> {
                    if (b == 0) {
                        throw new TrinoException(DIVISION_BY_ZERO, "Division by zero");
                    }
                    yield a % b;
                }
                default -> throw new IllegalStateException("Not arithmetic: " + operator);
            };
        }

        private long multiply(long a, long b)
        {
            if (bigint) {
                long high = Math.multiplyHigh(a, b);
                long low = a * b;
                if ((high != 0 || low < 0) && (high != -1 || low >= 0)) {
                    throw overflow("multiplication", "*", a, b);
                }
                return low;
            }
            long product = a * b;
            if (product != (int) product) {
                throw overflow("multiplication", "*", a, b);
            }
            return product;
        }

        private TrinoException overflow(String name, String symbol, long a, long b)
        {
            return new TrinoException(NUMERIC_VALUE_OUT_OF_RANGE, "%s %s overflow: %s %s %s".formatted(typeName(), name, a, symbol, b));
        }

        private String typeName()
        {
            return bigint ? "bigint" : "integer";
        }
    }

    private abstract static class DoubleValues
            extends Values
    {
        double[] values = new double[0];

        void ensure(int count)
        {
            ensureNulls(count);
            if (values.length < count) {
                values = new double[Math.max(count, values.length * 2)];
            }
        }
    }

    private static final class DoubleColumn
            extends DoubleValues
    {
        private final int channel;

        DoubleColumn(int channel)
        {
            this.channel = channel;
        }

        @Override
        void evaluate(SourcePage page, int[] positions, int count)
        {
            ensure(count);
            if (channel < 0) {
                Arrays.fill(nulls, 0, count, true);
                return;
            }
            Block block = page.getBlock(channel);
            if (block instanceof LongArrayBlock longs) {
                for (int i = 0; i < count; i++) {
                    int position = positions[i];
                    nulls[i] = longs.isNull(position);
                    values[i] = Double.longBitsToDouble(longs.getLong(position));
                }
                return;
            }
            for (int i = 0; i < count; i++) {
                int position = positions[i];
                nulls[i] = block.isNull(position);
                values[i] = nulls[i] ? 0 : DOUBLE.getDouble(block, position);
            }
        }
    }

    private static final class DoubleConstantValues
            extends DoubleValues
    {
        private final double value;
        private int filled;

        DoubleConstantValues(double value)
        {
            this.value = value;
        }

        @Override
        void evaluate(SourcePage page, int[] positions, int count)
        {
            if (count > filled) {
                ensure(count);
                Arrays.fill(values, 0, values.length, value);
                filled = values.length;
            }
        }
    }

    private static final class LongToDouble
            extends DoubleValues
    {
        private final LongValues source;

        LongToDouble(LongValues source)
        {
            this.source = source;
        }

        @Override
        void evaluate(SourcePage page, int[] positions, int count)
        {
            ensure(count);
            source.evaluate(page, positions, count);
            for (int i = 0; i < count; i++) {
                nulls[i] = source.nulls[i];
                values[i] = source.values[i];
            }
        }
    }

    private static final class DoubleArithmetic
            extends DoubleValues
    {
        private final Operator operator;
        private final DoubleValues left;
        private final DoubleValues right;

        DoubleArithmetic(Operator operator, DoubleValues left, DoubleValues right)
        {
            this.operator = operator;
            this.left = left;
            this.right = right;
        }

        @Override
        void evaluate(SourcePage page, int[] positions, int count)
        {
            ensure(count);
            left.evaluate(page, positions, count);
            if (right != null) {
                right.evaluate(page, positions, count);
            }
            for (int i = 0; i < count; i++) {
                nulls[i] = left.nulls[i] || (right != null && right.nulls[i]);
                double a = left.values[i];
                values[i] = switch (operator) {
                    case NEGATE -> -a;
                    case ADD -> a + right.values[i];
                    case SUBTRACT -> a - right.values[i];
                    case MULTIPLY -> a * right.values[i];
                    case DIVIDE -> a / right.values[i];
                    case MODULUS -> a % right.values[i];
                    default -> throw new IllegalStateException("Not arithmetic: " + operator);
                };
            }
        }
    }

    /** Varchar values as byte ranges of slices (the column's raw slice: nothing is copied). */
    private abstract static class SliceValues
            extends Values
    {
        Slice[] bases = new Slice[0];
        int[] offsets = new int[0];
        int[] lengths = new int[0];

        void ensure(int count)
        {
            ensureNulls(count);
            if (bases.length < count) {
                bases = new Slice[Math.max(count, bases.length * 2)];
            }
            offsets = grow(offsets, count);
            lengths = grow(lengths, count);
        }
    }

    private static final class SliceColumn
            extends SliceValues
    {
        private final int channel;

        SliceColumn(int channel)
        {
            this.channel = channel;
        }

        @Override
        void evaluate(SourcePage page, int[] positions, int count)
        {
            ensure(count);
            if (channel < 0) {
                Arrays.fill(nulls, 0, count, true);
                return;
            }
            Block block = page.getBlock(channel);
            // dictionary and run-length blocks of varchar sit on a variable-width block
            VariableWidthBlock values = (VariableWidthBlock) block.getUnderlyingValueBlock();
            Slice raw = values.getRawSlice();
            for (int i = 0; i < count; i++) {
                int position = block.getUnderlyingValuePosition(positions[i]);
                nulls[i] = values.isNull(position);
                bases[i] = raw;
                offsets[i] = values.getRawSliceOffset(position);
                lengths[i] = values.getSliceLength(position);
            }
        }
    }

    private static final class SliceConstantValues
            extends SliceValues
    {
        private final Slice value;
        private int filled;

        SliceConstantValues(Slice value)
        {
            this.value = value;
        }

        @Override
        void evaluate(SourcePage page, int[] positions, int count)
        {
            if (count > filled) {
                ensure(count);
                Arrays.fill(bases, 0, bases.length, value);
                Arrays.fill(offsets, 0, offsets.length, 0);
                Arrays.fill(lengths, 0, lengths.length, value.length());
                filled = bases.length;
            }
        }
    }

    // ---- conditions: three-valued results, dense by batch index ----

    private abstract static class Condition
    {
        byte[] results = new byte[0];

        abstract byte[] evaluate(SourcePage page, int[] positions, int count);

        void ensure(int count)
        {
            if (results.length < count) {
                results = new byte[Math.max(count, results.length * 2)];
            }
        }

        static boolean compare(Operator operator, int comparison)
        {
            return switch (operator) {
                case EQUAL -> comparison == 0;
                case NOT_EQUAL -> comparison != 0;
                case LESS_THAN -> comparison < 0;
                case LESS_THAN_OR_EQUAL -> comparison <= 0;
                case GREATER_THAN -> comparison > 0;
                case GREATER_THAN_OR_EQUAL -> comparison >= 0;
                default -> throw new IllegalStateException("Not a comparison: " + operator);
            };
        }
    }

    private static final class LongComparison
            extends Condition
    {
        private final Operator operator;
        private final LongValues left;
        private final LongValues right;

        LongComparison(Operator operator, LongValues left, LongValues right)
        {
            this.operator = operator;
            this.left = left;
            this.right = right;
        }

        @Override
        byte[] evaluate(SourcePage page, int[] positions, int count)
        {
            ensure(count);
            left.evaluate(page, positions, count);
            right.evaluate(page, positions, count);
            long[] a = left.values;
            long[] b = right.values;
            // one loop per operator: the comparison is the whole body
            switch (operator) {
                case EQUAL -> {
                    for (int i = 0; i < count; i++) {
                        results[i] = a[i] == b[i] ? TRUE : FALSE;
                    }
                }
                case NOT_EQUAL -> {
                    for (int i = 0; i < count; i++) {
                        results[i] = a[i] != b[i] ? TRUE : FALSE;
                    }
                }
                case LESS_THAN -> {
                    for (int i = 0; i < count; i++) {
                        results[i] = a[i] < b[i] ? TRUE : FALSE;
                    }
                }
                case LESS_THAN_OR_EQUAL -> {
                    for (int i = 0; i < count; i++) {
                        results[i] = a[i] <= b[i] ? TRUE : FALSE;
                    }
                }
                case GREATER_THAN -> {
                    for (int i = 0; i < count; i++) {
                        results[i] = a[i] > b[i] ? TRUE : FALSE;
                    }
                }
                case GREATER_THAN_OR_EQUAL -> {
                    for (int i = 0; i < count; i++) {
                        results[i] = a[i] >= b[i] ? TRUE : FALSE;
                    }
                }
                default -> throw new IllegalStateException("Not a comparison: " + operator);
            }
            applyNulls(results, left.nulls, right.nulls, count);
            return results;
        }
    }

    private static void applyNulls(byte[] results, boolean[] left, boolean[] right, int count)
    {
        for (int i = 0; i < count; i++) {
            if (left[i] || right[i]) {
                results[i] = NULL;
            }
        }
    }

    private static final class DoubleComparison
            extends Condition
    {
        private final Operator operator;
        private final DoubleValues left;
        private final DoubleValues right;

        DoubleComparison(Operator operator, DoubleValues left, DoubleValues right)
        {
            this.operator = operator;
            this.left = left;
            this.right = right;
        }

        @Override
        byte[] evaluate(SourcePage page, int[] positions, int count)
        {
            ensure(count);
            left.evaluate(page, positions, count);
            right.evaluate(page, positions, count);
            double[] a = left.values;
            double[] b = right.values;
            for (int i = 0; i < count; i++) {
                // Java's primitive comparisons are IEEE's, as the engine's double operators
                boolean result = switch (operator) {
                    case EQUAL -> a[i] == b[i];
                    case NOT_EQUAL -> a[i] != b[i];
                    case LESS_THAN -> a[i] < b[i];
                    case LESS_THAN_OR_EQUAL -> a[i] <= b[i];
                    case GREATER_THAN -> a[i] > b[i];
                    case GREATER_THAN_OR_EQUAL -> a[i] >= b[i];
                    default -> throw new IllegalStateException("Not a comparison: " + operator);
                };
                results[i] = result ? TRUE : FALSE;
            }
            applyNulls(results, left.nulls, right.nulls, count);
            return results;
        }
    }

    private static final class SliceComparison
            extends Condition
    {
        private final Operator operator;
        private final SliceValues left;
        private final SliceValues right;

        SliceComparison(Operator operator, SliceValues left, SliceValues right)
        {
            this.operator = operator;
            this.left = left;
            this.right = right;
        }

        @Override
        byte[] evaluate(SourcePage page, int[] positions, int count)
        {
            ensure(count);
            left.evaluate(page, positions, count);
            right.evaluate(page, positions, count);
            for (int i = 0; i < count; i++) {
                if (left.nulls[i] || right.nulls[i]) {
                    results[i] = NULL;
                    continue;
                }
                boolean result;
                if (operator == Operator.EQUAL || operator == Operator.NOT_EQUAL) {
                    boolean equal = left.bases[i].equals(left.offsets[i], left.lengths[i], right.bases[i], right.offsets[i], right.lengths[i]);
                    result = equal == (operator == Operator.EQUAL);
                }
                else {
                    // unsigned byte order, the engine's varchar order
                    result = compare(operator, left.bases[i].compareTo(left.offsets[i], left.lengths[i], right.bases[i], right.offsets[i], right.lengths[i]));
                }
                results[i] = result ? TRUE : FALSE;
            }
            return results;
        }
    }

    private static final class LongIn
            extends Condition
    {
        private final LongValues value;
        private final long[] sortedList;

        LongIn(LongValues value, long[] sortedList)
        {
            this.value = value;
            this.sortedList = sortedList;
        }

        @Override
        byte[] evaluate(SourcePage page, int[] positions, int count)
        {
            ensure(count);
            value.evaluate(page, positions, count);
            for (int i = 0; i < count; i++) {
                results[i] = value.nulls[i] ? NULL : Arrays.binarySearch(sortedList, value.values[i]) >= 0 ? TRUE : FALSE;
            }
            return results;
        }
    }

    private static final class DoubleIn
            extends Condition
    {
        private final DoubleValues value;
        private final double[] list;

        DoubleIn(DoubleValues value, double[] list)
        {
            this.value = value;
            this.list = list;
        }

        @Override
        byte[] evaluate(SourcePage page, int[] positions, int count)
        {
            ensure(count);
            value.evaluate(page, positions, count);
            for (int i = 0; i < count; i++) {
                if (value.nulls[i]) {
                    results[i] = NULL;
                    continue;
                }
                byte result = FALSE;
                for (double element : list) {
                    // IN is a disjunction of = : IEEE equality
                    if (value.values[i] == element) {
                        result = TRUE;
                        break;
                    }
                }
                results[i] = result;
            }
            return results;
        }
    }

    private static final class SliceIn
            extends Condition
    {
        private final SliceValues value;
        private final Slice[] list;

        SliceIn(SliceValues value, Slice[] list)
        {
            this.value = value;
            this.list = list;
        }

        @Override
        byte[] evaluate(SourcePage page, int[] positions, int count)
        {
            ensure(count);
            value.evaluate(page, positions, count);
            for (int i = 0; i < count; i++) {
                if (value.nulls[i]) {
                    results[i] = NULL;
                    continue;
                }
                byte result = FALSE;
                for (Slice element : list) {
                    if (value.bases[i].equals(value.offsets[i], value.lengths[i], element, 0, element.length())) {
                        result = TRUE;
                        break;
                    }
                }
                results[i] = result;
            }
            return results;
        }
    }

    private static final class LikeCondition
            extends Condition
    {
        private final SliceValues value;
        private final LikeMatcher matcher;

        LikeCondition(SliceValues value, LikeMatcher matcher)
        {
            this.value = value;
            this.matcher = matcher;
        }

        @Override
        byte[] evaluate(SourcePage page, int[] positions, int count)
        {
            ensure(count);
            value.evaluate(page, positions, count);
            for (int i = 0; i < count; i++) {
                results[i] = value.nulls[i] ? NULL : matcher.matches(value.bases[i], value.offsets[i], value.lengths[i]) ? TRUE : FALSE;
            }
            return results;
        }
    }

    private static final class IsNullCondition
            extends Condition
    {
        private final Values value;

        IsNullCondition(Values value)
        {
            this.value = value;
        }

        @Override
        byte[] evaluate(SourcePage page, int[] positions, int count)
        {
            ensure(count);
            value.evaluate(page, positions, count);
            for (int i = 0; i < count; i++) {
                results[i] = value.nulls[i] ? TRUE : FALSE;
            }
            return results;
        }
    }

    private static final class NotCondition
            extends Condition
    {
        private final Condition term;

        NotCondition(Condition term)
        {
            this.term = term;
        }

        @Override
        byte[] evaluate(SourcePage page, int[] positions, int count)
        {
            ensure(count);
            byte[] inner = term.evaluate(page, positions, count);
            for (int i = 0; i < count; i++) {
                results[i] = inner[i] == NULL ? NULL : inner[i] == TRUE ? FALSE : TRUE;
            }
            return results;
        }
    }

    /**
     * {@code AND} (FALSE if a term is FALSE, else NULL if one is NULL, else TRUE) or {@code OR}
     * (TRUE if a term is TRUE, else NULL if one is NULL, else FALSE); each term is evaluated only
     * on the rows the terms before it left undecided.
     */
    private static final class LogicalCondition
            extends Condition
    {
        private final boolean and;
        private final Condition[] terms;
        private int[] undecidedPositions = new int[0];
        private int[] undecidedIndexes = new int[0];

        LogicalCondition(boolean and, Condition[] terms)
        {
            this.and = and;
            this.terms = terms;
        }

        @Override
        byte[] evaluate(SourcePage page, int[] positions, int count)
        {
            ensure(count);
            undecidedPositions = grow(undecidedPositions, count);
            undecidedIndexes = grow(undecidedIndexes, count);
            byte deciding = and ? FALSE : TRUE;
            Arrays.fill(results, 0, count, and ? TRUE : FALSE);
            System.arraycopy(positions, 0, undecidedPositions, 0, count);
            for (int i = 0; i < count; i++) {
                undecidedIndexes[i] = i;
            }
            int undecided = count;
            for (Condition term : terms) {
                if (undecided == 0) {
                    break;
                }
                byte[] termResults = term.evaluate(page, undecidedPositions, undecided);
                int kept = 0;
                for (int i = 0; i < undecided; i++) {
                    byte result = termResults[i];
                    int index = undecidedIndexes[i];
                    if (result == deciding) {
                        results[index] = deciding;
                        continue;
                    }
                    if (result == NULL) {
                        results[index] = NULL;
                    }
                    undecidedPositions[kept] = undecidedPositions[i];
                    undecidedIndexes[kept] = index;
                    kept++;
                }
                undecided = kept;
            }
            return results;
        }
    }
}

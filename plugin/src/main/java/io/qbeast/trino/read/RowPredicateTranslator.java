package io.qbeast.trino.read;

import io.airlift.slice.Slice;
import io.qbeast.trino.handle.QbeastColumnHandle;
import io.qbeast.trino.handle.RowPredicate;
import io.qbeast.trino.handle.RowPredicate.Call;
import io.qbeast.trino.handle.RowPredicate.ColumnValue;
import io.qbeast.trino.handle.RowPredicate.DoubleConstant;
import io.qbeast.trino.handle.RowPredicate.Like;
import io.qbeast.trino.handle.RowPredicate.LongConstant;
import io.qbeast.trino.handle.RowPredicate.Operator;
import io.qbeast.trino.handle.RowPredicate.SliceConstant;
import io.qbeast.trino.parquet.LikeMatcher;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.expression.ConnectorExpression;
import io.trino.spi.expression.Constant;
import io.trino.spi.expression.FunctionName;
import io.trino.spi.expression.Variable;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarcharType;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.trino.plugin.base.expression.ConnectorExpressions.and;
import static io.trino.plugin.base.expression.ConnectorExpressions.extractConjuncts;
import static io.trino.spi.expression.StandardFunctions.ADD_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.AND_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.ARRAY_CONSTRUCTOR_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.CAST_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.DIVIDE_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.EQUAL_OPERATOR_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.GREATER_THAN_OPERATOR_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.GREATER_THAN_OR_EQUAL_OPERATOR_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.IN_PREDICATE_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.IS_NULL_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.LESS_THAN_OPERATOR_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.LESS_THAN_OR_EQUAL_OPERATOR_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.LIKE_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.MODULUS_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.MULTIPLY_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.NEGATE_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.NOT_EQUAL_OPERATOR_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.NOT_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.OR_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.SUBTRACT_FUNCTION_NAME;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.BooleanType.BOOLEAN;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.SmallintType.SMALLINT;
import static io.trino.spi.type.TinyintType.TINYINT;
import static java.util.Objects.requireNonNull;

/**
 * Which conjuncts of a query's non-domain predicate (the engine's {@link ConnectorExpression})
 * the page source evaluates itself, translated to {@link RowPredicate}s; the others stay with the
 * engine. A conjunct is taken when it is built only of these, over top-level columns of the table:
 * <ul>
 * <li>values: columns and non-null constants of {@code tinyint}, {@code smallint}, {@code integer},
 * {@code bigint}, {@code date}, {@code double}, {@code varchar}; {@code + - * / %} and unary
 * {@code -} on {@code integer}, {@code bigint} and {@code double}; widening casts (integer types to
 * wider ones or to {@code double}, {@code varchar(n)} to a longer {@code varchar});</li>
 * <li>conditions: {@code = <> < <= > >=} between two values of one type, {@code IS NULL},
 * {@code IN} a list of constants, {@code LIKE} a constant pattern (with a constant
 * {@code ESCAPE}), and {@code NOT}, {@code AND}, {@code OR} of conditions.</li>
 * </ul>
 *
 * <p>Integer arithmetic may fail (overflow, division by zero), as the engine's does, and the
 * page source raises the engine's errors. A conjunct that may fail is taken only when nothing is
 * left for the engine to filter: then the rows it is evaluated on are the rows the engine would
 * evaluate it on (after the column domains, which the page source enforces first either way), and
 * a guard the engine could evaluate first (say {@code coalesce(k, 1) <> 0} before {@code 10 / k})
 * cannot be bypassed. Division and modulus by a non-zero constant other than -1 never fail.
 */
public final class RowPredicateTranslator
{
    private RowPredicateTranslator() {}

    /**
     * @param taken the conjuncts the page source evaluates, in the query's order
     * @param remaining what the engine still filters by
     */
    public record Translation(List<RowPredicate> taken, ConnectorExpression remaining)
    {
        public Translation
        {
            taken = List.copyOf(taken);
            requireNonNull(remaining, "remaining is null");
        }
    }

    /**
     * @param assignments the expression's variables to the table's column handles
     * @param othersRemain whether the engine filters by something besides the expression (a domain
     * the page source does not enforce): then no conjunct that may fail is taken
     */
    public static Translation translate(ConnectorExpression expression, Map<String, ColumnHandle> assignments, boolean othersRemain)
    {
        List<ConnectorExpression> conjuncts = extractConjuncts(expression);
        List<RowPredicate> taken = new ArrayList<>();
        List<ConnectorExpression> remaining = new ArrayList<>();
        List<RowPredicate> fallible = new ArrayList<>();
        List<ConnectorExpression> fallibleSources = new ArrayList<>();
        for (ConnectorExpression conjunct : conjuncts) {
            Optional<RowPredicate> translated = condition(conjunct, assignments);
            if (translated.isEmpty()) {
                remaining.add(conjunct);
            }
            else if (mayFail(translated.get())) {
                fallible.add(translated.get());
                fallibleSources.add(conjunct);
                taken.add(translated.get());
            }
            else {
                taken.add(translated.get());
            }
        }
        if (!fallible.isEmpty() && (othersRemain || !remaining.isEmpty())) {
            taken.removeAll(fallible);
            remaining.addAll(fallibleSources);
            // keep the engine's order of its conjuncts
            remaining.sort((left, right) -> Integer.compare(conjuncts.indexOf(left), conjuncts.indexOf(right)));
        }
        return new Translation(taken, and(remaining));
    }

    /** Whether evaluating the predicate may raise an error (integer overflow, division by zero). */
    static boolean mayFail(RowPredicate predicate)
    {
        return switch (predicate) {
            case Call call -> {
                boolean self = call.operator().isArithmetic() && !call.type().equals(DOUBLE) && switch (call.operator()) {
                    case DIVIDE -> !(call.arguments().get(1) instanceof LongConstant divisor && divisor.value() != 0 && divisor.value() != -1);
                    case MODULUS -> !(call.arguments().get(1) instanceof LongConstant divisor && divisor.value() != 0);
                    default -> true;
                };
                yield self || call.arguments().stream().anyMatch(RowPredicateTranslator::mayFail);
            }
            case Like like -> mayFail(like.value());
            default -> false;
        };
    }

    private static Optional<RowPredicate> condition(ConnectorExpression expression, Map<String, ColumnHandle> assignments)
    {
        if (!(expression instanceof io.trino.spi.expression.Call call) || !expression.getType().equals(BOOLEAN)) {
            return Optional.empty();
        }
        FunctionName name = call.getFunctionName();
        List<ConnectorExpression> arguments = call.getArguments();
        Optional<Operator> comparison = comparison(name);
        if (comparison.isPresent() && arguments.size() == 2) {
            Optional<RowPredicate> left = value(arguments.get(0), assignments);
            Optional<RowPredicate> right = value(arguments.get(1), assignments);
            if (left.isEmpty() || right.isEmpty() || !comparable(left.get().type(), right.get().type())) {
                return Optional.empty();
            }
            return Optional.of(new Call(BOOLEAN, comparison.get(), List.of(left.get(), right.get())));
        }
        if (name.equals(IS_NULL_FUNCTION_NAME) && arguments.size() == 1) {
            return value(arguments.getFirst(), assignments).map(value -> new Call(BOOLEAN, Operator.IS_NULL, List.of(value)));
        }
        if (name.equals(NOT_FUNCTION_NAME) && arguments.size() == 1) {
            return condition(arguments.getFirst(), assignments).map(value -> new Call(BOOLEAN, Operator.NOT, List.of(value)));
        }
        if ((name.equals(AND_FUNCTION_NAME) || name.equals(OR_FUNCTION_NAME)) && arguments.size() >= 2) {
            List<RowPredicate> terms = new ArrayList<>();
            for (ConnectorExpression argument : arguments) {
                Optional<RowPredicate> term = condition(argument, assignments);
                if (term.isEmpty()) {
                    return Optional.empty();
                }
                terms.add(term.get());
            }
            return Optional.of(new Call(BOOLEAN, name.equals(AND_FUNCTION_NAME) ? Operator.AND : Operator.OR, terms));
        }
        if (name.equals(LIKE_FUNCTION_NAME) && (arguments.size() == 2 || arguments.size() == 3)) {
            return like(arguments, assignments);
        }
        if (name.equals(IN_PREDICATE_FUNCTION_NAME) && arguments.size() == 2) {
            return in(arguments.get(0), arguments.get(1), assignments);
        }
        return Optional.empty();
    }

    private static Optional<RowPredicate> like(List<ConnectorExpression> arguments, Map<String, ColumnHandle> assignments)
    {
        Optional<RowPredicate> value = value(arguments.get(0), assignments).filter(translated -> translated.type() instanceof VarcharType);
        Optional<String> pattern = varcharConstant(arguments.get(1));
        Optional<String> escape = arguments.size() == 3 ? varcharConstant(arguments.get(2)) : Optional.empty();
        if (value.isEmpty() || pattern.isEmpty() || (arguments.size() == 3 && escape.isEmpty())) {
            return Optional.empty();
        }
        // a pattern the engine would refuse (a bad escape) is left to the engine, which raises its error
        if (LikeMatcher.compile(pattern.get(), escape).isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Like(value.get(), pattern.get(), escape));
    }

    private static Optional<RowPredicate> in(ConnectorExpression value, ConnectorExpression list, Map<String, ColumnHandle> assignments)
    {
        Optional<RowPredicate> translated = value(value, assignments);
        if (translated.isEmpty() || !(list instanceof io.trino.spi.expression.Call array) || !array.getFunctionName().equals(ARRAY_CONSTRUCTOR_FUNCTION_NAME) || array.getArguments().isEmpty()) {
            return Optional.empty();
        }
        List<RowPredicate> arguments = new ArrayList<>();
        arguments.add(translated.get());
        for (ConnectorExpression element : array.getArguments()) {
            if (!(element instanceof Constant)) {
                return Optional.empty();
            }
            Optional<RowPredicate> constant = value(element, assignments);
            if (constant.isEmpty() || !comparable(translated.get().type(), constant.get().type())) {
                return Optional.empty();
            }
            arguments.add(constant.get());
        }
        return Optional.of(new Call(BOOLEAN, Operator.IN, arguments));
    }

    private static Optional<RowPredicate> value(ConnectorExpression expression, Map<String, ColumnHandle> assignments)
    {
        Type type = expression.getType();
        if (!isValueType(type)) {
            return Optional.empty();
        }
        return switch (expression) {
            case Variable variable -> {
                if (!(assignments.get(variable.getName()) instanceof QbeastColumnHandle column) || column.isFileMetadata() || !column.type().equals(type)) {
                    yield Optional.empty();
                }
                yield Optional.of(new ColumnValue(column));
            }
            case Constant constant -> constant(constant);
            case io.trino.spi.expression.Call call -> valueCall(call, assignments);
            default -> Optional.empty();
        };
    }

    private static Optional<RowPredicate> constant(Constant constant)
    {
        Type type = constant.getType();
        Object value = constant.getValue();
        if (value == null) {
            return Optional.empty();
        }
        if (type instanceof VarcharType) {
            return Optional.of(new SliceConstant(type, ((Slice) value).getBytes()));
        }
        if (type.equals(DOUBLE)) {
            return Optional.of(new DoubleConstant((Double) value));
        }
        return Optional.of(new LongConstant(type, (Long) value));
    }

    private static Optional<RowPredicate> valueCall(io.trino.spi.expression.Call call, Map<String, ColumnHandle> assignments)
    {
        Type type = call.getType();
        FunctionName name = call.getFunctionName();
        List<RowPredicate> arguments = new ArrayList<>();
        for (ConnectorExpression argument : call.getArguments()) {
            Optional<RowPredicate> translated = value(argument, assignments);
            if (translated.isEmpty()) {
                return Optional.empty();
            }
            arguments.add(translated.get());
        }
        Optional<Operator> arithmetic = arithmetic(name);
        if (arithmetic.isPresent() && arguments.size() == 2) {
            boolean typed = (type.equals(INTEGER) || type.equals(BIGINT) || type.equals(DOUBLE))
                    && arguments.get(0).type().equals(type) && arguments.get(1).type().equals(type);
            return typed ? Optional.of(new Call(type, arithmetic.get(), arguments)) : Optional.empty();
        }
        if (name.equals(NEGATE_FUNCTION_NAME) && arguments.size() == 1) {
            boolean typed = (type.equals(INTEGER) || type.equals(BIGINT) || type.equals(DOUBLE)) && arguments.getFirst().type().equals(type);
            return typed ? Optional.of(new Call(type, Operator.NEGATE, arguments)) : Optional.empty();
        }
        if (name.equals(CAST_FUNCTION_NAME) && arguments.size() == 1) {
            return isWidening(arguments.getFirst().type(), type) ? Optional.of(new Call(type, Operator.CAST, arguments)) : Optional.empty();
        }
        return Optional.empty();
    }

    // a cast that keeps every value and never fails
    private static boolean isWidening(Type from, Type to)
    {
        if (from instanceof VarcharType source && to instanceof VarcharType target) {
            return target.isUnbounded() || (!source.isUnbounded() && source.getBoundedLength() <= target.getBoundedLength());
        }
        int fromRank = integerRank(from);
        if (fromRank < 0) {
            return false;
        }
        // every integer of up to 53 bits is a double; bigint's are not all, but the engine's cast
        // is Java's (double) conversion too, which the page source uses
        return to.equals(DOUBLE) || integerRank(to) >= fromRank;
    }

    private static int integerRank(Type type)
    {
        if (type.equals(TINYINT)) {
            return 0;
        }
        if (type.equals(SMALLINT)) {
            return 1;
        }
        if (type.equals(INTEGER)) {
            return 2;
        }
        if (type.equals(BIGINT)) {
            return 3;
        }
        return -1;
    }

    private static boolean isValueType(Type type)
    {
        return integerRank(type) >= 0 || type.equals(DATE) || type.equals(DOUBLE) || type instanceof VarcharType;
    }

    // the engine compares values of one type (varchar of any lengths), having cast the others
    private static boolean comparable(Type left, Type right)
    {
        return left.equals(right) || (left instanceof VarcharType && right instanceof VarcharType);
    }

    private static Optional<String> varcharConstant(ConnectorExpression expression)
    {
        if (expression instanceof Constant constant && constant.getType() instanceof VarcharType && constant.getValue() instanceof Slice slice) {
            return Optional.of(slice.toStringUtf8());
        }
        return Optional.empty();
    }

    private static Optional<Operator> comparison(FunctionName name)
    {
        if (name.equals(EQUAL_OPERATOR_FUNCTION_NAME)) {
            return Optional.of(Operator.EQUAL);
        }
        if (name.equals(NOT_EQUAL_OPERATOR_FUNCTION_NAME)) {
            return Optional.of(Operator.NOT_EQUAL);
        }
        if (name.equals(LESS_THAN_OPERATOR_FUNCTION_NAME)) {
            return Optional.of(Operator.LESS_THAN);
        }
        if (name.equals(LESS_THAN_OR_EQUAL_OPERATOR_FUNCTION_NAME)) {
            return Optional.of(Operator.LESS_THAN_OR_EQUAL);
        }
        if (name.equals(GREATER_THAN_OPERATOR_FUNCTION_NAME)) {
            return Optional.of(Operator.GREATER_THAN);
        }
        if (name.equals(GREATER_THAN_OR_EQUAL_OPERATOR_FUNCTION_NAME)) {
            return Optional.of(Operator.GREATER_THAN_OR_EQUAL);
        }
        return Optional.empty();
    }

    private static Optional<Operator> arithmetic(FunctionName name)
    {
        if (name.equals(ADD_FUNCTION_NAME)) {
            return Optional.of(Operator.ADD);
        }
        if (name.equals(SUBTRACT_FUNCTION_NAME)) {
            return Optional.of(Operator.SUBTRACT);
        }
        if (name.equals(MULTIPLY_FUNCTION_NAME)) {
            return Optional.of(Operator.MULTIPLY);
        }
        if (name.equals(DIVIDE_FUNCTION_NAME)) {
            return Optional.of(Operator.DIVIDE);
        }
        if (name.equals(MODULUS_FUNCTION_NAME)) {
            return Optional.of(Operator.MODULUS);
        }
        return Optional.empty();
    }
}

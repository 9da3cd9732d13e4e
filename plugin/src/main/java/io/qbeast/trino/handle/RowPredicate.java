package io.qbeast.trino.handle;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import io.trino.spi.type.Type;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

import static io.trino.spi.type.BooleanType.BOOLEAN;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static java.util.Objects.requireNonNull;

/**
 * A scalar expression over a row's columns that the page source evaluates per row: the part of a
 * query's {@code WHERE} that is not a column domain, taken over from the engine by
 * {@code QbeastMetadata.applyFilter} (see {@code read/RowPredicateTranslator} for which shapes).
 * This is the connector's own form of the engine's {@code ConnectorExpression}, serialised with
 * the table handle to the workers (Jackson: the engine's mapper writes the types).
 *
 * <p>Value expressions are typed: {@code integer}-family ({@code tinyint}, {@code smallint},
 * {@code integer}, {@code bigint}, {@code date}) values are held as longs, {@code double} as
 * doubles, {@code varchar} as bytes. Boolean expressions have three values, as in SQL.
 */
// The type id is a property of each record (EXISTING_PROPERTY), written by any bean serializer:
// the engine writes a list of these by the elements' runtime classes, without type serializers,
// and only jackson-annotations is shared between a plugin and the engine (a databind
// @JsonSerialize in the plugin is invisible to the server's mapper)
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.EXISTING_PROPERTY, property = RowPredicate.KIND_PROPERTY)
@JsonSubTypes({
        @JsonSubTypes.Type(value = RowPredicate.ColumnValue.class, name = RowPredicate.ColumnValue.KIND),
        @JsonSubTypes.Type(value = RowPredicate.LongConstant.class, name = RowPredicate.LongConstant.KIND),
        @JsonSubTypes.Type(value = RowPredicate.DoubleConstant.class, name = RowPredicate.DoubleConstant.KIND),
        @JsonSubTypes.Type(value = RowPredicate.SliceConstant.class, name = RowPredicate.SliceConstant.KIND),
        @JsonSubTypes.Type(value = RowPredicate.Call.class, name = RowPredicate.Call.KIND),
        @JsonSubTypes.Type(value = RowPredicate.Like.class, name = RowPredicate.Like.KIND),
})
public sealed interface RowPredicate
        permits RowPredicate.ColumnValue, RowPredicate.LongConstant, RowPredicate.DoubleConstant, RowPredicate.SliceConstant, RowPredicate.Call, RowPredicate.Like
{
    String KIND_PROPERTY = "@kind";

    /** The SQL type of the value. */
    Type type();

    /** The JSON form's name of this kind of expression, its type id. */
    @JsonProperty(KIND_PROPERTY)
    String kind();

    /** The operations the page source evaluates, with SQL's semantics (Trino's operators for the types). */
    enum Operator
    {
        ADD("+"), SUBTRACT("-"), MULTIPLY("*"), DIVIDE("/"), MODULUS("%"), NEGATE("-"),
        // a widening cast (never fails): integer types to wider ones or to double, varchar(n) to varchar(m >= n)
        CAST("CAST"),
        EQUAL("="), NOT_EQUAL("<>"), LESS_THAN("<"), LESS_THAN_OR_EQUAL("<="), GREATER_THAN(">"), GREATER_THAN_OR_EQUAL(">="),
        IS_NULL("IS NULL"), NOT("NOT"), AND("AND"), OR("OR"),
        // the first argument against the constants that follow it
        IN("IN");

        private final String symbol;

        Operator(String symbol)
        {
            this.symbol = symbol;
        }

        public boolean isComparison()
        {
            return switch (this) {
                case EQUAL, NOT_EQUAL, LESS_THAN, LESS_THAN_OR_EQUAL, GREATER_THAN, GREATER_THAN_OR_EQUAL -> true;
                default -> false;
            };
        }

        public boolean isArithmetic()
        {
            return switch (this) {
                case ADD, SUBTRACT, MULTIPLY, DIVIDE, MODULUS, NEGATE -> true;
                default -> false;
            };
        }
    }

    /** A column's value in the row (NULL when the file does not have the column). */
    record ColumnValue(QbeastColumnHandle column)
            implements RowPredicate
    {
        static final String KIND = "column";

        @Override
        @JsonProperty(KIND_PROPERTY)
        public String kind()
        {
            return KIND;
        }

        public ColumnValue
        {
            requireNonNull(column, "column is null");
        }

        @Override
        public Type type()
        {
            return column.type();
        }

        @Override
        public String toString()
        {
            return column.name();
        }
    }

    /** A constant of an integer-family type, as its long. */
    record LongConstant(Type type, long value)
            implements RowPredicate
    {
        static final String KIND = "long";

        @Override
        @JsonProperty(KIND_PROPERTY)
        public String kind()
        {
            return KIND;
        }

        public LongConstant
        {
            requireNonNull(type, "type is null");
        }

        @Override
        public String toString()
        {
            return Long.toString(value);
        }
    }

    record DoubleConstant(double value)
            implements RowPredicate
    {
        static final String KIND = "double";

        @Override
        @JsonProperty(KIND_PROPERTY)
        public String kind()
        {
            return KIND;
        }

        @Override
        public Type type()
        {
            return DOUBLE;
        }

        @Override
        public String toString()
        {
            return Double.toString(value);
        }
    }

    /** A {@code varchar} constant: its UTF-8 bytes. */
    record SliceConstant(Type type, byte[] value)
            implements RowPredicate
    {
        static final String KIND = "slice";

        @Override
        @JsonProperty(KIND_PROPERTY)
        public String kind()
        {
            return KIND;
        }

        public SliceConstant
        {
            requireNonNull(type, "type is null");
            value = value.clone();
        }

        @Override
        public byte[] value()
        {
            return value.clone();
        }

        @Override
        public boolean equals(Object other)
        {
            return other instanceof SliceConstant that && type.equals(that.type) && java.util.Arrays.equals(value, that.value);
        }

        @Override
        public int hashCode()
        {
            return type.hashCode() * 31 + java.util.Arrays.hashCode(value);
        }

        @Override
        public String toString()
        {
            return "'" + new String(value, StandardCharsets.UTF_8) + "'";
        }
    }

    /** An operation on arguments; {@code type} is its result type. */
    record Call(Type type, Operator operator, List<RowPredicate> arguments)
            implements RowPredicate
    {
        static final String KIND = "call";

        @Override
        @JsonProperty(KIND_PROPERTY)
        public String kind()
        {
            return KIND;
        }

        public Call
        {
            requireNonNull(type, "type is null");
            requireNonNull(operator, "operator is null");
            arguments = List.copyOf(arguments);
        }

        @Override
        public String toString()
        {
            return switch (operator) {
                case NEGATE, NOT -> operator.symbol + " " + arguments.getFirst();
                case IS_NULL -> "(" + arguments.getFirst() + " IS NULL)";
                case CAST -> "CAST(" + arguments.getFirst() + " AS " + type + ")";
                case IN -> "(" + arguments.getFirst() + " IN " + arguments.subList(1, arguments.size()).stream().map(Object::toString).collect(Collectors.joining(", ", "(", ")")) + ")";
                default -> arguments.stream().map(Object::toString).collect(Collectors.joining(" " + operator.symbol + " ", "(", ")"));
            };
        }
    }

    /** {@code value LIKE pattern [ESCAPE escape]} with a constant pattern. */
    record Like(RowPredicate value, String pattern, Optional<String> escape)
            implements RowPredicate
    {
        static final String KIND = "like";

        @Override
        @JsonProperty(KIND_PROPERTY)
        public String kind()
        {
            return KIND;
        }

        public Like
        {
            requireNonNull(value, "value is null");
            requireNonNull(pattern, "pattern is null");
            requireNonNull(escape, "escape is null");
        }

        @Override
        public Type type()
        {
            return BOOLEAN;
        }

        @Override
        public String toString()
        {
            return "(" + value + " LIKE '" + pattern + "'" + escape.map(character -> " ESCAPE '" + character + "'").orElse("") + ")";
        }
    }
}

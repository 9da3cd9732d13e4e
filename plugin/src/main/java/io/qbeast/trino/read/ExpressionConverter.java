package io.qbeast.trino.read;

import com.google.common.collect.ImmutableList;
import io.airlift.slice.Slice;
import io.qbeast.trino.handle.QbeastColumnHandle;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.predicate.ValueSet;
import io.trino.spi.type.BigintType;
import io.trino.spi.type.BooleanType;
import io.trino.spi.type.DateType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.DoubleType;
import io.trino.spi.type.Int128;
import io.trino.spi.type.IntegerType;
import io.trino.spi.type.LongTimestampWithTimeZone;
import io.trino.spi.type.RealType;
import io.trino.spi.type.TimeType;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.TimestampWithTimeZoneType;
import io.trino.spi.type.Type;
import io.trino.spi.type.UuidType;
import io.trino.spi.type.VarbinaryType;
import io.trino.spi.type.VarcharType;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.trino.spi.type.TimeType.TIME_MICROS;
import static io.trino.spi.type.TimestampType.TIMESTAMP_MICROS;
import static io.trino.spi.type.TimestampWithTimeZoneType.TIMESTAMP_TZ_MICROS;
import static io.trino.spi.type.UuidType.trinoUuidToJavaUuid;
import static org.apache.iceberg.expressions.Expressions.alwaysFalse;
import static org.apache.iceberg.expressions.Expressions.alwaysTrue;

/**
 * Converts a pushed-down {@link TupleDomain} to an Iceberg filter for file pruning with column
 * bounds. The result may select more files than the domain (a column or value it cannot express
 * becomes {@code true}), never fewer: the engine still filters the rows.
 */
public final class ExpressionConverter
{
    // beyond this many ranges, a column prunes by the span of its ranges
    private static final int MAX_RANGES = 64;

    private ExpressionConverter() {}

    public static Expression toIcebergExpression(TupleDomain<QbeastColumnHandle> tupleDomain)
    {
        if (tupleDomain.isNone()) {
            return alwaysFalse();
        }
        Map<QbeastColumnHandle, Domain> domains = tupleDomain.getDomains().orElseThrow();
        Expression expression = alwaysTrue();
        for (Map.Entry<QbeastColumnHandle, Domain> entry : domains.entrySet()) {
            expression = Expressions.and(expression, toIcebergExpression(entry.getKey(), entry.getValue()));
        }
        return expression;
    }

    private static Expression toIcebergExpression(QbeastColumnHandle column, Domain domain)
    {
        String name = column.name();
        Type type = column.type();
        // not in the files' statistics: QbeastSplitSource checks these per file
        if (domain.isAll() || column.isFileMetadata()) {
            return alwaysTrue();
        }
        if (domain.isNone()) {
            return alwaysFalse();
        }
        if (domain.getValues().isNone()) {
            return domain.isNullAllowed() ? Expressions.isNull(name) : alwaysFalse();
        }
        if (!isConvertible(type)) {
            return alwaysTrue();
        }
        Expression values;
        if (domain.getValues().isAll()) {
            values = Expressions.notNull(name);
        }
        else {
            Optional<Expression> converted = toIcebergExpression(name, type, domain.getValues());
            if (converted.isEmpty()) {
                return alwaysTrue();
            }
            values = converted.get();
        }
        return domain.isNullAllowed() ? Expressions.or(Expressions.isNull(name), values) : values;
    }

    private static Optional<Expression> toIcebergExpression(String name, Type type, ValueSet valueSet)
    {
        List<Range> ranges = valueSet.getRanges().getOrderedRanges();
        if (ranges.size() > MAX_RANGES) {
            ranges = ImmutableList.of(valueSet.getRanges().getSpan());
        }
        Expression expression = alwaysFalse();
        for (Range range : ranges) {
            Optional<Expression> converted = toIcebergExpression(name, type, range);
            if (converted.isEmpty()) {
                return Optional.empty();
            }
            expression = Expressions.or(expression, converted.get());
        }
        return Optional.of(expression);
    }

    private static Optional<Expression> toIcebergExpression(String name, Type type, Range range)
    {
        if (range.isSingleValue()) {
            return toIcebergValue(type, range.getSingleValue()).map(value -> Expressions.equal(name, value));
        }
        Expression expression = alwaysTrue();
        if (!range.isLowUnbounded()) {
            Optional<Object> low = toIcebergValue(type, range.getLowBoundedValue());
            if (low.isEmpty()) {
                return Optional.empty();
            }
            expression = Expressions.and(expression, range.isLowInclusive()
                    ? Expressions.greaterThanOrEqual(name, low.get())
                    : Expressions.greaterThan(name, low.get()));
        }
        if (!range.isHighUnbounded()) {
            Optional<Object> high = toIcebergValue(type, range.getHighBoundedValue());
            if (high.isEmpty()) {
                return Optional.empty();
            }
            expression = Expressions.and(expression, range.isHighInclusive()
                    ? Expressions.lessThanOrEqual(name, high.get())
                    : Expressions.lessThan(name, high.get()));
        }
        if (range.isLowUnbounded() && range.isHighUnbounded()) {
            return Optional.of(Expressions.notNull(name));
        }
        return Optional.of(expression);
    }

    private static boolean isConvertible(Type type)
    {
        return type instanceof BooleanType ||
                type instanceof IntegerType ||
                type instanceof BigintType ||
                type instanceof RealType ||
                type instanceof DoubleType ||
                type instanceof DecimalType ||
                type instanceof DateType ||
                type.equals(TIME_MICROS) ||
                type.equals(TIMESTAMP_MICROS) ||
                type.equals(TIMESTAMP_TZ_MICROS) ||
                type instanceof VarcharType ||
                type instanceof VarbinaryType ||
                type instanceof UuidType;
    }

    /** The Iceberg literal value of a Trino native value; empty when Iceberg cannot compare it (NaN). */
    static Optional<Object> toIcebergValue(Type type, Object value)
    {
        return Optional.ofNullable(switch (type) {
            case BooleanType _ -> (Boolean) value;
            case IntegerType _ -> Math.toIntExact((Long) value);
            case BigintType _ -> (Long) value;
            case RealType _ -> {
                float floatValue = Float.intBitsToFloat(Math.toIntExact((Long) value));
                yield Float.isNaN(floatValue) ? null : floatValue;
            }
            case DoubleType _ -> Double.isNaN((Double) value) ? null : (Double) value;
            case DecimalType decimal -> decimal.isShort()
                    ? new BigDecimal(BigInteger.valueOf((Long) value), decimal.getScale())
                    : new BigDecimal(((Int128) value).toBigInteger(), decimal.getScale());
            case DateType _ -> Math.toIntExact((Long) value);
            // TIME(6) values are picoseconds of the day; Iceberg's are microseconds
            case TimeType _ -> (Long) value / 1_000_000L;
            // TIMESTAMP(6) values are epoch microseconds, as Iceberg's
            case TimestampType _ -> (Long) value;
            case TimestampWithTimeZoneType _ -> {
                LongTimestampWithTimeZone timestamp = (LongTimestampWithTimeZone) value;
                yield Math.addExact(Math.multiplyExact(timestamp.getEpochMillis(), 1000L), timestamp.getPicosOfMilli() / 1_000_000L);
            }
            case VarcharType _ -> ((Slice) value).toStringUtf8();
            case VarbinaryType _ -> ByteBuffer.wrap(((Slice) value).getBytes());
            case UuidType _ -> trinoUuidToJavaUuid((Slice) value);
            default -> null;
        });
    }
}

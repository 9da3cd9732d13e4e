package io.qbeast.trino.read;

import com.google.common.collect.ImmutableList;
import io.airlift.slice.Slice;
import io.qbeast.trino.handle.QbeastColumnHandle;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
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
            expression = Expressions.and(expression, toIcebergExpression(entry.getKey(), entry.getValue(), false).orElse(alwaysTrue()));
        }
        return expression;
    }

    /**
     * The Iceberg filter that selects exactly the rows of {@code tupleDomain}, for deciding that
     * every row of a file matches (Iceberg's strict metrics evaluation); empty when some column or
     * value has no exact Iceberg form: a floating point or uuid column (NaN and uuid order in
     * Iceberg's bounds are not Trino's), or more than {@value #MAX_RANGES} ranges on a column.
     * File metadata columns are left out (they are in no statistics): one value per file, the
     * caller decides them per file ({@link FileMetadataColumns#matches}).
     */
    public static Optional<Expression> toExactIcebergExpression(TupleDomain<QbeastColumnHandle> tupleDomain)
    {
        if (tupleDomain.isNone()) {
            return Optional.of(alwaysFalse());
        }
        Expression expression = alwaysTrue();
        for (Map.Entry<QbeastColumnHandle, Domain> entry : tupleDomain.getDomains().orElseThrow().entrySet()) {
            if (entry.getKey().isFileMetadata()) {
                continue;
            }
            Optional<Expression> column = toIcebergExpression(entry.getKey(), entry.getValue(), true);
            if (column.isEmpty()) {
                return Optional.empty();
            }
            expression = Expressions.and(expression, column.get());
        }
        return Optional.of(expression);
    }

    /** Empty when the domain has no Iceberg form (exactly, if {@code exact}; else one that selects at least its rows). */
    private static Optional<Expression> toIcebergExpression(QbeastColumnHandle column, Domain domain, boolean exact)
    {
        String name = column.name();
        Type type = column.type();
        if (domain.isAll()) {
            return Optional.of(alwaysTrue());
        }
        // not in the files' statistics: QbeastSplitSource checks these per file
        if (column.isFileMetadata()) {
            return Optional.empty();
        }
        if (domain.isNone()) {
            return Optional.of(alwaysFalse());
        }
        if (domain.getValues().isNone()) {
            return Optional.of(domain.isNullAllowed() ? Expressions.isNull(name) : alwaysFalse());
        }
        if (!isConvertible(type) || (exact && !isExactlyConvertible(type))) {
            return Optional.empty();
        }
        Expression values;
        if (domain.getValues().isAll()) {
            values = Expressions.notNull(name);
        }
        else {
            List<Range> ranges = domain.getValues().getRanges().getOrderedRanges();
            if (ranges.size() > MAX_RANGES) {
                if (exact) {
                    return Optional.empty();
                }
                ranges = ImmutableList.of(domain.getValues().getRanges().getSpan());
            }
            Optional<Expression> converted = toIcebergExpression(name, type, ranges);
            if (converted.isEmpty()) {
                return Optional.empty();
            }
            values = converted.get();
        }
        return Optional.of(domain.isNullAllowed() ? Expressions.or(Expressions.isNull(name), values) : values);
    }

    private static Optional<Expression> toIcebergExpression(String name, Type type, List<Range> ranges)
    {
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

    private static boolean isExactlyConvertible(Type type)
    {
        return !(type instanceof RealType || type instanceof DoubleType || type instanceof UuidType);
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

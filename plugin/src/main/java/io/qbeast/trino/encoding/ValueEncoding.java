package io.qbeast.trino.encoding;

import io.airlift.slice.Slice;
import io.qbeast.index.transform.SignedInt128;
import io.qbeast.index.transform.ValueDomain;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.type.BigintType;
import io.trino.spi.type.BooleanType;
import io.trino.spi.type.CharType;
import io.trino.spi.type.DateType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.DoubleType;
import io.trino.spi.type.Int128;
import io.trino.spi.type.IntegerType;
import io.trino.spi.type.LongTimestampWithTimeZone;
import io.trino.spi.type.RealType;
import io.trino.spi.type.SmallintType;
import io.trino.spi.type.TimeType;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.TimestampWithTimeZoneType;
import io.trino.spi.type.TinyintType;
import io.trino.spi.type.Type;
import io.trino.spi.type.UuidType;
import io.trino.spi.type.VarbinaryType;
import io.trino.spi.type.VarcharType;

import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_INVALID_METADATA;

/**
 * The one encoding of Trino values into the index's value domains: which SQL types can be indexed,
 * and the LONG, DOUBLE or BYTES value a SQL value becomes, in an order that is the SQL order of
 * its type:
 * <ul>
 *   <li>LONG: tinyint, smallint, integer, bigint; date (days); time (picoseconds of the day);
 *       timestamp up to microseconds (epoch microseconds); timestamp with time zone of 4 to 6
 *       digits (UTC epoch microseconds; the zone does not take part in comparisons); short
 *       decimals (unscaled value);</li>
 *   <li>DOUBLE: real, double (NaN and infinities included); long decimals (unscaled value,
 *       correctly rounded);</li>
 *   <li>BYTES: varchar and char (UTF-8, whose byte order is the code point order), varbinary,
 *       uuid (the 16 bytes of its slice);</li>
 *   <li>BOOLEAN: boolean.</li>
 * </ul>
 * This is the mapping {@code index/README.md} ("Value domains") specifies. Values come in two
 * forms: the writer reads them from blocks ({@link PointMapper}, no boxing per row), the pruner
 * gets the native values of a predicate's domains ({@link io.qbeast.trino.read.QbeastFilePruner}). Both forms are here,
 * side by side and built on the same per-type conversions, because a difference between them is a
 * file pruned at a coordinate its rows were not written at; {@code TestValueEncoding} holds them
 * equal on every type's edge values.
 */
public final class ValueEncoding
{
    public static final String INDEXABLE_TYPES = "boolean, tinyint, smallint, integer, bigint, real, double, decimal, date, time, timestamp, " +
            "timestamp with time zone, varchar, char, varbinary and uuid";

    private ValueEncoding() {}

    public static boolean isIndexable(Type type)
    {
        return findDomain(type) != null;
    }

    /** The value domain of an indexable type; a type that cannot be indexed is invalid metadata. */
    public static ValueDomain domainOf(Type type)
    {
        ValueDomain domain = findDomain(type);
        if (domain == null) {
            throw new TrinoException(QBEAST_INVALID_METADATA, "Type %s cannot be indexed".formatted(type.getDisplayName()));
        }
        return domain;
    }

    private static ValueDomain findDomain(Type type)
    {
        return switch (type) {
            case BooleanType _ -> ValueDomain.BOOLEAN;
            case TinyintType _, SmallintType _, IntegerType _, BigintType _, DateType _, TimeType _ -> ValueDomain.LONG;
            case TimestampType timestamp when timestamp.isShort() -> ValueDomain.LONG;
            case TimestampWithTimeZoneType timestamp when !timestamp.isShort() && timestamp.getPrecision() <= 6 -> ValueDomain.LONG;
            case DecimalType decimal -> decimal.isShort() ? ValueDomain.LONG : ValueDomain.DOUBLE;
            case RealType _, DoubleType _ -> ValueDomain.DOUBLE;
            case VarcharType _, CharType _, VarbinaryType _, UuidType _ -> ValueDomain.BYTES;
            default -> null;
        };
    }

    /** The LONG-domain value of a non-null position of a LONG-domain column. */
    public static long longValue(Type type, Block block, int position)
    {
        if (type instanceof TimestampWithTimeZoneType) {
            return epochMicros((LongTimestampWithTimeZone) type.getObject(block, position));
        }
        return type.getLong(block, position);
    }

    /** The LONG-domain value of a native value; {@link IllegalArgumentException} if the type is not of that domain. */
    public static long longValue(Type type, Object value)
    {
        checkDomain(type, ValueDomain.LONG);
        return switch (value) {
            case LongTimestampWithTimeZone timestamp -> epochMicros(timestamp);
            case Long longValue -> longValue;
            default -> throw new IllegalArgumentException("Not a native value of %s: %s".formatted(type, value.getClass()));
        };
    }

    /** The DOUBLE-domain value of a non-null position of a DOUBLE-domain column. */
    public static double doubleValue(Type type, Block block, int position)
    {
        return switch (type) {
            case DoubleType _ -> type.getDouble(block, position);
            case RealType _ -> real(type.getLong(block, position));
            case DecimalType _ -> decimal((Int128) type.getObject(block, position));
            default -> throw new IllegalArgumentException("Not a DOUBLE-domain type: " + type);
        };
    }

    /** The DOUBLE-domain value of a native value; {@link IllegalArgumentException} if the type is not of that domain. */
    public static double doubleValue(Type type, Object value)
    {
        checkDomain(type, ValueDomain.DOUBLE);
        return switch (value) {
            case Double doubleValue when type instanceof DoubleType -> doubleValue;
            case Long bits when type instanceof RealType -> real(bits);
            case Int128 int128 when type instanceof DecimalType -> decimal(int128);
            default -> throw new IllegalArgumentException("Not a native value of %s: %s".formatted(type, value.getClass()));
        };
    }

    /** The BYTES-domain value of a non-null position of a BYTES-domain column. */
    public static Slice bytesValue(Type type, Block block, int position)
    {
        return type.getSlice(block, position);
    }

    /** The BYTES-domain value of a native value; {@link IllegalArgumentException} if the type is not of that domain. */
    public static Slice bytesValue(Type type, Object value)
    {
        checkDomain(type, ValueDomain.BYTES);
        if (value instanceof Slice slice) {
            return slice;
        }
        throw new IllegalArgumentException("Not a native value of %s: %s".formatted(type, value.getClass()));
    }

    private static long epochMicros(LongTimestampWithTimeZone timestamp)
    {
        return timestamp.getEpochMillis() * 1000 + timestamp.getPicosOfMilli() / 1_000_000;
    }

    private static double real(long bits)
    {
        return Float.intBitsToFloat((int) bits);
    }

    private static double decimal(Int128 value)
    {
        return SignedInt128.toDouble(value.getHigh(), value.getLow());
    }

    private static void checkDomain(Type type, ValueDomain expected)
    {
        if (findDomain(type) != expected) {
            throw new IllegalArgumentException("Not a %s-domain type: %s".formatted(expected, type));
        }
    }
}

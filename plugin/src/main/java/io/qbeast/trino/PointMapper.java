package io.qbeast.trino;

import io.airlift.slice.Slice;
import io.qbeast.index.BytesColumnProfile;
import io.qbeast.index.ColumnProfile;
import io.qbeast.index.DoubleColumnProfile;
import io.qbeast.index.FixedColumnProfile;
import io.qbeast.index.IndexedColumn;
import io.qbeast.index.LongColumnProfile;
import io.qbeast.index.Revision;
import io.qbeast.index.transform.BooleanTransformation;
import io.qbeast.index.transform.DoubleLinearTransformation;
import io.qbeast.index.transform.HashTransformation;
import io.qbeast.index.transform.LongLinearTransformation;
import io.qbeast.index.transform.OrderedBytesTransformation;
import io.qbeast.index.transform.SignedInt128;
import io.qbeast.index.transform.Transformation;
import io.qbeast.index.transform.ValueDomain;
import io.trino.spi.Page;
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

import java.util.ArrayList;
import java.util.List;

import static io.qbeast.trino.QbeastErrorCode.QBEAST_INVALID_METADATA;
import static java.util.Objects.requireNonNull;

/**
 * Maps the indexed columns of Trino pages to index coordinates. Each SQL type is read into one of
 * the index's value domains, in an encoding whose order is the SQL order of the type:
 * <ul>
 *   <li>LONG: tinyint, smallint, integer, bigint; date (days); time (picoseconds of the day);
 *       timestamp (epoch microseconds); timestamp with time zone (UTC epoch microseconds; the zone
 *       does not take part in comparisons); short decimals (unscaled value);</li>
 *   <li>DOUBLE: real, double (NaN and infinities included); long decimals (unscaled value,
 *       correctly rounded);</li>
 *   <li>BYTES: varchar and char (UTF-8, whose byte order is the code point order), varbinary,
 *       uuid (the 16 bytes of its slice; hashed, since only equality is typical for UUIDs);</li>
 *   <li>BOOLEAN: boolean.</li>
 * </ul>
 * NULL maps to the transformation's null coordinate. This is the mapping {@code index/README.md}
 * ("Value domains") specifies; reads that prune by cube regions must use the same one.
 */
public final class PointMapper
{
    /** The most columns one table can index (the fan-out of a cube is 2^dimensions). */
    public static final int MAX_DIMENSIONS = 16;
    public static final String INDEXABLE_TYPES = "boolean, tinyint, smallint, integer, bigint, real, double, decimal, date, time, timestamp, " +
            "timestamp with time zone, varchar, char, varbinary and uuid";

    private final List<String> names;
    private final List<Integer> channels;
    private final List<Type> types;

    /**
     * @param names the indexed columns, in index order
     * @param channels the page channel of each indexed column
     * @param types the Trino type of each indexed column
     */
    public PointMapper(List<String> names, List<Integer> channels, List<Type> types)
    {
        this.names = List.copyOf(requireNonNull(names, "names is null"));
        this.channels = List.copyOf(requireNonNull(channels, "channels is null"));
        this.types = List.copyOf(requireNonNull(types, "types is null"));
        for (Type type : types) {
            domainOf(type);
        }
    }

    public int dimensions()
    {
        return names.size();
    }

    public static boolean isIndexable(Type type)
    {
        return findDomain(type) != null;
    }

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

    /** Empty profiles, one per indexed column, for proposing a first revision. */
    public List<ColumnProfile> newProfiles()
    {
        List<ColumnProfile> profiles = new ArrayList<>(names.size());
        for (int dimension = 0; dimension < names.size(); dimension++) {
            String name = names.get(dimension);
            if (types.get(dimension) instanceof UuidType) {
                profiles.add(new FixedColumnProfile(name, new HashTransformation(ValueDomain.BYTES)));
                continue;
            }
            profiles.add(switch (domainOf(types.get(dimension))) {
                case LONG -> new LongColumnProfile(name);
                case DOUBLE -> new DoubleColumnProfile(name);
                case BYTES -> new BytesColumnProfile(name);
                case BOOLEAN -> new FixedColumnProfile(name, new BooleanTransformation());
            });
        }
        return profiles;
    }

    /** Profiles against the columns of an existing revision, for deciding whether to widen it. */
    public List<ColumnProfile> profiles(Revision revision)
    {
        checkRevision(revision);
        List<ColumnProfile> profiles = new ArrayList<>(names.size());
        for (IndexedColumn column : revision.columns()) {
            profiles.add(ColumnProfile.forColumn(column));
        }
        return profiles;
    }

    /** Adds the indexed values of {@code page} to the profiles (one per dimension). */
    public void profile(List<ColumnProfile> profiles, Page page)
    {
        for (int dimension = 0; dimension < names.size(); dimension++) {
            Block block = page.getBlock(channels.get(dimension));
            Type type = types.get(dimension);
            int positions = page.getPositionCount();
            switch (profiles.get(dimension)) {
                case LongColumnProfile profile -> {
                    for (int position = 0; position < positions; position++) {
                        if (block.isNull(position)) {
                            profile.addNull();
                        }
                        else {
                            profile.add(longValue(type, block, position));
                        }
                    }
                }
                case DoubleColumnProfile profile -> {
                    for (int position = 0; position < positions; position++) {
                        if (block.isNull(position)) {
                            profile.addNull();
                        }
                        else {
                            profile.add(doubleValue(type, block, position));
                        }
                    }
                }
                case BytesColumnProfile profile -> {
                    for (int position = 0; position < positions; position++) {
                        if (block.isNull(position)) {
                            profile.addNull();
                        }
                        else {
                            Slice slice = type.getSlice(block, position);
                            profile.add(slice.byteArray(), slice.byteArrayOffset(), slice.length());
                        }
                    }
                }
                case FixedColumnProfile _ -> {}
            }
        }
    }

    /**
     * Writes the coordinates of the page's rows, row-major ({@code dimensions()} per row), into
     * {@code coordinates} starting at row {@code firstRow}.
     */
    public void coordinates(Revision revision, Page page, double[] coordinates, int firstRow)
    {
        int dimensions = names.size();
        int positions = page.getPositionCount();
        for (int dimension = 0; dimension < dimensions; dimension++) {
            Block block = page.getBlock(channels.get(dimension));
            Type type = types.get(dimension);
            Transformation transformation = revision.transformation(dimension);
            double nullCoordinate = transformation.nullCoordinate();
            int index = firstRow * dimensions + dimension;
            switch (transformation) {
                case LongLinearTransformation linear -> {
                    for (int position = 0; position < positions; position++, index += dimensions) {
                        coordinates[index] = block.isNull(position) ? nullCoordinate : linear.coordinate(longValue(type, block, position));
                    }
                }
                case DoubleLinearTransformation linear -> {
                    for (int position = 0; position < positions; position++, index += dimensions) {
                        coordinates[index] = block.isNull(position) ? nullCoordinate : linear.coordinate(doubleValue(type, block, position));
                    }
                }
                case OrderedBytesTransformation ordered -> {
                    for (int position = 0; position < positions; position++, index += dimensions) {
                        if (block.isNull(position)) {
                            coordinates[index] = nullCoordinate;
                        }
                        else {
                            Slice slice = type.getSlice(block, position);
                            coordinates[index] = ordered.coordinate(slice.byteArray(), slice.byteArrayOffset(), slice.length());
                        }
                    }
                }
                case BooleanTransformation bool -> {
                    for (int position = 0; position < positions; position++, index += dimensions) {
                        coordinates[index] = block.isNull(position) ? nullCoordinate : bool.coordinate(BooleanType.BOOLEAN.getBoolean(block, position));
                    }
                }
                case HashTransformation hash -> {
                    for (int position = 0; position < positions; position++, index += dimensions) {
                        coordinates[index] = block.isNull(position) ? nullCoordinate : hashCoordinate(hash, type, block, position);
                    }
                }
            }
        }
    }

    /**
     * Marks the rows of the page with a value outside the bounds of its column's linear
     * transformation: the values {@link #profile} counts as outside, for which the coordinates
     * are clamped to the revision's edge.
     */
    public void markOutside(Revision revision, Page page, boolean[] outside)
    {
        int positions = page.getPositionCount();
        for (int dimension = 0; dimension < names.size(); dimension++) {
            Block block = page.getBlock(channels.get(dimension));
            Type type = types.get(dimension);
            switch (revision.transformation(dimension)) {
                case LongLinearTransformation linear -> {
                    for (int position = 0; position < positions; position++) {
                        outside[position] |= !block.isNull(position) && !linear.contains(longValue(type, block, position));
                    }
                }
                case DoubleLinearTransformation linear -> {
                    for (int position = 0; position < positions; position++) {
                        outside[position] |= !block.isNull(position) && !linear.contains(doubleValue(type, block, position));
                    }
                }
                default -> {}
            }
        }
    }

    private double hashCoordinate(HashTransformation hash, Type type, Block block, int position)
    {
        return switch (hash.domain()) {
            case LONG -> hash.coordinate(longValue(type, block, position));
            case DOUBLE -> hash.coordinate(doubleValue(type, block, position));
            case BYTES -> {
                Slice slice = type.getSlice(block, position);
                yield hash.coordinate(slice.byteArray(), slice.byteArrayOffset(), slice.length());
            }
            case BOOLEAN -> throw new IllegalStateException("boolean columns are never hashed");
        };
    }

    private static long longValue(Type type, Block block, int position)
    {
        if (type instanceof TimestampWithTimeZoneType) {
            LongTimestampWithTimeZone timestamp = (LongTimestampWithTimeZone) type.getObject(block, position);
            return timestamp.getEpochMillis() * 1000 + timestamp.getPicosOfMilli() / 1_000_000;
        }
        return type.getLong(block, position);
    }

    private static double doubleValue(Type type, Block block, int position)
    {
        return switch (type) {
            case DoubleType _ -> type.getDouble(block, position);
            case RealType _ -> Float.intBitsToFloat((int) type.getLong(block, position));
            case DecimalType _ -> {
                Int128 value = (Int128) type.getObject(block, position);
                yield SignedInt128.toDouble(value.getHigh(), value.getLow());
            }
            default -> throw new IllegalArgumentException("Not a DOUBLE-domain type: " + type);
        };
    }

    private void checkRevision(Revision revision)
    {
        if (revision.dimensions() != names.size()) {
            throw new TrinoException(QBEAST_INVALID_METADATA, "Revision %s indexes %s columns, the table %s".formatted(revision.id(), revision.dimensions(), names.size()));
        }
        for (int dimension = 0; dimension < names.size(); dimension++) {
            IndexedColumn column = revision.column(dimension);
            if (!column.name().equals(names.get(dimension)) || column.transformation().domain() != domainOf(types.get(dimension))) {
                throw new TrinoException(QBEAST_INVALID_METADATA, "Revision %s dimension %s is %s (%s), but the table indexes %s of type %s".formatted(
                        revision.id(), dimension, column.name(), column.transformation().domain(), names.get(dimension), types.get(dimension).getDisplayName()));
            }
        }
    }

    /** Checks that a revision read from the table properties matches the indexed columns. */
    public void validate(Revision revision)
    {
        checkRevision(revision);
    }
}

package io.qbeast.trino.encoding;

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
import io.qbeast.index.transform.Transformation;
import io.qbeast.index.transform.ValueDomain;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.type.BooleanType;
import io.trino.spi.type.Type;
import io.trino.spi.type.UuidType;

import java.util.ArrayList;
import java.util.List;

import static io.qbeast.trino.encoding.ValueEncoding.bytesValue;
import static io.qbeast.trino.encoding.ValueEncoding.doubleValue;
import static io.qbeast.trino.encoding.ValueEncoding.longValue;
import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_INVALID_METADATA;
import static java.util.Objects.requireNonNull;

/**
 * Maps the indexed columns of Trino pages to index coordinates: each value is encoded into its
 * value domain by {@link ValueEncoding} (the encoding the pruner uses too) and mapped through the
 * revision's transformation; NULL maps to the transformation's null coordinate.
 */
public final class PointMapper
{
    /** The most columns one table can index (the fan-out of a cube is 2^dimensions). */
    public static final int MAX_DIMENSIONS = 16;

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
            ValueEncoding.domainOf(type);
        }
    }

    public int dimensions()
    {
        return names.size();
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
            profiles.add(switch (ValueEncoding.domainOf(types.get(dimension))) {
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
                            Slice slice = bytesValue(type, block, position);
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
                            Slice slice = bytesValue(type, block, position);
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
                Slice slice = bytesValue(type, block, position);
                yield hash.coordinate(slice.byteArray(), slice.byteArrayOffset(), slice.length());
            }
            case BOOLEAN -> throw new IllegalStateException("boolean columns are never hashed");
        };
    }

    private void checkRevision(Revision revision)
    {
        if (revision.dimensions() != names.size()) {
            throw new TrinoException(QBEAST_INVALID_METADATA, "Revision %s indexes %s columns, the table %s".formatted(revision.id(), revision.dimensions(), names.size()));
        }
        for (int dimension = 0; dimension < names.size(); dimension++) {
            IndexedColumn column = revision.column(dimension);
            if (!column.name().equals(names.get(dimension)) || column.transformation().domain() != ValueEncoding.domainOf(types.get(dimension))) {
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

package io.qbeast.trino.encoding;

import com.google.common.collect.ImmutableList;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.type.ArrayType;
import io.trino.spi.type.BigintType;
import io.trino.spi.type.BooleanType;
import io.trino.spi.type.CharType;
import io.trino.spi.type.DateType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.DoubleType;
import io.trino.spi.type.IntegerType;
import io.trino.spi.type.MapType;
import io.trino.spi.type.RealType;
import io.trino.spi.type.RowType;
import io.trino.spi.type.SmallintType;
import io.trino.spi.type.TimeType;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.TimestampWithTimeZoneType;
import io.trino.spi.type.TinyintType;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeDescriptor;
import io.trino.spi.type.TypeManager;
import io.trino.spi.type.UuidType;
import io.trino.spi.type.VarbinaryType;
import io.trino.spi.type.VarcharType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.type.TimeType.TIME_MICROS;
import static io.trino.spi.type.TimestampType.TIMESTAMP_MICROS;
import static io.trino.spi.type.TimestampWithTimeZoneType.TIMESTAMP_TZ_MICROS;
import static java.util.Objects.requireNonNull;

/**
 * Maps Trino types to Iceberg types and back.
 *
 * <p>Iceberg has no 8- or 16-bit integers: {@code tinyint} and {@code smallint} are stored as
 * Iceberg {@code int} and read back as Trino {@code integer}, as Trino's Iceberg connector does.
 * Likewise {@code varchar(n)} is stored as {@code string} and read back as unbounded
 * {@code varchar}. {@code char(n)} is refused, as Trino's Iceberg connector refuses it: stored as a
 * string its padding would become data, and {@code c = '43'} would no longer find {@code '43   '}.
 * Connectors should offer {@link #toSupportedType(Type)} from
 * {@code ConnectorMetadata.getSupportedType} so the engine inserts the casts before the page sink;
 * the Parquet writer then only ever sees types that round-trip.
 */
public final class TypeConverter
{
    private TypeConverter() {}

    /**
     * The Iceberg schema of new table columns: top-level columns get ids 1..n in order, nested
     * fields get the ids after that (the same layout Iceberg's own {@code assignFreshIds} uses).
     */
    public static Schema toIcebergSchema(List<ColumnMetadata> columns)
    {
        requireNonNull(columns, "columns is null");
        AtomicInteger temporaryIds = new AtomicInteger(1);
        ImmutableList.Builder<Types.NestedField> fields = ImmutableList.builder();
        for (ColumnMetadata column : columns) {
            org.apache.iceberg.types.Type type = toIcebergType(column.getType(), column.getName(), temporaryIds);
            fields.add(Types.NestedField.builder()
                    .withId(temporaryIds.getAndIncrement())
                    .isOptional(column.isNullable())
                    .withName(column.getName())
                    .ofType(type)
                    .withDoc(column.getComment().orElse(null))
                    .build());
        }
        AtomicInteger nextFieldId = new AtomicInteger(1);
        return TypeUtil.assignFreshIds(new Schema(fields.build()), nextFieldId::getAndIncrement);
    }

    /**
     * Converts a type whose nested fields (if any) get ids from 1 up; use the overload with an
     * allocator, or reassign ids ({@code TypeUtil.assignFreshIds}), when the type joins a schema.
     */
    public static org.apache.iceberg.types.Type toIcebergType(Type type, String columnName)
    {
        return toIcebergType(type, columnName, new AtomicInteger(1));
    }

    /**
     * @param nextFieldId source of ids for the fields of nested types (row fields, array elements,
     * map keys and values); advanced by as many ids as the type needs
     */
    public static org.apache.iceberg.types.Type toIcebergType(Type type, String columnName, AtomicInteger nextFieldId)
    {
        requireNonNull(type, "type is null");
        requireNonNull(columnName, "columnName is null");
        requireNonNull(nextFieldId, "nextFieldId is null");
        return switch (type) {
            case BooleanType _ -> Types.BooleanType.get();
            case TinyintType _, SmallintType _, IntegerType _ -> Types.IntegerType.get();
            case BigintType _ -> Types.LongType.get();
            case RealType _ -> Types.FloatType.get();
            case DoubleType _ -> Types.DoubleType.get();
            case DecimalType decimal -> Types.DecimalType.of(decimal.getPrecision(), decimal.getScale());
            case DateType _ -> Types.DateType.get();
            case VarcharType _ -> Types.StringType.get();
            case CharType _ -> throw new TrinoException(NOT_SUPPORTED, "Type %s of column %s is not supported: Iceberg has no fixed-length string type. Use varchar instead".formatted(type.getDisplayName(), columnName));
            case VarbinaryType _ -> Types.BinaryType.get();
            case UuidType _ -> Types.UUIDType.get();
            case TimeType _ when type.equals(TIME_MICROS) -> Types.TimeType.get();
            case TimestampType _ when type.equals(TIMESTAMP_MICROS) -> Types.TimestampType.withoutZone();
            case TimestampWithTimeZoneType _ when type.equals(TIMESTAMP_TZ_MICROS) -> Types.TimestampType.withZone();
            case RowType row -> toIcebergStruct(row, columnName, nextFieldId);
            case ArrayType array -> Types.ListType.ofOptional(
                    nextFieldId.getAndIncrement(),
                    toIcebergType(array.getElementType(), columnName, nextFieldId));
            case MapType map -> {
                int keyId = nextFieldId.getAndIncrement();
                int valueId = nextFieldId.getAndIncrement();
                yield Types.MapType.ofOptional(
                        keyId,
                        valueId,
                        toIcebergType(map.getKeyType(), columnName, nextFieldId),
                        toIcebergType(map.getValueType(), columnName, nextFieldId));
            }
            default -> throw unsupported(type, columnName);
        };
    }

    private static Types.StructType toIcebergStruct(RowType row, String columnName, AtomicInteger nextFieldId)
    {
        ImmutableList.Builder<Types.NestedField> fields = ImmutableList.builder();
        for (RowType.Field field : row.getFields()) {
            String name = field.getName()
                    .orElseThrow(() -> new TrinoException(NOT_SUPPORTED, "Row type field without a name is not supported in column " + columnName));
            int id = nextFieldId.getAndIncrement();
            fields.add(Types.NestedField.optional(id, name, toIcebergType(field.getType(), columnName, nextFieldId)));
        }
        return Types.StructType.of(fields.build());
    }

    public static Type toTrinoType(org.apache.iceberg.types.Type type, TypeManager typeManager)
    {
        requireNonNull(type, "type is null");
        requireNonNull(typeManager, "typeManager is null");
        return switch (type.typeId()) {
            case BOOLEAN -> BooleanType.BOOLEAN;
            case INTEGER -> IntegerType.INTEGER;
            case LONG -> BigintType.BIGINT;
            case FLOAT -> RealType.REAL;
            case DOUBLE -> DoubleType.DOUBLE;
            case DECIMAL -> {
                Types.DecimalType decimal = (Types.DecimalType) type;
                yield DecimalType.createDecimalType(decimal.precision(), decimal.scale());
            }
            case DATE -> DateType.DATE;
            case TIME -> TIME_MICROS;
            case TIMESTAMP -> ((Types.TimestampType) type).shouldAdjustToUTC() ? TIMESTAMP_TZ_MICROS : TIMESTAMP_MICROS;
            case STRING -> VarcharType.VARCHAR;
            case BINARY, FIXED -> VarbinaryType.VARBINARY;
            case UUID -> UuidType.UUID;
            case STRUCT -> RowType.from(((Types.StructType) type).fields().stream()
                    .map(field -> RowType.field(field.name(), toTrinoType(field.type(), typeManager)))
                    .collect(ImmutableList.toImmutableList()));
            case LIST -> new ArrayType(toTrinoType(((Types.ListType) type).elementType(), typeManager));
            case MAP -> {
                Types.MapType map = (Types.MapType) type;
                // MapType needs type operators; the type manager owns them
                yield typeManager.getType(TypeDescriptor.mapType(
                        toTrinoType(map.keyType(), typeManager).getTypeDescriptor(),
                        toTrinoType(map.valueType(), typeManager).getTypeDescriptor()));
            }
            default -> throw new TrinoException(NOT_SUPPORTED, "Iceberg type not supported: " + type);
        };
    }

    /**
     * The type the engine should cast a column to before writing, when it differs from the
     * declared one ({@code ConnectorMetadata.getSupportedType}); empty when the type is stored as is.
     * Types with no mapping at all are left to {@link #toIcebergType} to reject.
     */
    public static Optional<Type> toSupportedType(Type type)
    {
        requireNonNull(type, "type is null");
        return switch (type) {
            case TinyintType _, SmallintType _ -> Optional.of(IntegerType.INTEGER);
            case VarcharType varchar when !varchar.isUnbounded() -> Optional.of(VarcharType.VARCHAR);
            case TimeType _ when !type.equals(TIME_MICROS) -> Optional.of(TIME_MICROS);
            case TimestampType _ when !type.equals(TIMESTAMP_MICROS) -> Optional.of(TIMESTAMP_MICROS);
            case TimestampWithTimeZoneType _ when !type.equals(TIMESTAMP_TZ_MICROS) -> Optional.of(TIMESTAMP_TZ_MICROS);
            case RowType row -> {
                boolean changed = false;
                ImmutableList.Builder<RowType.Field> fields = ImmutableList.builder();
                for (RowType.Field field : row.getFields()) {
                    Optional<Type> supported = toSupportedType(field.getType());
                    changed |= supported.isPresent();
                    fields.add(new RowType.Field(field.getName(), supported.orElse(field.getType())));
                }
                yield changed ? Optional.of(RowType.from(fields.build())) : Optional.empty();
            }
            case ArrayType array -> toSupportedType(array.getElementType()).map(ArrayType::new);
            // map types need type operators to be built; leave nested map keys/values as declared
            default -> Optional.empty();
        };
    }

    private static TrinoException unsupported(Type type, String columnName)
    {
        return new TrinoException(NOT_SUPPORTED, "Unsupported type %s for column %s".formatted(type.getDisplayName(), columnName));
    }
}

package io.qbeast.trino.parquet;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.trino.spi.type.ArrayType;
import io.trino.spi.type.CharType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.MapType;
import io.trino.spi.type.RowType;
import io.trino.spi.type.SmallintType;
import io.trino.spi.type.TinyintType;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarcharType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.types.Types.NestedField;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type.Repetition;

import java.util.List;
import java.util.Map;

import static com.google.common.base.Preconditions.checkArgument;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.BooleanType.BOOLEAN;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.TimeType.TIME_MICROS;
import static io.trino.spi.type.TimestampType.TIMESTAMP_MICROS;
import static io.trino.spi.type.TimestampWithTimeZoneType.TIMESTAMP_TZ_MICROS;
import static io.trino.spi.type.UuidType.UUID;
import static io.trino.spi.type.VarbinaryType.VARBINARY;
import static java.util.Objects.requireNonNull;
import static org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit.MICROS;

/**
 * The Parquet schema of a data file written from an Iceberg schema: the layout Iceberg's own
 * writers produce (3-level lists named {@code list/element}, maps named {@code key_value/key/value},
 * decimals in INT32/INT64/FIXED by precision) with every field carrying its Iceberg field id, so
 * any Iceberg reader resolves columns by id. Also gives trino-parquet's writer the Trino type of
 * every leaf, keyed by its path.
 *
 * @param primitiveTypes Trino type of each leaf column, keyed by its path in {@code messageType}
 */
public record ParquetFileSchema(MessageType messageType, Map<List<String>, Type> primitiveTypes)
{
    public static final String MESSAGE_NAME = "table";

    public ParquetFileSchema
    {
        requireNonNull(messageType, "messageType is null");
        primitiveTypes = ImmutableMap.copyOf(requireNonNull(primitiveTypes, "primitiveTypes is null"));
    }

    /**
     * @param columnTypes the Trino types of the page blocks that will be written, in the order of
     * {@code schema.columns()}; each must be the type the Iceberg type reads back as, except that
     * {@code tinyint}/{@code smallint} may feed an Iceberg {@code int} and any varchar/char a {@code string}
     */
    public static ParquetFileSchema create(Schema schema, List<Type> columnTypes)
    {
        requireNonNull(schema, "schema is null");
        requireNonNull(columnTypes, "columnTypes is null");
        List<NestedField> columns = schema.columns();
        checkArgument(columns.size() == columnTypes.size(), "schema has %s columns but %s types were given", columns.size(), columnTypes.size());
        ImmutableMap.Builder<List<String>, Type> primitiveTypes = ImmutableMap.builder();
        ImmutableList.Builder<org.apache.parquet.schema.Type> fields = ImmutableList.builder();
        for (int i = 0; i < columns.size(); i++) {
            fields.add(convert(columns.get(i), columnTypes.get(i), ImmutableList.of(), primitiveTypes));
        }
        return new ParquetFileSchema(new MessageType(MESSAGE_NAME, fields.build()), primitiveTypes.buildOrThrow());
    }

    private static org.apache.parquet.schema.Type convert(
            NestedField field,
            Type trinoType,
            List<String> parentPath,
            ImmutableMap.Builder<List<String>, Type> primitiveTypes)
    {
        Repetition repetition = field.isOptional() ? Repetition.OPTIONAL : Repetition.REQUIRED;
        String name = field.name();
        List<String> path = ImmutableList.<String>builder().addAll(parentPath).add(name).build();
        int id = field.fieldId();
        org.apache.iceberg.types.Type type = field.type();

        switch (type.typeId()) {
            case STRUCT -> {
                RowType rowType = expect(RowType.class, trinoType, field);
                List<NestedField> children = type.asStructType().fields();
                checkArgument(!children.isEmpty(), "Parquet cannot store an empty struct: %s", name);
                checkArgument(children.size() == rowType.getFields().size(), "Row type %s does not match struct %s", trinoType, type);
                ImmutableList.Builder<org.apache.parquet.schema.Type> converted = ImmutableList.builder();
                for (int i = 0; i < children.size(); i++) {
                    converted.add(convert(children.get(i), rowType.getFields().get(i).getType(), path, primitiveTypes));
                }
                return new GroupType(repetition, name, converted.build()).withId(id);
            }
            case LIST -> {
                ArrayType arrayType = expect(ArrayType.class, trinoType, field);
                NestedField element = type.asListType().fields().getFirst();
                List<String> listPath = ImmutableList.<String>builder().addAll(path).add("list").build();
                org.apache.parquet.schema.Type elementType = convert(renamed(element, "element"), arrayType.getElementType(), listPath, primitiveTypes);
                GroupType repeated = new GroupType(Repetition.REPEATED, "list", elementType);
                return org.apache.parquet.schema.Types.buildGroup(repetition)
                        .as(LogicalTypeAnnotation.listType())
                        .addField(repeated)
                        .id(id)
                        .named(name);
            }
            case MAP -> {
                MapType mapType = expect(MapType.class, trinoType, field);
                Types.MapType map = type.asMapType();
                List<String> keyValuePath = ImmutableList.<String>builder().addAll(path).add("key_value").build();
                org.apache.parquet.schema.Type key = convert(renamed(map.fields().get(0), "key"), mapType.getKeyType(), keyValuePath, primitiveTypes);
                org.apache.parquet.schema.Type value = convert(renamed(map.fields().get(1), "value"), mapType.getValueType(), keyValuePath, primitiveTypes);
                GroupType repeated = new GroupType(Repetition.REPEATED, "key_value", key, value);
                return org.apache.parquet.schema.Types.buildGroup(repetition)
                        .as(LogicalTypeAnnotation.mapType())
                        .addField(repeated)
                        .id(id)
                        .named(name);
            }
            default -> {
                checkArgument(isWritableAs(type, trinoType), "Column %s: cannot write Trino type %s as Iceberg type %s", name, trinoType, type);
                primitiveTypes.put(path, trinoType);
                return primitive(type.asPrimitiveType(), repetition).id(id).named(name);
            }
        }
    }

    private static org.apache.parquet.schema.Types.PrimitiveBuilder<org.apache.parquet.schema.PrimitiveType> primitive(
            org.apache.iceberg.types.Type.PrimitiveType type,
            Repetition repetition)
    {
        return switch (type.typeId()) {
            case BOOLEAN -> org.apache.parquet.schema.Types.primitive(PrimitiveTypeName.BOOLEAN, repetition);
            case INTEGER -> org.apache.parquet.schema.Types.primitive(PrimitiveTypeName.INT32, repetition);
            case LONG -> org.apache.parquet.schema.Types.primitive(PrimitiveTypeName.INT64, repetition);
            case FLOAT -> org.apache.parquet.schema.Types.primitive(PrimitiveTypeName.FLOAT, repetition);
            case DOUBLE -> org.apache.parquet.schema.Types.primitive(PrimitiveTypeName.DOUBLE, repetition);
            case DATE -> org.apache.parquet.schema.Types.primitive(PrimitiveTypeName.INT32, repetition)
                    .as(LogicalTypeAnnotation.dateType());
            case TIME -> org.apache.parquet.schema.Types.primitive(PrimitiveTypeName.INT64, repetition)
                    .as(LogicalTypeAnnotation.timeType(false, MICROS));
            case TIMESTAMP -> org.apache.parquet.schema.Types.primitive(PrimitiveTypeName.INT64, repetition)
                    .as(LogicalTypeAnnotation.timestampType(((Types.TimestampType) type).shouldAdjustToUTC(), MICROS));
            case STRING -> org.apache.parquet.schema.Types.primitive(PrimitiveTypeName.BINARY, repetition)
                    .as(LogicalTypeAnnotation.stringType());
            case BINARY -> org.apache.parquet.schema.Types.primitive(PrimitiveTypeName.BINARY, repetition);
            case FIXED -> org.apache.parquet.schema.Types.primitive(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, repetition)
                    .length(((Types.FixedType) type).length());
            case UUID -> org.apache.parquet.schema.Types.primitive(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, repetition)
                    .length(16)
                    .as(LogicalTypeAnnotation.uuidType());
            case DECIMAL -> {
                Types.DecimalType decimal = (Types.DecimalType) type;
                LogicalTypeAnnotation annotation = LogicalTypeAnnotation.decimalType(decimal.scale(), decimal.precision());
                // the smallest physical type that holds the precision, as the Parquet spec recommends
                if (decimal.precision() <= 9) {
                    yield org.apache.parquet.schema.Types.primitive(PrimitiveTypeName.INT32, repetition).as(annotation);
                }
                if (decimal.precision() <= 18) {
                    yield org.apache.parquet.schema.Types.primitive(PrimitiveTypeName.INT64, repetition).as(annotation);
                }
                yield org.apache.parquet.schema.Types.primitive(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, repetition)
                        .length(TypeUtil.decimalRequiredBytes(decimal.precision()))
                        .as(annotation);
            }
            default -> throw new IllegalArgumentException("Unsupported Iceberg type for Parquet: " + type);
        };
    }

    // Iceberg reads back one Trino type per Iceberg type; the writer also accepts the narrower
    // Trino types that trino-parquet encodes into the same physical type
    private static boolean isWritableAs(org.apache.iceberg.types.Type type, Type trinoType)
    {
        return switch (type.typeId()) {
            case BOOLEAN -> trinoType.equals(BOOLEAN);
            case INTEGER -> trinoType.equals(INTEGER) || trinoType instanceof SmallintType || trinoType instanceof TinyintType;
            case LONG -> trinoType.equals(BIGINT);
            case FLOAT -> trinoType.equals(REAL);
            case DOUBLE -> trinoType.equals(DOUBLE);
            case DATE -> trinoType.equals(DATE);
            case TIME -> trinoType.equals(TIME_MICROS);
            case TIMESTAMP -> trinoType.equals(((Types.TimestampType) type).shouldAdjustToUTC() ? TIMESTAMP_TZ_MICROS : TIMESTAMP_MICROS);
            case STRING -> trinoType instanceof VarcharType || trinoType instanceof CharType;
            case BINARY, FIXED -> trinoType.equals(VARBINARY);
            case UUID -> trinoType.equals(UUID);
            case DECIMAL -> trinoType instanceof DecimalType decimal
                    && decimal.getPrecision() == ((Types.DecimalType) type).precision()
                    && decimal.getScale() == ((Types.DecimalType) type).scale();
            default -> false;
        };
    }

    private static <T extends Type> T expect(Class<T> expected, Type trinoType, NestedField field)
    {
        checkArgument(expected.isInstance(trinoType), "Column %s: cannot write Trino type %s as Iceberg type %s", field.name(), trinoType, field.type());
        return expected.cast(trinoType);
    }

    private static NestedField renamed(NestedField field, String name)
    {
        return NestedField.from(field).withName(name).build();
    }
}

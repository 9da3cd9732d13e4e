package io.qbeast.trino.encoding;

import com.google.common.collect.ImmutableList;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.type.ArrayType;
import io.trino.spi.type.RowType;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeDescriptor;
import io.trino.spi.type.TypeManager;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.BooleanType.BOOLEAN;
import static io.trino.spi.type.CharType.createCharType;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DecimalType.createDecimalType;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.RowType.field;
import static io.trino.spi.type.SmallintType.SMALLINT;
import static io.trino.spi.type.TimeType.TIME_MICROS;
import static io.trino.spi.type.TimeType.TIME_MILLIS;
import static io.trino.spi.type.TimestampType.TIMESTAMP_MICROS;
import static io.trino.spi.type.TimestampType.TIMESTAMP_MILLIS;
import static io.trino.spi.type.TimestampType.TIMESTAMP_NANOS;
import static io.trino.spi.type.TimestampWithTimeZoneType.TIMESTAMP_TZ_MICROS;
import static io.trino.spi.type.TimestampWithTimeZoneType.TIMESTAMP_TZ_MILLIS;
import static io.trino.spi.type.TinyintType.TINYINT;
import static io.trino.spi.type.UuidType.UUID;
import static io.trino.spi.type.VarbinaryType.VARBINARY;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static io.trino.spi.type.VarcharType.createVarcharType;
import static io.trino.type.InternalTypeManager.TESTING_TYPE_MANAGER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestTypeConverter
{
    private static final TypeManager TYPE_MANAGER = TESTING_TYPE_MANAGER;

    @Test
    void testPrimitives()
    {
        assertMapping(BOOLEAN, Types.BooleanType.get(), BOOLEAN);
        assertMapping(TINYINT, Types.IntegerType.get(), INTEGER);
        assertMapping(SMALLINT, Types.IntegerType.get(), INTEGER);
        assertMapping(INTEGER, Types.IntegerType.get(), INTEGER);
        assertMapping(BIGINT, Types.LongType.get(), BIGINT);
        assertMapping(REAL, Types.FloatType.get(), REAL);
        assertMapping(DOUBLE, Types.DoubleType.get(), DOUBLE);
        assertMapping(createDecimalType(10, 2), Types.DecimalType.of(10, 2), createDecimalType(10, 2));
        assertMapping(createDecimalType(38, 38), Types.DecimalType.of(38, 38), createDecimalType(38, 38));
        assertMapping(DATE, Types.DateType.get(), DATE);
        assertMapping(TIME_MICROS, Types.TimeType.get(), TIME_MICROS);
        assertMapping(TIMESTAMP_MICROS, Types.TimestampType.withoutZone(), TIMESTAMP_MICROS);
        assertMapping(TIMESTAMP_TZ_MICROS, Types.TimestampType.withZone(), TIMESTAMP_TZ_MICROS);
        assertMapping(VARCHAR, Types.StringType.get(), VARCHAR);
        assertMapping(createVarcharType(10), Types.StringType.get(), VARCHAR);
        assertMapping(VARBINARY, Types.BinaryType.get(), VARBINARY);
        assertMapping(UUID, Types.UUIDType.get(), UUID);
        assertThat(TypeConverter.toTrinoType(Types.FixedType.ofLength(3), TYPE_MANAGER)).isEqualTo(VARBINARY);
    }

    @Test
    void testNested()
    {
        Type map = TYPE_MANAGER.getType(TypeDescriptor.mapType(VARCHAR.getTypeDescriptor(), new ArrayType(BIGINT).getTypeDescriptor()));
        RowType row = RowType.rowType(field("a", INTEGER), field("m", map), field("inner", RowType.rowType(field("x", DOUBLE))));
        AtomicInteger nextId = new AtomicInteger(100);
        org.apache.iceberg.types.Type converted = TypeConverter.toIcebergType(row, "col", nextId);
        assertThat(converted.isStructType()).isTrue();
        List<Types.NestedField> nested = TypeUtil.indexById(converted.asStructType()).values().stream().toList();
        // a, m, key, value, element, inner, x: seven distinct ids from the allocator
        assertThat(nested).hasSize(7);
        assertThat(nested.stream().map(Types.NestedField::fieldId).distinct().count()).isEqualTo(7);
        assertThat(nextId.get()).isEqualTo(107);
        assertThat(TypeConverter.toTrinoType(converted, TYPE_MANAGER)).isEqualTo(row);

        assertMapping(new ArrayType(new ArrayType(createVarcharType(3))), Types.ListType.ofOptional(1, Types.ListType.ofOptional(2, Types.StringType.get())), new ArrayType(new ArrayType(VARCHAR)));
    }

    @Test
    void testSchemaIds()
    {
        Type map = TYPE_MANAGER.getType(TypeDescriptor.mapType(BIGINT.getTypeDescriptor(), VARCHAR.getTypeDescriptor()));
        Schema schema = TypeConverter.toIcebergSchema(ImmutableList.of(
                new ColumnMetadata("r", RowType.rowType(field("a", BIGINT), field("b", VARCHAR))),
                ColumnMetadata.builder().setName("n").setType(BIGINT).setNullable(false).setComment(Optional.of("not null")).build(),
                new ColumnMetadata("m", map)));
        // top-level columns first, as Iceberg itself numbers them
        assertThat(schema.columns().stream().map(Types.NestedField::fieldId)).containsExactly(1, 2, 3);
        assertThat(schema.findField("n").isRequired()).isTrue();
        assertThat(schema.findField("n").doc()).isEqualTo("not null");
        assertThat(schema.findField("r").isOptional()).isTrue();
        assertThat(TypeUtil.indexById(schema.asStruct()).keySet()).containsExactlyInAnyOrder(1, 2, 3, 4, 5, 6, 7);
        assertThat(schema.findField("r.a").fieldId()).isGreaterThan(3);
    }

    @Test
    void testUnsupported()
    {
        for (Type type : ImmutableList.of(TIMESTAMP_MILLIS, TIMESTAMP_NANOS, TIMESTAMP_TZ_MILLIS, TIME_MILLIS, RowType.anonymousRow(BIGINT), createCharType(5), new ArrayType(createCharType(1)))) {
            assertThatThrownBy(() -> TypeConverter.toIcebergType(type, "my_column"))
                    .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(NOT_SUPPORTED.toErrorCode()))
                    .hasMessageContaining("my_column");
        }
        assertThatThrownBy(() -> TypeConverter.toTrinoType(Types.TimestampNanoType.withoutZone(), TYPE_MANAGER))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(NOT_SUPPORTED.toErrorCode()));
    }

    @Test
    void testSupportedType()
    {
        assertThat(TypeConverter.toSupportedType(TINYINT)).contains(INTEGER);
        assertThat(TypeConverter.toSupportedType(SMALLINT)).contains(INTEGER);
        assertThat(TypeConverter.toSupportedType(createVarcharType(5))).contains(VARCHAR);
        assertThat(TypeConverter.toSupportedType(TIMESTAMP_MILLIS)).contains(TIMESTAMP_MICROS);
        assertThat(TypeConverter.toSupportedType(TIMESTAMP_TZ_MILLIS)).contains(TIMESTAMP_TZ_MICROS);
        assertThat(TypeConverter.toSupportedType(TIME_MILLIS)).contains(TIME_MICROS);
        assertThat(TypeConverter.toSupportedType(RowType.rowType(field("a", TINYINT), field("b", BIGINT))))
                .contains(RowType.rowType(field("a", INTEGER), field("b", BIGINT)));
        assertThat(TypeConverter.toSupportedType(new ArrayType(TIMESTAMP_MILLIS))).contains(new ArrayType(TIMESTAMP_MICROS));
        // char is not cast to varchar (its padding would become data): toIcebergType refuses it
        assertThat(TypeConverter.toSupportedType(createCharType(5))).isEmpty();
        for (Type type : ImmutableList.of(INTEGER, VARCHAR, TIMESTAMP_MICROS, RowType.rowType(field("a", BIGINT)), new ArrayType(VARCHAR))) {
            assertThat(TypeConverter.toSupportedType(type)).as("%s", type).isEmpty();
            // the supported form of every type converts
            TypeConverter.toIcebergType(type, "c");
        }
    }

    private static void assertMapping(Type trinoType, org.apache.iceberg.types.Type expectedIceberg, Type readBack)
    {
        org.apache.iceberg.types.Type converted = TypeConverter.toIcebergType(trinoType, "c");
        assertThat(converted).as("Iceberg type of %s", trinoType).isEqualTo(expectedIceberg);
        assertThat(TypeConverter.toTrinoType(converted, TYPE_MANAGER)).as("Trino type of %s", converted).isEqualTo(readBack);
    }
}

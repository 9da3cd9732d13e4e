package io.qbeast.trino.parquet;

import com.google.common.collect.ImmutableList;
import io.trino.parquet.Field;
import io.trino.parquet.GroupField;
import io.trino.parquet.ParquetTypeUtils;
import io.trino.parquet.PrimitiveField;
import io.trino.spi.type.ArrayType;
import io.trino.spi.type.MapType;
import io.trino.spi.type.RowType;
import io.trino.spi.type.Type;
import org.apache.iceberg.types.Types.NestedField;
import org.apache.parquet.io.ColumnIO;
import org.apache.parquet.io.GroupColumnIO;
import org.apache.parquet.io.PrimitiveColumnIO;

import java.util.List;
import java.util.Optional;

import static io.trino.parquet.ParquetTypeUtils.getArrayElementColumn;
import static io.trino.parquet.ParquetTypeUtils.getMapKeyValueColumn;
import static org.apache.parquet.schema.Type.Repetition.OPTIONAL;

/**
 * Builds trino-parquet's reader {@link Field} tree for one column of a file. With the column's
 * current Iceberg type, nested row fields are matched by Iceberg field id (renamed fields still
 * read, dropped-and-re-added ones read as null); without it, by name as Trino's Hive reader does.
 * Nested fields missing from the file read as null.
 */
final class ParquetColumnFields
{
    private ParquetColumnFields() {}

    static Optional<Field> constructField(Type type, Optional<org.apache.iceberg.types.Type> icebergType, ColumnIO columnIO)
    {
        if (columnIO == null) {
            return Optional.empty();
        }
        if (icebergType.isEmpty()) {
            return ParquetTypeUtils.constructField(type, columnIO);
        }
        return constructField(type, icebergType.get(), columnIO);
    }

    private static Optional<Field> constructField(Type type, org.apache.iceberg.types.Type icebergType, ColumnIO columnIO)
    {
        if (columnIO == null) {
            return Optional.empty();
        }
        boolean required = columnIO.getType().getRepetition() != OPTIONAL;
        int repetitionLevel = columnIO.getRepetitionLevel();
        int definitionLevel = columnIO.getDefinitionLevel();
        if (type instanceof RowType rowType && icebergType.isStructType() && columnIO instanceof GroupColumnIO group) {
            List<NestedField> icebergFields = icebergType.asStructType().fields();
            ImmutableList.Builder<Optional<Field>> fields = ImmutableList.builder();
            boolean anyPresent = false;
            for (int i = 0; i < rowType.getFields().size(); i++) {
                NestedField icebergField = icebergFields.get(i);
                Optional<Field> field = constructField(rowType.getFields().get(i).getType(), icebergField.type(), childById(group, icebergField.fieldId()));
                anyPresent |= field.isPresent();
                fields.add(field);
            }
            // a row none of whose fields is in the file reads as null, like a missing column
            return anyPresent ? Optional.of(new GroupField(type, repetitionLevel, definitionLevel, required, fields.build())) : Optional.empty();
        }
        if (type instanceof MapType mapType && icebergType.isMapType() && columnIO instanceof GroupColumnIO group) {
            GroupColumnIO keyValue = getMapKeyValueColumn(group);
            if (keyValue.getChildrenCount() != 2) {
                return Optional.empty();
            }
            Optional<Field> key = constructField(mapType.getKeyType(), icebergType.asMapType().keyType(), keyValue.getChild(0));
            Optional<Field> value = constructField(mapType.getValueType(), icebergType.asMapType().valueType(), keyValue.getChild(1));
            return Optional.of(new GroupField(type, repetitionLevel, definitionLevel, required, ImmutableList.of(key, value)));
        }
        if (type instanceof ArrayType arrayType && icebergType.isListType() && columnIO instanceof GroupColumnIO group) {
            if (group.getChildrenCount() != 1) {
                return Optional.empty();
            }
            if (!(group.getChild(0) instanceof GroupColumnIO)) {
                // a legacy 2-level list (repeated primitive): Trino's reader knows the level arithmetic
                return ParquetTypeUtils.constructField(type, columnIO);
            }
            Optional<Field> element = constructField(arrayType.getElementType(), icebergType.asListType().elementType(), getArrayElementColumn(group.getChild(0)));
            return Optional.of(new GroupField(type, repetitionLevel, definitionLevel, required, ImmutableList.of(element)));
        }
        if (columnIO instanceof PrimitiveColumnIO primitive && icebergType.isPrimitiveType()) {
            return Optional.of(new PrimitiveField(type, required, primitive.getColumnDescriptor(), primitive.getId()));
        }
        // the file stores something else under this id: treat it as absent rather than misread it
        return Optional.empty();
    }

    static ColumnIO childById(GroupColumnIO group, int fieldId)
    {
        for (int i = 0; i < group.getChildrenCount(); i++) {
            ColumnIO child = group.getChild(i);
            if (child.getType().getId() != null && child.getType().getId().intValue() == fieldId) {
                return child;
            }
        }
        return null;
    }
}

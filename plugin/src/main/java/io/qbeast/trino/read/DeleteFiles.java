package io.qbeast.trino.read;

import com.google.common.collect.ImmutableList;
import io.qbeast.iceberg.QbeastConversion;
import io.qbeast.trino.encoding.TypeConverter;
import io.qbeast.trino.handle.QbeastColumnHandle;
import io.qbeast.trino.handle.QbeastDeleteFile;
import io.qbeast.trino.parquet.DeleteFileReader;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.type.TypeManager;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;

import java.util.List;

import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_INVALID_METADATA;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;

/**
 * The delete files Iceberg's planning attached to a data file, as a split carries them: Parquet
 * position and equality deletes of format version 2, each equality delete with its columns typed
 * by the table's schema. Anything else is refused before a split is read.
 */
public final class DeleteFiles
{
    private DeleteFiles() {}

    public static List<QbeastDeleteFile> toHandles(List<DeleteFile> deletes, Schema schema, TypeManager typeManager)
    {
        if (deletes.isEmpty()) {
            return List.of();
        }
        ImmutableList.Builder<QbeastDeleteFile> handles = ImmutableList.builder();
        for (DeleteFile delete : deletes) {
            QbeastDeleteFile handle = switch (delete.content()) {
                case POSITION_DELETES -> new QbeastDeleteFile(delete.location(), delete.format().name(), QbeastDeleteFile.Content.POSITION_DELETES, delete.recordCount(), delete.fileSizeInBytes(), List.of());
                case EQUALITY_DELETES -> new QbeastDeleteFile(delete.location(), delete.format().name(), QbeastDeleteFile.Content.EQUALITY_DELETES, delete.recordCount(), delete.fileSizeInBytes(), equalityColumns(delete, schema, typeManager));
                default -> throw new TrinoException(QBEAST_INVALID_METADATA, "Delete file %s has content %s".formatted(delete.location(), delete.content()));
            };
            DeleteFileReader.checkFormat(handle);
            handles.add(handle);
        }
        return handles.build();
    }

    private static List<QbeastColumnHandle> equalityColumns(DeleteFile delete, Schema schema, TypeManager typeManager)
    {
        List<Integer> ids = delete.equalityFieldIds();
        if (ids == null || ids.isEmpty()) {
            throw new TrinoException(QBEAST_INVALID_METADATA, "Equality delete file %s has no equality field ids".formatted(delete.location()));
        }
        ImmutableList.Builder<QbeastColumnHandle> columns = ImmutableList.builder();
        for (int id : ids) {
            Types.NestedField field = schema.findField(id);
            if (field == null || !field.type().isPrimitiveType()) {
                throw new TrinoException(NOT_SUPPORTED, "Equality delete file %s deletes by field id %s, which is %s of the table's schema".formatted(
                        delete.location(), id, field == null ? "not a column" : "the non-primitive column " + field.name()));
            }
            columns.add(new QbeastColumnHandle(field.name(), id, TypeConverter.toTrinoType(field.type(), typeManager), false));
        }
        return columns.build();
    }

    /**
     * Refuses to read a table of Iceberg format version 3 or later: its deletion vectors, row
     * lineage and default values are not applied by qbeast's reader, whose answers could be wrong.
     */
    public static void checkFormatVersion(SchemaTableName name, Table table)
    {
        if (table instanceof HasTableOperations operations) {
            int version = operations.operations().current().formatVersion();
            if (version > QbeastConversion.MAX_FORMAT_VERSION) {
                throw new TrinoException(NOT_SUPPORTED, "Table %s has Iceberg format version %s; qbeast reads format versions 1 and %s only (deletion vectors and the other features of version %s are not applied)".formatted(
                        name, version, QbeastConversion.MAX_FORMAT_VERSION, version));
            }
        }
    }
}

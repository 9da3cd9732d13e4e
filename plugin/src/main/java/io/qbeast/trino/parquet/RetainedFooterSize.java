package io.qbeast.trino.parquet;

import io.trino.parquet.metadata.ParquetMetadata;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.ColumnOrder;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.KeyValue;
import org.apache.parquet.format.LogicalType;
import org.apache.parquet.format.PageEncodingStats;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.SchemaElement;
import org.apache.parquet.format.SizeStatistics;
import org.apache.parquet.format.SortingColumn;
import org.apache.parquet.format.Statistics;
import org.apache.parquet.schema.PrimitiveType;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;

import static io.airlift.slice.SizeOf.LONG_INSTANCE_SIZE;
import static io.airlift.slice.SizeOf.estimatedSizeOf;
import static io.airlift.slice.SizeOf.instanceSize;
import static io.airlift.slice.SizeOf.sizeOfByteArray;
import static io.airlift.slice.SizeOf.sizeOfObjectArray;

/**
 * An estimate of the heap a parsed footer holds, the weight of {@link FooterCache}'s entries:
 * the Thrift objects object by object (a column chunk's metadata, its path, encodings and
 * statistics dominate: a qbeast file has hundreds of row groups), and the file schema converted
 * from it. Thrift copies each binary value into a buffer of its own, so a buffer is its bytes
 * (read through the fields: the generated {@code bufferFor...} getters copy).
 */
final class RetainedFooterSize
{
    private static final int ARRAY_LIST = instanceSize(ArrayList.class);
    private static final int BYTE_BUFFER = instanceSize(ByteBuffer.wrap(new byte[0]).getClass());
    private static final int PARQUET_METADATA = instanceSize(ParquetMetadata.class);
    private static final int FILE_METADATA = instanceSize(FileMetaData.class);
    private static final int SCHEMA_ELEMENT = instanceSize(SchemaElement.class);
    // a logical type is a union holding one small struct
    private static final int LOGICAL_TYPE = instanceSize(LogicalType.class) + 32;
    private static final int KEY_VALUE = instanceSize(KeyValue.class);
    private static final int COLUMN_ORDER = instanceSize(ColumnOrder.class) + 16;
    private static final int ROW_GROUP = instanceSize(RowGroup.class);
    private static final int SORTING_COLUMN = instanceSize(SortingColumn.class);
    private static final int COLUMN_CHUNK = instanceSize(ColumnChunk.class);
    private static final int COLUMN_METADATA = instanceSize(ColumnMetaData.class);
    private static final int STATISTICS = instanceSize(Statistics.class);
    private static final int PAGE_ENCODING_STATS = instanceSize(PageEncodingStats.class);
    private static final int SIZE_STATISTICS = instanceSize(SizeStatistics.class);
    // a converted schema field (type, name, id) of the file schema ParquetMetadata keeps
    private static final int SCHEMA_FIELD = instanceSize(PrimitiveType.class) + 64;

    private RetainedFooterSize() {}

    static long of(ParquetMetadata metadata)
    {
        FileMetaData footer = metadata.getParquetMetadata();
        long size = (long) PARQUET_METADATA + FILE_METADATA;
        size += list(footer.getSchema(), element -> SCHEMA_ELEMENT + SCHEMA_FIELD + 2 * estimatedSizeOf(element.getName()) + (element.isSetLogicalType() ? LOGICAL_TYPE : 0));
        // the key-value metadata twice: in the footer, and as ParquetMetadata's map of the same strings
        size += 2 * list(footer.getKey_value_metadata(), RetainedFooterSize::keyValue);
        size += estimatedSizeOf(footer.getCreated_by());
        size += list(footer.getColumn_orders(), _ -> COLUMN_ORDER);
        size += list(footer.getRow_groups(), RetainedFooterSize::rowGroup);
        return size;
    }

    private static long rowGroup(RowGroup rowGroup)
    {
        return ROW_GROUP
                + list(rowGroup.getColumns(), RetainedFooterSize::columnChunk)
                + list(rowGroup.getSorting_columns(), _ -> SORTING_COLUMN);
    }

    private static long columnChunk(ColumnChunk chunk)
    {
        long size = COLUMN_CHUNK + estimatedSizeOf(chunk.getFile_path()) + buffer(chunk.encrypted_column_metadata);
        ColumnMetaData metadata = chunk.getMeta_data();
        if (metadata == null) {
            return size;
        }
        size += COLUMN_METADATA;
        // encodings are shared enum constants: only the list's references
        size += list(metadata.getEncodings(), _ -> 0);
        size += list(metadata.getPath_in_schema(), name -> estimatedSizeOf(name));
        size += list(metadata.getKey_value_metadata(), RetainedFooterSize::keyValue);
        size += list(metadata.getEncoding_stats(), _ -> PAGE_ENCODING_STATS);
        Statistics statistics = metadata.getStatistics();
        if (statistics != null) {
            size += STATISTICS
                    + buffer(statistics.min)
                    + buffer(statistics.max)
                    + buffer(statistics.min_value)
                    + buffer(statistics.max_value);
        }
        SizeStatistics sizeStatistics = metadata.getSize_statistics();
        if (sizeStatistics != null) {
            size += SIZE_STATISTICS
                    + list(sizeStatistics.getRepetition_level_histogram(), _ -> LONG_INSTANCE_SIZE)
                    + list(sizeStatistics.getDefinition_level_histogram(), _ -> LONG_INSTANCE_SIZE);
        }
        return size;
    }

    private static long keyValue(KeyValue keyValue)
    {
        return KEY_VALUE + estimatedSizeOf(keyValue.getKey()) + estimatedSizeOf(keyValue.getValue());
    }

    private static long buffer(ByteBuffer buffer)
    {
        return buffer == null ? 0 : BYTE_BUFFER + sizeOfByteArray(buffer.capacity());
    }

    private static <T> long list(List<T> list, ToLongFunction<T> elementSize)
    {
        if (list == null) {
            return 0;
        }
        long size = ARRAY_LIST + sizeOfObjectArray(list.size());
        for (T element : list) {
            size += elementSize.applyAsLong(element);
        }
        return size;
    }
}

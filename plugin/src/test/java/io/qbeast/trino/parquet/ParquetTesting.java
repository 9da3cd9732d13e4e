package io.qbeast.trino.parquet;

import com.google.common.collect.ImmutableList;
import io.airlift.units.DataSize;
import io.qbeast.trino.encoding.TypeConverter;
import io.qbeast.trino.handle.QbeastColumnHandle;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.parquet.writer.ParquetWriterOptions;
import io.trino.spi.Page;
import io.trino.spi.block.ArrayBlockBuilder;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.MapBlockBuilder;
import io.trino.spi.block.RowBlockBuilder;
import io.trino.spi.block.SqlMap;
import io.trino.spi.block.SqlRow;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.type.ArrayType;
import io.trino.spi.type.MapType;
import io.trino.spi.type.RowType;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeDescriptor;
import io.trino.spi.type.TypeManager;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types.NestedField;
import org.apache.parquet.format.CompressionCodec;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Util;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.qbeast.trino.handle.QbeastColumnHandle.CUBE_COLUMN;
import static io.qbeast.trino.handle.QbeastColumnHandle.WEIGHT_COLUMN;
import static io.trino.spi.type.TypeUtils.readNativeValue;
import static io.trino.spi.type.TypeUtils.writeNativeValue;
import static io.trino.type.InternalTypeManager.TESTING_TYPE_MANAGER;
import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * Builds pages from plain Java values and reads pages back into the same representation:
 * Trino native values for primitives (Long, Double, Boolean, Slice, Int128,
 * LongTimestampWithTimeZone), {@code List} for rows and arrays, {@code Map} for maps, null for NULL.
 */
final class ParquetTesting
{
    static final TypeManager TYPE_MANAGER = TESTING_TYPE_MANAGER;
    static final ParquetReaderOptions READER_OPTIONS = ParquetReaderOptions.defaultOptions();
    static final ParquetWriterOptions WRITER_OPTIONS = ParquetWriterOptions.builder().build();
    static final QbeastPageSourceFactory PAGE_SOURCE_FACTORY = new QbeastPageSourceFactory();

    private ParquetTesting() {}

    static MapType mapType(Type key, Type value)
    {
        return (MapType) TYPE_MANAGER.getType(TypeDescriptor.mapType(key.getTypeDescriptor(), value.getTypeDescriptor()));
    }

    static Schema schema(List<ColumnMetadata> columns)
    {
        return TypeConverter.toIcebergSchema(columns);
    }

    static ColumnMetadata column(String name, Type type)
    {
        return new ColumnMetadata(name, type);
    }

    /**
     * Handles as the connector makes them: Trino type read back from the Iceberg type.
     */
    static List<QbeastColumnHandle> handles(Schema schema)
    {
        ImmutableList.Builder<QbeastColumnHandle> handles = ImmutableList.builder();
        for (NestedField field : schema.columns()) {
            boolean hidden = field.name().equals(WEIGHT_COLUMN) || field.name().equals(CUBE_COLUMN);
            handles.add(new QbeastColumnHandle(field.name(), field.fieldId(), TypeConverter.toTrinoType(field.type(), TYPE_MANAGER), hidden));
        }
        return handles.build();
    }

    static QbeastColumnHandle handle(List<QbeastColumnHandle> handles, String name)
    {
        return handles.stream().filter(handle -> handle.name().equals(name)).findFirst().orElseThrow();
    }

    static WrittenFile write(TrinoFileSystem fileSystem, Location location, Schema schema, List<Type> types, List<List<Object>> rows, ParquetWriterOptions options, Map<String, String> properties)
    {
        return write(fileSystem, location, schema, types, rows, options, properties, false);
    }

    static WrittenFile write(TrinoFileSystem fileSystem, Location location, Schema schema, List<Type> types, List<List<Object>> rows, ParquetWriterOptions options, Map<String, String> properties, boolean weightOrdered)
    {
        QbeastParquetFileWriter writer = new QbeastParquetFileWriter(fileSystem, location, schema, types, options, CompressionCodec.SNAPPY, properties, weightOrdered);
        // several pages, to exercise statistics merging across pages and row groups
        for (int start = 0; start < rows.size(); start += 700) {
            writer.appendPage(page(types, rows.subList(start, Math.min(rows.size(), start + 700))));
        }
        return writer.commit();
    }

    /**
     * Row groups of a few hundred small rows: the writer flushes a row group once its buffered
     * bytes reach the block size (and splits pages into chunks of at most half of it), so the
     * exact row counts depend on encoding; tests read them from the footer.
     */
    static ParquetWriterOptions smallRowGroups()
    {
        return ParquetWriterOptions.builder()
                .setMaxBlockSize(DataSize.of(8, DataSize.Unit.KILOBYTE))
                .build();
    }

    static FileMetaData readFooter(Path file)
    {
        try {
            byte[] bytes = Files.readAllBytes(file);
            if (!new String(bytes, bytes.length - 4, 4, UTF_8).equals("PAR1")) {
                throw new AssertionError("not a Parquet file: " + file);
            }
            int footerLength = ByteBuffer.wrap(bytes, bytes.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
            return Util.readFileMetaData(new ByteArrayInputStream(bytes, bytes.length - 8 - footerLength, footerLength));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<Long> rowGroupRowCounts(Path file)
    {
        return readFooter(file).getRow_groups().stream().map(RowGroup::getNum_rows).collect(ImmutableList.toImmutableList());
    }

    static ConnectorPageSource open(TrinoFileSystem fileSystem, WrittenFile file, List<QbeastColumnHandle> columns, Optional<Schema> tableSchema, TupleDomain<QbeastColumnHandle> predicate, long weightUpperBound)
    {
        Location location = Location.of(file.path());
        return PAGE_SOURCE_FACTORY.createPageSource(
                fileSystem.newInputFile(location, file.fileSizeInBytes()),
                0,
                file.fileSizeInBytes(),
                file.fileSizeInBytes(),
                columns,
                tableSchema,
                predicate,
                weightUpperBound,
                READER_OPTIONS);
    }

    static Page page(List<Type> types, List<List<Object>> rows)
    {
        Block[] blocks = new Block[types.size()];
        for (int channel = 0; channel < types.size(); channel++) {
            Type type = types.get(channel);
            BlockBuilder builder = type.createBlockBuilder(null, rows.size());
            for (List<Object> row : rows) {
                append(type, builder, row.get(channel));
            }
            blocks[channel] = builder.build();
        }
        return new Page(rows.size(), blocks);
    }

    @SuppressWarnings("unchecked")
    static void append(Type type, BlockBuilder builder, Object value)
    {
        if (value == null) {
            builder.appendNull();
            return;
        }
        switch (type) {
            case RowType rowType -> {
                List<Object> fields = (List<Object>) value;
                ((RowBlockBuilder) builder).buildEntry(fieldBuilders -> {
                    for (int i = 0; i < fields.size(); i++) {
                        append(rowType.getFields().get(i).getType(), fieldBuilders.get(i), fields.get(i));
                    }
                });
            }
            case ArrayType arrayType -> ((ArrayBlockBuilder) builder).buildEntry(elementBuilder -> {
                for (Object element : (List<Object>) value) {
                    append(arrayType.getElementType(), elementBuilder, element);
                }
            });
            case MapType mapType -> ((MapBlockBuilder) builder).buildEntry((keyBuilder, valueBuilder) -> {
                for (Map.Entry<Object, Object> entry : ((Map<Object, Object>) value).entrySet()) {
                    append(mapType.getKeyType(), keyBuilder, entry.getKey());
                    append(mapType.getValueType(), valueBuilder, entry.getValue());
                }
            });
            default -> writeNativeValue(type, builder, value);
        }
    }

    static Object read(Type type, Block block, int position)
    {
        if (block.isNull(position)) {
            return null;
        }
        return switch (type) {
            case RowType rowType -> {
                SqlRow row = rowType.getObject(block, position);
                List<Object> fields = new ArrayList<>();
                for (int i = 0; i < row.getFieldCount(); i++) {
                    fields.add(read(rowType.getFields().get(i).getType(), row.getRawFieldBlock(i), row.getRawIndex()));
                }
                yield fields;
            }
            case ArrayType arrayType -> {
                Block elements = arrayType.getObject(block, position);
                List<Object> values = new ArrayList<>();
                for (int i = 0; i < elements.getPositionCount(); i++) {
                    values.add(read(arrayType.getElementType(), elements, i));
                }
                yield values;
            }
            case MapType mapType -> {
                SqlMap map = mapType.getObject(block, position);
                Map<Object, Object> values = new LinkedHashMap<>();
                for (int i = 0; i < map.getSize(); i++) {
                    values.put(
                            read(mapType.getKeyType(), map.getRawKeyBlock(), map.getRawOffset() + i),
                            read(mapType.getValueType(), map.getRawValueBlock(), map.getRawOffset() + i));
                }
                yield values;
            }
            default -> readNativeValue(type, block, position);
        };
    }

    static List<List<Object>> readAll(ConnectorPageSource source, List<Type> types)
    {
        List<List<Object>> rows = new ArrayList<>();
        try (source) {
            while (!source.isFinished()) {
                SourcePage page = source.getNextSourcePage();
                if (page == null) {
                    continue;
                }
                if (page.getChannelCount() != types.size()) {
                    throw new AssertionError("page has %s channels, expected %s".formatted(page.getChannelCount(), types.size()));
                }
                for (int position = 0; position < page.getPositionCount(); position++) {
                    List<Object> row = new ArrayList<>();
                    for (int channel = 0; channel < types.size(); channel++) {
                        row.add(read(types.get(channel), page.getBlock(channel), position));
                    }
                    rows.add(row);
                }
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return rows;
    }

    static List<Type> types(List<QbeastColumnHandle> handles)
    {
        return handles.stream().map(QbeastColumnHandle::type).collect(ImmutableList.toImmutableList());
    }

    static List<Object> project(List<Object> row, int... channels)
    {
        List<Object> projected = new ArrayList<>();
        for (int channel : channels) {
            projected.add(row.get(channel));
        }
        return projected;
    }
}

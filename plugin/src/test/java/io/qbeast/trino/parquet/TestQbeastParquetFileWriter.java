package io.qbeast.trino.parquet;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.airlift.json.JsonCodec;
import io.airlift.slice.Slice;
import io.qbeast.trino.handle.QbeastColumnHandle;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.filesystem.local.LocalFileSystem;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.type.Int128;
import io.trino.spi.type.LongTimestampWithTimeZone;
import io.trino.spi.type.RowType;
import io.trino.spi.type.Type;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.InclusiveMetricsEvaluator;
import org.apache.iceberg.types.Comparators;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.types.Types.NestedField;
import org.apache.iceberg.util.BinaryUtil;
import org.apache.iceberg.util.UnicodeUtil;
import org.apache.parquet.format.CompressionCodec;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.SchemaElement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_FILESYSTEM_ERROR;
import static io.qbeast.trino.handle.QbeastColumnHandle.CUBE_COLUMN;
import static io.qbeast.trino.handle.QbeastColumnHandle.WEIGHT_COLUMN;
import static io.qbeast.trino.parquet.ParquetTesting.WRITER_OPTIONS;
import static io.qbeast.trino.parquet.ParquetTesting.column;
import static io.qbeast.trino.parquet.ParquetTesting.page;
import static io.qbeast.trino.parquet.ParquetTesting.schema;
import static io.qbeast.trino.parquet.ParquetTesting.smallRowGroups;
import static io.qbeast.trino.parquet.ParquetTesting.write;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.UuidType.trinoUuidToJavaUuid;
import static io.trino.spi.type.VarbinaryType.VARBINARY;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestQbeastParquetFileWriter
{
    private static final int ROWS = 3000;

    @TempDir
    Path directory;

    @Test
    void testMetricsMatchWrittenValues()
    {
        TrinoFileSystem fileSystem = new LocalFileSystem(directory);
        Schema schema = schema(AllTypesTable.COLUMNS);
        List<List<Object>> rows = AllTypesTable.rows(ROWS, 1);
        // several row groups, so bounds and counts are merged across them
        WrittenFile file = write(fileSystem, Location.of("local:///metrics.parquet"), schema, AllTypesTable.TYPES, rows, smallRowGroups(), ImmutableMap.of());

        assertThat(file.splitOffsets()).hasSizeGreaterThan(3);
        assertThat(file.splitOffsets()).isSorted();
        assertThat(file.recordCount()).isEqualTo(ROWS);
        assertThat(file.fileSizeInBytes()).isEqualTo(directory.resolve("metrics.parquet").toFile().length());
        IcebergMetrics metrics = file.metrics();
        assertThat(metrics.recordCount()).isEqualTo(ROWS);

        int checkedBounds = 0;
        for (Leaf leaf : leaves(schema, AllTypesTable.TYPES)) {
            int id = leaf.field().fieldId();
            assertThat(metrics.columnSizes().get(id)).as("column size of %s", leaf.name()).isPositive();
            if (!leaf.structsOnly() || leaf.field().type().typeId() == org.apache.iceberg.types.Type.TypeID.UUID) {
                // Parquet orders UUIDs as unsigned bytes, Iceberg 1.9 as signed longs: no bounds beat wrong bounds
                // Iceberg keeps no bounds for values inside lists and maps
                assertThat(metrics.lowerBounds()).as("bounds of %s", leaf.name()).doesNotContainKey(id);
                assertThat(metrics.upperBounds()).as("bounds of %s", leaf.name()).doesNotContainKey(id);
                assertThat(metrics.valueCounts()).containsKey(id);
                continue;
            }
            List<Object> values = rows.stream().map(leaf.extractor()).toList();
            long nulls = values.stream().filter(Objects::isNull).count();
            assertThat(metrics.valueCounts().get(id)).as("value count of %s", leaf.name()).isEqualTo(ROWS);
            assertThat(metrics.nullValueCounts().get(id)).as("null count of %s", leaf.name()).isEqualTo(nulls);

            org.apache.iceberg.types.Type type = leaf.field().type();
            List<Object> icebergValues = values.stream()
                    .filter(Objects::nonNull)
                    .map(value -> toIceberg(leaf.trinoType(), value))
                    .toList();
            if (type.typeId() == org.apache.iceberg.types.Type.TypeID.FLOAT || type.typeId() == org.apache.iceberg.types.Type.TypeID.DOUBLE) {
                long nans = icebergValues.stream().filter(value -> Double.isNaN(((Number) value).doubleValue())).count();
                assertThat(nans).as("test data has NaN in %s", leaf.name()).isPositive();
                assertThat(metrics.nanValueCounts().get(id)).as("NaN count of %s", leaf.name()).isEqualTo(nans);
                icebergValues = icebergValues.stream().filter(value -> !Double.isNaN(((Number) value).doubleValue())).toList();
            }
            Comparator<Object> comparator = comparator(type);
            Object min = icebergValues.stream().min(comparator).orElseThrow();
            Object max = icebergValues.stream().max(comparator).orElseThrow();
            Object expectedLower = min;
            Object expectedUpper = max;
            boolean indexColumn = leaf.name().equals(WEIGHT_COLUMN) || leaf.name().equals(CUBE_COLUMN);
            if (!indexColumn && type.typeId() == org.apache.iceberg.types.Type.TypeID.STRING) {
                expectedLower = UnicodeUtil.truncateStringMin((String) min, 16);
                expectedUpper = UnicodeUtil.truncateStringMax((String) max, 16);
            }
            if (!indexColumn && type.typeId() == org.apache.iceberg.types.Type.TypeID.BINARY) {
                expectedLower = BinaryUtil.truncateBinaryMin((ByteBuffer) min, 16);
                expectedUpper = BinaryUtil.truncateBinaryMax((ByteBuffer) max, 16);
            }
            assertThat(decode(type, metrics.lowerBounds().get(id))).as("lower bound of %s", leaf.name()).isEqualTo(expectedLower);
            assertThat(decode(type, metrics.upperBounds().get(id))).as("upper bound of %s", leaf.name()).isEqualTo(expectedUpper);
            checkedBounds++;
        }
        assertThat(checkedBounds).isEqualTo(23);

        // the cube bounds are whole 40-byte ids, not 16-byte prefixes
        int cubeId = schema.findField(CUBE_COLUMN).fieldId();
        assertThat(metrics.lowerBounds().get(cubeId)).hasSize(40);
        assertThat(metrics.upperBounds().get(cubeId)).hasSize(40);
    }

    @Test
    void testIndexColumnsKeepFullBoundsWhateverTheMetricsConfig()
    {
        TrinoFileSystem fileSystem = new LocalFileSystem(directory);
        Schema schema = schema(ImmutableList.of(column("name", VARCHAR), column("n", BIGINT), column(WEIGHT_COLUMN, INTEGER), column(CUBE_COLUMN, VARBINARY)));
        List<Type> types = ImmutableList.of(VARCHAR, BIGINT, INTEGER, VARBINARY);
        byte[] cube = "0123456789abcdefghijklmnopqrstuvwxyz-cube".getBytes(UTF_8);
        List<List<Object>> rows = ImmutableList.of(
                row(slice("a-very-long-name-longer-than-sixteen"), 1L, 10L, io.airlift.slice.Slices.wrappedBuffer(cube)),
                row(slice("b"), 2L, -5L, io.airlift.slice.Slices.wrappedBuffer(cube)));

        // no metrics for anything by default, full bounds for one column: the index columns still get full bounds
        IcebergMetrics metrics = write(fileSystem, Location.of("local:///none.parquet"), schema, types, rows, WRITER_OPTIONS, ImmutableMap.of(
                "write.metadata.metrics.default", "none",
                "write.metadata.metrics.column.n", "counts")).metrics();
        int nameId = schema.findField("name").fieldId();
        int nId = schema.findField("n").fieldId();
        int weightId = schema.findField(WEIGHT_COLUMN).fieldId();
        int cubeId = schema.findField(CUBE_COLUMN).fieldId();
        assertThat(metrics.lowerBounds().keySet()).containsExactlyInAnyOrder(weightId, cubeId);
        assertThat(metrics.valueCounts().keySet()).containsExactlyInAnyOrder(nId, weightId, cubeId);
        assertThat(metrics.nullValueCounts().get(nId)).isZero();
        assertThat(metrics.columnSizes().keySet()).containsExactlyInAnyOrder(nameId, nId, weightId, cubeId);
        assertThat(decode(Types.IntegerType.get(), metrics.lowerBounds().get(weightId))).isEqualTo(-5);
        assertThat(decode(Types.IntegerType.get(), metrics.upperBounds().get(weightId))).isEqualTo(10);
        assertThat(metrics.lowerBounds().get(cubeId)).isEqualTo(cube);
        assertThat(metrics.upperBounds().get(cubeId)).isEqualTo(cube);

        // a table asking for truncate(4) on everything: strings truncated, the cube not
        metrics = write(fileSystem, Location.of("local:///truncate.parquet"), schema, types, rows, WRITER_OPTIONS, ImmutableMap.of(
                "write.metadata.metrics.default", "truncate(4)")).metrics();
        assertThat(new String(metrics.lowerBounds().get(nameId), UTF_8)).isEqualTo("a-ve");
        assertThat(new String(metrics.upperBounds().get(nameId), UTF_8)).isEqualTo("b");
        assertThat(metrics.upperBounds().get(cubeId)).isEqualTo(cube);

        // an Iceberg scan evaluates these bounds: the manifests are the index
        DataFile dataFile = dataFile("local:///truncate.parquet", metrics.toIcebergMetrics());
        assertThat(new InclusiveMetricsEvaluator(schema, Expressions.lessThan(WEIGHT_COLUMN, -5)).eval(dataFile)).isFalse();
        assertThat(new InclusiveMetricsEvaluator(schema, Expressions.lessThan(WEIGHT_COLUMN, -4)).eval(dataFile)).isTrue();
        assertThat(new InclusiveMetricsEvaluator(schema, Expressions.equal(CUBE_COLUMN, ByteBuffer.wrap(cube))).eval(dataFile)).isTrue();
        byte[] otherCube = cube.clone();
        otherCube[39]++;
        // differs after byte 16: only full bounds can tell
        assertThat(new InclusiveMetricsEvaluator(schema, Expressions.equal(CUBE_COLUMN, ByteBuffer.wrap(otherCube))).eval(dataFile)).isFalse();
    }

    @Test
    void testParquetSchemaCarriesIcebergFieldIds()
            throws IOException
    {
        TrinoFileSystem fileSystem = new LocalFileSystem(directory);
        Schema schema = schema(AllTypesTable.COLUMNS);
        write(fileSystem, Location.of("local:///ids.parquet"), schema, AllTypesTable.TYPES, AllTypesTable.rows(10, 2), WRITER_OPTIONS, ImmutableMap.of());

        // read the footer with parquet-format's thrift classes only, not with trino-parquet
        FileMetaData footer = ParquetTesting.readFooter(directory.resolve("ids.parquet"));
        List<SchemaElement> elements = footer.getSchema();
        Map<Integer, String> idToName = new HashMap<>();
        for (SchemaElement element : elements.subList(1, elements.size())) {
            if (element.isSetField_id()) {
                assertThat(idToName.put(element.getField_id(), element.getName())).as("duplicate id %s", element.getField_id()).isNull();
            }
            else {
                // only the repeated groups of lists and maps have no Iceberg field
                assertThat(element.getName()).isIn("list", "key_value");
            }
        }
        Map<Integer, NestedField> icebergFields = TypeUtil.indexById(schema.asStruct());
        assertThat(idToName.keySet()).isEqualTo(icebergFields.keySet());
        icebergFields.forEach((id, field) -> assertThat(idToName.get(id)).isEqualTo(field.name()));
        assertThat(footer.getNum_rows()).isEqualTo(10);
        assertThat(footer.getCreated_by()).contains("qbeast");
    }

    @Test
    void testRollbackDeletesFile()
    {
        TrinoFileSystem fileSystem = new LocalFileSystem(directory);
        Schema schema = schema(ImmutableList.of(column("n", BIGINT)));
        QbeastParquetFileWriter writer = new QbeastParquetFileWriter(fileSystem, Location.of("local:///rollback.parquet"), schema, ImmutableList.of(BIGINT), WRITER_OPTIONS, CompressionCodec.ZSTD, ImmutableMap.of());
        writer.appendPage(page(ImmutableList.of(BIGINT), ImmutableList.of(row(1L), row(2L))));
        assertThat(Files.exists(directory.resolve("rollback.parquet"))).isTrue();
        assertThat(writer.getMemoryUsage()).isPositive();
        writer.rollback();
        assertThat(Files.exists(directory.resolve("rollback.parquet"))).isFalse();
        // idempotent, and never throws
        writer.rollback();
        assertThatThrownBy(writer::commit).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void testNeverOverwritesAFile()
            throws IOException
    {
        TrinoFileSystem fileSystem = new LocalFileSystem(directory);
        Files.write(directory.resolve("exists.parquet"), new byte[] {1, 2, 3});
        Schema schema = schema(ImmutableList.of(column("n", BIGINT)));
        assertThatThrownBy(() -> new QbeastParquetFileWriter(fileSystem, Location.of("local:///exists.parquet"), schema, ImmutableList.of(BIGINT), WRITER_OPTIONS, CompressionCodec.ZSTD, ImmutableMap.of()))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(QBEAST_FILESYSTEM_ERROR.toErrorCode()));
        assertThat(Files.readAllBytes(directory.resolve("exists.parquet"))).containsExactly(1, 2, 3);
    }

    @Test
    void testRejectsTypesThatDoNotMatchTheSchema()
    {
        TrinoFileSystem fileSystem = new LocalFileSystem(directory);
        Schema schema = schema(ImmutableList.of(column("n", BIGINT)));
        assertThatThrownBy(() -> new QbeastParquetFileWriter(fileSystem, Location.of("local:///mismatch.parquet"), schema, ImmutableList.of(VARCHAR), WRITER_OPTIONS, CompressionCodec.ZSTD, ImmutableMap.of()))
                .hasMessageContaining("Column n");
        assertThatThrownBy(() -> new QbeastParquetFileWriter(fileSystem, Location.of("local:///mismatch.parquet"), schema, ImmutableList.of(BIGINT, BIGINT), WRITER_OPTIONS, CompressionCodec.ZSTD, ImmutableMap.of()))
                .hasMessageContaining("1 columns but 2 types");
        assertThat(Files.exists(directory.resolve("mismatch.parquet"))).isFalse();
    }

    @Test
    void testEmptyFile()
    {
        TrinoFileSystem fileSystem = new LocalFileSystem(directory);
        Schema schema = schema(ImmutableList.of(column("n", BIGINT), column(CUBE_COLUMN, VARBINARY)));
        QbeastParquetFileWriter writer = new QbeastParquetFileWriter(fileSystem, Location.of("local:///empty.parquet"), schema, ImmutableList.of(BIGINT, VARBINARY), WRITER_OPTIONS, CompressionCodec.ZSTD, ImmutableMap.of());
        writer.appendPage(new Page(0, BIGINT.createBlockBuilder(null, 0).build(), VARBINARY.createBlockBuilder(null, 0).build()));
        WrittenFile file = writer.commit();
        assertThat(file.recordCount()).isZero();
        assertThat(file.splitOffsets()).isEmpty();
        assertThat(file.metrics().lowerBounds()).isEmpty();
    }

    @Test
    void testWritesDictionaryAndRunLengthBlocks()
    {
        // the sink hands over positions of buffered pages (dictionary views) and constant columns (RLE)
        TrinoFileSystem fileSystem = new LocalFileSystem(directory);
        RowType rowType = RowType.rowType(RowType.field("d", io.trino.spi.type.DoubleType.DOUBLE));
        Schema schema = schema(ImmutableList.of(column("d", io.trino.spi.type.DoubleType.DOUBLE), column("r", rowType), column("missing", VARCHAR)));
        List<Type> types = ImmutableList.of(io.trino.spi.type.DoubleType.DOUBLE, rowType, VARCHAR);
        Page values = page(types, ImmutableList.of(
                row(1.5, row(Double.NaN), null),
                row(Double.NaN, row(-2.0), null),
                row(-7.25, null, null)));
        int[] positions = {2, 0, 1, 1, 0};
        Page page = new Page(
                positions.length,
                io.trino.spi.block.DictionaryBlock.create(positions.length, values.getBlock(0), positions),
                io.trino.spi.block.DictionaryBlock.create(positions.length, values.getBlock(1), positions),
                io.trino.spi.block.RunLengthEncodedBlock.create(VARCHAR.createBlockBuilder(null, 1).appendNull().build(), positions.length));
        QbeastParquetFileWriter writer = new QbeastParquetFileWriter(fileSystem, Location.of("local:///views.parquet"), schema, types, WRITER_OPTIONS, CompressionCodec.SNAPPY, ImmutableMap.of());
        writer.appendPage(page);
        IcebergMetrics metrics = writer.commit().metrics();

        int d = schema.findField("d").fieldId();
        int rd = schema.findField("r.d").fieldId();
        int missing = schema.findField("missing").fieldId();
        assertThat(metrics.nanValueCounts()).containsEntry(d, 2L).containsEntry(rd, 2L);
        assertThat(decode(Types.DoubleType.get(), metrics.lowerBounds().get(d))).isEqualTo(-7.25);
        assertThat(decode(Types.DoubleType.get(), metrics.upperBounds().get(d))).isEqualTo(1.5);
        assertThat(decode(Types.DoubleType.get(), metrics.lowerBounds().get(rd))).isEqualTo(-2.0);
        assertThat(decode(Types.DoubleType.get(), metrics.upperBounds().get(rd))).isEqualTo(-2.0);
        // r is null at position 0 (value 2): its field counts as null too
        assertThat(metrics.nullValueCounts()).containsEntry(rd, 1L).containsEntry(missing, 5L);
        assertThat(metrics.lowerBounds()).doesNotContainKey(missing);

        List<QbeastColumnHandle> columns = ParquetTesting.handles(schema);
        assertThat(ParquetTesting.readAll(ParquetTesting.open(fileSystem, new WrittenFile("local:///views.parquet", directory.resolve("views.parquet").toFile().length(), 5, metrics, ImmutableList.of()), columns, Optional.of(schema), io.trino.spi.predicate.TupleDomain.all(), QbeastPageSourceFactory.NO_SAMPLING), types))
                .containsExactly(
                        row(-7.25, null, null),
                        row(1.5, row(Double.NaN), null),
                        row(Double.NaN, row(-2.0), null),
                        row(Double.NaN, row(-2.0), null),
                        row(1.5, row(Double.NaN), null));
    }

    @Test
    void testWrittenFileJsonRoundTrip()
    {
        TrinoFileSystem fileSystem = new LocalFileSystem(directory);
        Schema schema = schema(AllTypesTable.COLUMNS);
        WrittenFile file = write(fileSystem, Location.of("local:///json.parquet"), schema, AllTypesTable.TYPES, AllTypesTable.rows(200, 3), WRITER_OPTIONS, ImmutableMap.of());

        JsonCodec<WrittenFile> codec = JsonCodec.jsonCodec(WrittenFile.class);
        WrittenFile decoded = codec.fromJson(codec.toJson(file));
        assertThat(decoded).isEqualTo(file);
        assertThat(decoded.metrics().lowerBounds()).isNotEmpty();

        Metrics icebergMetrics = decoded.metrics().toIcebergMetrics();
        assertThat(icebergMetrics.recordCount()).isEqualTo(200);
        assertThat(icebergMetrics.nullValueCounts()).isEqualTo(file.metrics().nullValueCounts());
        int cubeId = schema.findField(CUBE_COLUMN).fieldId();
        assertThat(icebergMetrics.upperBounds().get(cubeId)).isEqualTo(ByteBuffer.wrap(file.metrics().upperBounds().get(cubeId)));
        assertThat(IcebergMetrics.fromIcebergMetrics(icebergMetrics)).isEqualTo(file.metrics());
    }

    private static DataFile dataFile(String path, Metrics metrics)
    {
        return DataFiles.builder(PartitionSpec.unpartitioned())
                .withPath(path)
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(100)
                .withMetrics(metrics)
                .build();
    }

    private record Leaf(String name, NestedField field, Type trinoType, boolean structsOnly, Function<List<Object>, Object> extractor) {}

    // every primitive leaf reachable from the top through structs, with how to get its value from a row
    @SuppressWarnings("unchecked")
    private static List<Leaf> leaves(Schema schema, List<Type> types)
    {
        List<Leaf> leaves = new ArrayList<>();
        for (int channel = 0; channel < types.size(); channel++) {
            int index = channel;
            addLeaves(schema.columns().get(channel), types.get(channel), true, row -> row.get(index), leaves);
        }
        return leaves;
    }

    @SuppressWarnings("unchecked")
    private static void addLeaves(NestedField field, Type trinoType, boolean structsOnly, Function<List<Object>, Object> extractor, List<Leaf> leaves)
    {
        org.apache.iceberg.types.Type type = field.type();
        if (type.isStructType()) {
            RowType rowType = (RowType) trinoType;
            for (int i = 0; i < type.asStructType().fields().size(); i++) {
                int index = i;
                Function<List<Object>, Object> child = row -> {
                    List<Object> value = (List<Object>) extractor.apply(row);
                    return value == null ? null : value.get(index);
                };
                addLeaves(type.asStructType().fields().get(i), rowType.getFields().get(i).getType(), structsOnly, child, leaves);
            }
        }
        else if (type.isListType() || type.isMapType()) {
            for (NestedField nested : type.isListType() ? type.asListType().fields() : type.asMapType().fields()) {
                if (nested.type().isPrimitiveType()) {
                    leaves.add(new Leaf(nested.name(), nested, trinoType, false, _ -> null));
                }
            }
        }
        else {
            leaves.add(new Leaf(field.name(), field, trinoType, structsOnly, extractor));
        }
    }

    // Trino native value → the Java value Iceberg uses for the type
    private static Object toIceberg(Type trinoType, Object value)
    {
        return switch (trinoType.getDisplayName()) {
            case "boolean" -> value;
            case "tinyint", "smallint", "integer", "date" -> ((Long) value).intValue();
            case "bigint", "timestamp(6)" -> value;
            case "real" -> Float.intBitsToFloat(((Long) value).intValue());
            case "double" -> value;
            case "time(6)" -> (Long) value / 1_000_000L;
            case "timestamp(6) with time zone" -> {
                LongTimestampWithTimeZone timestamp = (LongTimestampWithTimeZone) value;
                yield timestamp.getEpochMillis() * 1000 + timestamp.getPicosOfMilli() / 1_000_000;
            }
            case "varchar" -> ((Slice) value).toStringUtf8();
            case "varbinary" -> ByteBuffer.wrap(((Slice) value).getBytes());
            case "uuid" -> trinoUuidToJavaUuid((Slice) value);
            default -> {
                if (trinoType instanceof io.trino.spi.type.DecimalType decimal) {
                    java.math.BigInteger unscaled = decimal.isShort() ? java.math.BigInteger.valueOf((Long) value) : ((Int128) value).toBigInteger();
                    yield new BigDecimal(unscaled, decimal.getScale());
                }
                throw new IllegalArgumentException("No conversion for " + trinoType);
            }
        };
    }

    private static Comparator<Object> comparator(org.apache.iceberg.types.Type type)
    {
        @SuppressWarnings("unchecked")
        Comparator<Object> comparator = (Comparator<Object>) Comparators.forType(type.asPrimitiveType());
        return comparator;
    }

    private static Object decode(org.apache.iceberg.types.Type type, byte[] bytes)
    {
        assertThat(bytes).as("bound of type %s", type).isNotNull();
        Object value = Conversions.fromByteBuffer(type, ByteBuffer.wrap(bytes));
        return value instanceof CharSequence sequence ? sequence.toString() : value;
    }

    private static List<Object> row(Object... values)
    {
        return Arrays.asList(values);
    }

    private static Slice slice(String value)
    {
        return io.airlift.slice.Slices.utf8Slice(value);
    }
}

package io.qbeast.trino.parquet;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.qbeast.trino.handle.QbeastColumnHandle;
import io.qbeast.trino.parquet.FloatingPointStatistics.FieldStatistics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.MetricsModes;
import org.apache.iceberg.MetricsModes.MetricsMode;
import org.apache.iceberg.MetricsUtil;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.types.Types.NestedField;
import org.apache.iceberg.util.BinaryUtil;
import org.apache.iceberg.util.UnicodeUtil;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Statistics;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

/**
 * Iceberg column metrics of a Parquet file from its footer (what trino-parquet's writer returns
 * after close), plus the floating-point statistics taken from the written values.
 *
 * <p>Per leaf column: size (compressed bytes), value count, null count from the column-chunk
 * statistics, and lower/upper bounds for leaves reached only through structs (Iceberg keeps none
 * inside lists and maps), honouring the table's {@link MetricsConfig}. The two index columns always
 * get full bounds: planning reads them back as the index and a truncated cube id is a different cube.
 * UUID columns get no bounds: Parquet orders them as unsigned bytes, Iceberg 1.9 compares them as
 * signed longs ({@code UUID.compareTo}), so Parquet's min/max would make Iceberg skip matching files.
 * A column whose statistics are missing in any row group gets no null count and no bounds.
 */
final class ParquetFileMetrics
{
    private static final Set<String> INDEX_COLUMNS = Set.of(QbeastColumnHandle.WEIGHT_COLUMN, QbeastColumnHandle.CUBE_COLUMN);

    private ParquetFileMetrics() {}

    static IcebergMetrics compute(FileMetaData footer, Schema schema, MetricsConfig metricsConfig, Map<Integer, FieldStatistics> floatingPointStatistics)
    {
        requireNonNull(footer, "footer is null");
        requireNonNull(schema, "schema is null");
        requireNonNull(metricsConfig, "metricsConfig is null");
        requireNonNull(floatingPointStatistics, "floatingPointStatistics is null");

        Map<List<String>, Leaf> leaves = leaves(schema);
        Map<Integer, MetricsMode> modes = new HashMap<>();
        for (Leaf leaf : leaves.values()) {
            modes.put(leaf.fieldId(), metricsMode(schema, metricsConfig, leaf.fieldId()));
        }

        long recordCount = 0;
        Map<Integer, Long> columnSizes = new HashMap<>();
        Map<Integer, Long> valueCounts = new HashMap<>();
        Map<Integer, Long> nullCounts = new HashMap<>();
        Map<Integer, Object> lowerBounds = new HashMap<>();
        Map<Integer, Object> upperBounds = new HashMap<>();
        Set<Integer> missingStatistics = new HashSet<>();

        for (RowGroup rowGroup : footer.getRow_groups()) {
            recordCount += rowGroup.getNum_rows();
            for (ColumnChunk chunk : rowGroup.getColumns()) {
                ColumnMetaData column = chunk.getMeta_data();
                Leaf leaf = leaves.get(column.getPath_in_schema());
                if (leaf == null) {
                    continue;
                }
                int id = leaf.fieldId();
                columnSizes.merge(id, column.getTotal_compressed_size(), Long::sum);
                MetricsMode mode = modes.get(id);
                if (mode == MetricsModes.None.get()) {
                    continue;
                }
                valueCounts.merge(id, column.getNum_values(), Long::sum);

                Statistics statistics = column.isSetStatistics() ? column.getStatistics() : null;
                if (statistics == null || !statistics.isSetNull_count()) {
                    missingStatistics.add(id);
                    continue;
                }
                nullCounts.merge(id, statistics.getNull_count(), Long::sum);

                if (mode == MetricsModes.Counts.get() || !leaf.boundsAllowed() || isFloatingPoint(leaf.type()) || leaf.type().typeId() == Type.TypeID.UUID) {
                    continue;
                }
                byte[] min = minimum(statistics, leaf.type());
                byte[] max = maximum(statistics, leaf.type());
                if (min == null || max == null) {
                    // only nulls in this row group, or a value too long for statistics
                    if (column.getNum_values() > statistics.getNull_count()) {
                        missingStatistics.add(id);
                    }
                    continue;
                }
                Object minValue = fromParquet(leaf.type(), min);
                Object maxValue = fromParquet(leaf.type(), max);
                lowerBounds.merge(id, minValue, (left, right) -> compare(leaf.type(), left, right) <= 0 ? left : right);
                upperBounds.merge(id, maxValue, (left, right) -> compare(leaf.type(), left, right) >= 0 ? left : right);
            }
        }

        for (Integer id : missingStatistics) {
            nullCounts.remove(id);
            lowerBounds.remove(id);
            upperBounds.remove(id);
        }

        Map<Integer, Long> nanCounts = new HashMap<>();
        for (FieldStatistics statistics : floatingPointStatistics.values()) {
            MetricsMode mode = modes.get(statistics.fieldId());
            if (mode == null || mode == MetricsModes.None.get()) {
                continue;
            }
            nanCounts.put(statistics.fieldId(), statistics.nanCount());
            if (mode != MetricsModes.Counts.get() && statistics.lowerBound().isPresent()) {
                lowerBounds.put(statistics.fieldId(), statistics.isDouble() ? statistics.lowerBound().get() : (Object) statistics.lowerBound().get().floatValue());
                upperBounds.put(statistics.fieldId(), statistics.isDouble() ? statistics.upperBound().orElseThrow() : (Object) statistics.upperBound().orElseThrow().floatValue());
            }
        }

        ImmutableMap.Builder<Integer, byte[]> serializedLower = ImmutableMap.builder();
        ImmutableMap.Builder<Integer, byte[]> serializedUpper = ImmutableMap.builder();
        for (Map.Entry<Integer, Object> entry : lowerBounds.entrySet()) {
            int id = entry.getKey();
            Type type = schema.findType(id);
            Object lower = truncateLower(type, entry.getValue(), modes.get(id));
            Object upper = truncateUpper(type, upperBounds.get(id), modes.get(id));
            serializedLower.put(id, serialize(type, lower));
            // a string whose prefix cannot be incremented has no truncated upper bound
            if (upper != null) {
                serializedUpper.put(id, serialize(type, upper));
            }
        }

        return new IcebergMetrics(recordCount, columnSizes, valueCounts, nullCounts, nanCounts, serializedLower.buildOrThrow(), serializedUpper.buildOrThrow());
    }

    private static MetricsMode metricsMode(Schema schema, MetricsConfig metricsConfig, int fieldId)
    {
        if (INDEX_COLUMNS.contains(schema.findColumnName(fieldId))) {
            return MetricsModes.Full.get();
        }
        return MetricsUtil.metricsMode(schema, metricsConfig, fieldId);
    }

    private static boolean isFloatingPoint(Type type)
    {
        return type.typeId() == Type.TypeID.FLOAT || type.typeId() == Type.TypeID.DOUBLE;
    }

    // prefer the statistics with a defined sort order; the legacy min/max only for signed orders,
    // which is also the only case the writer fills them in
    private static byte[] minimum(Statistics statistics, Type type)
    {
        if (statistics.isSetMin_value()) {
            return statistics.getMin_value();
        }
        return statistics.isSetMin() && isSignedOrder(type) ? statistics.getMin() : null;
    }

    private static byte[] maximum(Statistics statistics, Type type)
    {
        if (statistics.isSetMax_value()) {
            return statistics.getMax_value();
        }
        return statistics.isSetMax() && isSignedOrder(type) ? statistics.getMax() : null;
    }

    private static boolean isSignedOrder(Type type)
    {
        return switch (type.typeId()) {
            case BOOLEAN, INTEGER, LONG, DATE, TIME, TIMESTAMP, DECIMAL -> true;
            default -> false;
        };
    }

    // Parquet PLAIN encoding of a single value, into the Java value Iceberg uses for the type
    private static Object fromParquet(Type type, byte[] bytes)
    {
        ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        return switch (type.typeId()) {
            case BOOLEAN -> bytes[0] != 0;
            case INTEGER, DATE -> buffer.getInt(0);
            case LONG, TIME, TIMESTAMP -> buffer.getLong(0);
            case STRING -> new String(bytes, UTF_8);
            case BINARY, FIXED, UUID -> bytes.clone();
            case DECIMAL -> {
                int scale = ((Types.DecimalType) type).scale();
                int precision = ((Types.DecimalType) type).precision();
                if (precision <= 9) {
                    yield BigDecimal.valueOf(buffer.getInt(0), scale);
                }
                if (precision <= 18) {
                    yield BigDecimal.valueOf(buffer.getLong(0), scale);
                }
                yield new BigDecimal(new BigInteger(bytes), scale);
            }
            default -> throw new IllegalArgumentException("No Parquet statistics conversion for " + type);
        };
    }

    // the order Parquet statistics use: signed for numbers, unsigned bytes for strings and binary
    // (for UTF-8 that is code point order, which is Iceberg's string order)
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static int compare(Type type, Object left, Object right)
    {
        return switch (type.typeId()) {
            case STRING -> Arrays.compareUnsigned(((String) left).getBytes(UTF_8), ((String) right).getBytes(UTF_8));
            case BINARY, FIXED, UUID -> Arrays.compareUnsigned((byte[]) left, (byte[]) right);
            default -> ((Comparable) left).compareTo(right);
        };
    }

    private static Object truncateLower(Type type, Object value, MetricsMode mode)
    {
        if (!(mode instanceof MetricsModes.Truncate truncate)) {
            return value;
        }
        return switch (type.typeId()) {
            case STRING -> UnicodeUtil.truncateStringMin((String) value, truncate.length());
            case BINARY, FIXED -> toArray(BinaryUtil.truncateBinaryMin(ByteBuffer.wrap((byte[]) value), truncate.length()));
            default -> value;
        };
    }

    private static Object truncateUpper(Type type, Object value, MetricsMode mode)
    {
        if (!(mode instanceof MetricsModes.Truncate truncate)) {
            return value;
        }
        return switch (type.typeId()) {
            case STRING -> UnicodeUtil.truncateStringMax((String) value, truncate.length());
            case BINARY, FIXED -> {
                ByteBuffer truncated = BinaryUtil.truncateBinaryMax(ByteBuffer.wrap((byte[]) value), truncate.length());
                yield truncated == null ? null : toArray(truncated);
            }
            default -> value;
        };
    }

    private static byte[] serialize(Type type, Object value)
    {
        Object icebergValue = switch (type.typeId()) {
            case BINARY, FIXED -> ByteBuffer.wrap((byte[]) value);
            case UUID -> {
                ByteBuffer buffer = ByteBuffer.wrap((byte[]) value);
                yield new java.util.UUID(buffer.getLong(0), buffer.getLong(8));
            }
            default -> value;
        };
        return toArray(Conversions.toByteBuffer(type, icebergValue));
    }

    private static byte[] toArray(ByteBuffer buffer)
    {
        ByteBuffer duplicate = buffer.duplicate();
        byte[] bytes = new byte[duplicate.remaining()];
        duplicate.get(bytes);
        return bytes;
    }

    /**
     * The leaf columns of the Parquet file written for {@code schema}, keyed by their path in the
     * file (see {@link ParquetFileSchema}).
     */
    private static Map<List<String>, Leaf> leaves(Schema schema)
    {
        ImmutableMap.Builder<List<String>, Leaf> leaves = ImmutableMap.builder();
        for (NestedField column : schema.columns()) {
            addLeaves(column.name(), column.fieldId(), column.type(), ImmutableList.of(), true, leaves);
        }
        return leaves.buildOrThrow();
    }

    private static void addLeaves(String name, int fieldId, Type type, List<String> parentPath, boolean structsOnly, ImmutableMap.Builder<List<String>, Leaf> leaves)
    {
        List<String> path = ImmutableList.<String>builder().addAll(parentPath).add(name).build();
        switch (type.typeId()) {
            case STRUCT -> {
                for (NestedField field : type.asStructType().fields()) {
                    addLeaves(field.name(), field.fieldId(), field.type(), path, structsOnly, leaves);
                }
            }
            case LIST -> {
                NestedField element = type.asListType().fields().getFirst();
                List<String> listPath = ImmutableList.<String>builder().addAll(path).add("list").build();
                addLeaves("element", element.fieldId(), element.type(), listPath, false, leaves);
            }
            case MAP -> {
                List<NestedField> keyValue = type.asMapType().fields();
                List<String> keyValuePath = ImmutableList.<String>builder().addAll(path).add("key_value").build();
                addLeaves("key", keyValue.get(0).fieldId(), keyValue.get(0).type(), keyValuePath, false, leaves);
                addLeaves("value", keyValue.get(1).fieldId(), keyValue.get(1).type(), keyValuePath, false, leaves);
            }
            default -> leaves.put(path, new Leaf(fieldId, type, structsOnly));
        }
    }

    private record Leaf(int fieldId, Type type, boolean boundsAllowed) {}
}

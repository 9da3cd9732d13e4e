package io.qbeast.trino.parquet;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.block.RowBlock;
import io.trino.spi.type.RowType;
import io.trino.spi.type.Type;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types.NestedField;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.RealType.REAL;
import static java.util.Objects.requireNonNull;

/**
 * NaN counts and NaN-free bounds of the {@code real} and {@code double} columns of a file,
 * taken from the written values. Parquet's footer has no NaN counts, and its float statistics
 * are unreliable around NaN, so Iceberg's own writers collect these from the values too. Only
 * columns reachable through rows are tracked: Iceberg keeps no bounds inside arrays and maps.
 */
final class FloatingPointStatistics
{
    private final List<TrackedColumn> columns;

    FloatingPointStatistics(Schema schema, List<Type> columnTypes)
    {
        requireNonNull(schema, "schema is null");
        requireNonNull(columnTypes, "columnTypes is null");
        ImmutableList.Builder<TrackedColumn> columns = ImmutableList.builder();
        List<NestedField> fields = schema.columns();
        for (int channel = 0; channel < fields.size(); channel++) {
            collect(fields.get(channel), columnTypes.get(channel), ImmutableList.of(channel), columns);
        }
        this.columns = columns.build();
    }

    private static void collect(NestedField field, Type type, List<Integer> path, ImmutableList.Builder<TrackedColumn> columns)
    {
        if (type.equals(REAL) || type.equals(DOUBLE)) {
            columns.add(new TrackedColumn(field.fieldId(), type.equals(DOUBLE), path));
            return;
        }
        if (type instanceof RowType rowType && field.type().isStructType()) {
            List<NestedField> children = field.type().asStructType().fields();
            for (int i = 0; i < children.size(); i++) {
                List<Integer> childPath = ImmutableList.<Integer>builder().addAll(path).add(i).build();
                collect(children.get(i), rowType.getFields().get(i).getType(), childPath, columns);
            }
        }
    }

    void add(Page page)
    {
        for (TrackedColumn column : columns) {
            column.add(page);
        }
    }

    Map<Integer, FieldStatistics> statistics()
    {
        ImmutableMap.Builder<Integer, FieldStatistics> statistics = ImmutableMap.builder();
        for (TrackedColumn column : columns) {
            statistics.put(column.fieldId, column.statistics());
        }
        return statistics.buildOrThrow();
    }

    /**
     * @param lowerBound smallest non-NaN value by {@link Double#compare} (so -0.0 sorts before 0.0), empty when there is none
     */
    record FieldStatistics(int fieldId, boolean isDouble, long nanCount, Optional<Double> lowerBound, Optional<Double> upperBound) {}

    private static final class TrackedColumn
    {
        private final int fieldId;
        private final boolean isDouble;
        // channel, then field index at each nested row level
        private final List<Integer> path;
        private long nanCount;
        private double min = Double.NaN;
        private double max = Double.NaN;

        TrackedColumn(int fieldId, boolean isDouble, List<Integer> path)
        {
            this.fieldId = fieldId;
            this.isDouble = isDouble;
            this.path = path;
        }

        void add(Page page)
        {
            Block[] levels = new Block[path.size()];
            levels[0] = page.getBlock(path.getFirst());
            for (int level = 1; level < path.size(); level++) {
                levels[level] = RowBlock.getRowFieldsFromBlock(levels[level - 1]).get(path.get(level));
            }
            Block values = levels[levels.length - 1];
            for (int position = 0; position < page.getPositionCount(); position++) {
                if (isNull(levels, position)) {
                    continue;
                }
                double value = isDouble ? DOUBLE.getDouble(values, position) : REAL.getFloat(values, position);
                if (Double.isNaN(value)) {
                    nanCount++;
                    continue;
                }
                if (Double.isNaN(min) || Double.compare(value, min) < 0) {
                    min = value;
                }
                if (Double.isNaN(max) || Double.compare(value, max) > 0) {
                    max = value;
                }
            }
        }

        // a value inside a null row is null too
        private static boolean isNull(Block[] levels, int position)
        {
            for (Block level : levels) {
                if (level.isNull(position)) {
                    return true;
                }
            }
            return false;
        }

        FieldStatistics statistics()
        {
            Optional<Double> lower = Double.isNaN(min) ? Optional.empty() : Optional.of(min);
            Optional<Double> upper = Double.isNaN(max) ? Optional.empty() : Optional.of(max);
            return new FieldStatistics(fieldId, isDouble, nanCount, lower, upper);
        }
    }
}

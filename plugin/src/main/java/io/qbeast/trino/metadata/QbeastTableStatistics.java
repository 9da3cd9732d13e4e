package io.qbeast.trino.metadata;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import io.airlift.log.Logger;
import io.qbeast.trino.handle.QbeastColumnHandle;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.statistics.ColumnStatistics;
import io.trino.spi.statistics.DoubleRange;
import io.trino.spi.statistics.Estimate;
import io.trino.spi.statistics.TableStatistics;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;

/**
 * Table statistics from a snapshot's manifests: row count (without the rows of position delete
 * files), and per visible column the null
 * fraction (Iceberg null counts), the range of numeric, date and timestamp columns (Iceberg lower
 * and upper bounds; only when every file has both) and the data size of varchar/varbinary columns
 * (Iceberg column sizes, i.e. on-disk bytes). Cached per table location and snapshot.
 */
final class QbeastTableStatistics
{
    private static final Logger log = Logger.get(QbeastTableStatistics.class);
    private static final Cache<String, TableStatistics> CACHE = CacheBuilder.newBuilder().maximumSize(256).build();

    private QbeastTableStatistics() {}

    /**
     * The statistics of a snapshot (none rows for a table without one); when its manifests cannot
     * be read, the row count of its summary alone.
     */
    static TableStatistics of(SchemaTableName name, Table table, Optional<Long> snapshotId, List<QbeastColumnHandle> columns)
    {
        if (snapshotId.isEmpty()) {
            return TableStatistics.builder().setRowCount(Estimate.zero()).build();
        }
        try {
            return get(table, snapshotId.get(), columns);
        }
        catch (RuntimeException e) {
            log.warn(e, "Cannot compute statistics of %s from its manifests", name);
        }
        Snapshot snapshot = table.snapshot(snapshotId.get());
        String totalRecords = snapshot == null ? null : snapshot.summary().get("total-records");
        if (totalRecords == null) {
            return TableStatistics.empty();
        }
        return TableStatistics.builder().setRowCount(Estimate.of(Long.parseLong(totalRecords))).build();
    }

    private static TableStatistics get(Table table, long snapshotId, List<QbeastColumnHandle> columns)
    {
        try {
            return CACHE.get(table.location() + "@" + snapshotId + "@" + columns.hashCode(), () -> compute(table, snapshotId, columns));
        }
        catch (ExecutionException e) {
            throw new RuntimeException(e.getCause());
        }
    }

    private static final class ColumnAccumulator
    {
        long nullCount;
        boolean nullCountKnown = true;
        long size;
        boolean sizeKnown = true;
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        boolean rangeKnown = true;
    }

    static TableStatistics compute(Table table, long snapshotId, List<QbeastColumnHandle> columns)
    {
        Map<QbeastColumnHandle, ColumnAccumulator> accumulators = new HashMap<>();
        Map<QbeastColumnHandle, Type> icebergTypes = new HashMap<>();
        for (QbeastColumnHandle column : columns) {
            Types.NestedField field = table.schema().findField(column.fieldId());
            if (column.hidden() || field == null || !field.type().isPrimitiveType()) {
                continue;
            }
            accumulators.put(column, new ColumnAccumulator());
            icebergTypes.put(column, field.type());
        }
        long rows = 0;
        // each position delete file once (Iceberg attaches one to every data file it may name)
        Map<String, Long> positionDeletes = new HashMap<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(snapshotId).includeColumnStats().planFiles()) {
            for (FileScanTask task : tasks) {
                DataFile file = task.file();
                rows += file.recordCount();
                for (DeleteFile delete : task.deletes()) {
                    if (delete.content() == FileContent.POSITION_DELETES) {
                        positionDeletes.putIfAbsent(delete.location(), delete.recordCount());
                    }
                }
                for (Map.Entry<QbeastColumnHandle, ColumnAccumulator> entry : accumulators.entrySet()) {
                    int id = entry.getKey().fieldId();
                    ColumnAccumulator accumulator = entry.getValue();
                    Long nulls = file.nullValueCounts() == null ? null : file.nullValueCounts().get(id);
                    if (nulls == null) {
                        accumulator.nullCountKnown = false;
                    }
                    else {
                        accumulator.nullCount += nulls;
                    }
                    Long size = file.columnSizes() == null ? null : file.columnSizes().get(id);
                    if (size == null) {
                        accumulator.sizeKnown = false;
                    }
                    else {
                        accumulator.size += size;
                    }
                    Type type = icebergTypes.get(entry.getKey());
                    if (accumulator.rangeKnown && isRangeType(type)) {
                        boolean allNull = nulls != null && nulls == file.recordCount();
                        if (allNull) {
                            continue;
                        }
                        Double low = value(type, file.lowerBounds() == null ? null : file.lowerBounds().get(id));
                        Double high = value(type, file.upperBounds() == null ? null : file.upperBounds().get(id));
                        if (low == null || high == null) {
                            accumulator.rangeKnown = false;
                        }
                        else {
                            accumulator.min = Math.min(accumulator.min, low);
                            accumulator.max = Math.max(accumulator.max, high);
                        }
                    }
                }
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }

        // the rows that position deletes remove are not counted (a row deleted twice is subtracted
        // twice; equality deletes, whose matches are unknown until read, are not subtracted): the
        // fractions stay those of the stored rows
        long liveRows = Math.max(0, rows - positionDeletes.values().stream().mapToLong(Long::longValue).sum());
        TableStatistics.Builder statistics = TableStatistics.builder().setRowCount(Estimate.of(liveRows));
        for (Map.Entry<QbeastColumnHandle, ColumnAccumulator> entry : accumulators.entrySet()) {
            ColumnAccumulator accumulator = entry.getValue();
            Type type = icebergTypes.get(entry.getKey());
            ColumnStatistics.Builder column = ColumnStatistics.builder();
            if (accumulator.nullCountKnown && rows > 0) {
                column.setNullsFraction(Estimate.of((double) accumulator.nullCount / rows));
            }
            if (rows == 0) {
                column.setNullsFraction(Estimate.zero());
            }
            if ((type.typeId() == Type.TypeID.STRING || type.typeId() == Type.TypeID.BINARY) && accumulator.sizeKnown) {
                column.setDataSize(Estimate.of(accumulator.size));
            }
            if (isRangeType(type) && accumulator.rangeKnown && accumulator.min <= accumulator.max) {
                column.setRange(new DoubleRange(accumulator.min, accumulator.max));
            }
            statistics.setColumnStatistics((ColumnHandle) entry.getKey(), column.build());
        }
        return statistics.build();
    }

    private static boolean isRangeType(Type type)
    {
        return switch (type.typeId()) {
            case INTEGER, LONG, FLOAT, DOUBLE, DATE, TIMESTAMP, DECIMAL -> true;
            default -> false;
        };
    }

    /** The bound as Trino's statistics see it: the number, epoch days, epoch micros, the decimal value. */
    private static Double value(Type type, ByteBuffer bound)
    {
        if (bound == null) {
            return null;
        }
        Object value = Conversions.fromByteBuffer(type, bound.duplicate());
        double result = switch (value) {
            case Integer integer -> integer;
            case Long longValue -> longValue;
            case Float floatValue -> floatValue;
            case Double doubleValue -> doubleValue;
            case BigDecimal decimal -> decimal.doubleValue();
            default -> Double.NaN;
        };
        return Double.isNaN(result) || Double.isInfinite(result) ? null : result;
    }
}

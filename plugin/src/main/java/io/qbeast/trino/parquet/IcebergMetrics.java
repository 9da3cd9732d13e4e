package io.qbeast.trino.parquet;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.google.common.collect.ImmutableMap;
import org.apache.iceberg.Metrics;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

import static java.util.Objects.requireNonNull;

/**
 * Iceberg's per-file column metrics in a form that travels as JSON from a page sink to the
 * coordinator. Bounds hold Iceberg's single-value serialization ({@code Conversions.toByteBuffer})
 * of each column's lower and upper bound; for {@code _qbeast_cube} and {@code _qbeast_weight} they
 * are never truncated, because they are the index.
 */
public record IcebergMetrics(
        @JsonProperty("recordCount") long recordCount,
        @JsonProperty("columnSizes") Map<Integer, Long> columnSizes,
        @JsonProperty("valueCounts") Map<Integer, Long> valueCounts,
        @JsonProperty("nullValueCounts") Map<Integer, Long> nullValueCounts,
        @JsonProperty("nanValueCounts") Map<Integer, Long> nanValueCounts,
        @JsonProperty("lowerBounds") Map<Integer, byte[]> lowerBounds,
        @JsonProperty("upperBounds") Map<Integer, byte[]> upperBounds)
{
    public IcebergMetrics
    {
        columnSizes = ImmutableMap.copyOf(requireNonNull(columnSizes, "columnSizes is null"));
        valueCounts = ImmutableMap.copyOf(requireNonNull(valueCounts, "valueCounts is null"));
        nullValueCounts = ImmutableMap.copyOf(requireNonNull(nullValueCounts, "nullValueCounts is null"));
        nanValueCounts = ImmutableMap.copyOf(requireNonNull(nanValueCounts, "nanValueCounts is null"));
        lowerBounds = copyBounds(requireNonNull(lowerBounds, "lowerBounds is null"));
        upperBounds = copyBounds(requireNonNull(upperBounds, "upperBounds is null"));
    }

    /**
     * A mutable copy for Iceberg: {@code DataFiles.builder(spec).withMetrics(metrics)}.
     */
    public Metrics toIcebergMetrics()
    {
        return new Metrics(
                recordCount,
                new HashMap<>(columnSizes),
                new HashMap<>(valueCounts),
                new HashMap<>(nullValueCounts),
                new HashMap<>(nanValueCounts),
                toBuffers(lowerBounds),
                toBuffers(upperBounds));
    }

    public static IcebergMetrics fromIcebergMetrics(Metrics metrics)
    {
        return new IcebergMetrics(
                requireNonNull(metrics.recordCount(), "recordCount is null"),
                nullToEmpty(metrics.columnSizes()),
                nullToEmpty(metrics.valueCounts()),
                nullToEmpty(metrics.nullValueCounts()),
                nullToEmpty(metrics.nanValueCounts()),
                fromBuffers(metrics.lowerBounds()),
                fromBuffers(metrics.upperBounds()));
    }

    // byte arrays compare by identity; a record of bounds must compare by content
    @Override
    public boolean equals(Object o)
    {
        if (this == o) {
            return true;
        }
        if (!(o instanceof IcebergMetrics that)) {
            return false;
        }
        return recordCount == that.recordCount &&
                columnSizes.equals(that.columnSizes) &&
                valueCounts.equals(that.valueCounts) &&
                nullValueCounts.equals(that.nullValueCounts) &&
                nanValueCounts.equals(that.nanValueCounts) &&
                boundsEqual(lowerBounds, that.lowerBounds) &&
                boundsEqual(upperBounds, that.upperBounds);
    }

    @Override
    public int hashCode()
    {
        return Objects.hash(recordCount, columnSizes, valueCounts, nullValueCounts, nanValueCounts, boundsHash(lowerBounds), boundsHash(upperBounds));
    }

    @Override
    public String toString()
    {
        return "IcebergMetrics{recordCount=%s, columnSizes=%s, valueCounts=%s, nullValueCounts=%s, nanValueCounts=%s, lowerBounds=%s, upperBounds=%s}".formatted(
                recordCount, columnSizes, valueCounts, nullValueCounts, nanValueCounts, boundKeys(lowerBounds), boundKeys(upperBounds));
    }

    private static Map<Integer, byte[]> copyBounds(Map<Integer, byte[]> bounds)
    {
        ImmutableMap.Builder<Integer, byte[]> copy = ImmutableMap.builder();
        bounds.forEach((id, value) -> copy.put(id, value.clone()));
        return copy.buildOrThrow();
    }

    private static Map<Integer, ByteBuffer> toBuffers(Map<Integer, byte[]> bounds)
    {
        Map<Integer, ByteBuffer> buffers = new HashMap<>();
        bounds.forEach((id, value) -> buffers.put(id, ByteBuffer.wrap(value.clone())));
        return buffers;
    }

    private static Map<Integer, byte[]> fromBuffers(Map<Integer, ByteBuffer> buffers)
    {
        if (buffers == null) {
            return ImmutableMap.of();
        }
        ImmutableMap.Builder<Integer, byte[]> bounds = ImmutableMap.builder();
        buffers.forEach((id, buffer) -> {
            ByteBuffer duplicate = buffer.duplicate();
            byte[] value = new byte[duplicate.remaining()];
            duplicate.get(value);
            bounds.put(id, value);
        });
        return bounds.buildOrThrow();
    }

    private static <V> Map<Integer, V> nullToEmpty(Map<Integer, V> map)
    {
        return map == null ? ImmutableMap.of() : map;
    }

    private static boolean boundsEqual(Map<Integer, byte[]> left, Map<Integer, byte[]> right)
    {
        if (!left.keySet().equals(right.keySet())) {
            return false;
        }
        return left.entrySet().stream().allMatch(entry -> Arrays.equals(entry.getValue(), right.get(entry.getKey())));
    }

    private static int boundsHash(Map<Integer, byte[]> bounds)
    {
        return bounds.entrySet().stream()
                .mapToInt(entry -> entry.getKey() ^ Arrays.hashCode(entry.getValue()))
                .sum();
    }

    private static Map<Integer, String> boundKeys(Map<Integer, byte[]> bounds)
    {
        Map<Integer, String> hex = new HashMap<>();
        bounds.forEach((id, value) -> hex.put(id, java.util.HexFormat.of().formatHex(value)));
        return hex;
    }
}

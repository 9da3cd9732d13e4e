package io.qbeast.benchmarks.e2e;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * What Trino itself recorded about one finished query, read from the coordinator's
 * {@code GET /v1/query/{queryId}} JSON ({@code queryStats}): CPU and wall time, planning time,
 * physical input (bytes and rows the connectors read), the splits of the table scans (one split
 * per data file or file piece) and the bytes the writers produced; for qbeast scans also the data
 * files the split source kept and the row groups the readers read (qbeast's own metrics, which
 * the stock connector does not report: 0 there).
 */
public record QueryMetrics(
        String queryId,
        double cpuMillis,
        double wallMillis,
        double planningMillis,
        double physicalInputBytes,
        double physicalInputRows,
        double scanSplits,
        double writtenBytes,
        double outputRows,
        double filesScanned,
        double rowGroupsRead)
{
    // the names of qbeast's split-source and page-source metrics (QbeastSplitSource, QbeastParquetPageSource)
    static final String FILES_SCANNED = "qbeast_files_scanned";
    static final String ROW_GROUPS_READ = "qbeast_row_groups_read";

    public QueryMetrics
    {
        requireNonNull(queryId, "queryId is null");
    }

    public static QueryMetrics fromQueryInfo(JsonNode info)
    {
        JsonNode stats = info.path("queryStats");
        if (stats.isMissingNode()) {
            throw new IllegalArgumentException("no queryStats in " + info.path("queryId"));
        }
        double splits = 0;
        double rowGroups = 0;
        for (JsonNode operator : stats.path("operatorSummaries")) {
            String type = operator.path("operatorType").asText();
            // table scans: one driver per split of the source pipeline
            if (type.equals("TableScanOperator") || type.equals("ScanFilterAndProjectOperator")) {
                splits += operator.path("totalDrivers").asDouble();
                rowGroups += count(operator.path("connectorMetrics"), ROW_GROUPS_READ);
            }
        }
        // split-source metrics are kept per stage (by plan node), not in the query's operator summaries
        double files = filesScanned(info);
        return new QueryMetrics(
                info.path("queryId").asText(),
                millis(stats.path("totalCpuTime").asText()),
                millis(stats.path("elapsedTime").asText()),
                millis(stats.path("planningTime").asText()),
                bytes(stats.path("physicalInputDataSize").asText()),
                stats.path("physicalInputPositions").asDouble(),
                splits,
                bytes(stats.path("physicalWrittenDataSize").asText()),
                stats.path("outputPositions").asDouble(),
                files,
                rowGroups);
    }

    /**
     * The files qbeast's split sources kept, over every stage of the query: Trino 483 lists the
     * stages flat ({@code stages.stages}); Trino 476 nested them ({@code outputStage}, {@code subStages}).
     */
    static double filesScanned(JsonNode info)
    {
        JsonNode stages = info.path("stages").path("stages");
        if (stages.isArray()) {
            double files = 0;
            for (JsonNode stage : stages) {
                files += stageFilesScanned(stage);
            }
            return files;
        }
        return nestedFilesScanned(info.path("outputStage"));
    }

    private static double nestedFilesScanned(JsonNode stage)
    {
        double files = stageFilesScanned(stage);
        for (JsonNode subStage : stage.path("subStages")) {
            files += nestedFilesScanned(subStage);
        }
        return files;
    }

    private static double stageFilesScanned(JsonNode stage)
    {
        double files = 0;
        for (JsonNode metrics : stage.path("stageStats").path("splitSourceMetrics")) {
            files += count(metrics, FILES_SCANNED);
        }
        return files;
    }

    /** A {@code LongCount} of a connector's {@code Metrics} JSON ({@code {"name": {"total": n}}}), 0 when absent. */
    private static double count(JsonNode metrics, String name)
    {
        return metrics.path(name).path("total").asDouble(0);
    }

    /** The metrics by the names the reports use. */
    public Map<String, Double> asMap()
    {
        return Map.of(
                "files_scanned", filesScanned,
                "row_groups_read", rowGroupsRead,
                "cpu_ms", cpuMillis,
                "wall_ms", wallMillis,
                "planning_ms", planningMillis,
                "input_bytes", physicalInputBytes,
                "input_rows", physicalInputRows,
                "splits", scanSplits,
                "written_bytes", writtenBytes);
    }

    /** airlift {@code Duration} JSON: {@code "1.50s"}, {@code "12.30ms"}, {@code "2.00m"}. */
    static double millis(String value)
    {
        String text = value.strip();
        if (text.isEmpty()) {
            return 0;
        }
        int unitStart = unitStart(text);
        double number = Double.parseDouble(text.substring(0, unitStart));
        String unit = text.substring(unitStart);
        TimeUnit timeUnit = switch (unit) {
            case "ns" -> TimeUnit.NANOSECONDS;
            case "us" -> TimeUnit.MICROSECONDS;
            case "ms" -> TimeUnit.MILLISECONDS;
            case "s" -> TimeUnit.SECONDS;
            case "m" -> TimeUnit.MINUTES;
            case "h" -> TimeUnit.HOURS;
            case "d" -> TimeUnit.DAYS;
            default -> throw new IllegalArgumentException("unknown duration unit: " + value);
        };
        return number * timeUnit.toNanos(1) / 1e6;
    }

    /** airlift {@code DataSize} JSON: {@code "1234B"}, {@code "12.35MB"} (binary units). */
    static double bytes(String value)
    {
        String text = value.strip();
        if (text.isEmpty()) {
            return 0;
        }
        int unitStart = unitStart(text);
        double number = Double.parseDouble(text.substring(0, unitStart));
        int power = switch (text.substring(unitStart).toUpperCase(Locale.ROOT)) {
            case "B" -> 0;
            case "KB" -> 1;
            case "MB" -> 2;
            case "GB" -> 3;
            case "TB" -> 4;
            case "PB" -> 5;
            default -> throw new IllegalArgumentException("unknown data size unit: " + value);
        };
        return number * Math.pow(1024, power);
    }

    private static int unitStart(String text)
    {
        int index = text.length();
        while (index > 0 && Character.isLetter(text.charAt(index - 1))) {
            index--;
        }
        return index;
    }
}

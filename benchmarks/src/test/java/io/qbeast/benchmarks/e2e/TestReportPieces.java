package io.qbeast.benchmarks.e2e;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.qbeast.benchmarks.e2e.ResultTable.Stats;
import io.qbeast.benchmarks.e2e.ResultTable.Unit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.xml.parsers.DocumentBuilderFactory;

import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** The harness's parsing and reporting, without a server. */
public class TestReportPieces
{
    @Test
    public void countsFilesScannedInEveryStage()
            throws Exception
    {
        // Trino 483 lists the stages flat; 476 nested them under outputStage
        String flat = """
                {"stages": {"outputStageId": "q.0", "stages": [
                  {"stageStats": {"splitSourceMetrics": {}}},
                  {"stageStats": {"splitSourceMetrics": {"1": {"qbeast_files_scanned": {"total": 3}}}}},
                  {"stageStats": {"splitSourceMetrics": {"7": {"qbeast_files_scanned": {"total": 2}}, "8": {"other": {"total": 9}}}}}]}}
                """;
        String nested = """
                {"outputStage": {"stageStats": {"splitSourceMetrics": {}}, "subStages": [
                  {"stageStats": {"splitSourceMetrics": {"1": {"qbeast_files_scanned": {"total": 3}}}}, "subStages": [
                    {"stageStats": {"splitSourceMetrics": {"7": {"qbeast_files_scanned": {"total": 2}}}}}]}]}}
                """;
        assertThat(QueryMetrics.filesScanned(new ObjectMapper().readTree(flat))).isEqualTo(5);
        assertThat(QueryMetrics.filesScanned(new ObjectMapper().readTree(nested))).isEqualTo(5);
    }

    @Test
    public void parsesQueryStatsJson()
            throws Exception
    {
        // the shape of the coordinator's /v1/query/{id} JSON (airlift Duration and DataSize strings)
        String json = """
                {"queryId": "20261202_000000_00001_abcde", "finalQueryInfo": true,
                 "queryStats": {"totalCpuTime": "1.50s", "elapsedTime": "2.25m", "planningTime": "350.00us",
                  "physicalInputDataSize": "12.50MB", "physicalInputPositions": 6001215,
                  "physicalWrittenDataSize": "512B", "outputPositions": 1,
                  "operatorSummaries": [
                    {"operatorType": "TableScanOperator", "totalDrivers": 7},
                    {"operatorType": "ScanFilterAndProjectOperator", "totalDrivers": 3},
                    {"operatorType": "HashAggregationOperator", "totalDrivers": 100}]}}
                """;
        QueryMetrics metrics = QueryMetrics.fromQueryInfo(new ObjectMapper().readTree(json));
        assertThat(metrics.queryId()).isEqualTo("20261202_000000_00001_abcde");
        assertThat(metrics.cpuMillis()).isCloseTo(1500, within(1e-9));
        assertThat(metrics.wallMillis()).isCloseTo(135_000, within(1e-9));
        assertThat(metrics.planningMillis()).isCloseTo(0.35, within(1e-9));
        assertThat(metrics.physicalInputBytes()).isCloseTo(12.5 * 1024 * 1024, within(1e-6));
        assertThat(metrics.physicalInputRows()).isEqualTo(6001215);
        assertThat(metrics.writtenBytes()).isEqualTo(512);
        // only the table-scan operators count as splits
        assertThat(metrics.scanSplits()).isEqualTo(10);

        assertThat(QueryMetrics.bytes("3kB")).isEqualTo(3072);
        assertThat(QueryMetrics.millis("2h")).isEqualTo(7_200_000);
        assertThatThrownBy(() -> QueryMetrics.bytes("3XB")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> QueryMetrics.fromQueryInfo(new ObjectMapper().readTree("{\"queryId\": \"x\"}"))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    public void mediansSpreadsAndRatios()
    {
        assertThat(Stats.of(List.of(3.0, 1.0, 2.0))).isEqualTo(new Stats(2, 1, 3, 3));
        assertThat(Stats.of(List.of(4.0, 1.0, 2.0, 3.0))).isEqualTo(new Stats(2.5, 1, 4, 4));

        ResultTable table = new ResultTable("t", "", "base").variants("other").metric("cpu_ms", "CPU", Unit.MILLIS);
        for (double value : new double[] {10, 30, 20}) {
            table.add("q", "base", "cpu_ms", value);
        }
        for (double value : new double[] {25, 35, 30}) {
            table.add("q", "other", "cpu_ms", value);
        }
        assertThat(table.ratio("q", "other", "cpu_ms")).hasValue(1.5);
        assertThat(table.ratio("missing", "other", "cpu_ms")).isEmpty();
        assertThat(table.variants()).containsExactly("base", "other");
        assertThatThrownBy(() -> table.add("q", "base", "undeclared", 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    public void writesMarkdownCsvAndSvg(@TempDir Path directory)
            throws Exception
    {
        SuiteReport report = new SuiteReport("demo", "Demo, \"quoted\"");
        report.headline("ratio 1.50×");
        ResultTable table = report.table(new ResultTable("cases, with a comma", "", "base")
                .variants("other")
                .metric("input_bytes", "bytes", Unit.BYTES)
                .chart("input_bytes")
                .logScaleCharts());
        table.add("Q1", "base", "input_bytes", 2048);
        table.add("Q1", "other", "input_bytes", 1024);
        table.add("Q1", "other", "input_bytes", 0);
        table.add("Q2 <&>", "base", "input_bytes", 1_000_000);

        Path markdown = report.write(directory, "2000-01-01", "env");
        String md = Files.readString(markdown, UTF_8);
        assertThat(md).contains("| Q1 | 2.0 KiB | 512 B (0 B–1.0 KiB) | 0.25× |");
        assertThat(md).contains("| Q2 <&> | 976.6 KiB | — | — |");
        assertThat(md).contains("](2000-01-01-demo-1-input_bytes.svg)");

        List<String> csv = Files.readAllLines(directory.resolve("2000-01-01-demo.csv"), UTF_8);
        assertThat(csv).containsExactly(
                "suite,table,item,variant,metric,repetition,value",
                "demo,\"cases, with a comma\",Q1,base,input_bytes,1,2048.0",
                "demo,\"cases, with a comma\",Q1,other,input_bytes,1,1024.0",
                "demo,\"cases, with a comma\",Q1,other,input_bytes,2,0.0",
                "demo,\"cases, with a comma\",Q2 <&>,base,input_bytes,1,1000000.0");

        byte[] svg = Files.readAllBytes(directory.resolve("2000-01-01-demo-1-input_bytes.svg"));
        // well-formed XML (names escaped), one bar per cell with values
        var document = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new ByteArrayInputStream(svg));
        assertThat(document.getDocumentElement().getTagName()).isEqualTo("svg");
        assertThat(document.getElementsByTagName("title").getLength()).isEqualTo(3);
    }

    @Test
    public void options()
    {
        BenchmarkOptions defaults = BenchmarkOptions.parse(new String[0], Path.of("/repo"));
        assertThat(defaults.scale()).isEqualTo(1);
        assertThat(defaults.repetitions()).isEqualTo(3);
        assertThat(defaults.suites()).containsExactlyElementsOf(BenchmarkOptions.ALL_SUITES);
        assertThat(defaults.output()).isEqualTo(Path.of("/repo/benchmarks/results"));
        assertThat(defaults.scaleSizes()).containsExactly(0.1, 0.3, 1.0, 3.0);
        assertThat(defaults.seriesScale()).isEqualTo(1);
        assertThat(defaults.workers()).isZero();
        assertThat(BenchmarkOptions.parse(new String[] {"--workers", "2"}, Path.of("/repo")).workers()).isEqualTo(2);
        assertThatThrownBy(() -> BenchmarkOptions.parse(new String[] {"--workers", "-1"}, Path.of("/repo")))
                .hasMessageContaining("--workers must be at least 0");

        BenchmarkOptions smoke = BenchmarkOptions.parse(new String[] {"--smoke", "--suite", "query"}, Path.of("/repo"));
        assertThat(smoke.repetitions()).isEqualTo(1);
        assertThat(smoke.suites()).containsExactly("query");
        assertThat(smoke.scale()).isEqualTo(0.01);

        assertThatThrownBy(() -> BenchmarkOptions.parse(new String[] {"--repetitions", "1"}, Path.of("/repo")))
                .hasMessageContaining("at least 3");
        assertThatThrownBy(() -> BenchmarkOptions.parse(new String[] {"--suite", "nope"}, Path.of("/repo")))
                .hasMessageContaining("unknown suite nope");

        assertThat(BenchmarkOptions.tpchSchema(0.01)).isEqualTo("tiny");
        assertThat(BenchmarkOptions.tpchSchema(3)).isEqualTo("sf3");
        assertThat(BenchmarkOptions.tpchSchema(0.1)).isEqualTo("\"sf0.1\"");
        assertThat(BenchmarkOptions.scaleLabel(0.3)).isEqualTo("0.3");
        assertThat(BenchmarkOptions.scaleLabel(10)).isEqualTo("10");
    }
}

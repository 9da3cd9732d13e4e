package io.qbeast.benchmarks.e2e;

import io.qbeast.trino.tests.ProductTestEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.xml.parsers.DocumentBuilderFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code benchmarks/run --smoke}: every suite on tiny data against a real Trino server, once, so
 * the harness cannot rot. Checks that every suite wrote its markdown, CSV and charts, that every
 * table has the baseline and the qbeast variants, and that the numbers are plausible.
 */
@Timeout(600)
public class TestBenchmarkSmoke
{
    @Test
    public void smokeRunOfEverySuite()
            throws Exception
    {
        Path output = ProductTestEnvironment.newWorkDirectory("smoke-results");
        String date = "smoke";
        List<Path> written = EndToEndBenchmark.run(new String[] {"--smoke", "--suite", "all", "--output", output.toString(), "--date", date});

        assertThat(written).hasSize(BenchmarkOptions.ALL_SUITES.size() + 1);
        for (String suite : BenchmarkOptions.ALL_SUITES) {
            assertThat(output.resolve(date + "-" + suite + ".md")).isRegularFile();
            assertThat(output.resolve(date + "-" + suite + ".csv")).isRegularFile();
        }
        String summary = Files.readString(output.resolve(date + "-summary.md"), UTF_8);
        for (String suite : BenchmarkOptions.ALL_SUITES) {
            assertThat(summary).contains("## [" + suite + "]");
        }

        // every chart the reports link is a well-formed SVG
        List<Path> charts;
        try (Stream<Path> files = Files.list(output)) {
            charts = files.filter(file -> file.toString().endsWith(".svg")).toList();
        }
        assertThat(charts).hasSizeGreaterThanOrEqualTo(BenchmarkOptions.ALL_SUITES.size());
        for (Path chart : charts) {
            assertThat(DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(chart.toFile()).getDocumentElement().getTagName()).isEqualTo("svg");
            String name = chart.getFileName().toString();
            String suite = name.substring(date.length() + 1, name.indexOf('-', date.length() + 1));
            assertThat(Files.readString(output.resolve(date + "-" + suite + ".md"), UTF_8)).contains("](" + name + ")");
        }

        Map<String, Double> write = medians(output, date, "write");
        for (String variant : List.of(WriteSuite.ICEBERG, WriteSuite.QBEAST, WriteSuite.SORTED)) {
            assertThat(write.get(key("lineitem sf0.01", variant, "cpu_ms"))).as(variant).isPositive();
            assertThat(write.get(key("lineitem sf0.01", variant, "files"))).as(variant).isGreaterThanOrEqualTo(1);
            // written bytes of the query stats and the committed data files agree within a few percent
            assertThat(write.get(key("lineitem sf0.01", variant, "written_bytes")) / write.get(key("lineitem sf0.01", variant, "table_bytes"))).as(variant).isBetween(0.9, 1.1);
        }

        Map<String, Double> query = medians(output, date, "query");
        for (String ssb : QuerySuite.queries().keySet()) {
            for (String variant : List.of(QuerySuite.ICEBERG, QuerySuite.QBEAST, QuerySuite.SORTED, QuerySuite.QBEAST_INSERT)) {
                assertThat(query).containsKey(key(ssb, variant, "wall_ms"));
            }
            assertThat(query.get(key(ssb, QuerySuite.QBEAST, "input_bytes"))).as(ssb).isGreaterThanOrEqualTo(0);
        }
        // the unclustered table is one file at this size; the year-only flight-1 query must open it
        // (Q3.3 and Q3.4 may be pruned by the file's city bounds)
        assertThat(query.get(key("Q1.1", QuerySuite.ICEBERG, "input_bytes"))).isPositive();
        assertThat(query.get(key("Q1.1", QuerySuite.ICEBERG, "splits"))).isGreaterThanOrEqualTo(1);
        // qbeast's own counts, read from the query JSON: its split source's files and its readers' row groups
        assertThat(query.get(key("Q1.1", QuerySuite.QBEAST, "files_scanned"))).isGreaterThanOrEqualTo(1);
        assertThat(query.get(key("Q1.1", QuerySuite.QBEAST, "row_groups_read"))).isGreaterThanOrEqualTo(1);
        assertThat(query.get(key("Q1.1", QuerySuite.ICEBERG, "row_groups_read"))).isZero();

        Map<String, Double> sample = medians(output, date, "sample");
        // both trial families let Trino offer the sample to qbeast (the suppkey domain, and the
        // modulus expression the connector takes over): every sampled query returned exactly the
        // rows under the weight bound (were the expression left to Trino, it would drop whole
        // splits itself, and at this size the one file is kept or not at random)
        assertThat(Files.readString(output.resolve(date + "-sample.md"), UTF_8))
                .contains("checked, suppkey domain trials: every qbeast SYSTEM sample returned exactly the rows")
                .contains("checked, modulus trials (`orderkey % T = k`): every qbeast SYSTEM sample returned exactly the rows")
                .doesNotContain("qbeast sampling bug");
        for (String percent : List.of("0.1%", "1%", "10%")) {
            for (String item : List.of(percent, percent + SampleSuite.MODULUS_ITEM)) {
                // BERNOULLI reads what the unsampled query reads; qbeast's SYSTEM sample no more than the
                // explicit weight filter that defines it, and a part of the table. (Not less than the
                // unsampled query at this size: the table is one file of few row groups, and the sample
                // also reads the weight column.)
                assertThat(sample.get(key(item, "iceberg BERNOULLI", "bytes_fraction"))).as(item).isBetween(0.5, 1.5);
                assertThat(sample.get(key(item, "qbeast SYSTEM", "bytes_fraction"))).as(item)
                        .isLessThanOrEqualTo(1.05 * sample.get(key(item, "qbeast weight filter", "bytes_fraction")));
                assertThat(sample.get(key(item, "qbeast SYSTEM", "table_fraction"))).as(item).isBetween(0.0, 0.9);
                // the rows the sample is defined as: a real read of the qbeast table
                assertThat(sample.get(key(item, "qbeast weight filter", "table_fraction"))).as(item).isPositive();
            }
        }
        assertThat(sample.get(key("SYSTEM 10%", SampleSuite.GOAL, "input_bytes"))).isPositive();
        assertThat(sample.get(key("SYSTEM 10%", SampleSuite.QBEAST, "input_bytes"))).isPositive();
        for (String variant : List.of(SampleSuite.QBEAST, SampleSuite.ICEBERG, SampleSuite.SORTED)) {
            assertThat(sample.keySet()).anyMatch(cell -> cell.startsWith("R1") && cell.contains("|" + variant + "|splits"));
            // rows read, measured against the goal of 4 × selectivity × rows
            assertThat(sample.entrySet()).anyMatch(cell -> cell.getKey().startsWith("R1") && cell.getKey().contains("|" + variant + "|input_rows") && cell.getValue() > 0);
        }
        assertThat(sample.entrySet()).anyMatch(cell -> cell.getKey().startsWith("R1") && cell.getKey().contains("|" + SampleSuite.GOAL + "|input_rows") && cell.getValue() > 0);

        Map<String, Double> scale = medians(output, date, "scale");
        assertThat(scale.keySet().stream().filter(cell -> cell.endsWith("|qbeast|rows_per_cpu_s")).toList()).hasSize(2 + 4 + 2);
        assertThat(scale.entrySet().stream().filter(cell -> cell.getKey().endsWith("|rows_per_cpu_s")).map(Map.Entry::getValue)).allMatch(value -> value > 1_000 && value < 1e9);

        Map<String, Double> planning = medians(output, date, "planning");
        for (String variant : List.of(PlanningSuite.ICEBERG, PlanningSuite.QBEAST)) {
            // both connectors see every file of the same table
            assertThat(planning.get(key("count(*) full scan", variant, "splits"))).isGreaterThanOrEqualTo(100);
            assertThat(planning.get(key("EXPLAIN point query", variant, "planning_ms"))).isPositive();
        }
        // qbeast opens each of these small files as one split; the stock connector may cut a file of
        // several row groups (a large cube's point parts) at each of them, never finer
        double qbeastSplits = planning.get(key("count(*) full scan", PlanningSuite.QBEAST, "splits"));
        double rowGroups = planning.get(key("count(*) full scan", PlanningSuite.ICEBERG, "row_groups"));
        assertThat(rowGroups).isGreaterThanOrEqualTo(qbeastSplits);
        assertThat(planning.get(key("count(*) full scan", PlanningSuite.ICEBERG, "splits"))).isBetween(qbeastSplits, rowGroups);

        Map<String, Double> delete = medians(output, date, "delete");
        // the suite refuses to report unless every result equals the source less the deleted rows
        assertThat(Files.readString(output.resolve(date + "-delete.md"), UTF_8))
                .containsPattern("checked: all \\d+ query results \\(both variants, after each DELETE and after each optimize\\) equal");
        for (DeleteSuite.Case deletion : DeleteSuite.CASES) {
            String item = deletion.name();
            for (String variant : List.of(DeleteSuite.ICEBERG, DeleteSuite.QBEAST)) {
                assertThat(delete.get(key(item, variant, "cpu_ms"))).as(item + " " + variant).isPositive();
                assertThat(delete.get(key(item, variant, "input_bytes"))).as(item + " " + variant).isPositive();
                double touched = delete.get(key(item, variant, "files_touched"));
                double removed = delete.get(key(item, variant, "data_files_removed"));
                double deleteFiles = delete.get(key(item, variant, "delete_files"));
                assertThat(touched).as(item + " " + variant).isBetween(1.0, delete.get(key(item, variant, "data_files")));
                // every touched file got a delete file or went whole; Trino's connector writes one delete file per data file and writer
                assertThat(deleteFiles + removed).as(item + " " + variant).isGreaterThanOrEqualTo(touched);
                assertThat(removed).as(item + " " + variant).isLessThanOrEqualTo(touched);
                // a delete file's records are positions of deleted rows: never more than the rows of the case (about 1% or 10% of 60,175)
                assertThat(delete.get(key(item, variant, "delete_records"))).as(item + " " + variant).isBetween(deleteFiles > 0 ? 1.0 : 0.0, 10_000.0);
                assertThat(delete.get(key(item, variant, "delete_bytes")) > 0).as(item + " " + variant).isEqualTo(deleteFiles > 0);
                for (DeleteSuite.Query after : DeleteSuite.QUERIES) {
                    if (!after.qbeastOnly() || variant.equals(DeleteSuite.QBEAST)) {
                        for (String phase : List.of(DeleteSuite.NO_DELETE, item, DeleteSuite.optimized(item))) {
                            assertThat(delete.get(key(DeleteSuite.item(phase, after.name()), variant, "wall_ms"))).as(phase + " " + after.name() + " " + variant).isPositive();
                        }
                    }
                }
                assertThat(delete.get(key(item, variant, "data_files_after"))).as(item + " " + variant).isGreaterThanOrEqualTo(1);
            }
            // qbeast's optimize (mode 'all') rewrites the live rows and drops every delete file
            assertThat(delete.get(key(item, DeleteSuite.QBEAST, "delete_files_after"))).as(item).isZero();
            assertThat(delete.get(key(DeleteSuite.item(item, DeleteSuite.SAMPLE_QUERY), DeleteSuite.QBEAST, "input_bytes"))).as(item).isPositive();
        }
        // the 10% DELETE names about ten times the positions of the 1% one (no whole file goes at this size)
        double tenth = delete.get(key(DeleteSuite.CASES.get(1).name(), DeleteSuite.ICEBERG, "delete_records"));
        double hundredth = delete.get(key(DeleteSuite.CASES.get(0).name(), DeleteSuite.ICEBERG, "delete_records"));
        assertThat(tenth / hundredth).isBetween(5.0, 20.0);
    }

    private static String key(String item, String variant, String metric)
    {
        return item + "|" + variant + "|" + metric;
    }

    /** item|variant|metric → median over the CSV's repetitions (the first value with one repetition). */
    private static Map<String, Double> medians(Path output, String date, String suite)
            throws Exception
    {
        Map<String, List<Double>> values = new HashMap<>();
        List<String> lines = Files.readAllLines(output.resolve(date + "-" + suite + ".csv"), UTF_8);
        assertThat(lines.getFirst()).isEqualTo("suite,table,item,variant,metric,repetition,value");
        for (String line : lines.subList(1, lines.size())) {
            List<String> fields = parseCsvLine(line);
            assertThat(fields).hasSize(7);
            assertThat(fields.getFirst()).isEqualTo(suite);
            double value = Double.parseDouble(fields.get(6));
            assertThat(value).as(line).isNotNaN();
            values.computeIfAbsent(key(fields.get(2), fields.get(3), fields.get(4)), _ -> new ArrayList<>()).add(value);
        }
        assertThat(values).isNotEmpty();
        Map<String, Double> medians = new HashMap<>();
        values.forEach((cell, list) -> medians.put(cell, ResultTable.Stats.of(list).median()));
        return medians;
    }

    private static List<String> parseCsvLine(String line)
    {
        List<String> fields = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    field.append('"');
                    i++;
                }
                else if (c == '"') {
                    quoted = false;
                }
                else {
                    field.append(c);
                }
            }
            else if (c == '"') {
                quoted = true;
            }
            else if (c == ',') {
                fields.add(field.toString());
                field.setLength(0);
            }
            else {
                field.append(c);
            }
        }
        fields.add(field.toString());
        return fields;
    }
}

package io.qbeast.trino.tests;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * The qbeast catalog with its warehouse on S3: a real S3 API server (S3Proxy, own JVM, loopback,
 * signed requests, path-style) and Trino's native S3 file system ({@code fs.native-s3.enabled});
 * the Iceberg JDBC catalog is a SQLite file on local disk. Every data and metadata file must land
 * in the bucket, and reads must give TPC-H's answers.
 */
@TestInstance(PER_CLASS)
@Timeout(300)
public class TestS3Storage
{
    private static final String BUCKET = "qbeast-bucket";
    private static final String TPCH_ORDERS = "tpch.tiny.orders";

    private S3ProxyServer s3;
    private TrinoServer trino;
    private TrinoQueries sql;
    private Path localWarehouse;

    @BeforeAll
    public void start()
            throws Exception
    {
        Path work = ProductTestEnvironment.newWorkDirectory("s3-storage");
        s3 = S3ProxyServer.start(Files.createDirectories(work.resolve("s3proxy")), BUCKET);
        localWarehouse = work.resolve("local-warehouse");

        Map<String, String> qbeast = new LinkedHashMap<>(s3.trinoFileSystemProperties());
        qbeast.put("qbeast.warehouse", "s3://" + BUCKET + "/warehouse");
        qbeast.put("qbeast.jdbc.connection-url", "jdbc:sqlite:" + work.resolve("catalog.db").toAbsolutePath());
        trino = ProductTestServers.startUsing(s3, () -> TrinoServer.builder()
                .withDirectory(work.resolve("cluster"))
                .withHeap("1536M")
                .withTpch()
                .withQbeast("qbeast", localWarehouse, qbeast)
                .start());
        sql = new TrinoQueries(trino);
    }

    @AfterAll
    public void stop()
            throws Exception
    {
        ProductTestServers.closeInOrder(trino, s3);
    }

    @Test
    public void tablesOnS3()
            throws Exception
    {
        sql.execute("CREATE SCHEMA qbeast.s3");
        String table = "qbeast.s3.orders";
        sql.createFrom(table, "indexed_columns = ARRAY['custkey', 'orderdate'], cube_size = 2000", TPCH_ORDERS, "orderkey % 3 <> 0");
        List<String> afterCreate = s3.objectKeys(BUCKET, "warehouse/");
        sql.insertFrom(table, TPCH_ORDERS, "orderkey % 3 = 0");

        // reads through S3 give TPC-H's answers
        assertSameAsTpch("SELECT count(*), sum(orderkey), sum(custkey), sum(CAST(totalprice AS DECIMAL(12, 2))), min(orderdate), max(orderdate), count(DISTINCT clerk), sum(length(comment)) FROM %s", table);
        assertSameAsTpch("SELECT orderkey, custkey, orderdate, totalprice FROM %s WHERE custkey BETWEEN 100 AND 120 AND orderdate >= DATE '1995-01-01' ORDER BY orderkey", table);
        assertSameAsTpch("SELECT orderpriority, count(*) FROM %s WHERE orderdate BETWEEN DATE '1993-03-01' AND DATE '1993-03-31' GROUP BY orderpriority ORDER BY orderpriority", table);
        sql.assertSameRows(table, TPCH_ORDERS);

        // the files are objects in the bucket, under the table's location in the warehouse
        List<String> keys = s3.objectKeys(BUCKET, "warehouse/");
        List<String> dataFiles = keys.stream().filter(key -> key.endsWith(".parquet")).toList();
        List<String> metadataFiles = keys.stream().filter(key -> key.endsWith(".metadata.json")).toList();
        assertThat(dataFiles).isNotEmpty().allMatch(key -> key.startsWith("warehouse/s3/orders"));
        assertThat(metadataFiles).hasSizeGreaterThanOrEqualTo(2).allMatch(key -> key.startsWith("warehouse/s3/orders"));
        assertThat(keys).anyMatch(key -> key.endsWith(".avro"));  // manifests and manifest lists
        assertThat(keys).as("the INSERT added objects").hasSizeGreaterThan(afterCreate.size()).containsAll(afterCreate);
        assertThat(afterCreate.stream().filter(key -> key.endsWith(".parquet")).count()).as("data files after CTAS").isLessThan(dataFiles.size());
        // nothing of the table went to the local file system
        assertThat(filesUnder(localWarehouse)).noneMatch(file -> file.toString().endsWith(".parquet") || file.toString().endsWith(".metadata.json"));

        // DROP TABLE: gone from the catalog
        sql.execute("DROP TABLE " + table);
        assertThat(sql.query("SELECT count(*) FROM qbeast.information_schema.tables WHERE table_schema = 's3'")).containsExactly(List.of(0L));
        // and its files deleted from the bucket (Iceberg's purge through the S3 file system)
        assertThat(s3.objectKeys(BUCKET, "warehouse/s3/orders")).isEmpty();
    }

    private void assertSameAsTpch(String template, String table)
            throws SQLException
    {
        sql.assertSameResults(template, table, TPCH_ORDERS).isNotEmpty();
    }

    private static List<Path> filesUnder(Path root)
            throws IOException
    {
        if (!Files.exists(root)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile).toList();
        }
    }
}

package io.qbeast.trino;

import com.google.common.collect.ImmutableMap;
import io.airlift.configuration.ConfigurationFactory;
import io.airlift.units.DataSize;
import io.qbeast.trino.config.CatalogType;
import io.qbeast.trino.config.QbeastCompressionCodec;
import io.qbeast.trino.config.QbeastConfig;
import io.trino.spi.connector.Connector;
import io.trino.testing.TestingConnectorContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static io.airlift.units.DataSize.Unit.MEGABYTE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Catalog properties: names, defaults, strictness and validation. */
class TestQbeastConnectorFactory
{
    @TempDir
    Path root;

    @Test
    void testDefaults()
    {
        QbeastConfig config = new QbeastConfig();
        assertThat(config.getCatalogType()).isEqualTo(CatalogType.JDBC);
        assertThat(config.getWarehouse()).isEmpty();
        assertThat(config.getJdbcConnectionUrl()).isEmpty();
        assertThat(config.getJdbcConnectionUser()).isEmpty();
        assertThat(config.getJdbcConnectionPassword()).isEmpty();
        assertThat(config.getJdbcCatalogName()).isEmpty();
        assertThat(config.getRestUri()).isEmpty();
        assertThat(config.getRestWarehouse()).isEmpty();
        assertThat(config.getRestCredential()).isEmpty();
        assertThat(config.getRestToken()).isEmpty();
        assertThat(config.getWriterBufferSize()).isEqualTo(DataSize.of(256, MEGABYTE));
        assertThat(config.getTargetFileSize()).isEqualTo(DataSize.of(512, MEGABYTE));
        assertThat(config.getWriterSpillPath()).isEqualTo(System.getProperty("java.io.tmpdir"));
        assertThat(config.getDefaultCubeSize()).isEqualTo(1_000_000);
        assertThat(config.getCompressionCodec()).isEqualTo(QbeastCompressionCodec.ZSTD);
    }

    @Test
    void testExplicitProperties()
    {
        QbeastConfig config = new ConfigurationFactory(ImmutableMap.<String, String>builder()
                .put("qbeast.catalog.type", "rest")
                .put("qbeast.warehouse", "s3://bucket/warehouse")
                .put("qbeast.jdbc.connection-url", "jdbc:postgresql://db:5432/catalog")
                .put("qbeast.jdbc.connection-user", "user")
                .put("qbeast.jdbc.connection-password", "secret")
                .put("qbeast.jdbc.catalog-name", "lake")
                .put("qbeast.rest.uri", "http://rest:8181")
                .put("qbeast.rest.warehouse", "wh")
                .put("qbeast.rest.credential", "id:secret")
                .put("qbeast.rest.token", "token")
                .put("qbeast.writer.buffer-size", "16MB")
                .put("qbeast.target-file-size", "128MB")
                .put("qbeast.writer.spill-path", "/var/spill/qbeast")
                .put("qbeast.default-cube-size", "50000")
                .put("qbeast.compression-codec", "snappy")
                .buildOrThrow())
                .build(QbeastConfig.class);
        assertThat(config.getCatalogType()).isEqualTo(CatalogType.REST);
        assertThat(config.getWarehouse()).contains("s3://bucket/warehouse");
        assertThat(config.getJdbcConnectionUrl()).contains("jdbc:postgresql://db:5432/catalog");
        assertThat(config.getJdbcConnectionUser()).contains("user");
        assertThat(config.getJdbcConnectionPassword()).contains("secret");
        assertThat(config.getJdbcCatalogName()).contains("lake");
        assertThat(config.getRestUri()).contains("http://rest:8181");
        assertThat(config.getRestWarehouse()).contains("wh");
        assertThat(config.getRestCredential()).contains("id:secret");
        assertThat(config.getRestToken()).contains("token");
        assertThat(config.getWriterBufferSize()).isEqualTo(DataSize.of(16, MEGABYTE));
        assertThat(config.getTargetFileSize()).isEqualTo(DataSize.of(128, MEGABYTE));
        assertThat(config.getWriterSpillPath()).isEqualTo("/var/spill/qbeast");
        assertThat(config.getDefaultCubeSize()).isEqualTo(50_000);
        assertThat(config.getCompressionCodec()).isEqualTo(QbeastCompressionCodec.SNAPPY);
    }

    @Test
    void testCreateConnector()
    {
        Connector connector = new QbeastConnectorFactory().create("test", localCatalog(ImmutableMap.of()), new TestingConnectorContext());
        assertThat(connector).isInstanceOf(QbeastConnector.class);
        assertThat(connector.getTableProperties()).extracting(property -> property.getName()).containsExactlyInAnyOrder("indexed_columns", "cube_size");
        connector.shutdown();
    }

    @Test
    void testUnknownPropertyFails()
    {
        assertThatThrownBy(() -> new QbeastConnectorFactory().create("test", localCatalog(ImmutableMap.of("qbeast.bogus", "1")), new TestingConnectorContext()))
                .hasMessageContaining("Configuration property 'qbeast.bogus' was not used");
    }

    @Test
    void testInvalidConfigurationFails()
    {
        assertThatThrownBy(() -> new QbeastConnectorFactory().create("test", ImmutableMap.of("qbeast.catalog.type", "REST"), new TestingConnectorContext()))
                .hasMessageContaining("qbeast.rest.uri is required when qbeast.catalog.type=REST");
        assertThatThrownBy(() -> new QbeastConnectorFactory().create("test", ImmutableMap.of(), new TestingConnectorContext()))
                .hasMessageContaining("qbeast.warehouse is required when qbeast.catalog.type=JDBC");
        assertThatThrownBy(() -> new QbeastConnectorFactory().create("test", localCatalog(ImmutableMap.of("qbeast.default-cube-size", "0")), new TestingConnectorContext()))
                .hasMessageContaining("qbeast.default-cube-size");
        assertThatThrownBy(() -> new QbeastConnectorFactory().create("test", localCatalog(ImmutableMap.of("qbeast.compression-codec", "LZ4")), new TestingConnectorContext()))
                .hasMessageContaining("qbeast.compression-codec");
    }

    private Map<String, String> localCatalog(Map<String, String> extra)
    {
        return ImmutableMap.<String, String>builder()
                .put("fs.local.enabled", "true")
                .put("local.location", root.toString())
                .put("qbeast.warehouse", "local:///warehouse")
                .putAll(extra)
                .buildOrThrow();
    }
}

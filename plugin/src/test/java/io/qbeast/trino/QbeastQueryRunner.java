package io.qbeast.trino;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.io.MoreFiles;
import com.google.common.io.RecursiveDeleteOption;
import com.google.errorprone.annotations.CanIgnoreReturnValue;
import io.airlift.log.Logger;
import io.trino.Session;
import io.trino.execution.QueryStats;
import io.trino.plugin.tpch.TpchPlugin;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorContext;
import io.trino.spi.connector.ConnectorFactory;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.QueryRunner;
import io.trino.tpch.TpchTable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.airlift.testing.Closeables.closeAllSuppress;
import static io.trino.testing.TestingSession.testSessionBuilder;
import static java.util.Objects.requireNonNull;

/**
 * A 3-node {@link DistributedQueryRunner} (coordinator and 2 workers) with a {@code qbeast}
 * catalog on a temporary local warehouse (JDBC catalog in the default SQLite file) and the
 * {@code tpch} catalog. The default session uses {@code qbeast.tpch}; {@link Builder#setInitialTables}
 * copies TPC-H tiny tables there with CREATE TABLE AS, indexed on their keys.
 */
public final class QbeastQueryRunner
{
    public static final String CATALOG = "qbeast";
    public static final String SCHEMA = "tpch";

    /** Indexed columns of the TPC-H tables copied by {@link Builder#setInitialTables}. */
    public static final Map<String, List<String>> TPCH_INDEXED_COLUMNS = ImmutableMap.<String, List<String>>builder()
            .put("nation", ImmutableList.of("nationkey", "regionkey"))
            .put("region", ImmutableList.of("regionkey"))
            .put("customer", ImmutableList.of("custkey", "nationkey"))
            .put("orders", ImmutableList.of("orderkey", "orderdate"))
            .put("lineitem", ImmutableList.of("orderkey", "shipdate"))
            .put("part", ImmutableList.of("partkey", "size"))
            .put("partsupp", ImmutableList.of("partkey", "suppkey"))
            .put("supplier", ImmutableList.of("suppkey", "nationkey"))
            .buildOrThrow();

    private QbeastQueryRunner() {}

    public static Builder builder()
    {
        return new Builder();
    }

    public static class Builder
            extends DistributedQueryRunner.Builder<Builder>
    {
        private final Map<String, String> connectorProperties = new HashMap<>();
        private final List<QbeastConnector> connectors = new CopyOnWriteArrayList<>();
        private List<TpchTable<?>> initialTables = ImmutableList.of();
        private Path root;

        protected Builder()
        {
            super(testSessionBuilder()
                    .setCatalog(CATALOG)
                    .setSchema(SCHEMA)
                    .build());
            setWorkerCount(2);
        }

        @CanIgnoreReturnValue
        public Builder addConnectorProperty(String key, String value)
        {
            connectorProperties.put(requireNonNull(key, "key is null"), requireNonNull(value, "value is null"));
            return self();
        }

        @CanIgnoreReturnValue
        public Builder setInitialTables(Iterable<TpchTable<?>> initialTables)
        {
            this.initialTables = ImmutableList.copyOf(initialTables);
            return self();
        }

        /** The qbeast connectors of every node (coordinator and workers), once built. */
        public List<QbeastConnector> getConnectors()
        {
            return connectors;
        }

        /** The directory that {@code local:///} locations resolve under (created by {@link #build()}). */
        public Path getRoot()
        {
            return root;
        }

        @Override
        public DistributedQueryRunner build()
                throws Exception
        {
            root = Files.createTempDirectory("qbeast-test");
            Path warehouseRoot = root;
            registerResource(() -> MoreFiles.deleteRecursively(warehouseRoot, RecursiveDeleteOption.ALLOW_INSECURE));
            DistributedQueryRunner queryRunner = super.build();
            try {
                queryRunner.installPlugin(new TpchPlugin());
                queryRunner.createCatalog("tpch", "tpch", ImmutableMap.of());

                Map<String, String> properties = new HashMap<>();
                properties.put("fs.local.enabled", "true");
                properties.put("local.location", root.toString());
                properties.put("qbeast.warehouse", "local:///warehouse");
                properties.putAll(connectorProperties);
                queryRunner.installPlugin(new RecordingPlugin(connectors));
                queryRunner.createCatalog(CATALOG, QbeastConnectorFactory.CONNECTOR_NAME, properties);

                queryRunner.execute("CREATE SCHEMA IF NOT EXISTS " + CATALOG + "." + SCHEMA);
                for (TpchTable<?> table : initialTables) {
                    copyTpchTable(queryRunner, table.getTableName());
                }
                return queryRunner;
            }
            catch (Exception e) {
                closeAllSuppress(e, queryRunner);
                throw e;
            }
        }
    }

    /** The qbeast plugin, remembering the connector it creates on each node. */
    private static class RecordingPlugin
            extends QbeastPlugin
    {
        private final List<QbeastConnector> connectors;

        RecordingPlugin(List<QbeastConnector> connectors)
        {
            this.connectors = connectors;
        }

        @Override
        public Iterable<ConnectorFactory> getConnectorFactories()
        {
            ConnectorFactory factory = new QbeastConnectorFactory();
            return ImmutableList.of(new ConnectorFactory()
            {
                @Override
                public String getName()
                {
                    return factory.getName();
                }

                @Override
                public Connector create(String catalogName, Map<String, String> config, ConnectorContext context)
                {
                    Connector connector = factory.create(catalogName, config, context);
                    connectors.add((QbeastConnector) connector);
                    return connector;
                }
            });
        }
    }

    /** {@code CREATE TABLE qbeast.tpch.<table> WITH (indexed_columns = ...) AS SELECT * FROM tpch.tiny.<table>}. */
    public static void copyTpchTable(QueryRunner queryRunner, String table)
    {
        List<String> indexed = requireNonNull(TPCH_INDEXED_COLUMNS.get(table), () -> "no indexed columns for " + table);
        String columns = String.join(", ", indexed.stream().map(name -> "'" + name + "'").toList());
        queryRunner.execute("CREATE TABLE IF NOT EXISTS %s.%s.%s WITH (indexed_columns = ARRAY[%s]) AS SELECT * FROM tpch.tiny.%s"
                .formatted(CATALOG, SCHEMA, table, columns, table));
    }

    /**
     * {@code session} with one writer per node (no writer scaling), so each writer's tree is a
     * few levels deep and small cubes are rolled up.
     */
    public static Session oneWriterPerNode(Session session)
    {
        return Session.builder(session)
                .setSystemProperty("scale_writers", "false")
                .setSystemProperty("task_scale_writers_enabled", "false")
                .setSystemProperty("task_min_writer_count", "1")
                .setSystemProperty("task_max_writer_count", "1")
                .build();
    }

    /** {@code session} with a single writer in the whole cluster: one sink receives every row. */
    public static Session oneWriter(Session session)
    {
        return Session.builder(oneWriterPerNode(session))
                .setSystemProperty("max_writer_task_count", "1")
                .build();
    }

    /** Runs {@code sql} and returns the coordinator's statistics of the finished query. */
    public static QueryStats queryStats(DistributedQueryRunner queryRunner, Session session, String sql)
    {
        QueryRunner.MaterializedResultWithPlan result = queryRunner.executeWithPlan(session, sql);
        return queryRunner.getCoordinator().getQueryManager().getFullQueryInfo(result.queryId()).getQueryStats();
    }

    static void main()
            throws Exception
    {
        QueryRunner queryRunner = builder()
                .addCoordinatorProperty("http-server.http.port", "8080")
                .setInitialTables(TpchTable.getTables())
                .build();
        Logger log = Logger.get(QbeastQueryRunner.class);
        log.info("======== SERVER STARTED ========");
        log.info("\n====\n%s\n====", ((DistributedQueryRunner) queryRunner).getCoordinator().getBaseUrl());
    }
}

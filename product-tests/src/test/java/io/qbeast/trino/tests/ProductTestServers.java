package io.qbeast.trino.tests;

import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.jdbc.JdbcCatalog;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * Setups the product tests share: a Trino server with the {@code qbeast} and {@code tpch}
 * catalogs, a Trino server on top of another server it depends on (a catalog or storage server),
 * and the PostgreSQL JDBC catalog that qbeast and the stock Iceberg connector share.
 */
public final class ProductTestServers
{
    private ProductTestServers() {}

    /** qbeast catalog properties on the PostgreSQL JDBC catalog {@code catalogName}. */
    public static Map<String, String> qbeastCatalogOn(PostgresServer postgres, String catalogName)
    {
        Map<String, String> qbeast = new LinkedHashMap<>();
        qbeast.put("qbeast.jdbc.connection-url", postgres.jdbcUrl());
        qbeast.put("qbeast.jdbc.connection-user", postgres.user());
        qbeast.put("qbeast.jdbc.connection-password", postgres.password());
        qbeast.put("qbeast.jdbc.catalog-name", catalogName);
        return qbeast;
    }

    /**
     * Stock Iceberg connector properties on the same JDBC catalog, with the local warehouse. Trino
     * resolves {@code file:} URIs under {@code local.location}: {@code /} makes them the absolute
     * paths qbeast writes.
     */
    public static Map<String, String> icebergCatalogOn(PostgresServer postgres, String catalogName, Path warehouse)
    {
        Map<String, String> iceberg = new LinkedHashMap<>();
        iceberg.put("connector.name", "iceberg");
        iceberg.put("iceberg.catalog.type", "jdbc");
        iceberg.put("iceberg.jdbc-catalog.driver-class", "org.postgresql.Driver");
        iceberg.put("iceberg.jdbc-catalog.connection-url", postgres.jdbcUrl());
        iceberg.put("iceberg.jdbc-catalog.connection-user", postgres.user());
        iceberg.put("iceberg.jdbc-catalog.connection-password", postgres.password());
        iceberg.put("iceberg.jdbc-catalog.catalog-name", catalogName);
        iceberg.put("iceberg.jdbc-catalog.default-warehouse-dir", "file://" + warehouse.toAbsolutePath());
        iceberg.put("fs.local.enabled", "true");
        iceberg.put("local.location", "/");
        return iceberg;
    }

    /** A server with {@code tpch} and {@code qbeast} on a local warehouse, both under {@code work}. */
    static TrinoServer startQbeastServer(Path work)
    {
        return TrinoServer.builder()
                .withDirectory(work.resolve("cluster"))
                .withTpch()
                .withQbeast(work.resolve("warehouse"))
                .start();
    }

    /** Starts Trino with {@code start}; closes {@code dependency}, already running, if Trino does not start. */
    static TrinoServer startUsing(AutoCloseable dependency, Supplier<TrinoServer> start)
            throws Exception
    {
        try {
            return start.get();
        }
        catch (RuntimeException | Error e) {
            dependency.close();
            throw e;
        }
    }

    /** Closes Trino, then the server it depended on, even when closing Trino fails; either may be null. */
    static void closeInOrder(TrinoServer trino, AutoCloseable dependency)
            throws Exception
    {
        try {
            if (trino != null) {
                trino.close();
            }
        }
        finally {
            if (dependency != null) {
                dependency.close();
            }
        }
    }

    /**
     * A Trino server whose {@code qbeast} catalog and stock {@code iceberg} catalog use one
     * PostgreSQL JDBC catalog (named {@code catalogName} in both) and one local warehouse.
     */
    record SharedPostgresCatalog(PostgresServer postgres, TrinoServer trino, Path warehouse)
            implements AutoCloseable
    {
        SharedPostgresCatalog
        {
            requireNonNull(postgres, "postgres is null");
            requireNonNull(trino, "trino is null");
            requireNonNull(warehouse, "warehouse is null");
        }

        static SharedPostgresCatalog start(String workDirectoryName, String catalogName)
                throws Exception
        {
            return start(workDirectoryName, catalogName, Map.of());
        }

        /** As {@link #start(String, String)}, with {@code qbeastProperties} added to the qbeast catalog. */
        static SharedPostgresCatalog start(String workDirectoryName, String catalogName, Map<String, String> qbeastProperties)
                throws Exception
        {
            Path work = ProductTestEnvironment.newWorkDirectory(workDirectoryName);
            Path warehouse = work.resolve("warehouse");
            PostgresServer postgres = PostgresServer.start("iceberg_catalog");

            Map<String, String> qbeast = qbeastCatalogOn(postgres, catalogName);
            qbeast.putAll(qbeastProperties);
            Map<String, String> iceberg = icebergCatalogOn(postgres, catalogName, warehouse);

            TrinoServer trino = startUsing(postgres, () -> TrinoServer.builder()
                    .withDirectory(work.resolve("cluster"))
                    .withHeap("1536M")
                    .withTpch()
                    .withQbeast("qbeast", warehouse, qbeast)
                    .withIcebergPlugin()
                    .withCatalog("iceberg", iceberg)
                    .start());
            return new SharedPostgresCatalog(postgres, trino, warehouse);
        }

        /**
         * Apache Iceberg's own {@link JdbcCatalog} on the same PostgreSQL catalog, as another engine
         * would open it ({@code catalogName} as the Trino catalogs use it), reading and writing the
         * tables' {@code file:} URIs as they are ({@link FileUriIo}). The caller closes it.
         */
        JdbcCatalog icebergJavaCatalog(String catalogName)
        {
            Map<String, String> properties = new HashMap<>();
            properties.put(CatalogProperties.URI, postgres.jdbcUrl());
            properties.put("jdbc.user", postgres.user());
            properties.put("jdbc.password", postgres.password());
            // the catalog tables as qbeast's JDBC catalog creates them
            properties.put("jdbc.schema-version", "V1");
            properties.put(CatalogProperties.WAREHOUSE_LOCATION, "file://" + warehouse.toAbsolutePath());
            properties.put(CatalogProperties.FILE_IO_IMPL, FileUriIo.class.getName());
            JdbcCatalog catalog = new JdbcCatalog();
            catalog.initialize(catalogName, properties);
            return catalog;
        }

        @Override
        public void close()
                throws Exception
        {
            closeInOrder(trino, postgres);
        }
    }
}

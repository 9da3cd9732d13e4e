package io.qbeast.iceberg;

import com.google.common.collect.ImmutableMap;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SessionCatalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.jdbc.JdbcClientPool;
import org.apache.iceberg.jdbc.UncheckedSQLException;
import org.apache.iceberg.rest.HTTPClient;
import org.apache.iceberg.rest.RESTSessionCatalog;
import org.apache.iceberg.rest.RESTUtil;

import javax.sql.rowset.CachedRowSet;
import javax.sql.rowset.RowSetProvider;

import java.io.Closeable;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Function;

import static java.util.Objects.requireNonNull;

/**
 * Builds the Iceberg catalogs qbeast tables live in: Iceberg's own {@link JdbcCatalog} (an
 * embedded SQLite file by default, PostgreSQL for a cluster) and the REST catalog. Both read
 * and write files through the {@link FileIO} the caller supplies (a {@link TrinoFileIo}), so no
 * Hadoop is involved.
 */
public final class IcebergCatalogs
{
    /**
     * Manifests are immutable: every query plans its files from them, so the catalog's FileIO keeps
     * their content in memory (Iceberg's manifest cache: up to 100 MB, entries of up to 8 MB, evicted
     * an hour after last use) instead of reading them from storage per query.
     */
    static final Map<String, String> MANIFEST_CACHE = ImmutableMap.of(
            CatalogProperties.IO_MANIFEST_CACHE_ENABLED, "true",
            CatalogProperties.IO_MANIFEST_CACHE_EXPIRATION_INTERVAL_MS, String.valueOf(60L * 60 * 1000));

    /** The SQLite file the JDBC catalog uses when no connection URL is configured. */
    public static final String DEFAULT_SQLITE_FILE_NAME = "qbeast-catalog.db";

    private IcebergCatalogs() {}

    /** A catalog with its namespace operations, and what to close when the connector shuts down. */
    public record IcebergCatalog(Catalog catalog, SupportsNamespaces namespaces, Closeable closer, boolean managesLocations)
            implements Closeable
    {
        public IcebergCatalog
        {
            requireNonNull(catalog, "catalog is null");
            requireNonNull(namespaces, "namespaces is null");
            requireNonNull(closer, "closer is null");
        }

        @Override
        public void close()
                throws IOException
        {
            closer.close();
        }
    }

    /**
     * Iceberg's JDBC catalog with the view-capable (V1) schema; the catalog tables are created on
     * first use. SQLite and PostgreSQL drivers are bundled and used directly (not through
     * {@link DriverManager}, which cannot see drivers inside a plugin class loader).
     */
    public static IcebergCatalog jdbc(
            String catalogName,
            String connectionUrl,
            Optional<String> user,
            Optional<String> password,
            String warehouse,
            Function<Map<String, String>, FileIO> ioBuilder)
    {
        requireNonNull(connectionUrl, "connectionUrl is null");
        requireNonNull(warehouse, "warehouse is null");
        ImmutableMap.Builder<String, String> properties = ImmutableMap.builder();
        properties.put(CatalogProperties.URI, connectionUrl);
        properties.put(CatalogProperties.WAREHOUSE_LOCATION, warehouse);
        properties.put("jdbc.schema-version", "V1");
        properties.put("jdbc.init-catalog-tables", "true");
        properties.put(CatalogProperties.METRICS_REPORTER_IMPL, NoopMetricsReporter.class.getName());
        properties.putAll(MANIFEST_CACHE);
        Properties connectionProperties = new Properties();
        user.ifPresent(value -> connectionProperties.setProperty("user", value));
        password.ifPresent(value -> connectionProperties.setProperty("password", value));
        if (connectionUrl.startsWith("jdbc:sqlite:")) {
            // concurrent commits from one coordinator wait for the file lock instead of failing
            connectionProperties.setProperty("busy_timeout", "20000");
        }
        Map<String, String> catalogProperties = properties.buildOrThrow();

        Driver driver = driverFor(connectionUrl);
        JdbcCatalog catalog = new JdbcCatalog(
                ioBuilder,
                config -> new DriverClientPool(driver, connectionUrl, connectionProperties, config),
                true);
        catalog.initialize(catalogName, catalogProperties);
        return new IcebergCatalog(catalog, catalog, catalog, false);
    }

    /**
     * Iceberg's REST catalog client (Polaris, Lakekeeper, Nessie, Gravitino, ...). The server
     * chooses table locations; {@code credential} (OAuth2 client credentials, {@code id:secret})
     * or {@code token} (a bearer token) authenticate when given.
     */
    public static IcebergCatalog rest(
            String catalogName,
            String uri,
            Optional<String> warehouse,
            Optional<String> credential,
            Optional<String> token,
            Function<Map<String, String>, FileIO> ioBuilder)
    {
        requireNonNull(uri, "uri is null");
        ImmutableMap.Builder<String, String> properties = ImmutableMap.builder();
        properties.put(CatalogProperties.URI, uri);
        properties.put(CatalogProperties.METRICS_REPORTER_IMPL, NoopMetricsReporter.class.getName());
        properties.putAll(MANIFEST_CACHE);
        warehouse.ifPresent(value -> properties.put(CatalogProperties.WAREHOUSE_LOCATION, value));
        credential.ifPresent(value -> properties.put("credential", value));
        token.ifPresent(value -> properties.put("token", value));

        RESTSessionCatalog sessionCatalog = new RESTSessionCatalog(
                config -> HTTPClient.builder(config)
                        .uri(config.get(CatalogProperties.URI))
                        .withHeaders(RESTUtil.configHeaders(config))
                        .build(),
                (_, config) -> ioBuilder.apply(config));
        sessionCatalog.initialize(catalogName, properties.buildOrThrow());
        Catalog catalog = sessionCatalog.asCatalog(SessionCatalog.SessionContext.createEmpty());
        return new IcebergCatalog(catalog, (SupportsNamespaces) catalog, sessionCatalog, true);
    }

    private static Driver driverFor(String connectionUrl)
    {
        if (connectionUrl.startsWith("jdbc:sqlite:")) {
            return new org.sqlite.JDBC();
        }
        if (connectionUrl.startsWith("jdbc:postgresql:")) {
            return new org.postgresql.Driver();
        }
        try {
            return DriverManager.getDriver(connectionUrl);
        }
        catch (SQLException e) {
            throw new IllegalArgumentException("No JDBC driver for " + connectionUrl + " (bundled: SQLite, PostgreSQL)", e);
        }
    }

    /**
     * Iceberg's JDBC catalog leaves the result sets of its {@link DatabaseMetaData} lookups open.
     * On SQLite an open result set is an open read transaction that blocks every writer (other
     * catalogs on the same file, other pooled connections) until the connection closes. So
     * metadata results are copied into memory and closed at once.
     */
    private static Connection withDetachedMetadataResults(Connection connection)
    {
        return (Connection) Proxy.newProxyInstance(
                IcebergCatalogs.class.getClassLoader(),
                new Class<?>[] {Connection.class},
                (_, method, arguments) -> {
                    Object result = invoke(connection, method, arguments);
                    if (method.getName().equals("getMetaData")) {
                        DatabaseMetaData metaData = (DatabaseMetaData) result;
                        return Proxy.newProxyInstance(
                                IcebergCatalogs.class.getClassLoader(),
                                new Class<?>[] {DatabaseMetaData.class},
                                (_, metaDataMethod, metaDataArguments) -> {
                                    Object value = invoke(metaData, metaDataMethod, metaDataArguments);
                                    if (value instanceof ResultSet resultSet && metaDataMethod.getReturnType() == ResultSet.class) {
                                        try (resultSet) {
                                            CachedRowSet copy = RowSetProvider.newFactory().createCachedRowSet();
                                            copy.populate(resultSet);
                                            return copy;
                                        }
                                    }
                                    return value;
                                });
                    }
                    return result;
                });
    }

    private static Object invoke(Object target, Method method, Object[] arguments)
            throws Throwable
    {
        try {
            return method.invoke(target, arguments);
        }
        catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static final class DriverClientPool
            extends JdbcClientPool
    {
        private final Driver driver;
        private final String url;
        private final Properties connectionProperties;

        private DriverClientPool(Driver driver, String url, Properties connectionProperties, Map<String, String> catalogProperties)
        {
            super(url, catalogProperties);
            this.driver = driver;
            this.url = url;
            this.connectionProperties = connectionProperties;
        }

        @Override
        protected Connection newClient()
        {
            try {
                Connection connection = driver.connect(url, connectionProperties);
                if (connection == null) {
                    throw new SQLException("Driver " + driver.getClass().getName() + " does not accept " + url);
                }
                return withDetachedMetadataResults(connection);
            }
            catch (SQLException e) {
                throw new UncheckedSQLException(e, "Failed to connect: %s", url);
            }
        }
    }
}

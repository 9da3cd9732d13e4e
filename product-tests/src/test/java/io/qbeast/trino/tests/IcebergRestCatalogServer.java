package io.qbeast.trino.tests;

import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalogAdapter;
import org.apache.iceberg.rest.RESTCatalogServlet;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.eclipse.jetty.servlet.ServletHolder;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * An Iceberg REST catalog server in the test JVM, on a free loopback port: Apache Iceberg's own
 * REST test server pieces ({@code RESTCatalogServlet} serving {@code RESTCatalogAdapter}, from the
 * iceberg-core test jar; the same wiring as {@code RESTCatalogServer} of
 * {@code iceberg-open-api:test-fixtures}, minus its Hadoop {@code Configuration}) on Jetty 11,
 * backed by a {@link JdbcCatalog} in a SQLite file. The server writes table metadata through
 * {@link FileUriIo} at the standard {@code file:} URIs of its warehouse, which qbeast opens as
 * they are.
 */
public final class IcebergRestCatalogServer
        implements AutoCloseable
{
    private final Server server;
    private final JdbcCatalog catalog;
    private final int port;

    private IcebergRestCatalogServer(Server server, JdbcCatalog catalog, int port)
    {
        this.server = server;
        this.catalog = catalog;
        this.port = port;
    }

    /**
     * Starts the server on a free loopback port.
     *
     * @param warehouse the server's warehouse, e.g. {@code file:///tmp/work/rest}
     * @param catalogDatabase the SQLite file of the backing JDBC catalog
     */
    public static IcebergRestCatalogServer start(String warehouse, Path catalogDatabase)
            throws Exception
    {
        Map<String, String> properties = new HashMap<>();
        properties.put(CatalogProperties.URI, "jdbc:sqlite:" + catalogDatabase.toAbsolutePath());
        properties.put("jdbc.schema-version", "V1");
        properties.put(CatalogProperties.WAREHOUSE_LOCATION, warehouse);
        properties.put(CatalogProperties.FILE_IO_IMPL, FileUriIo.class.getName());
        JdbcCatalog catalog = new JdbcCatalog();
        catalog.initialize("rest_backend", properties);

        RESTCatalogAdapter adapter = new RESTCatalogAdapter(catalog);
        ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
        context.setContextPath("/");
        context.addServlet(new ServletHolder(new RESTCatalogServlet(adapter)), "/*");
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(context);
        try {
            server.start();
        }
        catch (Exception e) {
            server.stop();
            catalog.close();
            throw e;
        }
        return new IcebergRestCatalogServer(server, catalog, connector.getLocalPort());
    }

    public String uri()
    {
        return "http://127.0.0.1:" + port;
    }

    /** The backing catalog, to look at what the REST server holds. */
    public JdbcCatalog backend()
    {
        return catalog;
    }

    @Override
    public void close()
            throws Exception
    {
        try {
            server.stop();
        }
        finally {
            catalog.close();
        }
    }
}

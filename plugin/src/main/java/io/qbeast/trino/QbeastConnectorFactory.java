package io.qbeast.trino;

import com.google.inject.Injector;
import io.airlift.bootstrap.Bootstrap;
import io.airlift.json.JsonModule;
import io.qbeast.trino.catalog.LocalFileSystemRoot;
import io.qbeast.trino.security.QbeastSecurityModule;
import io.trino.filesystem.manager.FileSystemModule;
import io.trino.plugin.base.ConnectorContextModule;
import io.trino.spi.classloader.ThreadContextClassLoader;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorContext;
import io.trino.spi.connector.ConnectorFactory;

import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * Creates a qbeast catalog. The SPI version is deliberately not pinned
 * ({@code checkStrictSpiVersionMatch}): the plugin is built against Trino 483 and loads on any
 * server whose SPI is compatible.
 */
public class QbeastConnectorFactory
        implements ConnectorFactory
{
    public static final String CONNECTOR_NAME = "qbeast";

    @Override
    public String getName()
    {
        return CONNECTOR_NAME;
    }

    @Override
    public Connector create(String catalogName, Map<String, String> config, ConnectorContext context)
    {
        requireNonNull(catalogName, "catalogName is null");
        requireNonNull(config, "config is null");
        ClassLoader classLoader = QbeastConnectorFactory.class.getClassLoader();
        try (ThreadContextClassLoader _ = new ThreadContextClassLoader(classLoader)) {
            Bootstrap app = new Bootstrap(
                    new JsonModule(),
                    // binds the catalog name and what the context offers (node manager, type manager, tracer, ...)
                    new ConnectorContextModule(catalogName, context),
                    new QbeastModule(),
                    new QbeastSecurityModule(),
                    new FileSystemModule(catalogName, context, false),
                    binder -> {
                        binder.bind(ClassLoader.class).toInstance(classLoader);
                        // Trino's local file system root, to place the default SQLite catalog file
                        binder.bind(LocalFileSystemRoot.class).toInstance(new LocalFileSystemRoot(config.get("local.location")));
                    });

            Injector injector = app
                    .doNotInitializeLogging()
                    .setRequiredConfigurationProperties(config)
                    .initialize();

            return injector.getInstance(QbeastConnector.class);
        }
    }
}

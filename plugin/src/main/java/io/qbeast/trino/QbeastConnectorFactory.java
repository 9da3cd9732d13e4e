package io.qbeast.trino;

import com.google.inject.Injector;
import io.airlift.bootstrap.Bootstrap;
import io.airlift.json.JsonModule;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import io.qbeast.trino.catalog.LocalFileSystemRoot;
import io.qbeast.trino.security.QbeastSecurityModule;
import io.trino.filesystem.manager.FileSystemModule;
import io.trino.plugin.base.CatalogNameModule;
import io.trino.spi.NodeManager;
import io.trino.spi.classloader.ThreadContextClassLoader;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorContext;
import io.trino.spi.connector.ConnectorFactory;
import io.trino.spi.type.TypeManager;

import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * Creates a qbeast catalog. The SPI version is deliberately not pinned
 * ({@code checkStrictSpiVersionMatch}): the plugin is built against Trino 476 and loads on any
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
                    new CatalogNameModule(catalogName),
                    new QbeastModule(),
                    new QbeastSecurityModule(),
                    new FileSystemModule(catalogName, context.getNodeManager(), context.getOpenTelemetry(), false),
                    binder -> {
                        binder.bind(ClassLoader.class).toInstance(classLoader);
                        binder.bind(NodeManager.class).toInstance(context.getNodeManager());
                        binder.bind(TypeManager.class).toInstance(context.getTypeManager());
                        binder.bind(OpenTelemetry.class).toInstance(context.getOpenTelemetry());
                        binder.bind(Tracer.class).toInstance(context.getTracer());
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

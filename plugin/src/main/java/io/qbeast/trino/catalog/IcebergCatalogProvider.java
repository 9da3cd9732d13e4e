package io.qbeast.trino.catalog;

import com.google.inject.Inject;
import io.airlift.log.Logger;
import io.qbeast.iceberg.IcebergCatalogs;
import io.qbeast.iceberg.IcebergCatalogs.IcebergCatalog;
import io.qbeast.iceberg.TrinoFileIo;
import io.qbeast.trino.config.QbeastConfig;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystemFactory;
import io.trino.spi.TrinoException;
import io.trino.spi.catalog.CatalogName;
import io.trino.spi.security.ConnectorIdentity;
import jakarta.annotation.PreDestroy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import static io.trino.spi.StandardErrorCode.CONFIGURATION_INVALID;
import static java.util.Objects.requireNonNull;

/**
 * The Iceberg catalog of this Trino catalog, created on first use: only the coordinator plans
 * and commits, so workers never connect to the catalog database.
 */
public class IcebergCatalogProvider
{
    private static final Logger log = Logger.get(IcebergCatalogProvider.class);
    // the identity the catalog reads and writes table metadata with
    private static final ConnectorIdentity CATALOG_IDENTITY = ConnectorIdentity.ofUser("qbeast");

    private final String catalogName;
    private final QbeastConfig config;
    private final TrinoFileSystemFactory fileSystemFactory;
    private final LocalFileSystemRoot localRoot;
    private IcebergCatalog catalog;
    private boolean closed;

    @Inject
    public IcebergCatalogProvider(CatalogName catalogName, QbeastConfig config, QbeastFileSystemFactory fileSystemFactory, LocalFileSystemRoot localRoot)
    {
        this.catalogName = requireNonNull(catalogName, "catalogName is null").toString();
        this.config = requireNonNull(config, "config is null");
        this.fileSystemFactory = requireNonNull(fileSystemFactory, "fileSystemFactory is null");
        this.localRoot = requireNonNull(localRoot, "localRoot is null");
    }

    public synchronized IcebergCatalog get()
    {
        if (closed) {
            throw new IllegalStateException("Catalog " + catalogName + " is shut down");
        }
        if (catalog == null) {
            catalog = create();
        }
        return catalog;
    }

    private IcebergCatalog create()
    {
        return switch (config.getCatalogType()) {
            case JDBC -> {
                String warehouse = config.getWarehouse().orElseThrow(() -> new TrinoException(CONFIGURATION_INVALID, "qbeast.warehouse is required for the JDBC catalog"));
                String url = config.getJdbcConnectionUrl().orElseGet(() -> defaultSqliteUrl(warehouse));
                yield IcebergCatalogs.jdbc(
                        config.getJdbcCatalogName().orElse(catalogName),
                        url,
                        config.getJdbcConnectionUser(),
                        config.getJdbcConnectionPassword(),
                        warehouse,
                        properties -> new TrinoFileIo(fileSystemFactory.create(CATALOG_IDENTITY), properties));
            }
            case REST -> IcebergCatalogs.rest(
                    catalogName,
                    config.getRestUri().orElseThrow(() -> new TrinoException(CONFIGURATION_INVALID, "qbeast.rest.uri is required for the REST catalog")),
                    config.getRestWarehouse(),
                    config.getRestCredential(),
                    config.getRestToken(),
                    properties -> new TrinoFileIo(fileSystemFactory.create(CATALOG_IDENTITY), properties));
        };
    }

    /** {@code jdbc:sqlite:<warehouse>/qbeast-catalog.db}, for a warehouse on the local file system. */
    private String defaultSqliteUrl(String warehouse)
    {
        Location location = Location.of(warehouse);
        Optional<String> scheme = location.scheme();
        if (scheme.isEmpty()) {
            throw new TrinoException(CONFIGURATION_INVALID, "qbeast.warehouse must be a location with a scheme, e.g. file:///var/lib/qbeast/warehouse or s3://bucket/path: " + warehouse);
        }
        Path directory = switch (scheme.get()) {
            // an absolute path, as QbeastFileSystemFactory resolves file: URIs
            case QbeastFileSystemFactory.FILE_SCHEME -> Path.of("/").resolve(location.path());
            case QbeastFileSystemFactory.LOCAL_SCHEME -> Path.of(localRoot.root().orElseThrow(() -> new TrinoException(CONFIGURATION_INVALID, "local.location is required for the local warehouse " + warehouse)))
                    .resolve(location.path());
            default -> throw new TrinoException(CONFIGURATION_INVALID, "qbeast.jdbc.connection-url is required when qbeast.warehouse is not on the local file system: " + warehouse);
        };
        try {
            Files.createDirectories(directory);
        }
        catch (IOException e) {
            throw new UncheckedIOException("Cannot create the warehouse directory " + directory, e);
        }
        Path file = directory.resolve(IcebergCatalogs.DEFAULT_SQLITE_FILE_NAME).toAbsolutePath();
        log.info("Catalog %s: Iceberg JDBC catalog in SQLite file %s", catalogName, file);
        return "jdbc:sqlite:" + file;
    }

    @PreDestroy
    public synchronized void close()
            throws IOException
    {
        closed = true;
        if (catalog != null) {
            catalog.close();
            catalog = null;
        }
    }
}

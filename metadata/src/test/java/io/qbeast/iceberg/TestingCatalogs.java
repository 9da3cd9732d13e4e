package io.qbeast.iceberg;

import com.google.common.collect.ImmutableMap;
import io.qbeast.iceberg.IcebergCatalogs.IcebergCatalog;
import io.trino.filesystem.local.LocalFileSystemFactory;
import io.trino.spi.security.ConnectorIdentity;
import org.apache.iceberg.catalog.Namespace;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

final class TestingCatalogs
{
    private TestingCatalogs() {}

    /**
     * A real JDBC catalog (SQLite) whose warehouse is {@code local:///warehouse} under {@code root},
     * with the namespace {@code s} created.
     */
    static IcebergCatalog sqliteCatalog(Path root)
            throws IOException
    {
        Files.createDirectories(root.resolve("warehouse"));
        IcebergCatalog catalog = openSqliteCatalog(root);
        catalog.namespaces().createNamespace(Namespace.of("s"), ImmutableMap.of());
        return catalog;
    }

    /** Another catalog on the SQLite file and warehouse of {@link #sqliteCatalog}. */
    static IcebergCatalog openSqliteCatalog(Path root)
    {
        LocalFileSystemFactory fileSystems = new LocalFileSystemFactory(root);
        return IcebergCatalogs.jdbc(
                "test",
                "jdbc:sqlite:" + root.resolve("warehouse").resolve(IcebergCatalogs.DEFAULT_SQLITE_FILE_NAME),
                Optional.empty(),
                Optional.empty(),
                "local:///warehouse",
                _ -> new TrinoFileIo(fileSystems.create(ConnectorIdentity.ofUser("test"))));
    }
}

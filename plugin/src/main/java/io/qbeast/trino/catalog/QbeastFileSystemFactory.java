package io.qbeast.trino.catalog;

import com.google.inject.Inject;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.filesystem.TrinoFileSystemFactory;
import io.trino.filesystem.manager.FileSystemConfig;
import io.trino.filesystem.switching.SwitchingFileSystemFactory;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.security.ConnectorIdentity;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The file systems the connector reads and writes tables with: Trino's file system manager,
 * except that a {@code file:} URI is the absolute path it names.
 *
 * <p>Trino resolves {@code file:///a/b} like {@code local:///a/b}, under {@code local.location};
 * every other Iceberg engine reads it as the path {@code /a/b}. Resolving it the standard way
 * keeps the locations qbeast writes into Iceberg metadata readable by any engine, whatever
 * {@code local.location} is, while {@code local:} locations (tables written by earlier versions)
 * stay under {@code local.location}. Like Trino's, local files are served only with
 * {@code fs.local.enabled=true} (before 483: {@code fs.native-local.enabled}, still accepted).
 * {@link AbsoluteLocalFileSystem} serves {@code file:}.
 */
public class QbeastFileSystemFactory
        implements TrinoFileSystemFactory
{
    public static final String FILE_SCHEME = "file";
    public static final String LOCAL_SCHEME = "local";

    private final TrinoFileSystemFactory fileSystems;

    @Inject
    public QbeastFileSystemFactory(TrinoFileSystemFactory trinoFileSystems, FileSystemConfig config)
    {
        requireNonNull(trinoFileSystems, "trinoFileSystems is null");
        Optional<TrinoFileSystemFactory> absoluteFiles = config.isLocalEnabled()
                ? Optional.of(_ -> new AbsoluteLocalFileSystem())
                : Optional.empty();
        this.fileSystems = new SwitchingFileSystemFactory(location -> isFileUri(location)
                ? absoluteFiles.orElse(trinoFileSystems)
                : trinoFileSystems);
    }

    public static boolean isFileUri(Location location)
    {
        return location.scheme().map(FILE_SCHEME::equals).orElse(false);
    }

    @Override
    public TrinoFileSystem create(ConnectorIdentity identity)
    {
        return fileSystems.create(identity);
    }

    @Override
    public TrinoFileSystem create(ConnectorSession session)
    {
        return fileSystems.create(session);
    }
}

package io.qbeast.trino.catalog;

import java.util.Optional;

/**
 * The {@code local.location} of Trino's local file system, when configured: the directory that
 * {@code local:///} locations resolve under ({@code file:} URIs are absolute paths: {@link QbeastFileSystemFactory}).
 */
public record LocalFileSystemRoot(String location)
{
    public Optional<String> root()
    {
        return Optional.ofNullable(location);
    }
}

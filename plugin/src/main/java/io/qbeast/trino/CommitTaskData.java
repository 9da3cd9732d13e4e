package io.qbeast.trino;

import io.qbeast.trino.parquet.WrittenFile;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The fragment a page sink returns for one data file it wrote: the file, and the JSON of the
 * revision its cubes belong to when that revision is new (not yet in the table's properties).
 */
public record CommitTaskData(WrittenFile file, Optional<String> newRevisionJson)
{
    public CommitTaskData
    {
        requireNonNull(file, "file is null");
        requireNonNull(newRevisionJson, "newRevisionJson is null");
    }
}

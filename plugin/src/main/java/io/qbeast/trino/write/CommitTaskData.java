package io.qbeast.trino.write;

import io.qbeast.trino.parquet.WrittenFile;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The fragment a page sink returns for one data file it wrote: the file, the JSON of the
 * revision its cubes belong to when that revision is new (not yet in the table's properties),
 * and how many cubes have rows in it (reported by optimize).
 */
public record CommitTaskData(WrittenFile file, Optional<String> newRevisionJson, int cubes)
{
    public CommitTaskData
    {
        requireNonNull(file, "file is null");
        requireNonNull(newRevisionJson, "newRevisionJson is null");
    }
}

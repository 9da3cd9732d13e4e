package io.qbeast.trino.write;

import io.qbeast.trino.parquet.WrittenFile;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The fragment a page sink returns for one file it wrote: a data file, with the JSON of the
 * revision its cubes belong to when that revision is new (not yet in the table's properties) and
 * how many cubes have rows in it (reported by optimize); or, from a merge sink, a position delete
 * file of the rows deleted from {@code referencedDataFile}.
 */
public record CommitTaskData(WrittenFile file, Optional<String> newRevisionJson, int cubes, Optional<String> referencedDataFile)
{
    public CommitTaskData
    {
        requireNonNull(file, "file is null");
        requireNonNull(newRevisionJson, "newRevisionJson is null");
        requireNonNull(referencedDataFile, "referencedDataFile is null");
    }

    /** A data file's fragment. */
    public CommitTaskData(WrittenFile file, Optional<String> newRevisionJson, int cubes)
    {
        this(file, newRevisionJson, cubes, Optional.empty());
    }

    /** A position delete file's fragment: {@code file} deletes rows of {@code dataFile}. */
    public static CommitTaskData positionDeletes(WrittenFile file, String dataFile)
    {
        return new CommitTaskData(file, Optional.empty(), 0, Optional.of(dataFile));
    }

    public boolean isPositionDeletes()
    {
        return referencedDataFile.isPresent();
    }
}

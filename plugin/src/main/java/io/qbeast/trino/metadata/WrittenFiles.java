package io.qbeast.trino.metadata;

import com.google.common.collect.ImmutableList;
import io.airlift.json.JsonCodec;
import io.airlift.slice.Slice;
import io.qbeast.iceberg.IcebergCommits.NewRevision;
import io.qbeast.iceberg.RevisionJsonReader;
import io.qbeast.trino.write.CommitTaskData;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static com.google.common.collect.ImmutableList.toImmutableList;

/**
 * What the sinks of one write (CTAS, INSERT, optimize) reported to the coordinator, decoded from
 * their fragments: the files to commit, as Iceberg {@link DataFile}s, and the revisions they
 * introduce.
 */
record WrittenFiles(List<CommitTaskData> tasks)
{
    WrittenFiles
    {
        tasks = ImmutableList.copyOf(tasks);
    }

    static WrittenFiles decode(JsonCodec<CommitTaskData> codec, Collection<Slice> fragments)
    {
        return new WrittenFiles(fragments.stream()
                .map(fragment -> codec.fromJson(fragment.getBytes()))
                .collect(toImmutableList()));
    }

    boolean isEmpty()
    {
        return tasks.isEmpty();
    }

    List<DataFile> dataFiles()
    {
        return tasks.stream()
                .map(task -> DataFiles.builder(PartitionSpec.unpartitioned())
                        .withPath(task.file().path())
                        .withFormat(FileFormat.PARQUET)
                        .withFileSizeInBytes(task.file().fileSizeInBytes())
                        .withMetrics(task.file().metrics().toIcebergMetrics())
                        .withSplitOffsets(task.file().splitOffsets())
                        .build())
                .collect(toImmutableList());
    }

    /** The revisions the files introduce, each once, in the order the fragments name them. */
    List<NewRevision> newRevisions()
    {
        Map<Long, NewRevision> revisions = new LinkedHashMap<>();
        for (CommitTaskData task : tasks) {
            task.newRevisionJson().ifPresent(json -> {
                long id = RevisionJsonReader.read(json).id();
                revisions.putIfAbsent(id, new NewRevision(id, json));
            });
        }
        return ImmutableList.copyOf(revisions.values());
    }

    /** The cubes the files hold, summed over the writers. */
    long cubes()
    {
        return tasks.stream().mapToLong(CommitTaskData::cubes).sum();
    }
}

package io.qbeast.iceberg;

import com.google.common.collect.ImmutableList;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.ContentFileUtil;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import static com.google.common.collect.ImmutableSet.toImmutableSet;

/**
 * The delete files a rewrite makes obsolete, removed in the same commit:
 * <ul>
 *   <li>a position delete file all of whose rows name data files the rewrite replaces (their live
 *       rows were rewritten without the deleted ones) deletes nothing afterwards;</li>
 *   <li>an equality delete file applies to the data files older than it (a smaller data sequence
 *       number); the rewritten rows' files are newer, so once no older data file is kept it
 *       deletes nothing either. Iceberg's own commit does not drop it then: the manifests of the
 *       rewrite still list the replaced files, as deleted, with their old sequence numbers.</li>
 * </ul>
 */
public final class ObsoleteDeletes
{
    private ObsoleteDeletes() {}

    /**
     * The position delete files of {@code rewritten} that name no other data file; no equality
     * delete file (as if an older data file were kept).
     */
    public static List<DeleteFile> of(List<FileScanTask> rewritten, Function<DeleteFile, Set<String>> referencedDataFiles)
    {
        return of(rewritten, referencedDataFiles, Long.MIN_VALUE);
    }

    /**
     * The position delete files of {@code rewritten} that name no other data file, and its equality
     * delete files that apply to no kept data file.
     *
     * @param rewritten the replaced data files with the delete files planned for them
     * @param referencedDataFiles the data file locations a position delete file's rows name (read
     * from the file; used only when its {@code file_path} bounds do not name one file)
     * @param oldestKeptDataSequenceNumber the smallest data sequence number of the data files the
     * rewrite keeps ({@link #oldestKeptDataSequenceNumber}; {@link Long#MAX_VALUE} when it keeps none)
     */
    public static List<DeleteFile> of(List<FileScanTask> rewritten, Function<DeleteFile, Set<String>> referencedDataFiles, long oldestKeptDataSequenceNumber)
    {
        Set<String> replaced = rewritten.stream().map(task -> task.file().location()).collect(toImmutableSet());
        Map<String, DeleteFile> deletes = new LinkedHashMap<>();
        for (FileScanTask task : rewritten) {
            for (DeleteFile delete : task.deletes()) {
                deletes.putIfAbsent(delete.location(), delete);
            }
        }
        ImmutableList.Builder<DeleteFile> obsolete = ImmutableList.builder();
        for (DeleteFile delete : deletes.values()) {
            if (delete.content() == FileContent.POSITION_DELETES) {
                String single = ContentFileUtil.referencedDataFileLocation(delete);
                Set<String> referenced = single != null ? Set.of(single) : referencedDataFiles.apply(delete);
                if (replaced.containsAll(referenced)) {
                    obsolete.add(delete);
                }
            }
            else if (delete.content() == FileContent.EQUALITY_DELETES && delete.dataSequenceNumber() != null && oldestKeptDataSequenceNumber >= delete.dataSequenceNumber()) {
                // it applies to data files of a smaller sequence number only, and none is kept
                obsolete.add(delete);
            }
        }
        return obsolete.build();
    }

    /**
     * The smallest data sequence number of the data files of {@code snapshotId} not in
     * {@code replaced}; {@link Long#MAX_VALUE} when there is none, and {@link Long#MIN_VALUE} when
     * one has no sequence number (a format version 1 file: nothing can be said).
     */
    public static long oldestKeptDataSequenceNumber(Table table, long snapshotId, Set<String> replaced)
    {
        long oldest = Long.MAX_VALUE;
        try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(snapshotId).ignoreResiduals().planFiles()) {
            for (FileScanTask task : tasks) {
                ContentFile<?> file = task.file();
                if (!replaced.contains(file.location())) {
                    Long sequenceNumber = file.dataSequenceNumber();
                    oldest = Math.min(oldest, sequenceNumber == null ? Long.MIN_VALUE : sequenceNumber);
                }
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return oldest;
    }
}

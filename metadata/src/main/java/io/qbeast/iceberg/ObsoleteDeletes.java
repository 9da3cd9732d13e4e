package io.qbeast.iceberg;

import com.google.common.collect.ImmutableList;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.util.ContentFileUtil;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import static com.google.common.collect.ImmutableSet.toImmutableSet;

/**
 * The delete files a rewrite makes obsolete: a position delete file all of whose rows name data
 * files the rewrite replaces (their live rows were rewritten without the deleted ones) deletes
 * nothing afterwards, and is removed in the same commit. Equality delete files stay: after the
 * rewrite they no longer apply to the rewritten rows (the new files have a newer sequence number),
 * but may still apply to other files.
 */
public final class ObsoleteDeletes
{
    private ObsoleteDeletes() {}

    /**
     * The position delete files of {@code rewritten} that name no other data file.
     *
     * @param rewritten the replaced data files with the delete files planned for them
     * @param referencedDataFiles the data file locations a position delete file's rows name (read
     * from the file; used only when its {@code file_path} bounds do not name one file)
     */
    public static List<DeleteFile> of(List<FileScanTask> rewritten, Function<DeleteFile, Set<String>> referencedDataFiles)
    {
        Set<String> replaced = rewritten.stream().map(task -> task.file().location()).collect(toImmutableSet());
        Map<String, DeleteFile> positionDeletes = new LinkedHashMap<>();
        for (FileScanTask task : rewritten) {
            for (DeleteFile delete : task.deletes()) {
                if (delete.content() == FileContent.POSITION_DELETES) {
                    positionDeletes.putIfAbsent(delete.location(), delete);
                }
            }
        }
        ImmutableList.Builder<DeleteFile> obsolete = ImmutableList.builder();
        for (DeleteFile delete : positionDeletes.values()) {
            String single = ContentFileUtil.referencedDataFileLocation(delete);
            Set<String> referenced = single != null ? Set.of(single) : referencedDataFiles.apply(delete);
            if (replaced.containsAll(referenced)) {
                obsolete.add(delete);
            }
        }
        return obsolete.build();
    }
}

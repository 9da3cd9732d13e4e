package io.qbeast.trino.parquet;

import io.qbeast.trino.handle.QbeastColumnHandle;
import io.qbeast.trino.handle.QbeastDeleteFile;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.TupleDomain;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetadataColumns;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.LongStream;

import static io.airlift.slice.Slices.utf8Slice;
import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_FILESYSTEM_ERROR;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.TypeUtils.readNativeValue;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.util.Objects.requireNonNull;

/**
 * Loads the rows that a data file's delete files remove ({@link DeletedRows}), reading the
 * Parquet delete files with the connector's own reader: of a position delete file, the
 * {@code pos} of the rows whose {@code file_path} is the data file (row groups of other files
 * are skipped by their {@code file_path} statistics); of an equality delete file, every row of
 * its equality columns. Equality delete files with the same columns are merged into one set.
 */
public final class DeleteFileReader
{
    // Iceberg's reserved field ids of a position delete file's columns
    private static final QbeastColumnHandle FILE_PATH = new QbeastColumnHandle(MetadataColumns.DELETE_FILE_PATH.name(), MetadataColumns.DELETE_FILE_PATH.fieldId(), VARCHAR, true);
    private static final QbeastColumnHandle POS = new QbeastColumnHandle(MetadataColumns.DELETE_FILE_POS.name(), MetadataColumns.DELETE_FILE_POS.fieldId(), BIGINT, true);

    private final QbeastPageSourceFactory pageSourceFactory;
    private final ParquetReaderOptions options;

    public DeleteFileReader(QbeastPageSourceFactory pageSourceFactory, ParquetReaderOptions options)
    {
        this.pageSourceFactory = requireNonNull(pageSourceFactory, "pageSourceFactory is null");
        this.options = requireNonNull(options, "options is null");
    }

    /** The rows of {@code dataFilePath} that {@code deleteFiles} (all of which apply to it) remove. */
    public DeletedRows read(TrinoFileSystem fileSystem, String dataFilePath, List<QbeastDeleteFile> deleteFiles)
    {
        if (deleteFiles.isEmpty()) {
            return DeletedRows.NONE;
        }
        LongStream.Builder positions = LongStream.builder();
        Map<List<QbeastColumnHandle>, Set<List<Object>>> equalityKeys = new LinkedHashMap<>();
        for (QbeastDeleteFile deleteFile : deleteFiles) {
            checkFormat(deleteFile);
            switch (deleteFile.content()) {
                case POSITION_DELETES -> readPositions(fileSystem, deleteFile, dataFilePath, positions);
                case EQUALITY_DELETES -> readKeys(fileSystem, deleteFile, equalityKeys.computeIfAbsent(deleteFile.equalityColumns(), _ -> new HashSet<>()));
            }
        }
        long[] deleted = positions.build().sorted().distinct().toArray();
        List<DeletedRows.EqualityDeletes> equalities = new ArrayList<>();
        equalityKeys.forEach((columns, keys) -> equalities.add(new DeletedRows.EqualityDeletes(columns, keys)));
        return new DeletedRows(deleted, equalities);
    }

    /** The data file locations that the rows of a position delete file name. */
    public Set<String> referencedDataFiles(TrinoFileSystem fileSystem, QbeastDeleteFile deleteFile)
    {
        checkFormat(deleteFile);
        Set<String> paths = new HashSet<>();
        try (ConnectorPageSource source = open(fileSystem, deleteFile, List.of(FILE_PATH), TupleDomain.all())) {
            while (!source.isFinished()) {
                SourcePage page = source.getNextSourcePage();
                if (page == null) {
                    continue;
                }
                Block block = page.getBlock(0);
                for (int position = 0; position < page.getPositionCount(); position++) {
                    if (!block.isNull(position)) {
                        paths.add(VARCHAR.getSlice(block, position).toStringUtf8());
                    }
                }
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return paths;
    }

    /** Refuses a delete file this reader cannot read: a v3 deletion vector, or a format other than Parquet. */
    public static void checkFormat(QbeastDeleteFile deleteFile)
    {
        if (deleteFile.format().equals(FileFormat.PUFFIN.name())) {
            throw new TrinoException(NOT_SUPPORTED, "Delete file %s is a deletion vector (Iceberg format version 3); qbeast applies the position and equality delete files of format version 2 only".formatted(deleteFile.path()));
        }
        if (!deleteFile.format().equals(FileFormat.PARQUET.name())) {
            throw new TrinoException(NOT_SUPPORTED, "Delete file %s is in format %s; qbeast reads Parquet delete files only".formatted(deleteFile.path(), deleteFile.format()));
        }
    }

    private void readPositions(TrinoFileSystem fileSystem, QbeastDeleteFile deleteFile, String dataFilePath, LongStream.Builder positions)
    {
        TupleDomain<QbeastColumnHandle> ofDataFile = TupleDomain.withColumnDomains(Map.of(FILE_PATH, Domain.singleValue(VARCHAR, utf8Slice(dataFilePath))));
        try (ConnectorPageSource source = open(fileSystem, deleteFile, List.of(POS), ofDataFile)) {
            while (!source.isFinished()) {
                SourcePage page = source.getNextSourcePage();
                if (page == null) {
                    continue;
                }
                Block block = page.getBlock(0);
                for (int position = 0; position < page.getPositionCount(); position++) {
                    if (!block.isNull(position)) {
                        positions.add(BIGINT.getLong(block, position));
                    }
                }
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void readKeys(TrinoFileSystem fileSystem, QbeastDeleteFile deleteFile, Set<List<Object>> keys)
    {
        List<QbeastColumnHandle> columns = deleteFile.equalityColumns();
        try (ConnectorPageSource source = open(fileSystem, deleteFile, columns, TupleDomain.all())) {
            while (!source.isFinished()) {
                SourcePage page = source.getNextSourcePage();
                if (page == null) {
                    continue;
                }
                Block[] blocks = new Block[columns.size()];
                for (int column = 0; column < blocks.length; column++) {
                    blocks[column] = page.getBlock(column);
                }
                for (int position = 0; position < page.getPositionCount(); position++) {
                    Object[] key = new Object[blocks.length];
                    for (int column = 0; column < blocks.length; column++) {
                        key[column] = copy(readNativeValue(columns.get(column).type(), blocks[column], position));
                    }
                    keys.add(Collections.unmodifiableList(Arrays.asList(key)));
                }
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // a slice read from a block may share the block's (much larger) buffer
    private static Object copy(Object value)
    {
        return value instanceof io.airlift.slice.Slice slice ? slice.copy() : value;
    }

    private ConnectorPageSource open(TrinoFileSystem fileSystem, QbeastDeleteFile deleteFile, List<QbeastColumnHandle> columns, TupleDomain<QbeastColumnHandle> enforced)
    {
        long size = deleteFile.fileSizeInBytes();
        try {
            return pageSourceFactory.createPageSource(
                    fileSystem.newInputFile(Location.of(deleteFile.path()), size),
                    0,
                    size,
                    size,
                    columns,
                    Optional.empty(),
                    enforced,
                    enforced,
                    QbeastPageSourceFactory.NO_SAMPLING,
                    options);
        }
        catch (TrinoException e) {
            if (e.getErrorCode().equals(QBEAST_FILESYSTEM_ERROR.toErrorCode())) {
                throw new TrinoException(QBEAST_FILESYSTEM_ERROR, "Error opening delete file %s (of %s rows): %s".formatted(deleteFile.path(), deleteFile.recordCount(), e.getMessage()), e);
            }
            throw e;
        }
    }
}

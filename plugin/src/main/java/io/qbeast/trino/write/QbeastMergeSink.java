package io.qbeast.trino.write;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.airlift.json.JsonCodec;
import io.airlift.log.Logger;
import io.airlift.slice.Slice;
import io.airlift.slice.Slices;
import io.qbeast.trino.parquet.QbeastParquetFileWriter;
import io.qbeast.trino.parquet.WrittenFile;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.parquet.writer.ParquetWriterOptions;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.LongArrayBlock;
import io.trino.spi.block.RowBlock;
import io.trino.spi.connector.ConnectorMergeSink;
import io.trino.spi.connector.ConnectorPageSink;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.parquet.format.CompressionCodec;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import static com.google.common.base.Preconditions.checkState;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.TinyintType.TINYINT;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.lang.Math.toIntExact;
import static java.util.Objects.requireNonNull;

/**
 * The writer of DELETE, UPDATE and MERGE (merge-on-read, as Trino's Iceberg connector): a deleted
 * row is named in a Parquet position delete file (Iceberg's schema {@code file_path, pos}, one
 * file per data file and writer, positions ascending); a new row goes through the clustering
 * writer ({@link QbeastPageSink}), so it is placed in the tree like an inserted row. An updated
 * row arrives as one row with its new values and its row id (the connector's row change paradigm
 * is {@code CHANGE_ONLY_UPDATED_COLUMNS}): its old version is deleted and its new version keeps the
 * weight from the row id, so it stays in exactly the samples it was in.
 *
 * <p>Files are named {@code <query>-<writer>-deletes-<n>.parquet} in the table's data location, so
 * a failed statement's files are found and removed like an INSERT's.
 */
public class QbeastMergeSink
        implements ConnectorMergeSink
{
    private static final Logger log = Logger.get(QbeastMergeSink.class);
    private static final Schema POSITION_DELETE_SCHEMA = new Schema(MetadataColumns.DELETE_FILE_PATH, MetadataColumns.DELETE_FILE_POS);
    // full bounds on file_path: a delete file's bounds name the one data file it applies to
    private static final Map<String, String> DELETE_FILE_PROPERTIES = ImmutableMap.of(TableProperties.DEFAULT_WRITE_METRICS_MODE, "full");

    private final ConnectorPageSink insertSink;
    private final int dataColumns;
    private final TrinoFileSystem fileSystem;
    private final Location dataLocation;
    private final String queryId;
    private final ParquetWriterOptions writerOptions;
    private final CompressionCodec compressionCodec;
    private final JsonCodec<CommitTaskData> commitTaskCodec;
    private final String writerId = UUID.randomUUID().toString().replace("-", "");
    // the deleted row positions of each data file, by path
    private final Map<String, Positions> deletions = new TreeMap<>();
    private final List<Location> createdFiles = new ArrayList<>();
    private long deleteFileBytes;

    /**
     * @param insertSink the clustering writer of the new rows: its input is the table's visible
     * columns and then {@code _qbeast_weight} (null for a row that gets a new weight)
     * @param dataColumns how many visible columns the merge's pages have before the operation
     */
    public QbeastMergeSink(ConnectorPageSink insertSink, int dataColumns, TrinoFileSystem fileSystem, Location dataLocation, String queryId, ParquetWriterOptions writerOptions, CompressionCodec compressionCodec, JsonCodec<CommitTaskData> commitTaskCodec)
    {
        this.insertSink = requireNonNull(insertSink, "insertSink is null");
        this.dataColumns = dataColumns;
        this.fileSystem = requireNonNull(fileSystem, "fileSystem is null");
        this.dataLocation = requireNonNull(dataLocation, "dataLocation is null");
        this.queryId = requireNonNull(queryId, "queryId is null");
        this.writerOptions = requireNonNull(writerOptions, "writerOptions is null");
        this.compressionCodec = requireNonNull(compressionCodec, "compressionCodec is null");
        this.commitTaskCodec = requireNonNull(commitTaskCodec, "commitTaskCodec is null");
    }

    /**
     * The page: the visible columns, the operation (TINYINT), in Trino 483 the merge case number,
     * and last the row id ({@code QbeastColumnHandle.MERGE_ROW_ID_TYPE}).
     */
    @Override
    public void storeMergedRows(Page page)
    {
        Block operations = page.getBlock(dataColumns);
        List<Block> rowId = RowBlock.getRowFieldsFromBlock(page.getBlock(page.getChannelCount() - 1));
        Block paths = rowId.get(0);
        Block positions = rowId.get(1);
        Block weights = rowId.get(2);
        int[] inserted = new int[page.getPositionCount()];
        int insertedCount = 0;
        BlockBuilder givenWeights = INTEGER.createBlockBuilder(null, page.getPositionCount());
        for (int position = 0; position < page.getPositionCount(); position++) {
            int operation = toIntExact(TINYINT.getLong(operations, position));
            switch (operation) {
                case INSERT_OPERATION_NUMBER, UPDATE_INSERT_OPERATION_NUMBER -> {
                    inserted[insertedCount++] = position;
                    givenWeights.appendNull();
                }
                case DELETE_OPERATION_NUMBER, UPDATE_DELETE_OPERATION_NUMBER -> delete(paths, positions, position);
                case UPDATE_OPERATION_NUMBER -> {
                    // a scan of a change without an UPDATE case reads no weights (QbeastTableHandle.deletesOnly)
                    checkState(!weights.isNull(position), "An update of a row whose row id has no weight");
                    delete(paths, positions, position);
                    inserted[insertedCount++] = position;
                    INTEGER.writeInt(givenWeights, INTEGER.getInt(weights, position));
                }
                default -> throw new IllegalArgumentException("Unknown merge operation: " + operation);
            }
        }
        if (insertedCount > 0) {
            Block[] blocks = new Block[dataColumns + 1];
            for (int channel = 0; channel < dataColumns; channel++) {
                blocks[channel] = page.getBlock(channel).getPositions(inserted, 0, insertedCount);
            }
            blocks[dataColumns] = givenWeights.build();
            // the clustering writer never blocks (it buffers and spills)
            insertSink.appendPage(new Page(insertedCount, blocks)).join();
        }
    }

    private void delete(Block paths, Block positions, int position)
    {
        String path = VARCHAR.getSlice(paths, position).toStringUtf8();
        deletions.computeIfAbsent(path, _ -> new Positions()).add(BIGINT.getLong(positions, position));
    }

    @Override
    public long getCompletedBytes()
    {
        // the new rows' files and the delete files: Trino reports their sum as the bytes written
        return insertSink.getCompletedBytes() + deleteFileBytes;
    }

    @Override
    public CompletableFuture<Collection<Slice>> finish()
    {
        ImmutableList.Builder<Slice> fragments = ImmutableList.builder();
        try {
            fragments.addAll(insertSink.finish().join());
            int fileNumber = 0;
            for (Map.Entry<String, Positions> deletion : deletions.entrySet()) {
                WrittenFile file = writeDeletes(dataLocation.appendPath("%s-%s-deletes-%d.parquet".formatted(queryId, writerId, fileNumber++)), deletion.getKey(), deletion.getValue().sorted());
                deleteFileBytes += file.fileSizeInBytes();
                fragments.add(Slices.wrappedBuffer(commitTaskCodec.toJsonBytes(CommitTaskData.positionDeletes(file, deletion.getKey()))));
            }
        }
        catch (RuntimeException | Error e) {
            abort();
            throw e;
        }
        deletions.clear();
        return CompletableFuture.completedFuture(fragments.build());
    }

    private WrittenFile writeDeletes(Location location, String dataFile, long[] positions)
    {
        createdFiles.add(location);
        QbeastParquetFileWriter writer = new QbeastParquetFileWriter(fileSystem, location, POSITION_DELETE_SCHEMA, List.of(VARCHAR, BIGINT), writerOptions, compressionCodec, DELETE_FILE_PROPERTIES);
        try {
            Slice path = Slices.utf8Slice(dataFile);
            BlockBuilder paths = VARCHAR.createBlockBuilder(null, positions.length, path.length());
            for (int i = 0; i < positions.length; i++) {
                VARCHAR.writeSlice(paths, path);
            }
            writer.appendPage(new Page(positions.length, paths.build(), new LongArrayBlock(positions.length, Optional.empty(), positions)));
            writer.finishRowGroup();
            return writer.commit();
        }
        catch (RuntimeException e) {
            writer.rollback();
            throw e;
        }
    }

    @Override
    public void abort()
    {
        deletions.clear();
        try {
            insertSink.abort();
        }
        finally {
            if (!createdFiles.isEmpty()) {
                try {
                    fileSystem.deleteFiles(createdFiles);
                }
                catch (IOException | RuntimeException e) {
                    log.warn(e, "Failed to delete the position delete files of an aborted merge: %s", createdFiles);
                }
                createdFiles.clear();
            }
        }
    }

    /** Row positions of one data file, in the order deleted. */
    private static final class Positions
    {
        private long[] values = new long[16];
        private int size;

        void add(long position)
        {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = position;
        }

        // Iceberg's order for a position delete file; a row is deleted once per statement
        long[] sorted()
        {
            long[] sorted = Arrays.copyOf(values, size);
            Arrays.sort(sorted);
            return sorted;
        }
    }
}

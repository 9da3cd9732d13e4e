package io.qbeast.trino.parquet;

import com.google.common.collect.ImmutableList;
import io.airlift.log.Logger;
import io.airlift.slice.DynamicSliceOutput;
import io.airlift.slice.Slice;
import io.airlift.units.DataSize;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.memory.context.AggregatedMemoryContext;
import io.trino.parquet.writer.ParquetWriter;
import io.trino.parquet.writer.ParquetWriterOptions;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.type.Type;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.CompressionCodec;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Util;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;
import static io.airlift.slice.SizeOf.instanceSize;
import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_FILESYSTEM_ERROR;
import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_WRITER_ERROR;
import static io.qbeast.trino.handle.QbeastColumnHandle.WEIGHT_COLUMN;
import static io.trino.memory.context.AggregatedMemoryContext.newSimpleAggregatedMemoryContext;
import static io.trino.spi.type.IntegerType.INTEGER;
import static java.util.Objects.requireNonNull;

/**
 * Writes Trino pages to one Parquet data file of an Iceberg table through trino-parquet's
 * {@link ParquetWriter}: Iceberg field ids in the file schema, Iceberg metrics from the footer.
 * Not thread safe; one writer per file. Call {@link #commit()} or {@link #rollback()} exactly once.
 *
 * <p>The caller decides where row groups end ({@link #finishRowGroup()}; also when a row group
 * reaches the options' maximum row group size). trino-parquet 476 closes a row group only by size,
 * so each row group is written by its own {@link ParquetWriter} into memory and its column chunks
 * are appended to the file with their offsets moved; the footer lists every row group. The bytes
 * are the ones trino-parquet writes (encodings, statistics, compression); only offsets change, and
 * the page indexes trino-parquet does not write are added before the footer ({@link PageIndexWriter}).
 */
public final class QbeastParquetFileWriter
{
    private static final Logger log = Logger.get(QbeastParquetFileWriter.class);
    private static final int INSTANCE_SIZE = instanceSize(QbeastParquetFileWriter.class);
    // the "created_by" of the files: "parquet-mr-trino version qbeast (build n/a)"
    private static final String WRITER_VERSION = "qbeast";
    // the same, for files whose rows the caller appended in ascending _qbeast_weight
    private static final String WEIGHT_ORDERED_WRITER_VERSION = "qbeast-weight-ordered";

    private final TrinoFileSystem fileSystem;
    private final Location location;
    private final Schema schema;
    private final int columnCount;
    private final List<Type> columnTypes;
    private final MetricsConfig metricsConfig;
    private static final byte[] MAGIC = {'P', 'A', 'R', '1'};
    // a row group's own writer never closes it by size: this writer does
    private static final DataSize UNBOUNDED_ROW_GROUP = DataSize.ofBytes(Integer.MAX_VALUE);

    private final AggregatedMemoryContext outputMemoryContext = newSimpleAggregatedMemoryContext();
    private final OutputStream outputStream;
    private final ParquetFileSchema fileSchema;
    private final ParquetWriterOptions rowGroupOptions;
    private final long maxRowGroupBytes;
    private final CompressionCodec codec;
    private final String createdBy;
    // schema position of _qbeast_weight when the caller asked for the weight-ordered mark, else -1
    private final int weightChannel;
    // the weights appended so far are all non-null and non-decreasing (checked only with weightChannel >= 0)
    private boolean weightsAscending = true;
    private int lastWeight = Integer.MIN_VALUE;
    private final FloatingPointStatistics floatingPointStatistics;
    private final PageIndexWriter pageIndexes;
    private final List<RowGroup> rowGroups = new ArrayList<>();
    private FileMetaData template;
    private DynamicSliceOutput rowGroupBuffer;
    private ParquetWriter rowGroupWriter;
    private long writtenBytes;
    private boolean finished;

    /**
     * Creates the file at {@code location}; fails if it already exists (data files are never overwritten).
     *
     * @param columnTypes Trino types of the page channels, in the order of {@code schema.columns()}
     * @param tableProperties Iceberg table properties, for the {@code write.metadata.metrics.*} settings
     */
    public QbeastParquetFileWriter(
            TrinoFileSystem fileSystem,
            Location location,
            Schema schema,
            List<Type> columnTypes,
            ParquetWriterOptions options,
            CompressionCodec codec,
            Map<String, String> tableProperties)
    {
        this(fileSystem, location, schema, columnTypes, options, codec, tableProperties, false);
    }

    /**
     * @param weightOrdered mark the file weight-ordered in the footer's {@code created_by} if its
     * rows are in ascending {@code _qbeast_weight}, so readers may stop at the first weight past a
     * sample's bound. The writer checks the order of the rows appended (every weight non-null, none
     * below the one before, across row groups); a file whose rows are not in that order is not marked
     */
    @SuppressWarnings("deprecation") // MetricsConfig.fromProperties: the sink has the properties, not the Table
    public QbeastParquetFileWriter(
            TrinoFileSystem fileSystem,
            Location location,
            Schema schema,
            List<Type> columnTypes,
            ParquetWriterOptions options,
            CompressionCodec codec,
            Map<String, String> tableProperties,
            boolean weightOrdered)
    {
        this.fileSystem = requireNonNull(fileSystem, "fileSystem is null");
        this.location = requireNonNull(location, "location is null");
        this.schema = requireNonNull(schema, "schema is null");
        columnTypes = ImmutableList.copyOf(requireNonNull(columnTypes, "columnTypes is null"));
        requireNonNull(options, "options is null");
        requireNonNull(codec, "codec is null");
        this.metricsConfig = MetricsConfig.fromProperties(requireNonNull(tableProperties, "tableProperties is null"));
        this.columnCount = columnTypes.size();
        this.columnTypes = columnTypes;

        this.fileSchema = ParquetFileSchema.create(schema, columnTypes);
        this.floatingPointStatistics = new FloatingPointStatistics(schema, columnTypes);
        this.codec = codec;
        this.createdBy = weightOrdered ? WEIGHT_ORDERED_WRITER_VERSION : WRITER_VERSION;
        this.weightChannel = weightOrdered ? weightChannel(schema, columnTypes) : -1;
        this.pageIndexes = new PageIndexWriter(schema, columnTypes, options.getBatchSize());
        this.maxRowGroupBytes = options.getMaxRowGroupSize();
        this.rowGroupOptions = ParquetWriterOptions.builder()
                .setMaxBlockSize(UNBOUNDED_ROW_GROUP)
                .setMaxPageSize(DataSize.ofBytes(options.getMaxPageSize()))
                .setMaxPageValueCount(options.getMaxPageValueCount())
                .setBatchSize(options.getBatchSize())
                .build();

        try {
            this.outputStream = fileSystem.newOutputFile(location).create(outputMemoryContext);
            outputStream.write(MAGIC);
            writtenBytes = MAGIC.length;
        }
        catch (IOException | UncheckedIOException e) {
            throw new TrinoException(QBEAST_FILESYSTEM_ERROR, "Error creating Parquet file " + location, e);
        }
    }

    // the file's rows stay in ascending weight only while every weight is present and none decreases
    private void checkWeightOrder(Block weights)
    {
        for (int position = 0; position < weights.getPositionCount(); position++) {
            if (weights.isNull(position)) {
                weightsAscending = false;
                return;
            }
            int weight = INTEGER.getInt(weights, position);
            if (weight < lastWeight) {
                weightsAscending = false;
                return;
            }
            lastWeight = weight;
        }
    }

    private static int weightChannel(Schema schema, List<Type> columnTypes)
    {
        List<org.apache.iceberg.types.Types.NestedField> columns = schema.columns();
        for (int channel = 0; channel < columns.size(); channel++) {
            if (columns.get(channel).name().equals(WEIGHT_COLUMN) && columnTypes.get(channel).equals(INTEGER)) {
                return channel;
            }
        }
        return -1;
    }

    /** Whether the file will be marked weight-ordered if committed now. */
    public boolean isWeightOrdered()
    {
        return weightChannel >= 0 && weightsAscending;
    }

    /**
     * Whether a footer's {@code created_by} says the file was written by this writer with its rows
     * in ascending {@code _qbeast_weight} (so a reader may stop at the first weight past a bound).
     */
    public static boolean isWeightOrdered(Optional<String> createdBy)
    {
        return createdBy.map(value -> value.startsWith("parquet-mr-trino version " + WEIGHT_ORDERED_WRITER_VERSION + " ")).orElse(false);
    }

    public Location location()
    {
        return location;
    }

    /**
     * @param page one channel per schema column, in schema order
     */
    public void appendPage(Page page)
    {
        requireNonNull(page, "page is null");
        checkState(!finished, "writer is already committed or rolled back");
        checkArgument(page.getChannelCount() == columnCount, "page has %s channels, expected %s", page.getChannelCount(), columnCount);
        floatingPointStatistics.add(page);
        if (weightChannel >= 0 && weightsAscending) {
            checkWeightOrder(page.getBlock(weightChannel));
        }
        pageIndexes.append(page);
        try {
            if (rowGroupWriter == null) {
                rowGroupBuffer = new DynamicSliceOutput(64 * 1024);
                rowGroupWriter = new ParquetWriter(
                        rowGroupBuffer,
                        fileSchema.messageType(),
                        fileSchema.primitiveTypes(),
                        rowGroupOptions,
                        codec,
                        createdBy,
                        // INT96 timestamps are never written, so no time zone is needed
                        Optional.empty(),
                        Optional.empty());
            }
            rowGroupWriter.write(page);
            // the row group's writer never flushes (unbounded row group): what it has written is
            // its magic, and the rest is the row group it buffers
            if (rowGroupWriter.getEstimatedWrittenBytes() >= maxRowGroupBytes) {
                finishRowGroup();
            }
        }
        catch (IOException | UncheckedIOException e) {
            throw new TrinoException(QBEAST_WRITER_ERROR, "Error writing Parquet file " + location, e);
        }
    }

    /**
     * Ends the row group of the pages appended since the last call (none: nothing happens): the
     * next page starts a new row group.
     */
    public void finishRowGroup()
    {
        checkState(!finished, "writer is already committed or rolled back");
        if (rowGroupWriter == null) {
            return;
        }
        try {
            appendRowGroupToFile();
        }
        catch (IOException | UncheckedIOException e) {
            throw new TrinoException(QBEAST_WRITER_ERROR, "Error writing Parquet file " + location, e);
        }
    }

    /** Row groups finished so far. */
    public int rowGroupCount()
    {
        return rowGroups.size();
    }

    // closes the row group's writer and appends its column chunks (everything between the magic
    // and the footer of its in-memory file) to this file, its offsets moved to where they land
    private void appendRowGroupToFile()
            throws IOException
    {
        ParquetWriter writer = rowGroupWriter;
        rowGroupWriter = null;
        writer.close();
        Slice bytes = rowGroupBuffer.slice();
        rowGroupBuffer = null;
        FileMetaData metadata = writer.getFileMetaData();
        if (template == null) {
            template = metadata.deepCopy();
        }
        int footerLength = bytes.getInt(bytes.length() - 8);
        int dataEnd = bytes.length() - 8 - footerLength;
        long shift = writtenBytes - MAGIC.length;
        outputStream.write(bytes.byteArray(), bytes.byteArrayOffset() + MAGIC.length, dataEnd - MAGIC.length);
        writtenBytes += dataEnd - MAGIC.length;
        for (RowGroup rowGroup : metadata.getRow_groups()) {
            pageIndexes.finishRowGroup(bytes, rowGroup, shift);
            rowGroups.add(moved(rowGroup, shift, rowGroups.size()));
        }
        pageIndexes.discardRows();
    }

    private static RowGroup moved(RowGroup rowGroup, long shift, int ordinal)
    {
        RowGroup moved = rowGroup.deepCopy();
        if (moved.isSetFile_offset()) {
            moved.setFile_offset(moved.getFile_offset() + shift);
        }
        if (moved.isSetOrdinal()) {
            moved.setOrdinal((short) ordinal);
        }
        for (ColumnChunk column : moved.getColumns()) {
            if (column.getFile_offset() > 0) {
                column.setFile_offset(column.getFile_offset() + shift);
            }
            if (column.isSetOffset_index_offset()) {
                column.setOffset_index_offset(column.getOffset_index_offset() + shift);
            }
            if (column.isSetColumn_index_offset()) {
                column.setColumn_index_offset(column.getColumn_index_offset() + shift);
            }
            ColumnMetaData data = column.getMeta_data();
            data.setData_page_offset(data.getData_page_offset() + shift);
            if (data.isSetDictionary_page_offset()) {
                data.setDictionary_page_offset(data.getDictionary_page_offset() + shift);
            }
            if (data.isSetIndex_page_offset()) {
                data.setIndex_page_offset(data.getIndex_page_offset() + shift);
            }
            if (data.isSetBloom_filter_offset()) {
                data.setBloom_filter_offset(data.getBloom_filter_offset() + shift);
            }
        }
        return moved;
    }

    // the footer: the first row group writer's file metadata (schema, created_by) with every row group
    private FileMetaData writeFooter()
            throws IOException
    {
        if (template == null) {
            // no rows: an empty row group writer gives the schema
            appendPage(new Page(0, columnTypes.stream().map(type -> type.createBlockBuilder(null, 0).build()).toArray(Block[]::new)));
            finishRowGroup();
        }
        FileMetaData footer = template.deepCopy();
        if (createdBy.equals(WEIGHT_ORDERED_WRITER_VERSION) && !isWeightOrdered()) {
            // asked for the mark, but the rows turned out not to be in ascending weight
            footer.setCreated_by(template.getCreated_by().replace(" " + WEIGHT_ORDERED_WRITER_VERSION + " ", " " + WRITER_VERSION + " "));
        }
        // the page indexes lie between the last row group and the footer, which points to them
        writtenBytes += pageIndexes.write(rowGroups, outputStream, writtenBytes);
        footer.setRow_groups(new ArrayList<>(rowGroups));
        footer.setNum_rows(rowGroups.stream().mapToLong(RowGroup::getNum_rows).sum());
        DynamicSliceOutput serialized = new DynamicSliceOutput(16 * 1024);
        Util.writeFileMetaData(footer, serialized);
        Slice footerBytes = serialized.slice();
        outputStream.write(footerBytes.byteArray(), footerBytes.byteArrayOffset(), footerBytes.length());
        int length = footerBytes.length();
        outputStream.write(new byte[] {(byte) length, (byte) (length >>> 8), (byte) (length >>> 16), (byte) (length >>> 24)});
        outputStream.write(MAGIC);
        writtenBytes += footerBytes.length() + 8L;
        return footer;
    }

    /**
     * Bytes of the finished row groups (and the leading magic) in the file so far; the open row
     * group is not counted until it is finished.
     */
    public long getWrittenBytes()
    {
        return writtenBytes;
    }

    /**
     * Bytes retained by this writer: the open row group (encoders and its encoded pages), and the
     * file system's output buffers.
     */
    public long getMemoryUsage()
    {
        ParquetWriter writer = rowGroupWriter;
        DynamicSliceOutput buffer = rowGroupBuffer;
        return INSTANCE_SIZE
                + (writer == null ? 0 : writer.getRetainedBytes())
                + (buffer == null ? 0 : buffer.getRetainedSize())
                + pageIndexes.retainedBytes()
                + outputMemoryContext.getBytes();
    }

    /**
     * Finishes the file and returns what the Iceberg commit needs. On failure the file is deleted.
     */
    public WrittenFile commit()
    {
        checkState(!finished, "writer is already committed or rolled back");
        FileMetaData footer;
        try {
            if (rowGroupWriter != null) {
                appendRowGroupToFile();
            }
            footer = writeFooter();
            finished = true;
            outputStream.close();
        }
        catch (IOException | RuntimeException e) {
            finished = true;
            closeQuietly();
            deleteQuietly(e);
            throw new TrinoException(QBEAST_WRITER_ERROR, "Error closing Parquet file " + location, e);
        }
        finally {
            outputMemoryContext.close();
        }

        IcebergMetrics metrics;
        try {
            metrics = ParquetFileMetrics.compute(footer, schema, metricsConfig, floatingPointStatistics.statistics());
        }
        catch (RuntimeException e) {
            deleteQuietly(e);
            throw new TrinoException(QBEAST_WRITER_ERROR, "Error computing Iceberg metrics of Parquet file " + location, e);
        }
        return new WrittenFile(location.toString(), writtenBytes, metrics.recordCount(), metrics, splitOffsets(footer));
    }

    /**
     * Abandons the file: closes the writer and deletes whatever was written. Never throws; a failure
     * to delete is logged (the file is then an orphan, unreferenced by any snapshot).
     */
    public void rollback()
    {
        if (finished) {
            return;
        }
        finished = true;
        closeQuietly();
        outputMemoryContext.close();
        deleteQuietly(null);
    }

    private void closeQuietly()
    {
        rowGroupWriter = null;
        rowGroupBuffer = null;
        try {
            outputStream.close();
        }
        catch (IOException | RuntimeException e) {
            // the file is deleted next; a half-written file does not matter
            log.debug(e, "Error closing Parquet file %s during rollback", location);
        }
    }

    private void deleteQuietly(Exception cause)
    {
        try {
            fileSystem.deleteFile(location);
        }
        catch (IOException | RuntimeException e) {
            if (cause != null) {
                cause.addSuppressed(e);
            }
            log.warn(e, "Failed to delete Parquet file %s", location);
        }
    }

    private static List<Long> splitOffsets(FileMetaData footer)
    {
        // row groups are written in file order; each starts where its first column chunk starts
        return footer.getRow_groups().stream()
                .map(QbeastParquetFileWriter::startOffset)
                .sorted()
                .collect(ImmutableList.toImmutableList());
    }

    private static long startOffset(RowGroup rowGroup)
    {
        if (rowGroup.isSetFile_offset()) {
            return rowGroup.getFile_offset();
        }
        var firstColumn = rowGroup.getColumns().getFirst().getMeta_data();
        return firstColumn.isSetDictionary_page_offset() ? firstColumn.getDictionary_page_offset() : firstColumn.getData_page_offset();
    }

    @Override
    public String toString()
    {
        return "QbeastParquetFileWriter{" + location + "}";
    }
}

package io.qbeast.trino.parquet;

import com.google.common.collect.ImmutableList;
import io.airlift.log.Logger;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.memory.context.AggregatedMemoryContext;
import io.trino.parquet.writer.ParquetWriter;
import io.trino.parquet.writer.ParquetWriterOptions;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.type.Type;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.parquet.format.CompressionCodec;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;
import static io.airlift.slice.SizeOf.instanceSize;
import static io.qbeast.trino.QbeastErrorCode.QBEAST_FILESYSTEM_ERROR;
import static io.qbeast.trino.QbeastErrorCode.QBEAST_WRITER_ERROR;
import static io.trino.memory.context.AggregatedMemoryContext.newSimpleAggregatedMemoryContext;
import static java.util.Objects.requireNonNull;

/**
 * Writes Trino pages to one Parquet data file of an Iceberg table through trino-parquet's
 * {@link ParquetWriter}: Iceberg field ids in the file schema, Iceberg metrics from the footer.
 * Not thread safe; one writer per file. Call {@link #commit()} or {@link #rollback()} exactly once.
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
    private final MetricsConfig metricsConfig;
    private final AggregatedMemoryContext outputMemoryContext = newSimpleAggregatedMemoryContext();
    private final ParquetWriter parquetWriter;
    private final FloatingPointStatistics floatingPointStatistics;
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
     * @param weightOrdered the caller appends rows in ascending {@code _qbeast_weight}; recorded in
     * the footer's {@code created_by}, so readers may stop at the first weight past a sample's bound
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

        ParquetFileSchema fileSchema = ParquetFileSchema.create(schema, columnTypes);
        this.floatingPointStatistics = new FloatingPointStatistics(schema, columnTypes);

        OutputStream outputStream;
        try {
            outputStream = fileSystem.newOutputFile(location).create(outputMemoryContext);
        }
        catch (IOException | UncheckedIOException e) {
            throw new TrinoException(QBEAST_FILESYSTEM_ERROR, "Error creating Parquet file " + location, e);
        }
        this.parquetWriter = new ParquetWriter(
                outputStream,
                fileSchema.messageType(),
                fileSchema.primitiveTypes(),
                options,
                codec,
                weightOrdered ? WEIGHT_ORDERED_WRITER_VERSION : WRITER_VERSION,
                // INT96 timestamps are never written, so no time zone is needed
                Optional.empty(),
                Optional.empty());
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
        try {
            parquetWriter.write(page);
        }
        catch (IOException | UncheckedIOException e) {
            throw new TrinoException(QBEAST_WRITER_ERROR, "Error writing Parquet file " + location, e);
        }
    }

    /**
     * Bytes written to the output so far (row groups are written when full, so this lags the rows appended).
     */
    public long getWrittenBytes()
    {
        return parquetWriter.getWrittenBytes();
    }

    /**
     * Bytes retained by this writer: buffered row group, encoders, and the file system's output buffers.
     */
    public long getMemoryUsage()
    {
        return INSTANCE_SIZE + parquetWriter.getRetainedBytes() + outputMemoryContext.getBytes();
    }

    /**
     * Finishes the file and returns what the Iceberg commit needs. On failure the file is deleted.
     */
    public WrittenFile commit()
    {
        checkState(!finished, "writer is already committed or rolled back");
        finished = true;
        try {
            parquetWriter.close();
        }
        catch (IOException | RuntimeException e) {
            deleteQuietly(e);
            throw new TrinoException(QBEAST_WRITER_ERROR, "Error closing Parquet file " + location, e);
        }
        finally {
            outputMemoryContext.close();
        }

        FileMetaData footer = parquetWriter.getFileMetaData();
        IcebergMetrics metrics;
        try {
            metrics = ParquetFileMetrics.compute(footer, schema, metricsConfig, floatingPointStatistics.statistics());
        }
        catch (RuntimeException e) {
            deleteQuietly(e);
            throw new TrinoException(QBEAST_WRITER_ERROR, "Error computing Iceberg metrics of Parquet file " + location, e);
        }
        return new WrittenFile(location.toString(), parquetWriter.getWrittenBytes(), metrics.recordCount(), metrics, splitOffsets(footer));
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
        try {
            parquetWriter.close();
        }
        catch (IOException | RuntimeException e) {
            // the file is deleted below; a half-written footer does not matter
            log.debug(e, "Error closing Parquet file %s during rollback", location);
        }
        finally {
            outputMemoryContext.close();
        }
        deleteQuietly(null);
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

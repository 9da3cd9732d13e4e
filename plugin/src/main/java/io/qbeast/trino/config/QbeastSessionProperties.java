package io.qbeast.trino.config;

import com.google.common.collect.ImmutableList;
import com.google.inject.Inject;
import io.airlift.units.DataSize;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.session.PropertyMetadata;

import java.util.List;

import static io.trino.plugin.base.session.PropertyMetadataUtil.dataSizeProperty;
import static io.trino.spi.StandardErrorCode.INVALID_SESSION_PROPERTY;
import static io.trino.spi.session.PropertyMetadata.enumProperty;
import static io.trino.spi.session.PropertyMetadata.integerProperty;

/**
 * What a user tunes per query ({@code SET SESSION <catalog>.<name> = ...}), each defaulting to its
 * catalog property: the target file size, a writer's memory budget, the Parquet compression
 * of the files a write creates, and the largest split a scan reads. Values are checked against the same bounds as the catalog
 * properties ({@link QbeastConfig}).
 */
public final class QbeastSessionProperties
{
    public static final String TARGET_FILE_SIZE = "target_file_size";
    public static final String WRITER_BUFFER_SIZE = "writer_buffer_size";
    public static final String COMPRESSION_CODEC = "compression_codec";
    public static final String MAX_SPLIT_SIZE = "max_split_size";
    public static final String PARQUET_WRITER_PAGE_SIZE = "parquet_writer_page_size";
    public static final String PARQUET_WRITER_BATCH_SIZE = "parquet_writer_batch_size";

    private final List<PropertyMetadata<?>> sessionProperties;

    @Inject
    public QbeastSessionProperties(QbeastConfig config)
    {
        sessionProperties = ImmutableList.of(
                checkedDataSize(TARGET_FILE_SIZE, "Target size of a data file written by CTAS, INSERT and optimize (qbeast.target-file-size)",
                        config.getTargetFileSize(), DataSize.valueOf(QbeastConfig.MIN_TARGET_FILE_SIZE), null),
                checkedDataSize(WRITER_BUFFER_SIZE, "Memory budget of each writer; rows beyond half of it are spilled to local disk (qbeast.writer.buffer-size)",
                        config.getWriterBufferSize(), DataSize.valueOf(QbeastConfig.MIN_WRITER_BUFFER_SIZE), DataSize.valueOf(QbeastConfig.MAX_WRITER_BUFFER_SIZE)),
                enumProperty(COMPRESSION_CODEC, "Parquet compression of the data files a write creates (qbeast.compression-codec)",
                        QbeastCompressionCodec.class, config.getCompressionCodec(), false),
                checkedDataSize(MAX_SPLIT_SIZE, "Largest split of a data file, in whole row groups (qbeast.max-split-size)",
                        config.getMaxSplitSize(), DataSize.valueOf(QbeastConfig.MIN_MAX_SPLIT_SIZE), null),
                checkedDataSize(PARQUET_WRITER_PAGE_SIZE, "Parquet page size of the data files a write creates (qbeast.parquet.writer.page-size)",
                        config.getParquetWriterPageSize(), DataSize.valueOf(QbeastConfig.MIN_PARQUET_PAGE_SIZE), DataSize.valueOf(QbeastConfig.MAX_PARQUET_PAGE_SIZE)),
                integerProperty(PARQUET_WRITER_BATCH_SIZE, "Rows the Parquet writer encodes at once, the fewest rows of a page (qbeast.parquet.writer.batch-size)",
                        config.getParquetWriterBatchSize(), value -> {
                            if (value < 1 || value > QbeastConfig.MAX_PARQUET_BATCH_SIZE) {
                                throw new TrinoException(INVALID_SESSION_PROPERTY, "Session property %s must be between 1 and %s, but is %s".formatted(PARQUET_WRITER_BATCH_SIZE, QbeastConfig.MAX_PARQUET_BATCH_SIZE, value));
                            }
                        }, false));
    }

    public List<PropertyMetadata<?>> getSessionProperties()
    {
        return sessionProperties;
    }

    public static DataSize getTargetFileSize(ConnectorSession session)
    {
        return session.getProperty(TARGET_FILE_SIZE, DataSize.class);
    }

    public static DataSize getWriterBufferSize(ConnectorSession session)
    {
        return session.getProperty(WRITER_BUFFER_SIZE, DataSize.class);
    }

    public static QbeastCompressionCodec getCompressionCodec(ConnectorSession session)
    {
        return session.getProperty(COMPRESSION_CODEC, QbeastCompressionCodec.class);
    }

    public static DataSize getMaxSplitSize(ConnectorSession session)
    {
        return session.getProperty(MAX_SPLIT_SIZE, DataSize.class);
    }

    public static DataSize getParquetWriterPageSize(ConnectorSession session)
    {
        return session.getProperty(PARQUET_WRITER_PAGE_SIZE, DataSize.class);
    }

    public static int getParquetWriterBatchSize(ConnectorSession session)
    {
        return session.getProperty(PARQUET_WRITER_BATCH_SIZE, Integer.class);
    }

    private static PropertyMetadata<DataSize> checkedDataSize(String name, String description, DataSize defaultValue, DataSize min, DataSize max)
    {
        PropertyMetadata<DataSize> property = dataSizeProperty(name, description, defaultValue, false);
        return new PropertyMetadata<>(
                property.getName(),
                property.getDescription(),
                property.getSqlType(),
                DataSize.class,
                defaultValue,
                false,
                value -> {
                    DataSize size = property.decode(value);
                    if (size.compareTo(min) < 0 || (max != null && size.compareTo(max) > 0)) {
                        throw new TrinoException(INVALID_SESSION_PROPERTY, "Session property %s must be %s, but is %s".formatted(
                                name, max == null ? "at least " + min : "between %s and %s".formatted(min, max), size));
                    }
                    return size;
                },
                DataSize::toString);
    }
}

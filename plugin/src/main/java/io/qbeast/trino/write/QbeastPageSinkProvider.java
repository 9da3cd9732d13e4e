package io.qbeast.trino.write;

import com.google.common.base.Suppliers;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import com.google.inject.Inject;
import io.airlift.json.JsonCodec;
import io.airlift.units.DataSize;
import io.qbeast.iceberg.SnapshotIndex;
import io.qbeast.iceberg.SnapshotIndexReader;
import io.qbeast.iceberg.TrinoFileIo;
import io.qbeast.trino.catalog.IndexStateCache;
import io.qbeast.trino.catalog.QbeastFileSystemFactory;
import io.qbeast.trino.config.QbeastConfig;
import io.qbeast.trino.config.QbeastSessionProperties;
import io.qbeast.trino.encoding.TypeConverter;
import io.qbeast.trino.handle.QbeastMergeTableHandle;
import io.qbeast.trino.handle.QbeastTableExecuteHandle;
import io.qbeast.trino.handle.QbeastWritableTableHandle;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.filesystem.TrinoFileSystemFactory;
import io.trino.parquet.writer.ParquetWriterOptions;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorInsertTableHandle;
import io.trino.spi.connector.ConnectorMergeSink;
import io.trino.spi.connector.ConnectorMergeTableHandle;
import io.trino.spi.connector.ConnectorOutputTableHandle;
import io.trino.spi.connector.ConnectorPageSink;
import io.trino.spi.connector.ConnectorPageSinkId;
import io.trino.spi.connector.ConnectorPageSinkProvider;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableCredentials;
import io.trino.spi.connector.ConnectorTableExecuteHandle;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeManager;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_INVALID_METADATA;
import static java.util.Objects.requireNonNull;

public class QbeastPageSinkProvider
        implements ConnectorPageSinkProvider
{
    private static final long MAX_ROW_GROUP_SIZE = 128L * 1024 * 1024;

    private final TrinoFileSystemFactory fileSystemFactory;
    private final TypeManager typeManager;
    private final QbeastConfig config;
    private final IndexStateCache indexStateCache;
    private final QbeastWriterStats stats;
    private final JsonCodec<CommitTaskData> commitTaskCodec;
    private final SecureRandom seeds = new SecureRandom();
    private final SpillPageSerde spillSerde;

    @Inject
    public QbeastPageSinkProvider(
            QbeastFileSystemFactory fileSystemFactory,
            TypeManager typeManager,
            QbeastConfig config,
            IndexStateCache indexStateCache,
            QbeastWriterStats stats,
            JsonCodec<CommitTaskData> commitTaskCodec)
    {
        this.fileSystemFactory = requireNonNull(fileSystemFactory, "fileSystemFactory is null");
        this.typeManager = requireNonNull(typeManager, "typeManager is null");
        this.config = requireNonNull(config, "config is null");
        this.indexStateCache = requireNonNull(indexStateCache, "indexStateCache is null");
        this.stats = requireNonNull(stats, "stats is null");
        this.commitTaskCodec = requireNonNull(commitTaskCodec, "commitTaskCodec is null");
        this.spillSerde = new SpillPageSerde(typeManager);
    }

    @Override
    public ConnectorPageSink createPageSink(ConnectorTransactionHandle transaction, ConnectorSession session, ConnectorOutputTableHandle outputTableHandle, Optional<ConnectorTableCredentials> tableCredentials, ConnectorPageSinkId pageSinkId)
    {
        return createPageSink(session, (QbeastWritableTableHandle) outputTableHandle);
    }

    @Override
    public ConnectorPageSink createPageSink(ConnectorTransactionHandle transaction, ConnectorSession session, ConnectorInsertTableHandle insertTableHandle, Optional<ConnectorTableCredentials> tableCredentials, ConnectorPageSinkId pageSinkId)
    {
        return createPageSink(session, (QbeastWritableTableHandle) insertTableHandle);
    }

    /**
     * An optimize's sink: an INSERT's sink whose base index is the start snapshot without the
     * files being rewritten, so the rewritten rows are placed again in the tree that is kept.
     */
    @Override
    public ConnectorPageSink createPageSink(ConnectorTransactionHandle transaction, ConnectorSession session, ConnectorTableExecuteHandle tableExecuteHandle, Optional<ConnectorTableCredentials> tableCredentials, ConnectorPageSinkId pageSinkId)
    {
        QbeastTableExecuteHandle execute = (QbeastTableExecuteHandle) tableExecuteHandle;
        QbeastWritableTableHandle handle = execute.write().orElseThrow(() -> new IllegalStateException("Optimize not begun: " + execute));
        Set<String> rewritten = ImmutableSet.copyOf(execute.files());
        TrinoFileSystem fileSystem = fileSystemFactory.create(session);
        return createPageSink(session, handle, fileSystem, () -> {
            if (handle.metadataLocation().isEmpty()) {
                return SnapshotIndex.empty();
            }
            try {
                return SnapshotIndexReader.read(new TrinoFileIo(fileSystem), handle.metadataLocation().get(), handle.baseSnapshotId().orElseThrow(), rewritten);
            }
            catch (RuntimeException e) {
                throw new TrinoException(QBEAST_INVALID_METADATA, "Failed to read the index of snapshot %s from %s: %s".formatted(handle.baseSnapshotId().orElseThrow(), handle.metadataLocation().get(), e.getMessage()), e);
            }
        });
    }

    /** A DELETE, UPDATE or MERGE's sink: position deletes, and an INSERT's sink for the new rows. */
    @Override
    public ConnectorMergeSink createMergeSink(ConnectorTransactionHandle transaction, ConnectorSession session, ConnectorMergeTableHandle mergeHandle, Optional<ConnectorTableCredentials> tableCredentials, ConnectorPageSinkId pageSinkId)
    {
        QbeastMergeTableHandle merge = (QbeastMergeTableHandle) mergeHandle;
        TrinoFileSystem fileSystem = fileSystemFactory.create(session);
        return new QbeastMergeSink(
                createPageSink(session, merge.insert()),
                merge.dataColumns(),
                fileSystem,
                Location.of(merge.insert().dataLocation()),
                session.getQueryId(),
                ParquetWriterOptions.builder().build(),
                QbeastSessionProperties.getCompressionCodec(session).parquetCodec(),
                commitTaskCodec);
    }

    private ConnectorPageSink createPageSink(ConnectorSession session, QbeastWritableTableHandle handle)
    {
        TrinoFileSystem fileSystem = fileSystemFactory.create(session);
        return createPageSink(session, handle, fileSystem, () -> handle.metadataLocation().isEmpty()
                ? SnapshotIndex.empty()
                : indexStateCache.get(fileSystem, handle.metadataLocation().get(), handle.baseSnapshotId().orElseThrow()));
    }

    private ConnectorPageSink createPageSink(ConnectorSession session, QbeastWritableTableHandle handle, TrinoFileSystem fileSystem, Supplier<SnapshotIndex> readBaseIndex)
    {
        Schema schema = SchemaParser.fromJson(handle.schemaJson());
        List<Type> types = schema.columns().stream()
                .map(field -> TypeConverter.toTrinoType(field.type(), typeManager))
                .collect(ImmutableList.toImmutableList());
        Supplier<SnapshotIndex> baseIndex = Suppliers.memoize(readBaseIndex::get);
        long memoryBudget = QbeastSessionProperties.getWriterBufferSize(session).toBytes();
        // the sink ends row groups itself (one page each, planned by FileLayout); this only bounds one
        long rowGroupSize = Math.max(64 * 1024, Math.min(MAX_ROW_GROUP_SIZE, memoryBudget / 4));
        ParquetWriterOptions writerOptions = ParquetWriterOptions.builder()
                .setMaxBlockSize(DataSize.ofBytes(rowGroupSize))
                .setMaxPageSize(QbeastSessionProperties.getParquetWriterPageSize(session))
                .setBatchSize(QbeastSessionProperties.getParquetWriterBatchSize(session))
                .build();
        return new QbeastPageSink(
                handle,
                fileSystem,
                session.getQueryId(),
                schema,
                types,
                baseIndex,
                memoryBudget,
                QbeastSessionProperties.getTargetFileSize(session).toBytes(),
                writerOptions,
                QbeastSessionProperties.getCompressionCodec(session).parquetCodec(),
                Path.of(config.getWriterSpillPath()),
                spillSerde,
                seeds.nextLong(),
                commitTaskCodec,
                stats);
    }
}

package io.qbeast.trino.procedure;

import com.google.common.collect.ImmutableList;
import com.google.inject.Inject;
import com.google.inject.Provider;
import io.airlift.slice.Slice;
import io.qbeast.trino.catalog.QbeastFileSystemFactory;
import io.qbeast.trino.handle.QbeastColumnHandle;
import io.qbeast.trino.handle.QbeastDeleteFile;
import io.qbeast.trino.handle.QbeastTableExecuteHandle;
import io.qbeast.trino.handle.QbeastWritableTableHandle;
import io.qbeast.trino.metadata.QbeastMetadata;
import io.qbeast.trino.metadata.QbeastMetadataFactory;
import io.qbeast.trino.optimize.OptimizeReport;
import io.qbeast.trino.optimize.QbeastOptimize;
import io.qbeast.trino.parquet.DeleteFileReader;
import io.qbeast.trino.parquet.QbeastPageSourceFactory;
import io.qbeast.trino.read.DeleteFiles;
import io.qbeast.trino.write.QbeastPageSinkProvider;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.filesystem.TrinoFileSystemFactory;
import io.trino.filesystem.TrinoInputFile;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.spi.TrinoException;
import io.trino.spi.classloader.ThreadContextClassLoader;
import io.trino.spi.connector.BeginTableExecuteResult;
import io.trino.spi.connector.ConnectorAccessControl;
import io.trino.spi.connector.ConnectorPageSink;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableExecuteHandle;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.RetryMode;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.connector.TableNotFoundException;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.procedure.Procedure;
import io.trino.spi.type.TypeManager;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static com.google.common.collect.ImmutableMap.toImmutableMap;
import static io.airlift.slice.Slices.utf8Slice;
import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_FILESYSTEM_ERROR;
import static io.trino.spi.StandardErrorCode.INVALID_PROCEDURE_ARGUMENT;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.util.Objects.requireNonNull;

/**
 * {@code CALL <catalog>.system.optimize(schema_name => ..., table_name => ..., mode => ..., revision => ...)}:
 * the optimize of {@code ALTER TABLE ... EXECUTE optimize} run in the coordinator alone. The same
 * selection, page sink and commit; the selected files are read one after another and fed to one
 * sink, whose buffer bounds the memory. Meant for small tables: nothing runs in parallel.
 */
public class OptimizeProcedure
        implements Provider<Procedure>
{
    private static final MethodHandle OPTIMIZE;

    static {
        try {
            OPTIMIZE = MethodHandles.lookup().findVirtual(OptimizeProcedure.class, "optimize",
                    MethodType.methodType(void.class, ConnectorSession.class, ConnectorAccessControl.class, String.class, String.class, String.class, Long.class));
        }
        catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final QbeastMetadataFactory metadataFactory;
    private final QbeastPageSinkProvider pageSinkProvider;
    private final TrinoFileSystemFactory fileSystemFactory;
    private final QbeastPageSourceFactory pageSourceFactory = new QbeastPageSourceFactory();
    private final DeleteFileReader deleteFileReader = new DeleteFileReader(pageSourceFactory, ParquetReaderOptions.defaultOptions());
    private final TypeManager typeManager;

    @Inject
    public OptimizeProcedure(QbeastMetadataFactory metadataFactory, QbeastPageSinkProvider pageSinkProvider, QbeastFileSystemFactory fileSystemFactory, TypeManager typeManager)
    {
        this.typeManager = requireNonNull(typeManager, "typeManager is null");
        this.metadataFactory = requireNonNull(metadataFactory, "metadataFactory is null");
        this.pageSinkProvider = requireNonNull(pageSinkProvider, "pageSinkProvider is null");
        this.fileSystemFactory = requireNonNull(fileSystemFactory, "fileSystemFactory is null");
    }

    @Override
    public Procedure get()
    {
        return new Procedure(
                "system",
                "optimize",
                ImmutableList.of(
                        new Procedure.Argument("SCHEMA_NAME", VARCHAR),
                        new Procedure.Argument("TABLE_NAME", VARCHAR),
                        // a default is given as the type's value (a Slice for varchar, checked since 483); the method gets a String
                        new Procedure.Argument("MODE", VARCHAR, false, utf8Slice(QbeastOptimize.DEFAULT_MODE)),
                        new Procedure.Argument("REVISION", BIGINT, false, null)),
                OPTIMIZE.bindTo(this));
    }

    /**
     * The engine injects the caller's session and access control: the caller needs the right that
     * {@code ALTER TABLE ... EXECUTE optimize} needs (to execute the table procedure on the table).
     */
    public void optimize(ConnectorSession session, ConnectorAccessControl accessControl, String schemaName, String tableName, String mode, Long revision)
    {
        try (ThreadContextClassLoader _ = new ThreadContextClassLoader(getClass().getClassLoader())) {
            run(session, accessControl, schemaName, tableName, mode, revision, () -> {});
        }
    }

    /**
     * The optimize; {@code beforeCommit} runs between writing the new files and the commit (tests
     * use it to commit something concurrent).
     */
    public OptimizeReport run(ConnectorSession session, ConnectorAccessControl accessControl, String schemaName, String tableName, String mode, Long revision, Runnable beforeCommit)
    {
        if (schemaName == null || schemaName.isEmpty()) {
            throw new TrinoException(INVALID_PROCEDURE_ARGUMENT, "Argument 'schema_name' must be given");
        }
        if (tableName == null || tableName.isEmpty()) {
            throw new TrinoException(INVALID_PROCEDURE_ARGUMENT, "Argument 'table_name' must be given");
        }
        SchemaTableName name = new SchemaTableName(schemaName, tableName);
        // the right ALTER TABLE ... EXECUTE optimize checks, under the same (canonical) name
        accessControl.checkCanExecuteTableProcedure(null, name, QbeastOptimize.PROCEDURE_NAME);
        QbeastMetadata metadata = metadataFactory.create(session.getIdentity());
        ConnectorTableHandle table = metadata.getTableHandle(session, name, Optional.empty(), Optional.empty());
        if (table == null) {
            throw new TableNotFoundException(name);
        }
        Map<String, Object> properties = new HashMap<>();
        properties.put(QbeastOptimize.MODE, mode);
        properties.put(QbeastOptimize.REVISION, revision);
        ConnectorTableExecuteHandle executeHandle = metadata.getTableHandleForExecute(session, accessControl, table, QbeastOptimize.PROCEDURE_NAME, properties, RetryMode.NO_RETRIES).orElseThrow();
        BeginTableExecuteResult<ConnectorTableExecuteHandle, ConnectorTableHandle> begun = metadata.beginTableExecute(session, executeHandle, table);
        QbeastTableExecuteHandle handle = (QbeastTableExecuteHandle) begun.getTableExecuteHandle();
        ConnectorPageSink sink = null;
        try {
            Collection<Slice> fragments = ImmutableList.of();
            if (!handle.files().isEmpty()) {
                sink = pageSinkProvider.createPageSink(null, session, handle, Optional.empty(), null);
                QbeastWritableTableHandle write = handle.write().orElseThrow();
                TrinoFileSystem fileSystem = fileSystemFactory.create(session);
                // each chosen file with the delete files planned for it: deleted rows are not rewritten
                Map<String, FileScanTask> tasks = metadata.optimizeFiles().orElseThrow().stream()
                        .collect(toImmutableMap(task -> task.file().location(), task -> task));
                Schema schema = SchemaParser.fromJson(write.schemaJson());
                for (String file : handle.files()) {
                    copyRows(fileSystem, file, DeleteFiles.toHandles(tasks.get(file).deletes(), schema, typeManager), schema, write, sink);
                }
                ConnectorPageSink finishing = sink;
                sink = null;
                // finish() aborts the sink itself when it fails
                fragments = finishing.finish().join();
            }
            beforeCommit.run();
            return metadata.finishOptimize(session, handle, handle.files(), fragments);
        }
        catch (RuntimeException | Error e) {
            if (sink != null) {
                sink.abort();
            }
            // removes the files this optimize wrote
            metadata.rollback();
            throw e;
        }
    }

    private void copyRows(TrinoFileSystem fileSystem, String file, List<QbeastDeleteFile> deletes, Schema schema, QbeastWritableTableHandle write, ConnectorPageSink sink)
    {
        TrinoInputFile inputFile = fileSystem.newInputFile(Location.of(file));
        long length;
        try {
            length = inputFile.length();
        }
        catch (IOException e) {
            throw new TrinoException(QBEAST_FILESYSTEM_ERROR, "Failed to open data file %s: %s".formatted(file, e.getMessage()), e);
        }
        List<QbeastColumnHandle> columns = write.inputColumns();
        try (ConnectorPageSource source = pageSourceFactory.createPageSource(
                inputFile,
                0,
                length,
                length,
                columns,
                Optional.of(schema),
                TupleDomain.all(),
                TupleDomain.all(),
                List.of(),
                QbeastPageSourceFactory.NO_SAMPLING,
                deleteFileReader.read(fileSystem, file, deletes),
                ParquetReaderOptions.defaultOptions())) {
            while (!source.isFinished()) {
                SourcePage page = source.getNextSourcePage();
                if (page != null && page.getPositionCount() > 0) {
                    sink.appendPage(page.getPage());
                }
            }
        }
        catch (IOException e) {
            throw new TrinoException(QBEAST_FILESYSTEM_ERROR, "Failed to read data file %s: %s".formatted(file, e.getMessage()), e);
        }
    }
}

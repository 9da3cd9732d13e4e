package io.qbeast.trino.procedure;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.inject.Inject;
import com.google.inject.Provider;
import io.airlift.log.Logger;
import io.qbeast.iceberg.QbeastConversion;
import io.qbeast.iceberg.QbeastConversion.Candidate;
import io.qbeast.iceberg.QbeastConversion.ConversionException;
import io.qbeast.trino.catalog.IcebergCatalogProvider;
import io.qbeast.trino.config.IndexedColumnsRule;
import io.qbeast.trino.config.QbeastConfig;
import io.qbeast.trino.config.QbeastTablePropertyMetadata;
import io.qbeast.trino.encoding.TypeConverter;
import io.trino.spi.StandardErrorCode;
import io.trino.spi.TrinoException;
import io.trino.spi.classloader.ThreadContextClassLoader;
import io.trino.spi.connector.ConnectorAccessControl;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.procedure.Procedure;
import io.trino.spi.procedure.Procedure.Argument;
import io.trino.spi.type.ArrayType;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeManager;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.types.Types;

import java.lang.invoke.MethodHandle;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_COMMIT_ERROR;
import static io.trino.spi.StandardErrorCode.ALREADY_EXISTS;
import static io.trino.spi.StandardErrorCode.INVALID_PROCEDURE_ARGUMENT;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.StandardErrorCode.TABLE_NOT_FOUND;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.lang.invoke.MethodHandles.lookup;
import static java.util.Objects.requireNonNull;

/**
 * {@code CALL <catalog>.system.convert_table(schema_name => 's', table_name => 't',
 * indexed_columns => ARRAY['a', 'b'] [, cube_size => n])}: makes an existing Iceberg table of this
 * catalog (written by any engine) a qbeast table without rewriting it, in one Iceberg commit
 * ({@link QbeastConversion}). Its files become unindexed files; later INSERTs cluster, and
 * optimize indexes the old files. Runs on the coordinator: metadata only, no data is read.
 */
public class ConvertTableProcedure
        implements Provider<Procedure>
{
    private static final Logger log = Logger.get(ConvertTableProcedure.class);

    public static final String NAME = "convert_table";
    private static final String SCHEMA_NAME = "SCHEMA_NAME";
    private static final String TABLE_NAME = "TABLE_NAME";
    private static final String INDEXED_COLUMNS = "INDEXED_COLUMNS";
    private static final String CUBE_SIZE = "CUBE_SIZE";

    private static final MethodHandle CONVERT_TABLE;

    static {
        try {
            CONVERT_TABLE = lookup().unreflect(ConvertTableProcedure.class.getMethod(
                    "convertTable", ConnectorSession.class, ConnectorAccessControl.class, String.class, String.class, List.class, Long.class));
        }
        catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    private final IcebergCatalogProvider catalogProvider;
    private final TypeManager typeManager;
    private final QbeastConfig config;

    @Inject
    public ConvertTableProcedure(IcebergCatalogProvider catalogProvider, TypeManager typeManager, QbeastConfig config)
    {
        this.catalogProvider = requireNonNull(catalogProvider, "catalogProvider is null");
        this.typeManager = requireNonNull(typeManager, "typeManager is null");
        this.config = requireNonNull(config, "config is null");
    }

    @Override
    public Procedure get()
    {
        return new Procedure(
                "system",
                NAME,
                ImmutableList.of(
                        new Argument(SCHEMA_NAME, VARCHAR),
                        new Argument(TABLE_NAME, VARCHAR),
                        new Argument(INDEXED_COLUMNS, new ArrayType(VARCHAR)),
                        new Argument(CUBE_SIZE, BIGINT, false, null)),
                CONVERT_TABLE.bindTo(this));
    }

    public void convertTable(ConnectorSession session, ConnectorAccessControl accessControl, String schemaName, String tableName, List<?> indexedColumns, Long cubeSize)
    {
        // CALL runs in the engine's DDL task: no ClassLoaderSafe wrapper around it
        try (ThreadContextClassLoader _ = new ThreadContextClassLoader(getClass().getClassLoader())) {
            doConvertTable(accessControl, schemaName, tableName, indexedColumns, cubeSize);
        }
    }

    private void doConvertTable(ConnectorAccessControl accessControl, String schemaName, String tableName, List<?> indexedColumnsArgument, Long cubeSizeArgument)
    {
        requireArgument(schemaName != null && !schemaName.isEmpty(), "%s must be given".formatted(SCHEMA_NAME.toLowerCase(Locale.ENGLISH)));
        requireArgument(tableName != null && !tableName.isEmpty(), "%s must be given".formatted(TABLE_NAME.toLowerCase(Locale.ENGLISH)));
        SchemaTableName name = new SchemaTableName(schemaName, tableName);
        IndexedColumnsRule rule = new IndexedColumnsRule("indexed_columns", "table " + name, INVALID_PROCEDURE_ARGUMENT);
        List<String> indexedColumns = rule.checkNames(indexedColumnsArgument);
        long cubeSize = cubeSizeArgument == null ? config.getDefaultCubeSize() : cubeSizeArgument;
        requireArgument(cubeSize > 0, "cube_size must be positive, but is %s".formatted(cubeSize));

        // converting changes the table's schema and properties
        accessControl.checkCanAddColumn(null, name);
        accessControl.checkCanSetTableProperties(null, name, ImmutableMap.<String, Optional<Object>>of(
                QbeastTablePropertyMetadata.INDEXED_COLUMNS, Optional.of(indexedColumns),
                QbeastTablePropertyMetadata.CUBE_SIZE, Optional.of(cubeSize)));

        Table table;
        try {
            table = catalogProvider.get().catalog().loadTable(TableIdentifier.of(Namespace.of(schemaName), tableName));
        }
        catch (NoSuchTableException | NoSuchNamespaceException e) {
            throw new TrinoException(TABLE_NOT_FOUND, "Table '%s' not found".formatted(name), e);
        }

        Candidate candidate;
        try {
            candidate = QbeastConversion.check(table);
        }
        catch (ConversionException e) {
            StandardErrorCode errorCode = switch (e.problem()) {
                case ALREADY_QBEAST_TABLE -> ALREADY_EXISTS;
                case RESERVED_COLUMN_NAME, UNSUPPORTED_FORMAT_VERSION, PARTITIONED, NOT_PARQUET, DELETE_FILES -> NOT_SUPPORTED;
            };
            throw new TrinoException(errorCode, "Cannot convert %s: %s".formatted(name, e.getMessage()), e);
        }
        checkColumns(name, table.schema(), indexedColumns, rule);

        try {
            QbeastConversion.commit(candidate, indexedColumns, cubeSize);
        }
        catch (ValidationException | CommitFailedException e) {
            throw new TrinoException(QBEAST_COMMIT_ERROR, "Cannot convert %s: %s; nothing was changed, run the conversion again".formatted(name, e.getMessage()), e);
        }
        catch (CommitStateUnknownException e) {
            throw new TrinoException(QBEAST_COMMIT_ERROR, "Converting %s: the catalog did not confirm the commit; the table may or may not be converted".formatted(name), e);
        }
        log.info("Converted %s to a qbeast table indexed on %s (cube size %s): %s unindexed data files, %s rows, no file rewritten",
                name, indexedColumns, cubeSize, candidate.dataFiles(), candidate.records());
    }

    /**
     * Every column must be of a type the qbeast write path stores exactly as the table declares it
     * (a later INSERT writes it), and the indexed ones of an indexable type.
     */
    private void checkColumns(SchemaTableName name, Schema schema, List<String> indexedColumns, IndexedColumnsRule rule)
    {
        for (Types.NestedField field : schema.columns()) {
            if (!field.name().equals(field.name().toLowerCase(Locale.ENGLISH))) {
                throw new TrinoException(NOT_SUPPORTED, "Cannot convert %s: column '%s' is not lower case (Trino column names are)".formatted(name, field.name()));
            }
            Type type;
            try {
                type = TypeConverter.toTrinoType(field.type(), typeManager);
            }
            catch (TrinoException e) {
                throw new TrinoException(NOT_SUPPORTED, "Cannot convert %s: column '%s' has Iceberg type %s, which qbeast does not support".formatted(name, field.name(), field.type()), e);
            }
            if (!sameShape(field.type(), TypeConverter.toIcebergType(type, field.name()))) {
                throw new TrinoException(NOT_SUPPORTED, "Cannot convert %s: column '%s' has Iceberg type %s, which qbeast cannot write (it would write %s)".formatted(
                        name, field.name(), field.type(), TypeConverter.toIcebergType(type, field.name())));
            }
        }
        Map<String, Type> columns = new LinkedHashMap<>();
        schema.columns().forEach(field -> columns.put(field.name(), TypeConverter.toTrinoType(field.type(), typeManager)));
        rule.checkColumns(indexedColumns, columns);
    }

    /** Equal types, ignoring field ids, nested optionality and doc. */
    private static boolean sameShape(org.apache.iceberg.types.Type declared, org.apache.iceberg.types.Type written)
    {
        if (declared.typeId() != written.typeId()) {
            return false;
        }
        return switch (declared) {
            case Types.StructType struct -> {
                List<Types.NestedField> declaredFields = struct.fields();
                List<Types.NestedField> writtenFields = written.asStructType().fields();
                if (declaredFields.size() != writtenFields.size()) {
                    yield false;
                }
                for (int i = 0; i < declaredFields.size(); i++) {
                    if (!declaredFields.get(i).name().equals(writtenFields.get(i).name()) || !sameShape(declaredFields.get(i).type(), writtenFields.get(i).type())) {
                        yield false;
                    }
                }
                yield true;
            }
            case Types.ListType list -> sameShape(list.elementType(), written.asListType().elementType());
            case Types.MapType map -> sameShape(map.keyType(), written.asMapType().keyType()) && sameShape(map.valueType(), written.asMapType().valueType());
            default -> declared.equals(written);
        };
    }

    private static void requireArgument(boolean condition, String message)
    {
        if (!condition) {
            throw new TrinoException(INVALID_PROCEDURE_ARGUMENT, message);
        }
    }
}

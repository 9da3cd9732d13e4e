package io.qbeast.trino.optimize;

import com.google.common.collect.ImmutableList;
import io.qbeast.iceberg.OptimizeSelection;
import io.qbeast.iceberg.QbeastTableMetadata;
import io.qbeast.iceberg.QbeastTableProperties;
import io.qbeast.index.Weight;
import io.qbeast.trino.catalog.QbeastTableMetadataReader;
import io.qbeast.trino.handle.QbeastColumnHandle;
import io.qbeast.trino.handle.QbeastTableExecuteHandle;
import io.qbeast.trino.handle.QbeastTableHandle;
import io.qbeast.trino.parquet.QbeastPageSourceFactory;
import io.qbeast.trino.read.ExpressionConverter;
import io.qbeast.trino.read.FileMetadataColumns;
import io.qbeast.trino.read.QbeastFilePruner;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.plugin.base.expression.ConnectorExpressions;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.Constraint;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.connector.TableProcedureMetadata;
import io.trino.spi.expression.Constant;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;

import static io.qbeast.iceberg.QbeastTableProperties.CUBE_COLUMN;
import static io.qbeast.iceberg.QbeastTableProperties.WEIGHT_COLUMN;
import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_INVALID_METADATA;
import static io.trino.spi.StandardErrorCode.INVALID_PROCEDURE_ARGUMENT;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.connector.TableProcedureExecutionMode.distributedWithFilteringAndRepartitioning;
import static io.trino.spi.session.PropertyMetadata.longProperty;
import static io.trino.spi.session.PropertyMetadata.stringProperty;

/**
 * The {@code optimize} table procedure: the arguments it shares with {@code CALL system.optimize},
 * and the choice of the files it rewrites.
 */
public final class QbeastOptimize
{
    public static final String PROCEDURE_NAME = "OPTIMIZE";
    public static final String MODE = "mode";
    public static final String REVISION = "revision";
    public static final String DEFAULT_MODE = "fragmented";

    private QbeastOptimize() {}

    public static TableProcedureMetadata tableProcedure()
    {
        return new TableProcedureMetadata(
                PROCEDURE_NAME,
                distributedWithFilteringAndRepartitioning(),
                ImmutableList.of(
                        stringProperty(MODE, "What to rewrite: 'fragmented' (default), 'all', 'revision' or 'unindexed'", DEFAULT_MODE, false),
                        longProperty(REVISION, "The revision to rewrite, for mode 'revision'", null, false)));
    }

    private static OptimizeSelection.Mode parseMode(String mode)
    {
        String value = mode == null ? DEFAULT_MODE : mode;
        return Arrays.stream(OptimizeSelection.Mode.values())
                .filter(candidate -> candidate.name().toLowerCase(Locale.ENGLISH).equals(value.toLowerCase(Locale.ENGLISH)))
                .findFirst()
                .orElseThrow(() -> new TrinoException(INVALID_PROCEDURE_ARGUMENT, "Invalid value for optimize argument '%s': '%s'; expected one of 'fragmented', 'all', 'revision', 'unindexed'".formatted(MODE, value)));
    }

    private static void validateRevision(OptimizeSelection.Mode mode, Optional<Long> revision, List<Long> tableRevisions)
    {
        if (mode == OptimizeSelection.Mode.REVISION) {
            if (revision.isEmpty()) {
                throw new TrinoException(INVALID_PROCEDURE_ARGUMENT, "Optimize mode 'revision' needs the argument '%s': one of the table's revisions %s".formatted(REVISION, tableRevisions));
            }
            if (!tableRevisions.contains(revision.get())) {
                throw new TrinoException(INVALID_PROCEDURE_ARGUMENT, "Optimize argument '%s' is %s, which is not a revision of the table; its revisions are %s".formatted(REVISION, revision.get(), tableRevisions));
            }
        }
        else if (revision.isPresent()) {
            throw new TrinoException(INVALID_PROCEDURE_ARGUMENT, "Optimize argument '%s' applies only to mode 'revision', not '%s'".formatted(REVISION, mode.name().toLowerCase(Locale.ENGLISH)));
        }
    }

    /**
     * The handle of {@code ALTER TABLE t EXECUTE optimize(...)}: its arguments checked against the
     * table (a qbeast table; a revision it has), before any file is chosen.
     */
    public static QbeastTableExecuteHandle executeHandle(QbeastTableHandle handle, Table table, Map<String, Object> executeProperties)
    {
        QbeastTableMetadata qbeast = QbeastTableMetadataReader.read(handle.schemaTableName(), table)
                .orElseThrow(() -> new TrinoException(NOT_SUPPORTED, "Table %s is not a qbeast table (it has no %s property); only qbeast tables can be optimized".formatted(handle.schemaTableName(), QbeastTableProperties.INDEXED_COLUMNS)));
        OptimizeSelection.Mode mode = parseMode((String) executeProperties.get(MODE));
        Optional<Long> revision = Optional.ofNullable((Long) executeProperties.get(REVISION));
        validateRevision(mode, revision, qbeast.revisionIds());
        return new QbeastTableExecuteHandle(handle.schemaName(), handle.tableName(), mode, revision, handle.snapshotId(), ImmutableList.of(), Optional.empty());
    }

    /**
     * Refuses a {@code WHERE} of {@code ALTER TABLE t EXECUTE optimize} that is not only column
     * domains. The WHERE selects whole files, whose rows are all rewritten; a part the engine would
     * have to filter row by row (arithmetic or functions of columns, {@code LIKE}, comparisons
     * of two columns, domains on nested columns) would drop the rows it rejects from files that
     * are replaced, so Trino refuses such a plan with an internal error: this names the columns
     * and says what is accepted instead.
     */
    public static void checkWhere(SchemaTableName table, Constraint constraint)
    {
        Set<String> refused = new TreeSet<>();
        if (!constraint.getExpression().equals(Constant.TRUE)) {
            ConnectorExpressions.extractVariables(constraint.getExpression()).stream()
                    .map(variable -> constraint.getAssignments().get(variable.getName()))
                    .filter(QbeastColumnHandle.class::isInstance)
                    .forEach(column -> refused.add(((QbeastColumnHandle) column).name()));
            if (refused.isEmpty()) {
                refused.add("(no column)");
            }
        }
        constraint.getSummary().getDomains().ifPresent(domains -> domains.keySet().stream()
                .map(QbeastColumnHandle.class::cast)
                .filter(column -> !QbeastPageSourceFactory.isEnforceable(column.type()))
                .forEach(column -> refused.add(column.name())));
        if (!refused.isEmpty()) {
            throw new TrinoException(NOT_SUPPORTED, ("Optimize of %s does not accept this WHERE: its condition on %s is not a column domain. " +
                    "Optimize selects whole files and rewrites all their rows, so its WHERE may only compare columns of scalar types with constants " +
                    "(=, <>, <, <=, >, >=, BETWEEN, IN, IS [NOT] NULL, combined with AND, or with OR on one column): " +
                    "no arithmetic or functions of columns, LIKE, or comparisons of two columns").formatted(table, String.join(", ", refused)));
        }
    }

    /**
     * The files of the source's snapshot that the optimize rewrites: those the WHERE may match (by
     * column bounds and cube region; by path and modification time exactly), chosen by mode; each
     * with the delete files Iceberg planned for it (the optimize's scan must not rewrite deleted rows).
     */
    public static List<FileScanTask> selectFiles(Table table, QbeastTableExecuteHandle handle, QbeastTableHandle source, Optional<QbeastTableMetadata> qbeast, TrinoFileSystem fileSystem)
    {
        if (source.snapshotId().isEmpty() || source.predicate().isNone()) {
            return ImmutableList.of();
        }
        QbeastFilePruner pruner = new QbeastFilePruner(table.schema(), qbeast, source.predicate(), Weight.ALL);
        List<DataFile> candidates = new ArrayList<>();
        Map<String, FileScanTask> tasksByLocation = new HashMap<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan()
                .useSnapshot(source.snapshotId().get())
                .filter(ExpressionConverter.toIcebergExpression(source.predicate()))
                .includeColumnStats(List.of(QbeastColumnHandle.CUBE_COLUMN, QbeastColumnHandle.WEIGHT_COLUMN))
                .planFiles()) {
            for (FileScanTask task : tasks) {
                String location = task.file().location();
                if (pruner.mayContain(task.file()) && FileMetadataColumns.matches(source.predicate(), location, () -> FileMetadataColumns.modifiedMillis(fileSystem.newInputFile(Location.of(location))))) {
                    candidates.add(task.file());
                    tasksByLocation.put(location, task);
                }
            }
        }
        catch (IOException e) {
            throw new TrinoException(QBEAST_INVALID_METADATA, "Failed to plan the optimize of %s: %s".formatted(handle.schemaTableName(), e.getMessage()), e);
        }
        OptionalLong newestRevision = qbeast
                .flatMap(QbeastTableMetadata::currentRevision)
                .map(revision -> OptionalLong.of(revision.id()))
                .orElse(OptionalLong.empty());
        Types.NestedField cube = table.schema().findField(CUBE_COLUMN);
        Types.NestedField weight = table.schema().findField(WEIGHT_COLUMN);
        List<DataFile> selected = OptimizeSelection.select(
                handle.mode(),
                handle.revision().map(OptionalLong::of).orElse(OptionalLong.empty()),
                newestRevision,
                candidates,
                cube == null ? -1 : cube.fieldId(),
                weight == null ? -1 : weight.fieldId());
        return selected.stream()
                .map(file -> tasksByLocation.get(file.location()))
                .collect(ImmutableList.toImmutableList());
    }
}

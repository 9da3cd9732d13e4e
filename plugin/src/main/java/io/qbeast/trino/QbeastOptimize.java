package io.qbeast.trino;

import com.google.common.collect.ImmutableList;
import io.qbeast.iceberg.OptimizeSelection;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.TableProcedureMetadata;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import static io.trino.spi.StandardErrorCode.INVALID_PROCEDURE_ARGUMENT;
import static io.trino.spi.connector.TableProcedureExecutionMode.distributedWithFilteringAndRepartitioning;
import static io.trino.spi.session.PropertyMetadata.longProperty;
import static io.trino.spi.session.PropertyMetadata.stringProperty;

/** The {@code optimize} table procedure and the arguments it shares with {@code CALL system.optimize}. */
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

    public static OptimizeSelection.Mode parseMode(String mode)
    {
        String value = mode == null ? DEFAULT_MODE : mode;
        return Arrays.stream(OptimizeSelection.Mode.values())
                .filter(candidate -> candidate.name().toLowerCase(Locale.ENGLISH).equals(value.toLowerCase(Locale.ENGLISH)))
                .findFirst()
                .orElseThrow(() -> new TrinoException(INVALID_PROCEDURE_ARGUMENT, "Invalid value for optimize argument '%s': '%s'; expected one of 'fragmented', 'all', 'revision', 'unindexed'".formatted(MODE, value)));
    }

    public static void validateRevision(OptimizeSelection.Mode mode, Optional<Long> revision, List<Long> tableRevisions)
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
}

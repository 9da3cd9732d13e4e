package io.qbeast.trino.handle;

import io.trino.spi.TrinoException;

import java.util.Locale;

import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;

/**
 * The table procedures of {@code ALTER TABLE ... EXECUTE}, by the name the engine passes (the
 * Iceberg connector's names). {@code OPTIMIZE} rewrites data through the engine; the others run
 * in the coordinator alone ({@code executeTableExecute}).
 */
public enum QbeastTableProcedureId
{
    OPTIMIZE,
    EXPIRE_SNAPSHOTS,
    REMOVE_ORPHAN_FILES,
    OPTIMIZE_MANIFESTS,
    ROLLBACK_TO_SNAPSHOT;

    public static QbeastTableProcedureId fromName(String procedureName)
    {
        for (QbeastTableProcedureId id : values()) {
            if (id.name().equals(procedureName.toUpperCase(Locale.ENGLISH))) {
                return id;
            }
        }
        throw new TrinoException(NOT_SUPPORTED, "Unknown table procedure: " + procedureName);
    }
}

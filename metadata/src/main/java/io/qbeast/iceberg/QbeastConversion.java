package io.qbeast.iceberg;

import com.google.common.collect.ImmutableMap;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.Transactions;
import org.apache.iceberg.UpdateProperties;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import static io.qbeast.iceberg.QbeastTableProperties.CUBE_COLUMN;
import static io.qbeast.iceberg.QbeastTableProperties.WEIGHT_COLUMN;
import static java.util.Objects.requireNonNull;

/**
 * Adopts an existing Iceberg table (written by any engine) as a qbeast table without rewriting
 * it: one metadata commit adds the two index columns as optional columns and sets the qbeast
 * table properties as CREATE TABLE would. The data files stay where they are, unchanged and
 * listed by the same snapshot; lacking index bounds, they are <em>unindexed</em> files (always
 * read, sampled row by row, indexed by optimize).
 *
 * <p>{@link #check} refuses what the qbeast read and write paths cannot handle; the caller
 * validates the indexed columns (their types are an engine matter) and then calls {@link #commit},
 * which fails rather than convert a table that changed since the check.
 */
public final class QbeastConversion
{
    /** Highest Iceberg format version the qbeast read and write paths understand. */
    public static final int MAX_FORMAT_VERSION = 2;

    private QbeastConversion() {}

    /** Why a table cannot be converted. */
    public enum Problem
    {
        ALREADY_QBEAST_TABLE,
        RESERVED_COLUMN_NAME,
        UNSUPPORTED_FORMAT_VERSION,
        PARTITIONED,
        NOT_PARQUET,
        DELETE_FILES,
    }

    public static final class ConversionException
            extends RuntimeException
    {
        private final Problem problem;

        public ConversionException(Problem problem, String message)
        {
            super(message);
            this.problem = requireNonNull(problem, "problem is null");
        }

        public Problem problem()
        {
            return problem;
        }
    }

    /** A table that passed {@link #check}: the state the commit must still find. */
    public record Candidate(Table table, Optional<Long> snapshotId, int schemaId, long dataFiles, long records)
    {
        public Candidate
        {
            requireNonNull(table, "table is null");
            requireNonNull(snapshotId, "snapshotId is null");
        }
    }

    /**
     * Checks the table's metadata and every live file of its current snapshot (the manifests are
     * read; data files are not opened).
     *
     * @throws ConversionException naming what prevents the conversion
     */
    public static Candidate check(Table table)
    {
        requireNonNull(table, "table is null");
        String name = table.name();
        if (QbeastTableProperties.isQbeastTable(table.properties())) {
            throw new ConversionException(Problem.ALREADY_QBEAST_TABLE, "Table %s is already a qbeast table (indexed columns %s)".formatted(
                    name, QbeastTableProperties.indexedColumns(table.properties())));
        }
        Schema schema = table.schema();
        for (String reserved : List.of(WEIGHT_COLUMN, CUBE_COLUMN)) {
            if (schema.caseInsensitiveFindField(reserved) != null) {
                throw new ConversionException(Problem.RESERVED_COLUMN_NAME, "Table %s has a column named %s, a name qbeast reserves for its index".formatted(name, reserved));
            }
        }
        TableMetadata metadata = ((HasTableOperations) table).operations().current();
        if (metadata.formatVersion() > MAX_FORMAT_VERSION) {
            throw new ConversionException(Problem.UNSUPPORTED_FORMAT_VERSION, "Table %s has Iceberg format version %s; qbeast supports versions 1 and %s".formatted(
                    name, metadata.formatVersion(), MAX_FORMAT_VERSION));
        }
        // qbeast writes unpartitioned files under spec 0: the table must never have had another spec in use
        PartitionSpec spec = table.spec();
        if (!spec.isUnpartitioned() || spec.specId() != PartitionSpec.unpartitioned().specId()) {
            throw new ConversionException(Problem.PARTITIONED, "Table %s is partitioned (%s); qbeast tables are not partitioned, their index clusters the data".formatted(name, spec));
        }

        Snapshot snapshot = table.currentSnapshot();
        long dataFiles = 0;
        long records = 0;
        if (snapshot != null) {
            try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
                for (FileScanTask task : tasks) {
                    String path = task.file().location();
                    if (task.file().format() != FileFormat.PARQUET) {
                        throw new ConversionException(Problem.NOT_PARQUET, "Table %s has data file %s in format %s; qbeast reads Parquet files only".formatted(name, path, task.file().format()));
                    }
                    if (!task.spec().isUnpartitioned()) {
                        throw new ConversionException(Problem.PARTITIONED, "Table %s has data file %s written under partition spec %s; qbeast tables are not partitioned".formatted(name, path, task.spec()));
                    }
                    if (!task.deletes().isEmpty()) {
                        throw new ConversionException(Problem.DELETE_FILES, "Table %s has row-level deletes (%s delete files apply to %s) that qbeast cannot apply; compact them away first".formatted(
                                name, task.deletes().size(), path));
                    }
                    dataFiles++;
                    records += task.file().recordCount();
                }
            }
            catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return new Candidate(table, Optional.ofNullable(snapshot).map(Snapshot::snapshotId), schema.schemaId(), dataFiles, records);
    }

    /**
     * The properties a conversion sets: those of a new qbeast table, except the format version,
     * which stays what it is (qbeast reads and writes versions 1 and 2 alike).
     */
    public static Map<String, String> conversionProperties(List<String> indexedColumns, long cubeSize)
    {
        ImmutableMap.Builder<String, String> properties = ImmutableMap.builder();
        QbeastTableProperties.newTableProperties(indexedColumns, cubeSize).forEach((key, value) -> {
            if (!key.equals(TableProperties.FORMAT_VERSION)) {
                properties.put(key, value);
            }
        });
        return properties.buildOrThrow();
    }

    /**
     * Adds the index columns and the qbeast properties in one Iceberg commit. The table's data
     * files and snapshots are untouched.
     *
     * @throws ValidationException when the table's snapshot or schema changed since {@link #check}
     * (a concurrent write could have added what the check refuses): nothing was committed
     * @throws org.apache.iceberg.exceptions.CommitFailedException when concurrent commits kept winning
     * @throws org.apache.iceberg.exceptions.CommitStateUnknownException when the catalog did not confirm
     */
    public static void commit(Candidate candidate, List<String> indexedColumns, long cubeSize)
    {
        requireNonNull(candidate, "candidate is null");
        requireNonNull(indexedColumns, "indexedColumns is null");
        if (indexedColumns.isEmpty()) {
            throw new IllegalArgumentException("indexedColumns is empty");
        }
        if (cubeSize <= 0) {
            throw new IllegalArgumentException("cubeSize must be positive: " + cubeSize);
        }
        Table table = candidate.table();
        TableOperations operations = new UnchangedSinceCheck(((HasTableOperations) table).operations(), candidate);
        Transaction transaction = Transactions.newTransaction(table.name(), operations);
        transaction.updateSchema()
                .addColumn(WEIGHT_COLUMN, Types.IntegerType.get())
                .addColumn(CUBE_COLUMN, Types.BinaryType.get())
                .commit();
        UpdateProperties properties = transaction.updateProperties();
        conversionProperties(indexedColumns, cubeSize).forEach(properties::set);
        properties.commit();
        transaction.commitTransaction();
    }

    /** Refuses to commit over metadata whose snapshot or schema differ from what was checked. */
    private static final class UnchangedSinceCheck
            extends ForwardingTableOperations
    {
        private final Candidate candidate;

        UnchangedSinceCheck(TableOperations delegate, Candidate candidate)
        {
            super(delegate);
            this.candidate = requireNonNull(candidate, "candidate is null");
        }

        @Override
        public void commit(TableMetadata base, TableMetadata metadata)
        {
            Optional<Long> snapshotId = Optional.ofNullable(base.currentSnapshot()).map(Snapshot::snapshotId);
            if (!Objects.equals(snapshotId, candidate.snapshotId()) || base.currentSchemaId() != candidate.schemaId()) {
                throw new ValidationException("Table %s changed while it was being converted (snapshot %s, now %s; schema %s, now %s)",
                        base.location(), candidate.snapshotId().orElse(null), snapshotId.orElse(null), candidate.schemaId(), base.currentSchemaId());
            }
            if (QbeastTableProperties.isQbeastTable(base.properties())) {
                throw new ValidationException("Table %s was converted to a qbeast table concurrently", base.location());
            }
            super.commit(base, metadata);
        }
    }
}

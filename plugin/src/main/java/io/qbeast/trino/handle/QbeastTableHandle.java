package io.qbeast.trino.handle;

import io.qbeast.index.Weight;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.predicate.TupleDomain;

import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static java.util.Objects.requireNonNull;

/**
 * A qbeast table read at one snapshot ({@code snapshotId} empty: the table has no data yet),
 * with the predicate pushed down by {@code applyFilter} (used for file and row-group pruning; the
 * page source enforces its domains on non-nested columns per row).
 *
 * @param rowPredicates conjuncts of the query's {@code WHERE} that are not column domains and that
 * the page source evaluates per row, in the query's order (the engine no longer filters by them)
 * @param optimizeFiles for the scan of an optimize: exactly the data files to read (whole, with
 * every row), replacing predicate and sample
 * @param deletesOnly for the scan of a change that deletes rows and updates none (a DELETE, or a
 * MERGE without an UPDATE case): its merge row ids need no weight, so the weights are not read
 * (a weight column of random values is most of the bytes such a scan would read)
 */
public record QbeastTableHandle(
        String schemaName,
        String tableName,
        Optional<Long> snapshotId,
        TupleDomain<QbeastColumnHandle> predicate,
        List<RowPredicate> rowPredicates,
        double sampleFraction,
        Optional<List<String>> optimizeFiles,
        boolean deletesOnly)
        implements ConnectorTableHandle
{
    public QbeastTableHandle
    {
        optimizeFiles = requireNonNull(optimizeFiles, "optimizeFiles is null").map(List::copyOf);
        requireNonNull(schemaName, "schemaName is null");
        requireNonNull(tableName, "tableName is null");
        requireNonNull(snapshotId, "snapshotId is null");
        requireNonNull(predicate, "predicate is null");
        rowPredicates = List.copyOf(rowPredicates);
        if (!(sampleFraction >= 0 && sampleFraction <= 1)) {
            throw new IllegalArgumentException("sampleFraction not in [0, 1]: " + sampleFraction);
        }
    }

    public QbeastTableHandle(String schemaName, String tableName, Optional<Long> snapshotId, TupleDomain<QbeastColumnHandle> predicate)
    {
        this(schemaName, tableName, snapshotId, predicate, List.of(), 1.0, Optional.empty(), false);
    }

    /** The scan of an optimize: all rows of {@code files}. */
    public QbeastTableHandle forOptimize(List<String> files)
    {
        return new QbeastTableHandle(schemaName, tableName, snapshotId, TupleDomain.all(), List.of(), 1.0, Optional.of(files), false);
    }

    /** Whether {@code TABLESAMPLE SYSTEM} was pushed down: only rows with {@code _qbeast_weight < weightUpperBound()} are read. */
    public boolean isSampled()
    {
        return sampleFraction < 1.0;
    }

    /** Exclusive bound on {@code _qbeast_weight} of the rows this handle reads ({@link Weight#ALL} when not sampled). */
    public long weightUpperBound()
    {
        return isSampled() ? Weight.upperBound(sampleFraction) : Weight.ALL;
    }

    public QbeastTableHandle withSampleFraction(double sampleFraction)
    {
        return new QbeastTableHandle(schemaName, tableName, snapshotId, predicate, rowPredicates, sampleFraction, Optional.empty(), deletesOnly);
    }

    /** This scan as the scan of a change that deletes rows and updates none. */
    public QbeastTableHandle forDeletesOnly()
    {
        return new QbeastTableHandle(schemaName, tableName, snapshotId, predicate, rowPredicates, sampleFraction, optimizeFiles, true);
    }

    public SchemaTableName schemaTableName()
    {
        return new SchemaTableName(schemaName, tableName);
    }

    /** This handle with {@code predicate} and with {@code rowPredicates} added after its own (each once). */
    public QbeastTableHandle withPredicate(TupleDomain<QbeastColumnHandle> predicate, List<RowPredicate> rowPredicates)
    {
        List<RowPredicate> combined = Stream.concat(this.rowPredicates.stream(), rowPredicates.stream()).distinct().toList();
        return new QbeastTableHandle(schemaName, tableName, snapshotId, predicate, combined, sampleFraction, Optional.empty(), deletesOnly);
    }

    @Override
    public String toString()
    {
        return schemaName + "." + tableName + snapshotId.map(id -> "@" + id).orElse("") +
                (predicate.isAll() ? "" : " constraint on " + predicate.getDomains().map(domains -> domains.keySet().stream().map(QbeastColumnHandle::name).toList()).orElse(List.of())) +
                (rowPredicates.isEmpty() ? "" : " filter " + rowPredicates.stream().map(Object::toString).collect(Collectors.joining(" AND "))) +
                (isSampled() ? " sample " + sampleFraction + " (_qbeast_weight < " + weightUpperBound() + ")" : "") +
                optimizeFiles.map(files -> " optimize " + files.size() + " files").orElse("") +
                (deletesOnly ? " deletes only" : "");
    }
}

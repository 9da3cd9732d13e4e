package io.qbeast.trino;

import com.google.common.collect.ImmutableList;
import io.airlift.json.JsonCodec;
import io.qbeast.iceberg.QbeastTableProperties;
import io.qbeast.iceberg.SnapshotIndexReader;
import io.qbeast.index.CubeId;
import io.qbeast.index.FileFacts;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableMetadata;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.InMemoryRecordSet;
import io.trino.spi.connector.RecordCursor;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.connector.SystemTable;
import io.trino.spi.predicate.TupleDomain;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.VarcharType.VARCHAR;

/**
 * Metadata tables of a qbeast table, read at its current snapshot when the query is planned:
 * {@code "t$files"} (one row per data file with its index facts) and {@code "t$revisions"}.
 */
final class QbeastSystemTables
{
    static final String FILES = "files";
    static final String REVISIONS = "revisions";
    static final String SNAPSHOTS = "snapshots";

    private QbeastSystemTables() {}

    static Optional<SystemTable> create(Table table, SchemaTableName name, String kind)
    {
        return switch (kind) {
            case FILES -> Optional.of(files(table, name));
            case REVISIONS -> Optional.of(revisions(table, name));
            case SNAPSHOTS -> Optional.of(snapshots(table, name));
            default -> Optional.empty();
        };
    }

    private static SystemTable files(Table table, SchemaTableName name)
    {
        ConnectorTableMetadata metadata = new ConnectorTableMetadata(name, ImmutableList.of(
                new ColumnMetadata("path", VARCHAR),
                new ColumnMetadata("record_count", BIGINT),
                new ColumnMetadata("file_size_in_bytes", BIGINT),
                new ColumnMetadata("revision_id", BIGINT),
                new ColumnMetadata("min_cube", VARCHAR),
                new ColumnMetadata("max_cube", VARCHAR),
                new ColumnMetadata("min_weight", BIGINT),
                new ColumnMetadata("max_weight", BIGINT)));
        List<Object[]> rows = new ArrayList<>();
        Snapshot snapshot = table.currentSnapshot();
        Types.NestedField cube = table.schema().findField(QbeastTableProperties.CUBE_COLUMN);
        Types.NestedField weight = table.schema().findField(QbeastTableProperties.WEIGHT_COLUMN);
        if (snapshot != null) {
            // the current snapshot with the current schema (useSnapshot would bind to the snapshot's schema,
            // which lacks the index columns when a conversion added them after the snapshot)
            try (CloseableIterable<FileScanTask> tasks = table.newScan()
                    .includeColumnStats(cube == null || weight == null ? List.of() : List.of(QbeastTableProperties.CUBE_COLUMN, QbeastTableProperties.WEIGHT_COLUMN))
                    .planFiles()) {
                for (FileScanTask task : tasks) {
                    DataFile file = task.file();
                    FileFacts facts = cube == null || weight == null ? null : SnapshotIndexReader.facts(file, cube.fieldId(), weight.fieldId());
                    rows.add(new Object[] {
                            file.location(),
                            file.recordCount(),
                            file.fileSizeInBytes(),
                            facts == null ? null : SnapshotIndexReader.revisionId(facts.minCube()),
                            facts == null ? null : readable(facts.minCube()),
                            facts == null ? null : readable(facts.maxCube()),
                            facts == null ? null : (long) facts.minWeight(),
                            facts == null ? null : (long) facts.maxWeight()});
                }
            }
            catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return new StaticSystemTable(metadata, rows);
    }

    private static String readable(byte[] cube)
    {
        try {
            return CubeId.fromBytes(cube).toString();
        }
        catch (RuntimeException e) {
            // a bound Iceberg truncated or another engine wrote: show the bytes
            return java.util.HexFormat.of().formatHex(cube);
        }
    }

    private static SystemTable revisions(Table table, SchemaTableName name)
    {
        ConnectorTableMetadata metadata = new ConnectorTableMetadata(name, ImmutableList.of(
                new ColumnMetadata("revision_id", BIGINT),
                new ColumnMetadata("json", VARCHAR)));
        List<Object[]> rows = new ArrayList<>();
        for (long id : QbeastTableProperties.revisionIds(table.properties())) {
            rows.add(new Object[] {id, QbeastTableProperties.revisionJson(table.properties(), id).orElse(null)});
        }
        return new StaticSystemTable(metadata, rows);
    }

    /** {@code "t$snapshots"}: the table's snapshots, oldest first, with their summaries (optimize reports under {@code qbeast.optimize.*}) as a JSON object. */
    private static SystemTable snapshots(Table table, SchemaTableName name)
    {
        ConnectorTableMetadata metadata = new ConnectorTableMetadata(name, ImmutableList.of(
                new ColumnMetadata("snapshot_id", BIGINT),
                new ColumnMetadata("parent_id", BIGINT),
                new ColumnMetadata("sequence_number", BIGINT),
                new ColumnMetadata("committed_at_millis", BIGINT),
                new ColumnMetadata("operation", VARCHAR),
                new ColumnMetadata("summary", VARCHAR)));
        List<Object[]> rows = new ArrayList<>();
        for (Snapshot snapshot : table.snapshots()) {
            rows.add(new Object[] {
                    snapshot.snapshotId(),
                    snapshot.parentId(),
                    snapshot.sequenceNumber(),
                    snapshot.timestampMillis(),
                    snapshot.operation(),
                    SUMMARY_CODEC.toJson(new TreeMap<>(snapshot.summary()))});
        }
        return new StaticSystemTable(metadata, rows);
    }

    private static final JsonCodec<Map<String, String>> SUMMARY_CODEC = JsonCodec.mapJsonCodec(String.class, String.class);

    private record StaticSystemTable(ConnectorTableMetadata metadata, List<Object[]> rows)
            implements SystemTable
    {
        @Override
        public Distribution getDistribution()
        {
            return Distribution.SINGLE_COORDINATOR;
        }

        @Override
        public ConnectorTableMetadata getTableMetadata()
        {
            return metadata;
        }

        @Override
        public RecordCursor cursor(ConnectorTransactionHandle transactionHandle, ConnectorSession session, TupleDomain<Integer> constraint)
        {
            InMemoryRecordSet.Builder builder = InMemoryRecordSet.builder(metadata);
            rows.forEach(builder::addRow);
            return builder.build().cursor();
        }
    }
}

package io.qbeast.trino.handle;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.trino.spi.connector.ConnectorInsertTableHandle;
import io.trino.spi.connector.ConnectorOutputTableHandle;
import io.trino.spi.connector.SchemaTableName;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * What every page sink of a CREATE TABLE AS or INSERT needs, fixed on the coordinator when the
 * write begins.
 *
 * @param schemaJson the table's Iceberg schema (with the two index columns)
 * @param inputColumns the columns of the pages the sinks receive, in channel order
 * @param dataLocation the directory data files are written to
 * @param metadataLocation the table metadata file holding {@code baseSnapshotId}, from which the
 * sinks read the index state they index against; empty when the table has no data
 * @param baseSnapshotId the snapshot the write appends to
 * @param revisionJson the current revision; empty when the table has none yet (the sinks choose
 * one from their data)
 * @param indexedColumns the indexed columns, in index order
 * @param cubeSize the desired rows per cube
 * @param storageProperties the Iceberg table properties that govern data files ({@code write.*})
 */
public record QbeastWritableTableHandle(
        String schemaName,
        String tableName,
        String schemaJson,
        List<QbeastColumnHandle> inputColumns,
        String dataLocation,
        Optional<String> metadataLocation,
        Optional<Long> baseSnapshotId,
        Optional<String> revisionJson,
        List<String> indexedColumns,
        long cubeSize,
        Map<String, String> storageProperties,
        Optional<String> ownedTableLocation)
        implements ConnectorOutputTableHandle, ConnectorInsertTableHandle
{
    public QbeastWritableTableHandle
    {
        requireNonNull(schemaName, "schemaName is null");
        requireNonNull(tableName, "tableName is null");
        requireNonNull(schemaJson, "schemaJson is null");
        inputColumns = ImmutableList.copyOf(requireNonNull(inputColumns, "inputColumns is null"));
        requireNonNull(dataLocation, "dataLocation is null");
        requireNonNull(metadataLocation, "metadataLocation is null");
        requireNonNull(baseSnapshotId, "baseSnapshotId is null");
        requireNonNull(revisionJson, "revisionJson is null");
        indexedColumns = ImmutableList.copyOf(requireNonNull(indexedColumns, "indexedColumns is null"));
        storageProperties = ImmutableMap.copyOf(requireNonNull(storageProperties, "storageProperties is null"));
        requireNonNull(ownedTableLocation, "ownedTableLocation is null");
    }

    public SchemaTableName schemaTableName()
    {
        return new SchemaTableName(schemaName, tableName);
    }

    @Override
    public String toString()
    {
        return schemaName + "." + tableName;
    }
}

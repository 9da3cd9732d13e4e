package io.qbeast.trino.tests;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Predicate;

/**
 * Apache Iceberg's Java API as another engine that deletes rows of a table (merge-on-read, format
 * v2), as Spark or Flink do: a Parquet position delete file (data file and row position) or a
 * Parquet equality delete file (a column's value), written by Iceberg's generic writers into the
 * table's data directory and committed by a {@code RowDelta}. No Trino code is involved.
 */
final class IcebergJavaDeletes
{
    private IcebergJavaDeletes() {}

    /**
     * The row positions, by data file location, of the rows of the current snapshot's data files
     * that {@code deleted} selects, read back from the files by Iceberg's Parquet reader (the rows
     * as stored, before any delete file).
     */
    static Map<String, List<Long>> positionsWhere(Table table, Predicate<Record> deleted)
    {
        Map<String, List<Long>> positions = new TreeMap<>();
        Schema schema = table.schema();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                DataFile file = task.file();
                long position = 0;
                try (CloseableIterable<Record> records = Parquet.read(table.io().newInputFile(file.location()))
                        .project(schema)
                        .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
                        .build()) {
                    for (Record record : records) {
                        if (deleted.test(record)) {
                            positions.computeIfAbsent(file.location(), _ -> new ArrayList<>()).add(position);
                        }
                        position++;
                    }
                }
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return positions;
    }

    /**
     * Commits one position delete file of {@code positions} (row positions by data file location).
     *
     * @return how many rows it deletes
     */
    static long commitPositionDeletes(Table table, Map<String, List<Long>> positions)
    {
        GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(table).deleteFileFormat(FileFormat.PARQUET).build();
        PositionDeleteWriter<Record> writer = writers.newPositionDeleteWriter(
                EncryptedFiles.plainAsEncryptedOutput(table.io().newOutputFile(deleteFileLocation(table, "position"))), table.spec(), null);
        long deleted = 0;
        try (writer) {
            // sorted by file and position, as the spec asks of a position delete file
            for (Map.Entry<String, List<Long>> file : new TreeMap<>(positions).entrySet()) {
                for (long position : file.getValue().stream().sorted().toList()) {
                    writer.write(PositionDelete.<Record>create().set(file.getKey(), position));
                    deleted++;
                }
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        table.newRowDelta().addDeletes(writer.toDeleteFile()).commit();
        return deleted;
    }

    /** Commits one equality delete file deleting every row (older than it) whose {@code column} equals {@code value}. */
    static void commitEqualityDelete(Table table, String column, Object value)
    {
        Schema deleteSchema = table.schema().select(column);
        GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(table)
                .deleteFileFormat(FileFormat.PARQUET)
                .equalityFieldIds(new int[] {table.schema().findField(column).fieldId()})
                .equalityDeleteRowSchema(deleteSchema)
                .build();
        EqualityDeleteWriter<Record> writer = writers.newEqualityDeleteWriter(
                EncryptedFiles.plainAsEncryptedOutput(table.io().newOutputFile(deleteFileLocation(table, "equality"))), table.spec(), null);
        try (writer) {
            GenericRecord deleted = GenericRecord.create(deleteSchema);
            deleted.setField(column, value);
            writer.write(deleted);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        table.newRowDelta().addDeletes(writer.toDeleteFile()).commit();
    }

    private static String deleteFileLocation(Table table, String kind)
    {
        return "%s/data/iceberg-java-%s-deletes-%s.parquet".formatted(table.location(), kind, UUID.randomUUID());
    }
}

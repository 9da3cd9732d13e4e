package io.qbeast.trino;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.parquet.Parquet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Apache Iceberg's own Java API as another engine on a qbeast table: its scan planning, its generic
 * reader (which applies every delete file) and its generic Parquet writer, for the tests that
 * compare qbeast with it or change a table behind qbeast's back.
 */
final class IcebergJavaEngine
{
    private IcebergJavaEngine() {}

    /** The data files of the table's current snapshot, as Iceberg plans them. */
    static List<DataFile> dataFiles(Table table)
    {
        List<DataFile> files = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            tasks.forEach(task -> files.add(task.file()));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    /** The live rows by orderkey, read by Iceberg's own generic reader (which applies every delete file). */
    static Map<Long, Record> icebergLiveRows(Table table)
    {
        Map<Long, Record> rows = new HashMap<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            for (Record record : records) {
                assertThat(rows.put((Long) record.getField("orderkey"), record.copy())).isNull();
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return rows;
    }

    /** One Parquet data file written by Iceberg's generic writer with the table's whole schema (its index columns null), not committed. */
    static DataFile writeData(Table table, String fileName, List<Record> rows)
    {
        try {
            DataWriter<Record> writer = Parquet.writeData(table.io().newOutputFile(table.location() + "/data/" + fileName))
                    .schema(table.schema())
                    .withSpec(table.spec())
                    .createWriterFunc(GenericParquetWriter::create)
                    .build();
            try (writer) {
                for (Record row : rows) {
                    writer.write(row);
                }
            }
            return writer.toDataFile();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

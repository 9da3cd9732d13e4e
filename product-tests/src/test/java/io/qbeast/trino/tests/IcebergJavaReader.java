package io.qbeast.trino.tests;

import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Comparators;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A qbeast table as another engine sees it: Apache Iceberg's own Java API, with no Trino code and
 * location translation: Iceberg's {@link JdbcCatalog} on the warehouse's SQLite catalog file, and
 * the table's {@code file:} locations opened as the URIs they are ({@link FileUriIo}, Iceberg's own
 * local files, standing in for the Hadoop file IO that Java 25 cannot run).
 */
final class IcebergJavaReader
        implements AutoCloseable
{
    private final JdbcCatalog catalog;

    /**
     * @param warehouse the local warehouse directory (qbeast's default SQLite catalog file is in it)
     * @param catalogName the Iceberg catalog name the tables were created in (the Trino catalog's name)
     */
    IcebergJavaReader(Path warehouse, String catalogName)
    {
        Map<String, String> properties = new HashMap<>();
        properties.put(CatalogProperties.URI, "jdbc:sqlite:" + warehouse.resolve("qbeast-catalog.db").toAbsolutePath());
        properties.put(CatalogProperties.WAREHOUSE_LOCATION, warehouse.toAbsolutePath().toUri().toString());
        properties.put(CatalogProperties.FILE_IO_IMPL, FileUriIo.class.getName());
        properties.put("jdbc.schema-version", "V1");
        catalog = new JdbcCatalog();
        catalog.initialize(catalogName, properties);
    }

    Table load(String schema, String table)
    {
        return catalog.loadTable(TableIdentifier.of(schema, table));
    }

    /** Every row of the table's current snapshot, read by {@link IcebergGenerics}. */
    static List<Record> rows(Table table)
    {
        List<Record> rows = new ArrayList<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            records.forEach(rows::add);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return rows;
    }

    /**
     * Checks that every data file has lower and upper bounds of every column in the manifests and
     * that they hold every row of that file, read back from the file by Iceberg's Parquet reader:
     * brute force.
     *
     * @return the number of data files checked
     */
    static int assertColumnBoundsHoldRows(Table table)
    {
        Schema schema = table.schema();
        int files = 0;
        try (CloseableIterable<FileScanTask> tasks = table.newScan().includeColumnStats().planFiles()) {
            for (FileScanTask task : tasks) {
                DataFile file = task.file();
                List<Record> rows = new ArrayList<>();
                try (CloseableIterable<Record> records = Parquet.read(table.io().newInputFile(file.location()))
                        .project(schema)
                        .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
                        .build()) {
                    records.forEach(rows::add);
                }
                assertThat((long) rows.size()).as("rows of %s", file.location()).isEqualTo(file.recordCount());
                List<Types.NestedField> columns = schema.columns();
                // bounds are in Iceberg's internal representation (days for a date, ...)
                InternalRecordWrapper internal = new InternalRecordWrapper(schema.asStruct());
                for (int position = 0; position < columns.size(); position++) {
                    Types.NestedField column = columns.get(position);
                    ByteBuffer lower = file.lowerBounds().get(column.fieldId());
                    ByteBuffer upper = file.upperBounds().get(column.fieldId());
                    assertThat(lower).as("lower bound of %s in %s", column.name(), file.location()).isNotNull();
                    assertThat(upper).as("upper bound of %s in %s", column.name(), file.location()).isNotNull();
                    Type.PrimitiveType type = column.type().asPrimitiveType();
                    Object low = Conversions.fromByteBuffer(type, lower);
                    Object high = Conversions.fromByteBuffer(type, upper);
                    Comparator<Object> order = Comparators.forType(type);
                    for (Record row : rows) {
                        Object value = internal.wrap(row).get(position, Object.class);
                        if (value != null) {
                            assertThat(order.compare(low, value) <= 0 && order.compare(value, high) <= 0)
                                    .as("%s = %s within [%s, %s] of %s", column.name(), value, low, high, file.location())
                                    .isTrue();
                        }
                    }
                }
                files++;
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    @Override
    public void close()
            throws IOException
    {
        catalog.close();
    }
}

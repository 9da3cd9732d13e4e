package io.qbeast.iceberg;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.qbeast.iceberg.IcebergCatalogs.IcebergCatalog;
import io.qbeast.iceberg.QbeastConversion.Candidate;
import io.qbeast.iceberg.QbeastConversion.ConversionException;
import io.qbeast.iceberg.QbeastConversion.Problem;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.qbeast.iceberg.QbeastTableProperties.CUBE_COLUMN;
import static io.qbeast.iceberg.QbeastTableProperties.WEIGHT_COLUMN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * Conversion on a real JDBC catalog (SQLite). Data files are registered in the metadata only:
 * conversion never opens them, and the checks read nothing but manifests.
 */
@TestInstance(PER_CLASS)
class TestQbeastConversion
{
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()));

    @TempDir
    static Path root;

    private IcebergCatalog catalog;

    @BeforeAll
    void setUp()
            throws Exception
    {
        catalog = TestingCatalogs.sqliteCatalog(root);
    }

    @AfterAll
    void tearDown()
            throws Exception
    {
        catalog.close();
    }

    @Test
    void conversionAddsIndexColumnsAndPropertiesWithoutTouchingFiles()
    {
        Table table = create("plain", SCHEMA, PartitionSpec.unpartitioned(), ImmutableMap.of(TableProperties.FORMAT_VERSION, "1", "owner-property", "kept"));
        table.newAppend().appendFile(dataFile(table, "a.parquet", FileFormat.PARQUET, 10)).appendFile(dataFile(table, "b.parquet", FileFormat.PARQUET, 5)).commit();
        table.refresh();
        long snapshotId = table.currentSnapshot().snapshotId();
        List<String> filesBefore = files(table);

        Candidate candidate = QbeastConversion.check(table);
        assertThat(candidate.dataFiles()).isEqualTo(2);
        assertThat(candidate.records()).isEqualTo(15);
        QbeastConversion.commit(candidate, ImmutableList.of("id", "name"), 1000);

        Table converted = load("plain");
        // the same snapshot, so the same files: a conversion is a metadata change only
        assertThat(converted.currentSnapshot().snapshotId()).isEqualTo(snapshotId);
        assertThat(converted.snapshots()).hasSize(1);
        assertThat(files(converted)).isEqualTo(filesBefore);
        // the user columns keep their ids; the index columns follow, optional, as CREATE TABLE makes them
        assertThat(converted.schema().findField("id").fieldId()).isEqualTo(1);
        assertThat(converted.schema().findField("name").fieldId()).isEqualTo(2);
        Types.NestedField weight = converted.schema().findField(WEIGHT_COLUMN);
        Types.NestedField cube = converted.schema().findField(CUBE_COLUMN);
        assertThat(weight.type()).isEqualTo(Types.IntegerType.get());
        assertThat(weight.isOptional()).isTrue();
        assertThat(cube.type()).isEqualTo(Types.BinaryType.get());
        assertThat(cube.isOptional()).isTrue();
        assertThat(converted.schema().columns()).extracting(Types.NestedField::name).containsExactly("id", "name", WEIGHT_COLUMN, CUBE_COLUMN);

        Map<String, String> properties = converted.properties();
        assertThat(QbeastTableProperties.isQbeastTable(properties)).isTrue();
        assertThat(QbeastTableProperties.indexedColumns(properties)).containsExactly("id", "name");
        assertThat(QbeastTableProperties.cubeSize(properties)).hasValue(1000);
        assertThat(QbeastTableProperties.revisionIds(properties)).isEmpty();
        assertThat(properties).containsEntry(TableProperties.METRICS_MODE_COLUMN_CONF_PREFIX + CUBE_COLUMN, "full");
        assertThat(properties).containsEntry(TableProperties.METRICS_MODE_COLUMN_CONF_PREFIX + WEIGHT_COLUMN, "full");
        assertThat(properties).containsEntry("owner-property", "kept");
        // the format version is the table's own
        assertThat(((org.apache.iceberg.HasTableOperations) converted).operations().current().formatVersion()).isEqualTo(1);

        // twice: refused
        assertProblem(() -> QbeastConversion.check(converted), Problem.ALREADY_QBEAST_TABLE, "already a qbeast table");
    }

    @Test
    void emptyTableConverts()
    {
        Table table = create("empty", SCHEMA, PartitionSpec.unpartitioned(), ImmutableMap.of());
        Candidate candidate = QbeastConversion.check(table);
        assertThat(candidate.snapshotId()).isEmpty();
        assertThat(candidate.dataFiles()).isZero();
        QbeastConversion.commit(candidate, ImmutableList.of("id"), 10);
        Table converted = load("empty");
        assertThat(converted.currentSnapshot()).isNull();
        assertThat(QbeastTableProperties.indexedColumns(converted.properties())).containsExactly("id");
    }

    @Test
    void refusesWhatQbeastCannotRead()
    {
        // a reserved name, in any case
        Schema clash = new Schema(
                Types.NestedField.optional(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "_QBEAST_CUBE", Types.BinaryType.get()));
        assertProblem(() -> QbeastConversion.check(create("clash", clash, PartitionSpec.unpartitioned(), ImmutableMap.of())), Problem.RESERVED_COLUMN_NAME, "_qbeast_cube");

        Table partitioned = create("partitioned", SCHEMA, PartitionSpec.builderFor(SCHEMA).identity("name").build(), ImmutableMap.of());
        assertProblem(() -> QbeastConversion.check(partitioned), Problem.PARTITIONED, "partitioned");

        // partitioned once, then unpartitioned: the old files still carry partition values
        Table evolved = create("evolved", SCHEMA, PartitionSpec.builderFor(SCHEMA).identity("name").build(), ImmutableMap.of());
        evolved.updateSpec().removeField("name").commit();
        assertThat(evolved.spec().isUnpartitioned()).isTrue();
        assertProblem(() -> QbeastConversion.check(evolved), Problem.PARTITIONED, "partition");

        Table orc = create("orc", SCHEMA, PartitionSpec.unpartitioned(), ImmutableMap.of());
        orc.newAppend().appendFile(dataFile(orc, "a.parquet", FileFormat.PARQUET, 3)).appendFile(dataFile(orc, "b.orc", FileFormat.ORC, 3)).commit();
        assertProblem(() -> QbeastConversion.check(orc), Problem.NOT_PARQUET, "b.orc");

        Table deletes = create("deletes", SCHEMA, PartitionSpec.unpartitioned(), ImmutableMap.of(TableProperties.FORMAT_VERSION, "2"));
        deletes.newAppend().appendFile(dataFile(deletes, "a.parquet", FileFormat.PARQUET, 3)).commit();
        deletes.newRowDelta().addDeletes(FileMetadata.deleteFileBuilder(deletes.spec())
                .ofPositionDeletes()
                .withPath(deletes.location() + "/data/deletes.parquet")
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(100)
                .withRecordCount(1)
                .build()).commit();
        assertProblem(() -> QbeastConversion.check(deletes), Problem.DELETE_FILES, "row-level deletes");

        Table v3 = create("v3", SCHEMA, PartitionSpec.unpartitioned(), ImmutableMap.of(TableProperties.FORMAT_VERSION, "3"));
        assertProblem(() -> QbeastConversion.check(v3), Problem.UNSUPPORTED_FORMAT_VERSION, "format version 3");

        // nothing was changed by a refused check
        assertThat(QbeastTableProperties.isQbeastTable(load("orc").properties())).isFalse();
        assertThat(load("orc").schema().findField(WEIGHT_COLUMN)).isNull();
    }

    @Test
    void commitFailsWhenTheTableChangedAfterTheCheck()
    {
        Table table = create("raced", SCHEMA, PartitionSpec.unpartitioned(), ImmutableMap.of());
        table.newAppend().appendFile(dataFile(table, "a.parquet", FileFormat.PARQUET, 3)).commit();
        Candidate candidate = QbeastConversion.check(load("raced"));

        // another engine appends an ORC file between the check and the commit
        Table other = load("raced");
        other.newAppend().appendFile(dataFile(other, "b.orc", FileFormat.ORC, 3)).commit();

        assertThatThrownBy(() -> QbeastConversion.commit(candidate, ImmutableList.of("id"), 10))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("changed while it was being converted");
        Table after = load("raced");
        assertThat(QbeastTableProperties.isQbeastTable(after.properties())).isFalse();
        assertThat(after.schema().findField(WEIGHT_COLUMN)).isNull();
    }

    @Test
    void conversionPropertiesAreThoseOfANewTableButTheFormatVersion()
    {
        Map<String, String> expected = new java.util.HashMap<>(QbeastTableProperties.newTableProperties(ImmutableList.of("a"), 7));
        expected.remove(TableProperties.FORMAT_VERSION);
        assertThat(QbeastConversion.conversionProperties(ImmutableList.of("a"), 7)).isEqualTo(expected);
    }

    private static void assertProblem(Runnable check, Problem problem, String message)
    {
        assertThatThrownBy(check::run)
                .isInstanceOfSatisfying(ConversionException.class, e -> assertThat(e.problem()).isEqualTo(problem))
                .hasMessageContaining(message);
    }

    private Table create(String name, Schema schema, PartitionSpec spec, Map<String, String> properties)
    {
        return catalog.catalog().buildTable(TableIdentifier.of("s", name), schema)
                .withPartitionSpec(spec)
                .withProperties(properties)
                .create();
    }

    private Table load(String name)
    {
        return catalog.catalog().loadTable(TableIdentifier.of("s", name));
    }

    private static DataFile dataFile(Table table, String fileName, FileFormat format, long records)
    {
        return DataFiles.builder(table.spec())
                .withPath(table.location() + "/data/" + fileName)
                .withFormat(format)
                .withFileSizeInBytes(1000)
                .withRecordCount(records)
                .build();
    }

    private static List<String> files(Table table)
    {
        List<String> files = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            tasks.forEach(task -> files.add(task.file().location()));
        }
        catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        files.sort(null);
        return files;
    }
}

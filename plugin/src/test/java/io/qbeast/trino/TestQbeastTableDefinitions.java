package io.qbeast.trino;

import io.qbeast.trino.config.QbeastConfig;
import io.qbeast.trino.config.QbeastSessionProperties;
import io.trino.Session;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Definitions at the edges of what CREATE SCHEMA, CREATE TABLE and CREATE TABLE AS accept: char
 * columns and names that are no single directory name are refused before anything exists, and
 * the smallest cube size still writes files of the target size.
 */
class TestQbeastTableDefinitions
        extends AbstractTestQbeastTables
{
    private static final String WAREHOUSE = "local:///warehouse";
    private static final String SCHEMA_LOCATION = WAREHOUSE + "/" + QbeastQueryRunner.SCHEMA;

    @Test
    void testCharColumnsAreRefused()
    {
        assertUpdate("CREATE TABLE char_anchor (k bigint) WITH (indexed_columns = ARRAY['k'])");
        Set<String> filesBefore = tables().listFiles(SCHEMA_LOCATION);
        String message = "Type char(5) of column c is not supported: Iceberg has no fixed-length string type. Use varchar instead";
        assertThat(query("CREATE TABLE char_create (k bigint, c char(5)) WITH (indexed_columns = ARRAY['k'])"))
                .failure().hasErrorCode(NOT_SUPPORTED).hasMessage(message);
        assertThat(query("CREATE TABLE char_ctas WITH (indexed_columns = ARRAY['k']) AS SELECT nationkey k, CAST(name AS char(5)) c FROM tpch.tiny.nation"))
                .failure().hasErrorCode(NOT_SUPPORTED).hasMessage(message);
        // an indexed char column, and one nested in a row, are refused the same way
        assertThat(query("CREATE TABLE char_indexed (c char(5)) WITH (indexed_columns = ARRAY['c'])"))
                .failure().hasErrorCode(NOT_SUPPORTED).hasMessage(message);
        assertThat(query("CREATE TABLE char_nested (k bigint, r row(x char(2))) WITH (indexed_columns = ARRAY['k'])"))
                .failure().hasErrorCode(NOT_SUPPORTED).hasMessageContaining("Type char(2) of column r is not supported");
        for (String table : List.of("char_create", "char_ctas", "char_indexed", "char_nested")) {
            assertThat(tables().catalog().tableExists(TableIdentifier.of(QbeastQueryRunner.SCHEMA, table))).as(table).isFalse();
        }
        assertThat(tables().listFiles(SCHEMA_LOCATION)).isEqualTo(filesBefore);
        assertUpdate("DROP TABLE char_anchor");
    }

    @Test
    void testNamesThatAreNoDirectoryNameAreRefused()
    {
        Set<String> rootBefore = tables().listDirectories("local:///");
        Set<String> warehouseBefore = tables().listDirectories(WAREHOUSE);
        for (String schema : List.of("../escape", "..", "a/b", "a\\b", "tab\there")) {
            assertThat(query("CREATE SCHEMA \"" + schema + "\""))
                    .failure().hasErrorCode(NOT_SUPPORTED).hasMessageStartingWith("Schema name '" + schema + "' is not supported: it must not");
            assertThat(((SupportsNamespaces) tables().catalog()).namespaceExists(Namespace.of(schema))).as(schema).isFalse();
        }
        assertUpdate("CREATE TABLE names_anchor (x bigint) WITH (indexed_columns = ARRAY['x'])");
        Set<String> filesBefore = tables().listFiles(SCHEMA_LOCATION);
        for (String table : List.of("a/b", "../up", "..", "a\\b")) {
            String message = "Table name '" + table + "' is not supported: it must not";
            assertThat(query("CREATE TABLE \"" + table + "\" (x bigint) WITH (indexed_columns = ARRAY['x'])"))
                    .failure().hasErrorCode(NOT_SUPPORTED).hasMessageStartingWith(message);
            assertThat(query("CREATE TABLE \"" + table + "\" WITH (indexed_columns = ARRAY['x']) AS SELECT 1 x"))
                    .failure().hasErrorCode(NOT_SUPPORTED).hasMessageStartingWith(message);
            assertThat(tables().catalog().tableExists(TableIdentifier.of(QbeastQueryRunner.SCHEMA, table))).as(table).isFalse();
        }
        // nothing was created anywhere: no directory beside or in the warehouse, no file in the schema
        assertThat(tables().listDirectories("local:///")).isEqualTo(rootBefore);
        assertThat(tables().listDirectories(WAREHOUSE)).isEqualTo(warehouseBefore);
        assertThat(tables().listFiles(SCHEMA_LOCATION)).isEqualTo(filesBefore);
        assertUpdate("DROP TABLE names_anchor");
    }

    @Test
    void testNamesWithDotsAndDashesWork()
    {
        assertUpdate("CREATE SCHEMA \"my-schema.v1\"");
        assertUpdate("CREATE TABLE \"my-schema.v1\".\"t.x-1\" WITH (indexed_columns = ARRAY['nationkey']) AS SELECT * FROM tpch.tiny.nation", 25);
        assertUpdate("CREATE TABLE \"my-schema.v1\".\"...a\" (x bigint) WITH (indexed_columns = ARRAY['x'])");
        assertQuery("SELECT * FROM \"my-schema.v1\".\"t.x-1\"", "SELECT * FROM nation");
        // each is one directory in its schema's directory in the warehouse
        assertThat(tables().catalog().loadTable(TableIdentifier.of("my-schema.v1", "t.x-1")).location())
                .matches(WAREHOUSE + "/my-schema\\.v1/t\\.x-1-[0-9a-f]{32}");
        assertThat(tables().catalog().loadTable(TableIdentifier.of("my-schema.v1", "...a")).location())
                .matches(WAREHOUSE + "/my-schema\\.v1/\\.\\.\\.a-[0-9a-f]{32}");
        assertUpdate("DROP SCHEMA \"my-schema.v1\" CASCADE");
    }

    /**
     * File boundaries do not depend on the cube size ({@code FileLayout}): a writer cuts a file only
     * before it would pass the target file size, so one writer writes one file of a table smaller
     * than the target, however many cubes of one row it holds (it once wrote a file per cube).
     */
    @Test
    void testCubeSizeOneWritesFilesOfTheTargetSize()
    {
        // a small writer buffer bounds row groups to 1/8 of it: the writer plans many small slices
        // of one-row cubes, and still cuts files by size only
        Session oneWriter = Session.builder(QbeastQueryRunner.oneWriter(getSession()))
                .setCatalogSessionProperty(QbeastQueryRunner.CATALOG, QbeastSessionProperties.WRITER_BUFFER_SIZE, "64kB")
                .build();
        String source = "SELECT orderkey, custkey, totalprice, orderdate FROM tpch.tiny.orders WHERE orderkey % 5 = 0";
        long rows = (long) computeScalar("SELECT count(*) FROM (" + source + ")");
        assertThat(rows).isEqualTo(3000);
        assertUpdate(oneWriter, "CREATE TABLE cube_one WITH (indexed_columns = ARRAY['custkey', 'totalprice'], cube_size = 1) AS " + source, rows);
        long targetFileSize = new QbeastConfig().getTargetFileSize().toBytes();
        assertFilesPerTarget("cube_one", 1, targetFileSize);
        long cubes = (long) computeScalar("SELECT count(*) FROM \"cube_one$cubes\"");
        assertThat(cubes).as("cubes of one row each, about").isGreaterThan(rows / 10);

        assertUpdate(oneWriter, "INSERT INTO cube_one " + source, rows);
        assertFilesPerTarget("cube_one", 2, targetFileSize);
        assertQuery("SELECT count(*), sum(orderkey) FROM cube_one", "SELECT 2 * count(*), 2 * sum(orderkey) FROM orders WHERE orderkey % 5 = 0");
        assertUpdate("DROP TABLE cube_one");
    }

    private void assertFilesPerTarget(String table, int statements, long targetFileSize)
    {
        long files = (long) computeScalar("SELECT count(*) FROM \"" + table + "$files\"");
        long bytes = (long) computeScalar("SELECT sum(file_size_in_bytes) FROM \"" + table + "$files\"");
        // all statements together are below the target: each statement's one writer writes one file
        assertThat(bytes).isLessThan(targetFileSize);
        assertThat(files).isEqualTo(statements);
    }
}

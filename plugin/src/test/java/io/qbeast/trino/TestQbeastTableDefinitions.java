package io.qbeast.trino;

import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Definitions at the edges of what CREATE TABLE and CREATE TABLE AS accept: char columns are
 * refused before anything exists.
 */
class TestQbeastTableDefinitions
        extends AbstractTestQbeastTables
{
    private static final String SCHEMA_LOCATION = "local:///warehouse/" + QbeastQueryRunner.SCHEMA;

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
}

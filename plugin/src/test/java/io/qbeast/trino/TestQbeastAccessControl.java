package io.qbeast.trino;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableMultiset;
import com.google.common.collect.ImmutableSet;
import com.google.common.collect.Multiset;
import io.qbeast.iceberg.QbeastTableProperties;
import io.trino.Session;
import io.trino.spi.security.Identity;
import io.trino.testing.MaterializedRow;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.trino.spi.StandardErrorCode.PERMISSION_DENIED;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code qbeast.security}: a read-only catalog and a catalog under file rules, both on the same
 * Iceberg catalog and warehouse as the runner's allow-all {@code qbeast} catalog, through which
 * (and through Iceberg) each test reads what a refused statement would have changed.
 */
class TestQbeastAccessControl
        extends AbstractTestQbeastTables
{
    private static final Schema PLAIN_SCHEMA = new Schema(Types.NestedField.optional(1, "x", Types.LongType.get()));

    /**
     * Statements that change the catalog, on catalog {@code %1$s}, schema {@code %2$s}, qbeast
     * table {@code guarded}, plain Iceberg table {@code plain} and empty schema {@code %2$s_empty}
     * (Trino checks that a schema is empty before it asks the access control). Every one is refused where the
     * user may not write; a new table procedure belongs here too.
     */
    static final List<String> WRITES = ImmutableList.of(
            "INSERT INTO %1$s.%2$s.guarded SELECT * FROM tpch.tiny.nation",
            "CREATE TABLE %1$s.%2$s.guarded_copy WITH (indexed_columns = ARRAY['nationkey']) AS SELECT * FROM tpch.tiny.nation",
            "CREATE TABLE %1$s.%2$s.created (x bigint) WITH (indexed_columns = ARRAY['x'])",
            "DROP TABLE %1$s.%2$s.guarded",
            "CREATE SCHEMA %1$s.%2$s_created",
            "DROP SCHEMA %1$s.%2$s_empty",
            "ALTER TABLE %1$s.%2$s.guarded EXECUTE optimize(mode => 'all')",
            "CALL %1$s.system.optimize(schema_name => '%2$s', table_name => 'guarded', mode => 'all')",
            "ALTER TABLE %1$s.%2$s.guarded EXECUTE expire_snapshots(retention_threshold => '7d')",
            "ALTER TABLE %1$s.%2$s.guarded EXECUTE remove_orphan_files(retention_threshold => '7d')",
            "ALTER TABLE %1$s.%2$s.guarded EXECUTE optimize_manifests",
            "CALL %1$s.system.convert_table(schema_name => '%2$s', table_name => 'plain', indexed_columns => ARRAY['x'])");

    private QbeastQueryRunner.Builder builder;

    @Override
    protected QbeastQueryRunner.Builder queryRunnerBuilder()
    {
        builder = super.queryRunnerBuilder();
        return builder;
    }

    @Test
    void testReadOnlyCatalogRefusesEveryWriteAndReads()
    {
        createCatalog("qbeast_read_only", ImmutableMap.of("qbeast.security", "read-only"));
        createGuardedTables("read_only");
        Snapshot before = snapshot("read_only");

        for (String statement : WRITES) {
            assertRefused(getSession(), statement.formatted("qbeast_read_only", "read_only"));
        }

        assertThat(snapshot("read_only")).isEqualTo(before);
        // reading is allowed: the rows of tpch, twice (two inserts)
        assertThat(computeActual("SELECT * FROM qbeast_read_only.read_only.guarded").getMaterializedRows())
                .containsExactlyInAnyOrderElementsOf(twiceNation());
    }

    @Test
    void testFileRulesConfineUserToHerSchema()
            throws IOException
    {
        // alice owns schema a and its tables, may run the catalog's procedures, and nothing else
        Path rules = Files.createTempFile(builder.getRoot(), "rules", ".json");
        Files.writeString(rules, """
                {
                  "schemas": [
                    {"user": "alice", "schema": "a", "owner": true}
                  ],
                  "tables": [
                    {"user": "alice", "schema": "a", "privileges": ["SELECT", "INSERT", "DELETE", "UPDATE", "OWNERSHIP"]}
                  ],
                  "procedures": [
                    {"user": "alice", "schema": "system", "procedure": ".*", "privileges": ["EXECUTE"]}
                  ]
                }
                """);
        createCatalog("qbeast_rules", ImmutableMap.of("qbeast.security", "file", "security.config-file", rules.toString(), "security.refresh-period", "1m"));
        Session alice = Session.builder(getSession())
                .setIdentity(Identity.ofUser("alice"))
                .setCatalog("qbeast_rules")
                .setSchema("a")
                .build();

        // in her schema she creates, writes, optimizes, converts and reads
        assertUpdate(alice, "CREATE SCHEMA qbeast_rules.a");
        assertUpdate(alice, "CREATE TABLE t WITH (indexed_columns = ARRAY['nationkey']) AS SELECT * FROM tpch.tiny.nation", 25);
        assertUpdate(alice, "INSERT INTO t SELECT * FROM tpch.tiny.nation", 25);
        assertUpdate(alice, "ALTER TABLE t EXECUTE optimize(mode => 'all')");
        assertUpdate(alice, "CALL system.optimize(schema_name => 'a', table_name => 't', mode => 'all')");
        assertThat(computeActual(alice, "SELECT * FROM t").getMaterializedRows()).containsExactlyInAnyOrderElementsOf(twiceNation());
        assertThat(computeScalar("SELECT count(*) FROM qbeast.a.\"t$snapshots\" WHERE operation = 'replace'")).isEqualTo(2L);
        tables().catalog().createTable(TableIdentifier.of("a", "plain"), PLAIN_SCHEMA);
        assertUpdate(alice, "CALL system.convert_table(schema_name => 'a', table_name => 'plain', indexed_columns => ARRAY['x'])");
        assertThat(tables().catalog().loadTable(TableIdentifier.of("a", "plain")).properties()).containsKey(QbeastTableProperties.INDEXED_COLUMNS);

        // in schema b, made by another user, she can do nothing
        createGuardedTables("b");
        Snapshot before = snapshot("b");
        for (String statement : WRITES) {
            assertRefused(alice, statement.formatted("qbeast_rules", "b"));
        }
        assertRefused(alice, "SELECT * FROM qbeast_rules.b.guarded");
        assertThat(snapshot("b")).isEqualTo(before);
    }

    /** Adds catalog {@code name} on the runner's Iceberg catalog and warehouse. */
    private void createCatalog(String name, Map<String, String> security)
    {
        getDistributedQueryRunner().createCatalog(name, QbeastConnectorFactory.CONNECTOR_NAME, ImmutableMap.<String, String>builder()
                .put("fs.local.enabled", "true")
                .put("local.location", builder.getRoot().toString())
                .put("qbeast.warehouse", "local:///warehouse")
                .put("qbeast.jdbc.catalog-name", QbeastQueryRunner.CATALOG)
                .putAll(security)
                .buildOrThrow());
    }

    /**
     * Through the allow-all catalog: schema {@code schema} with a qbeast table {@code guarded} of
     * two inserts (so optimize would rewrite it) and an empty plain Iceberg table {@code plain},
     * and an empty schema {@code schema_empty}.
     */
    private void createGuardedTables(String schema)
    {
        assertUpdate("CREATE SCHEMA qbeast." + schema);
        assertUpdate("CREATE SCHEMA qbeast.%s_empty".formatted(schema));
        assertUpdate("CREATE TABLE qbeast.%s.guarded WITH (indexed_columns = ARRAY['nationkey', 'regionkey']) AS SELECT * FROM tpch.tiny.nation".formatted(schema), 25);
        assertUpdate("INSERT INTO qbeast.%s.guarded SELECT * FROM tpch.tiny.nation".formatted(schema), 25);
        tables().catalog().createTable(TableIdentifier.of(schema, "plain"), PLAIN_SCHEMA);
    }

    private void assertRefused(Session session, String sql)
    {
        assertThat(query(session, sql))
                .as(sql)
                .failure()
                .hasErrorCode(PERMISSION_DENIED)
                .hasMessageStartingWith("Access Denied: ");
    }

    private List<MaterializedRow> twiceNation()
    {
        List<MaterializedRow> nation = computeActual("SELECT * FROM tpch.tiny.nation").getMaterializedRows();
        return ImmutableList.<MaterializedRow>builder().addAll(nation).addAll(nation).build();
    }

    /**
     * What a write to schema {@code schema} would change, read through the allow-all catalog and
     * Iceberg (the schemas named after it only: the tests run concurrently).
     */
    private Snapshot snapshot(String schema)
    {
        String guarded = "qbeast.%s.guarded".formatted(schema);
        org.apache.iceberg.Table table = tables().catalog().loadTable(TableIdentifier.of(schema, "guarded"));
        return new Snapshot(
                ImmutableMultiset.copyOf(computeActual("SELECT * FROM " + guarded).getMaterializedRows()),
                (String) computeScalar("SELECT to_hex(checksum(row(nationkey, name, regionkey, comment))) FROM " + guarded),
                (Long) computeScalar("SELECT count(*) FROM qbeast.%s.\"guarded$snapshots\"".formatted(schema)),
                tables().listFiles(table.location()),
                ImmutableSet.copyOf(tables().catalog().listTables(Namespace.of(schema))),
                ImmutableSet.copyOf(computeActual("SHOW SCHEMAS FROM qbeast LIKE '%s%%'".formatted(schema)).getOnlyColumnAsSet()),
                tables().catalog().loadTable(TableIdentifier.of(schema, "plain")).properties());
    }

    private record Snapshot(Multiset<MaterializedRow> rows, String checksum, long snapshots, Set<String> files, Set<TableIdentifier> tables, Set<Object> schemas, Map<String, String> plainProperties) {}
}

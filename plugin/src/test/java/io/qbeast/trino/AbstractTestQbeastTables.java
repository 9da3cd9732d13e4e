package io.qbeast.trino;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.MaterializedRow;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.AfterAll;

import java.io.IOException;
import java.util.List;

/**
 * Tests on a {@link QbeastQueryRunner} that also reach its tables through the Iceberg catalog
 * ({@link QbeastTestTables}) and its connector instances.
 */
abstract class AbstractTestQbeastTables
        extends AbstractTestQueryFramework
{
    private List<QbeastConnector> connectors;
    private QbeastTestTables tables;

    private java.nio.file.Path root;

    /** The runner to build; a test that needs other properties overrides this. */
    protected QbeastQueryRunner.Builder queryRunnerBuilder()
    {
        return QbeastQueryRunner.builder();
    }

    @Override
    protected final QueryRunner createQueryRunner()
            throws Exception
    {
        QbeastQueryRunner.Builder builder = queryRunnerBuilder();
        DistributedQueryRunner queryRunner = builder.build();
        connectors = builder.getConnectors();
        tables = new QbeastTestTables(builder.getRoot());
        root = builder.getRoot();
        return queryRunner;
    }

    /**
     * Adds a catalog {@code name} on the same Iceberg catalog and warehouse as the runner's qbeast
     * catalog, writing files of at most {@code targetFileSize}: tpch tiny written through it spans
     * many files per writer, as a large table does at the default size.
     */
    protected final void createSmallFilesCatalog(String name, String targetFileSize)
    {
        getDistributedQueryRunner().createCatalog(name, QbeastConnectorFactory.CONNECTOR_NAME, ImmutableMap.of(
                "fs.local.enabled", "true",
                "local.location", root.toString(),
                "qbeast.warehouse", "local:///warehouse",
                "qbeast.jdbc.catalog-name", QbeastQueryRunner.CATALOG,
                "qbeast.target-file-size", targetFileSize));
    }

    @AfterAll
    final void closeTables()
            throws IOException
    {
        tables.close();
    }

    /** The tables of the runner's qbeast catalog, read and written through Iceberg directly. */
    protected final QbeastTestTables tables()
    {
        return tables;
    }

    /** The local directory under which the runner's warehouse lies ({@code local:///} is this directory). */
    protected final java.nio.file.Path root()
    {
        return root;
    }

    /** The connector instance of each node. */
    protected final List<QbeastConnector> connectors()
    {
        return connectors;
    }

    /** The row count {@code SHOW STATS} gives the table (its summary row). */
    protected final long rowCountStatistic(String name)
    {
        for (MaterializedRow row : computeActual("SHOW STATS FOR " + name).getMaterializedRows()) {
            if (row.getField(0) == null) {
                return Math.round((double) row.getField(4));
            }
        }
        throw new AssertionError("SHOW STATS has no summary row");
    }

    /** The first column of the query's rows, as longs. */
    protected final List<Long> longs(String sql)
    {
        return computeActual(sql).getMaterializedRows().stream().map(row -> (Long) row.getField(0)).collect(ImmutableList.toImmutableList());
    }
}

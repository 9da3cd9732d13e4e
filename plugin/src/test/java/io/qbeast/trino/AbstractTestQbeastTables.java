package io.qbeast.trino;

import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.DistributedQueryRunner;
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
        return queryRunner;
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

    /** The connector instance of each node. */
    protected final List<QbeastConnector> connectors()
    {
        return connectors;
    }
}

package io.qbeast.trino.tests;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * A coordinator and two workers (three JVMs) sharing the local warehouse: qbeast writes and
 * reads run on the workers, and the cluster keeps answering after a worker is killed.
 */
@TestInstance(PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(300)
public class TestMultiNodeCluster
{
    private TrinoServer trino;

    @BeforeAll
    public void startCluster()
    {
        Path work = ProductTestEnvironment.newWorkDirectory("multi-node");
        trino = TrinoServer.builder()
                .withDirectory(work.resolve("cluster"))
                .withTpch()
                .withQbeast(work.resolve("warehouse"))
                .withWorkers(2)
                .withCoordinatorScheduling(false)
                .withHeap("1G")
                .start();
    }

    @AfterAll
    public void stopCluster()
    {
        if (trino != null) {
            trino.close();
        }
    }

    @Test
    @Order(1)
    public void workersRunTheQueries()
            throws SQLException
    {
        assertThat(trino.activeNodes()).isEqualTo(3);
        assertThat(trino.nodes()).hasSize(3).allMatch(TrinoServer.Node::isAlive);
        assertThat(scalar("SELECT count(*) FROM tpch.tiny.lineitem")).isEqualTo(60175L);

        assertThat(scalar("SELECT count(*) FROM system.runtime.nodes WHERE coordinator = false AND state = 'active'")).isEqualTo(2L);
    }

    @Test
    @Order(2)
    public void qbeastWriteAndReadAcrossWorkers()
            throws SQLException
    {
        execute("CREATE SCHEMA qbeast.cluster");
        execute("CREATE TABLE qbeast.cluster.lineitem WITH (indexed_columns = ARRAY['orderkey', 'partkey']) AS SELECT * FROM tpch.tiny.lineitem");
        assertThat(scalar("SELECT count(*) FROM qbeast.cluster.lineitem")).isEqualTo(60175L);
        assertThat(scalar("SELECT sum(partkey) FROM qbeast.cluster.lineitem WHERE orderkey < 10000"))
                .isEqualTo(scalar("SELECT sum(partkey) FROM tpch.tiny.lineitem WHERE orderkey < 10000"));
    }

    @Test
    @Order(3)
    public void clusterSurvivesKilledWorker()
            throws SQLException
    {
        TrinoServer.Node victim = trino.workers().getFirst();
        victim.kill();
        assertThat(victim.isAlive()).isFalse();
        trino.awaitActiveNodes(2, Duration.ofMinutes(2));

        assertThat(scalar("SELECT count(*) FROM tpch.tiny.orders")).isEqualTo(15000L);
        assertThat(scalar("SELECT count(*) FROM qbeast.cluster.lineitem")).isEqualTo(60175L);
    }

    private void execute(String sql)
            throws SQLException
    {
        try (Connection connection = trino.connect();
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private Object scalar(String sql)
            throws SQLException
    {
        try (Connection connection = trino.connect();
                Statement statement = connection.createStatement();
                ResultSet resultSet = statement.executeQuery(sql)) {
            assertThat(resultSet.next()).isTrue();
            return resultSet.getObject(1);
        }
    }
}

package io.qbeast.trino;

import com.google.common.collect.ImmutableSet;
import com.google.inject.Inject;
import io.airlift.bootstrap.LifeCycleManager;
import io.qbeast.trino.config.QbeastSessionProperties;
import io.qbeast.trino.config.QbeastTablePropertyMetadata;
import io.qbeast.trino.handle.QbeastTransactionHandle;
import io.qbeast.trino.metadata.QbeastMetadata;
import io.qbeast.trino.metadata.QbeastTransactionManager;
import io.qbeast.trino.procedure.OptimizeProcedure;
import io.qbeast.trino.write.QbeastWriterStats;
import io.trino.plugin.base.classloader.ClassLoaderSafeConnectorMetadata;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorAccessControl;
import io.trino.spi.connector.ConnectorCapabilities;
import io.trino.spi.connector.ConnectorMetadata;
import io.trino.spi.connector.ConnectorNodePartitioningProvider;
import io.trino.spi.connector.ConnectorPageSinkProvider;
import io.trino.spi.connector.ConnectorPageSourceProvider;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplitManager;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.TableProcedureMetadata;
import io.trino.spi.procedure.Procedure;
import io.trino.spi.session.PropertyMetadata;
import io.trino.spi.transaction.IsolationLevel;

import java.util.List;
import java.util.Optional;
import java.util.Set;

import static io.trino.spi.connector.ConnectorCapabilities.NOT_NULL_COLUMN_CONSTRAINT;
import static io.trino.spi.transaction.IsolationLevel.SERIALIZABLE;
import static io.trino.spi.transaction.IsolationLevel.checkConnectorSupports;
import static java.util.Objects.requireNonNull;

public class QbeastConnector
        implements Connector
{
    private final LifeCycleManager lifeCycleManager;
    private final QbeastTransactionManager transactionManager;
    private final ConnectorSplitManager splitManager;
    private final ConnectorPageSourceProvider pageSourceProvider;
    private final ConnectorPageSinkProvider pageSinkProvider;
    private final QbeastSessionProperties sessionProperties;
    private final QbeastTablePropertyMetadata tableProperties;
    private final QbeastWriterStats writerStats;
    private final ConnectorNodePartitioningProvider nodePartitioningProvider;
    private final Set<Procedure> procedures;
    private final Set<TableProcedureMetadata> tableProcedures;
    private final OptimizeProcedure optimizeProcedure;
    private final Optional<ConnectorAccessControl> accessControl;

    @Inject
    public QbeastConnector(
            LifeCycleManager lifeCycleManager,
            QbeastTransactionManager transactionManager,
            ConnectorSplitManager splitManager,
            ConnectorPageSourceProvider pageSourceProvider,
            ConnectorPageSinkProvider pageSinkProvider,
            QbeastTablePropertyMetadata tableProperties,
            QbeastSessionProperties sessionProperties,
            QbeastWriterStats writerStats,
            ConnectorNodePartitioningProvider nodePartitioningProvider,
            Set<Procedure> procedures,
            Set<TableProcedureMetadata> tableProcedures,
            OptimizeProcedure optimizeProcedure,
            Optional<ConnectorAccessControl> accessControl)
    {
        this.lifeCycleManager = requireNonNull(lifeCycleManager, "lifeCycleManager is null");
        this.transactionManager = requireNonNull(transactionManager, "transactionManager is null");
        this.splitManager = requireNonNull(splitManager, "splitManager is null");
        this.pageSourceProvider = requireNonNull(pageSourceProvider, "pageSourceProvider is null");
        this.pageSinkProvider = requireNonNull(pageSinkProvider, "pageSinkProvider is null");
        this.tableProperties = requireNonNull(tableProperties, "tableProperties is null");
        this.sessionProperties = requireNonNull(sessionProperties, "sessionProperties is null");
        this.writerStats = requireNonNull(writerStats, "writerStats is null");
        this.nodePartitioningProvider = requireNonNull(nodePartitioningProvider, "nodePartitioningProvider is null");
        this.procedures = ImmutableSet.copyOf(requireNonNull(procedures, "procedures is null"));
        this.tableProcedures = ImmutableSet.copyOf(requireNonNull(tableProcedures, "tableProcedures is null"));
        this.optimizeProcedure = requireNonNull(optimizeProcedure, "optimizeProcedure is null");
        this.accessControl = requireNonNull(accessControl, "accessControl is null");
    }

    @Override
    public ConnectorTransactionHandle beginTransaction(IsolationLevel isolationLevel, boolean readOnly, boolean autoCommit)
    {
        checkConnectorSupports(SERIALIZABLE, isolationLevel);
        QbeastTransactionHandle transaction = QbeastTransactionHandle.create();
        transactionManager.begin(transaction);
        return transaction;
    }

    @Override
    public ConnectorMetadata getMetadata(ConnectorSession session, ConnectorTransactionHandle transaction)
    {
        QbeastMetadata metadata = transactionManager.get(transaction, session.getIdentity());
        return new ClassLoaderSafeConnectorMetadata(metadata, getClass().getClassLoader());
    }

    @Override
    public ConnectorSplitManager getSplitManager()
    {
        return splitManager;
    }

    @Override
    public ConnectorPageSourceProvider getPageSourceProvider()
    {
        return pageSourceProvider;
    }

    @Override
    public ConnectorPageSinkProvider getPageSinkProvider()
    {
        return pageSinkProvider;
    }

    @Override
    public ConnectorNodePartitioningProvider getNodePartitioningProvider()
    {
        return nodePartitioningProvider;
    }

    /** The access control {@code qbeast.security} chose (security/QbeastSecurityModule). */
    @Override
    public ConnectorAccessControl getAccessControl()
    {
        return accessControl.orElseThrow(UnsupportedOperationException::new);
    }

    @Override
    public Set<Procedure> getProcedures()
    {
        return procedures;
    }

    @Override
    public Set<TableProcedureMetadata> getTableProcedures()
    {
        return tableProcedures;
    }

    /** The optimize core, for tests that interleave it with other writes. */
    public OptimizeProcedure getOptimizeProcedure()
    {
        return optimizeProcedure;
    }

    @Override
    public List<PropertyMetadata<?>> getSessionProperties()
    {
        return sessionProperties.getSessionProperties();
    }

    @Override
    public List<PropertyMetadata<?>> getTableProperties()
    {
        return tableProperties.getTableProperties();
    }

    @Override
    public void commit(ConnectorTransactionHandle transaction)
    {
        transactionManager.commit(transaction);
    }

    @Override
    public void rollback(ConnectorTransactionHandle transaction)
    {
        transactionManager.rollback(transaction);
    }

    @Override
    public Set<ConnectorCapabilities> getCapabilities()
    {
        return ImmutableSet.of(NOT_NULL_COLUMN_CONSTRAINT);
    }

    /** What this node's page sinks did (for tests and diagnostics). */
    public QbeastWriterStats getWriterStats()
    {
        return writerStats;
    }

    @Override
    public void shutdown()
    {
        lifeCycleManager.stop();
    }
}

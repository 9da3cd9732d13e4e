package io.qbeast.trino;

import com.google.inject.Binder;
import com.google.inject.Module;
import com.google.inject.Scopes;
import io.qbeast.trino.catalog.IcebergCatalogProvider;
import io.qbeast.trino.catalog.IndexStateCache;
import io.qbeast.trino.catalog.PlanningExecutors;
import io.qbeast.trino.catalog.QbeastFileSystemFactory;
import io.qbeast.trino.catalog.TransactionTables;
import io.qbeast.trino.config.QbeastConfig;
import io.qbeast.trino.config.QbeastSessionProperties;
import io.qbeast.trino.config.QbeastTablePropertyMetadata;
import io.qbeast.trino.maintenance.TableMaintenance;
import io.qbeast.trino.metadata.QbeastMetadataFactory;
import io.qbeast.trino.metadata.QbeastTransactionManager;
import io.qbeast.trino.optimize.QbeastOptimize;
import io.qbeast.trino.parquet.FooterCache;
import io.qbeast.trino.procedure.ConvertTableProcedure;
import io.qbeast.trino.procedure.OptimizeProcedure;
import io.qbeast.trino.procedure.RollbackToSnapshotProcedure;
import io.qbeast.trino.read.QbeastPageSourceProvider;
import io.qbeast.trino.read.QbeastSplitManager;
import io.qbeast.trino.routing.QbeastNodePartitioningProvider;
import io.qbeast.trino.write.CommitTaskData;
import io.qbeast.trino.write.QbeastPageSinkProvider;
import io.qbeast.trino.write.QbeastWriterStats;
import io.trino.plugin.base.classloader.ClassLoaderSafeConnectorPageSinkProvider;
import io.trino.plugin.base.classloader.ClassLoaderSafeConnectorPageSourceProvider;
import io.trino.plugin.base.classloader.ClassLoaderSafeConnectorSplitManager;
import io.trino.plugin.base.classloader.ClassLoaderSafeNodePartitioningProvider;
import io.trino.plugin.base.classloader.ForClassLoaderSafe;
import io.trino.spi.connector.ConnectorNodePartitioningProvider;
import io.trino.spi.connector.ConnectorPageSinkProvider;
import io.trino.spi.connector.ConnectorPageSourceProvider;
import io.trino.spi.connector.ConnectorSplitManager;
import io.trino.spi.connector.TableProcedureMetadata;
import io.trino.spi.procedure.Procedure;

import static com.google.inject.multibindings.Multibinder.newSetBinder;
import static io.airlift.configuration.ConfigBinder.configBinder;
import static io.airlift.json.JsonCodecBinder.jsonCodecBinder;

public class QbeastModule
        implements Module
{
    @Override
    public void configure(Binder binder)
    {
        configBinder(binder).bindConfig(QbeastConfig.class);

        binder.bind(QbeastConnector.class).in(Scopes.SINGLETON);
        binder.bind(QbeastTransactionManager.class).in(Scopes.SINGLETON);
        binder.bind(TransactionTables.class).to(QbeastTransactionManager.class);
        binder.bind(QbeastMetadataFactory.class).in(Scopes.SINGLETON);
        binder.bind(IcebergCatalogProvider.class).in(Scopes.SINGLETON);
        binder.bind(QbeastFileSystemFactory.class).in(Scopes.SINGLETON);
        binder.bind(QbeastTablePropertyMetadata.class).in(Scopes.SINGLETON);
        binder.bind(QbeastSessionProperties.class).in(Scopes.SINGLETON);
        binder.bind(IndexStateCache.class).in(Scopes.SINGLETON);
        binder.bind(FooterCache.class).in(Scopes.SINGLETON);
        binder.bind(PlanningExecutors.class).in(Scopes.SINGLETON);
        binder.bind(QbeastWriterStats.class).in(Scopes.SINGLETON);

        binder.bind(ConnectorSplitManager.class).annotatedWith(ForClassLoaderSafe.class).to(QbeastSplitManager.class).in(Scopes.SINGLETON);
        binder.bind(ConnectorSplitManager.class).to(ClassLoaderSafeConnectorSplitManager.class).in(Scopes.SINGLETON);

        binder.bind(ConnectorPageSourceProvider.class).annotatedWith(ForClassLoaderSafe.class).to(QbeastPageSourceProvider.class).in(Scopes.SINGLETON);
        binder.bind(ConnectorPageSourceProvider.class).to(ClassLoaderSafeConnectorPageSourceProvider.class).in(Scopes.SINGLETON);

        binder.bind(ConnectorPageSinkProvider.class).annotatedWith(ForClassLoaderSafe.class).to(QbeastPageSinkProvider.class).in(Scopes.SINGLETON);
        binder.bind(ConnectorPageSinkProvider.class).to(ClassLoaderSafeConnectorPageSinkProvider.class).in(Scopes.SINGLETON);

        jsonCodecBinder(binder).bindJsonCodec(CommitTaskData.class);

        binder.bind(ConnectorNodePartitioningProvider.class).annotatedWith(ForClassLoaderSafe.class).to(QbeastNodePartitioningProvider.class).in(Scopes.SINGLETON);
        binder.bind(ConnectorNodePartitioningProvider.class).to(ClassLoaderSafeNodePartitioningProvider.class).in(Scopes.SINGLETON);
        binder.bind(QbeastPageSinkProvider.class).in(Scopes.SINGLETON);
        binder.bind(OptimizeProcedure.class).in(Scopes.SINGLETON);
        newSetBinder(binder, Procedure.class).addBinding().toProvider(OptimizeProcedure.class).in(Scopes.SINGLETON);
        newSetBinder(binder, TableProcedureMetadata.class).addBinding().toInstance(QbeastOptimize.tableProcedure());
        newSetBinder(binder, Procedure.class).addBinding().toProvider(ConvertTableProcedure.class).in(Scopes.SINGLETON);
        TableMaintenance.tableProcedures().forEach(procedure -> newSetBinder(binder, TableProcedureMetadata.class).addBinding().toInstance(procedure));
        newSetBinder(binder, Procedure.class).addBinding().toProvider(RollbackToSnapshotProcedure.class).in(Scopes.SINGLETON);
    }
}

package io.qbeast.trino.metadata;

import com.google.inject.Inject;
import io.airlift.json.JsonCodec;
import io.qbeast.trino.catalog.IcebergCatalogProvider;
import io.qbeast.trino.catalog.IndexStateCache;
import io.qbeast.trino.catalog.PlanningExecutors;
import io.qbeast.trino.catalog.QbeastFileSystemFactory;
import io.qbeast.trino.config.QbeastConfig;
import io.qbeast.trino.write.CommitTaskData;
import io.trino.filesystem.TrinoFileSystemFactory;
import io.trino.spi.NodeManager;
import io.trino.spi.security.ConnectorIdentity;
import io.trino.spi.type.TypeManager;

import static java.util.Objects.requireNonNull;

public class QbeastMetadataFactory
{
    private final IcebergCatalogProvider catalogProvider;
    private final TypeManager typeManager;
    private final TrinoFileSystemFactory fileSystemFactory;
    private final JsonCodec<CommitTaskData> commitTaskCodec;
    private final QbeastConfig config;
    private final IndexStateCache indexStateCache;
    private final NodeManager nodeManager;
    private final PlanningExecutors executors;

    @Inject
    public QbeastMetadataFactory(
            IcebergCatalogProvider catalogProvider,
            TypeManager typeManager,
            QbeastFileSystemFactory fileSystemFactory,
            JsonCodec<CommitTaskData> commitTaskCodec,
            QbeastConfig config,
            IndexStateCache indexStateCache,
            NodeManager nodeManager,
            PlanningExecutors executors)
    {
        this.catalogProvider = requireNonNull(catalogProvider, "catalogProvider is null");
        this.typeManager = requireNonNull(typeManager, "typeManager is null");
        this.fileSystemFactory = requireNonNull(fileSystemFactory, "fileSystemFactory is null");
        this.commitTaskCodec = requireNonNull(commitTaskCodec, "commitTaskCodec is null");
        this.config = requireNonNull(config, "config is null");
        this.indexStateCache = requireNonNull(indexStateCache, "indexStateCache is null");
        this.nodeManager = requireNonNull(nodeManager, "nodeManager is null");
        this.executors = requireNonNull(executors, "executors is null");
    }

    public QbeastMetadata create(ConnectorIdentity identity)
    {
        return new QbeastMetadata(catalogProvider, typeManager, fileSystemFactory.create(identity), commitTaskCodec, config, indexStateCache, nodeManager, executors.metadataReads());
    }
}

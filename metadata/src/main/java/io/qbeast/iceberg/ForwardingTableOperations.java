package io.qbeast.iceberg;

import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;

import static java.util.Objects.requireNonNull;

/**
 * Table operations that forward every call to a delegate; subclasses override {@link #commit}
 * to check or amend the metadata being committed.
 */
abstract class ForwardingTableOperations
        implements TableOperations
{
    private final TableOperations delegate;

    protected ForwardingTableOperations(TableOperations delegate)
    {
        this.delegate = requireNonNull(delegate, "delegate is null");
    }

    @Override
    public void commit(TableMetadata base, TableMetadata metadata)
    {
        delegate.commit(base, metadata);
    }

    @Override
    public TableMetadata current()
    {
        return delegate.current();
    }

    @Override
    public TableMetadata refresh()
    {
        return delegate.refresh();
    }

    @Override
    public FileIO io()
    {
        return delegate.io();
    }

    @Override
    public EncryptionManager encryption()
    {
        return delegate.encryption();
    }

    @Override
    public String metadataFileLocation(String fileName)
    {
        return delegate.metadataFileLocation(fileName);
    }

    @Override
    public LocationProvider locationProvider()
    {
        return delegate.locationProvider();
    }

    @Override
    public TableOperations temp(TableMetadata uncommittedMetadata)
    {
        return delegate.temp(uncommittedMetadata);
    }

    @Override
    public long newSnapshotId()
    {
        return delegate.newSnapshotId();
    }

    @Override
    public boolean requireStrictCleanup()
    {
        return delegate.requireStrictCleanup();
    }
}

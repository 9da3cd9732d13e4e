package io.qbeast.trino.parquet;

import io.airlift.slice.Slice;
import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.TrinoInputFile;
import io.trino.parquet.AbstractParquetDataSource;
import io.trino.parquet.ParquetDataSourceId;
import io.trino.parquet.ParquetReaderOptions;

import java.io.IOException;

/**
 * trino-parquet's reads over a trino-filesystem file. The file size comes from the caller (the
 * Iceberg manifest), which saves a metadata round trip to the object store per split.
 */
final class QbeastParquetDataSource
        extends AbstractParquetDataSource
{
    private final TrinoInput input;

    QbeastParquetDataSource(TrinoInputFile file, long fileSize, ParquetReaderOptions options)
            throws IOException
    {
        super(new ParquetDataSourceId(file.location().toString()), fileSize, options);
        this.input = file.newInput();
    }

    @Override
    protected Slice readTailInternal(int length)
            throws IOException
    {
        return input.readTail(length);
    }

    @Override
    protected void readInternal(long position, byte[] buffer, int bufferOffset, int bufferLength)
            throws IOException
    {
        input.readFully(position, buffer, bufferOffset, bufferLength);
    }

    @Override
    public void close()
            throws IOException
    {
        input.close();
    }
}

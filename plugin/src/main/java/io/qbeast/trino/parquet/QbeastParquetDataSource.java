package io.qbeast.trino.parquet;

import com.google.common.collect.ImmutableMap;
import io.airlift.slice.Slice;
import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.TrinoInputFile;
import io.trino.parquet.AbstractParquetDataSource;
import io.trino.parquet.ParquetDataSourceId;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.spi.metrics.Metrics;

import java.io.IOException;

/**
 * trino-parquet's reads over a trino-filesystem file. The file size comes from the caller (the
 * Iceberg manifest), which saves a metadata round trip to the object store per split. Its
 * metrics (which trino-parquet's reader reports with its own) say whether the split parsed the
 * file's footer or found it in the {@link FooterCache}.
 */
final class QbeastParquetDataSource
        extends AbstractParquetDataSource
{
    private final TrinoInput input;
    private long footersParsed;
    private long footerCacheHits;

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

    void footerParsed()
    {
        footersParsed++;
    }

    void footerFromCache()
    {
        footerCacheHits++;
    }

    @Override
    public Metrics getMetrics()
    {
        return new Metrics(ImmutableMap.of(
                FooterCache.FOOTERS_PARSED, new LongCount(footersParsed),
                FooterCache.FOOTER_CACHE_HITS, new LongCount(footerCacheHits)));
    }

    @Override
    public void close()
            throws IOException
    {
        input.close();
    }
}

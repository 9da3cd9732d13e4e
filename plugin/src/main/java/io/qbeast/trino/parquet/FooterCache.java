package io.qbeast.trino.parquet;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import com.google.common.util.concurrent.ExecutionError;
import com.google.common.util.concurrent.UncheckedExecutionException;
import com.google.inject.Inject;
import io.airlift.units.DataSize;
import io.qbeast.trino.config.QbeastConfig;
import io.trino.parquet.cache.ParquetFooterCacheKey;
import io.trino.parquet.metadata.ParquetMetadata;
import io.trino.parquet.reader.MetadataReader;

import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.ExecutionException;

import static java.util.Objects.requireNonNull;

/**
 * The parsed Parquet footers of the data files this node read recently, one per file, bounded by
 * an estimate of their heap size ({@code qbeast.parquet-footer-cache.max-size}; {@code 0B}: every
 * split parses its file's footer).
 *
 * <p>Why: a qbeast file has hundreds of row groups (a cube's weight slices), so its footer is
 * megabytes of Thrift (1.6 to 2.7 MiB at SSB sf10, ~680 row groups of 33 columns), and each of
 * the file's splits parsed all of it: ~67 MiB per query at sf10 before a row was read. The
 * footer of an Iceberg data file never changes (a file is written once, under a new name), and
 * it is keyed by location and length as trino-parquet's own cache is.
 *
 * <p>trino-parquet 483's {@code MemoryParquetFooterCache} (Trino's
 * {@code iceberg.parquet-footer-cache.*}) keeps the footer's bytes and parses them again on every
 * hit: it saves the read, not the parse, which is what costs here. This cache keeps the parsed
 * {@link ParquetMetadata} (the Thrift structure and the file schema); each split still converts
 * only its own row groups' chunks of the columns it reads ({@link FooterRowGroupFilter}).
 * Concurrent splits of a file wait for one parse; a failed parse (a corrupt footer) is not
 * kept, and the next split of the file parses again.
 */
public final class FooterCache
{
    /** Connector metrics of the scan ({@code EXPLAIN ANALYZE VERBOSE}): splits that parsed their file's footer, and splits that found it parsed. */
    public static final String FOOTERS_PARSED = "qbeast_footers_parsed";
    public static final String FOOTER_CACHE_HITS = "qbeast_footer_cache_hits";

    private static final FooterCache DISABLED = new FooterCache(DataSize.ofBytes(0));

    // empty: disabled
    private final Optional<Cache<ParquetFooterCacheKey, ParquetMetadata>> cache;

    @Inject
    public FooterCache(QbeastConfig config)
    {
        this(config.getParquetFooterCacheMaxSize());
    }

    public FooterCache(DataSize maxSize)
    {
        requireNonNull(maxSize, "maxSize is null");
        if (maxSize.toBytes() == 0) {
            cache = Optional.empty();
            return;
        }
        cache = Optional.of(CacheBuilder.newBuilder()
                .maximumWeight(maxSize.toBytes())
                // one segment: Guava bounds each segment by its share of the weight, and a footer
                // of tens of MB would not fit a quarter of a cache sized for a few of them
                .concurrencyLevel(1)
                .weigher((ParquetFooterCacheKey _, ParquetMetadata footer) -> (int) Math.min(Integer.MAX_VALUE, RetainedFooterSize.of(footer)))
                .build());
    }

    /** No cache: every call parses. */
    public static FooterCache disabled()
    {
        return DISABLED;
    }

    /**
     * The footer of the data source's file, parsed by this call or an earlier one; the data
     * source counts which ({@link #FOOTERS_PARSED}, {@link #FOOTER_CACHE_HITS}).
     */
    ParquetMetadata read(QbeastParquetDataSource dataSource)
            throws IOException
    {
        if (cache.isEmpty()) {
            ParquetMetadata footer = MetadataReader.readFooter(dataSource, Optional.empty());
            dataSource.footerParsed();
            return footer;
        }
        ParquetFooterCacheKey key = new ParquetFooterCacheKey(dataSource.getId().toString(), dataSource.getEstimatedSize());
        boolean[] parsed = new boolean[1];
        ParquetMetadata footer;
        try {
            footer = cache.get().get(key, () -> {
                ParquetMetadata loaded = MetadataReader.readFooter(dataSource, Optional.empty());
                parsed[0] = true;
                return loaded;
            });
        }
        catch (ExecutionException e) {
            if (e.getCause() instanceof IOException ioException) {
                throw ioException;
            }
            throw new IOException(e.getCause());
        }
        catch (UncheckedExecutionException e) {
            if (e.getCause() instanceof RuntimeException runtimeException) {
                throw runtimeException;
            }
            throw e;
        }
        catch (ExecutionError e) {
            throw (Error) e.getCause();
        }
        if (parsed[0]) {
            dataSource.footerParsed();
        }
        else {
            dataSource.footerFromCache();
        }
        return footer;
    }
}

package io.qbeast.trino.routing;

import com.google.common.collect.ImmutableList;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.connector.BucketFunction;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeOperators;

import java.lang.invoke.MethodHandle;
import java.util.List;

import static io.trino.spi.StandardErrorCode.GENERIC_INTERNAL_ERROR;
import static io.trino.spi.function.InvocationConvention.InvocationArgumentConvention.BLOCK_POSITION_NOT_NULL;
import static io.trino.spi.function.InvocationConvention.InvocationReturnConvention.FAIL_ON_NULL;
import static io.trino.spi.function.InvocationConvention.simpleConvention;

/**
 * The bucket of a row under a {@link QbeastSharePartitioningHandle}: a hash of its indexed values
 * (Trino's hash of each type, nulls hashing alike), spread over the handle's share buckets, which
 * the engine's buckets then take in order. The page sink of the write computes the same share
 * bucket of its own rows to learn its share ({@link #shareBucket}).
 */
public final class QbeastShareBucketFunction
        implements BucketFunction
{
    private static final TypeOperators TYPE_OPERATORS = new TypeOperators();

    private final List<MethodHandle> hashes;
    private final int shareBuckets;
    private final int bucketCount;

    /**
     * @param indexedTypes the types of the indexed columns, in index order (the channels the bucket function gets)
     * @param shareBuckets the handle's buckets
     * @param bucketCount the engine's buckets
     */
    public QbeastShareBucketFunction(List<Type> indexedTypes, int shareBuckets, int bucketCount)
    {
        this.hashes = indexedTypes.stream()
                .map(type -> TYPE_OPERATORS.getHashCodeOperator(type, simpleConvention(FAIL_ON_NULL, BLOCK_POSITION_NOT_NULL)))
                .collect(ImmutableList.toImmutableList());
        this.shareBuckets = shareBuckets;
        this.bucketCount = bucketCount;
    }

    @Override
    public int getBucket(Page page, int position)
    {
        return (int) ((long) shareBucket(page, position) * bucketCount / shareBuckets);
    }

    /** The share bucket, in {@code [0, shareBuckets)}, of the row at {@code position} of a page of the indexed columns. */
    public int shareBucket(Page page, int position)
    {
        long hash = 0;
        for (int channel = 0; channel < hashes.size(); channel++) {
            Block block = page.getBlock(channel);
            long value = block.isNull(position) ? 0 : valueHash(hashes.get(channel), block, position);
            hash = (hash * 31 + value) * 0x9E3779B97F4A7C15L;
        }
        // the high bits are the well mixed ones
        return (int) (((hash >>> 32) * shareBuckets) >>> 32);
    }

    private static long valueHash(MethodHandle hash, Block block, int position)
    {
        try {
            return (long) hash.invokeExact(block, position);
        }
        catch (Throwable e) {
            if (e instanceof Error error) {
                throw error;
            }
            if (e instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new TrinoException(GENERIC_INTERNAL_ERROR, "Cannot hash an indexed value", e);
        }
    }
}

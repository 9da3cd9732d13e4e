package io.qbeast.index;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * A uniform sample (reservoir sampling, deterministic for a given input order) of the values of a
 * {@link io.qbeast.index.transform.ValueDomain#BYTES} column, from which the planner picks quantile
 * boundaries. Sampled values are copied, cut to {@link RevisionPlanner#MAX_BOUNDARY_LENGTH} bytes,
 * so a sample stays small whatever the value sizes.
 */
public final class BytesColumnProfile
        implements ColumnProfile
{
    public static final int DEFAULT_SAMPLE_SIZE = 4096;

    private final String name;
    private final int sampleSize;
    private final List<byte[]> sample;
    private long rows;
    private long values;
    private long random;

    public BytesColumnProfile(String name)
    {
        this(name, DEFAULT_SAMPLE_SIZE);
    }

    public BytesColumnProfile(String name, int sampleSize)
    {
        this.name = requireNonNull(name, "name is null");
        if (sampleSize < 1) {
            throw new IllegalArgumentException("Sample size must be positive: " + sampleSize);
        }
        this.sampleSize = sampleSize;
        this.sample = new ArrayList<>(Math.min(sampleSize, 1024));
        this.random = name.hashCode();
    }

    public void add(byte[] value)
    {
        add(value, 0, value.length);
    }

    public void add(byte[] value, int offset, int length)
    {
        rows++;
        values++;
        if (sample.size() < sampleSize) {
            sample.add(copy(value, offset, length));
            return;
        }
        // algorithm R: keep the i-th value with probability sampleSize / i
        long slot = Long.remainderUnsigned(nextRandom(), values);
        if (slot < sampleSize) {
            sample.set((int) slot, copy(value, offset, length));
        }
    }

    public void addNull()
    {
        rows++;
    }

    @Override
    public String name()
    {
        return name;
    }

    public long rows()
    {
        return rows;
    }

    public long values()
    {
        return values;
    }

    /** The sampled values (cut to {@link RevisionPlanner#MAX_BOUNDARY_LENGTH} bytes), in no particular order. */
    public List<byte[]> sample()
    {
        return sample.stream().map(byte[]::clone).toList();
    }

    private static byte[] copy(byte[] value, int offset, int length)
    {
        return Arrays.copyOfRange(value, offset, offset + Math.min(length, RevisionPlanner.MAX_BOUNDARY_LENGTH));
    }

    // SplitMix64
    private long nextRandom()
    {
        random += 0x9E3779B97F4A7C15L;
        long z = random;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}

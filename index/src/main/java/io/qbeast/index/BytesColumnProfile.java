package io.qbeast.index;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The values of a {@link io.qbeast.index.transform.ValueDomain#BYTES} column from which the
 * planner picks quantile boundaries: every distinct value while there are at most the sample size
 * of them, else a uniform sample (reservoir sampling, deterministic for a given input order).
 * Values are copied, cut to {@link RevisionPlanner#MAX_BOUNDARY_LENGTH} bytes, so a profile stays
 * small whatever the value sizes.
 *
 * <p>Why the distinct values: the writers of one statement each profile their own part of the
 * rows, and the boundaries are quantiles of the distinct values they pass
 * ({@link io.qbeast.index.transform.OrderedBytesTransformation#fromSample}). Writers whose parts
 * hold the same set of values (a city, a brand, a status: any column of up to the sample size of
 * values, each frequent enough to reach every writer) then propose the very same boundaries, so the
 * same revision, whatever rows each one got; samples of such a column miss rare values at random
 * (1,000 values of equal frequency: each writer's sample of 4,096 misses about 18), and each writer
 * made its own revision.
 */
public final class BytesColumnProfile
        implements ColumnProfile
{
    public static final int DEFAULT_SAMPLE_SIZE = 4096;

    private final String name;
    private final int sampleSize;
    private final List<byte[]> sample;
    // open addressing over the distinct values seen, null once there were more than sampleSize of them
    private byte[][] distinct;
    private int distinctCount;
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
        this.distinct = new byte[Integer.highestOneBit(Math.min(sampleSize, 1 << 20)) * 4][];
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
        if (distinct != null) {
            addDistinct(value, offset, Math.min(length, RevisionPlanner.MAX_BOUNDARY_LENGTH));
        }
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

    /**
     * The values to choose boundaries from (cut to {@link RevisionPlanner#MAX_BOUNDARY_LENGTH}
     * bytes), in no particular order: every distinct value if there were at most the sample size of
     * them ({@link #isExhaustive()}), else the sampled ones.
     */
    public List<byte[]> sample()
    {
        if (distinct != null) {
            List<byte[]> all = new ArrayList<>(distinctCount);
            for (byte[] value : distinct) {
                if (value != null) {
                    all.add(value.clone());
                }
            }
            return all;
        }
        return sample.stream().map(byte[]::clone).toList();
    }

    /** Whether {@link #sample()} holds every distinct value the profile saw. */
    public boolean isExhaustive()
    {
        return distinct != null;
    }

    private void addDistinct(byte[] value, int offset, int length)
    {
        int mask = distinct.length - 1;
        int slot = hash(value, offset, length) & mask;
        while (distinct[slot] != null) {
            byte[] held = distinct[slot];
            if (Arrays.equals(held, 0, held.length, value, offset, offset + length)) {
                return;
            }
            slot = (slot + 1) & mask;
        }
        if (distinctCount == sampleSize) {
            // more distinct values than a sample holds: the sample decides
            distinct = null;
            return;
        }
        distinct[slot] = Arrays.copyOfRange(value, offset, offset + length);
        distinctCount++;
    }

    private static int hash(byte[] value, int offset, int length)
    {
        int hash = 1;
        for (int i = offset; i < offset + length; i++) {
            hash = 31 * hash + value[i];
        }
        // spread the low bits, which pick the slot
        return hash ^ (hash >>> 16) ^ (hash >>> 8);
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

package io.qbeast.index;

/**
 * Uniform 32-bit weights from a seed (SplitMix64), so that tests are deterministic and writers can
 * reproduce a batch. Not thread safe: use one generator per writer.
 */
public final class WeightGenerator
{
    private long state;

    public WeightGenerator(long seed)
    {
        this.state = seed;
    }

    public int next()
    {
        state += 0x9E3779B97F4A7C15L;
        long z = state;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        // the high half of the mixed value is the best mixed
        return (int) ((z ^ (z >>> 31)) >>> 32);
    }

    public void fill(int[] target, int offset, int count)
    {
        if (offset < 0 || count < 0 || offset > target.length - count) {
            throw new IndexOutOfBoundsException("offset %s, count %s, length %s".formatted(offset, count, target.length));
        }
        for (int i = offset; i < offset + count; i++) {
            target[i] = next();
        }
    }
}

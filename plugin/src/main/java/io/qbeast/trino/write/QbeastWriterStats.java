package io.qbeast.trino.write;

import java.util.concurrent.atomic.AtomicLong;

/** Counters of the page sinks of one node's catalog, for diagnostics and tests. */
public class QbeastWriterStats
{
    private final AtomicLong peakSinkMemory = new AtomicLong();
    private final AtomicLong flushes = new AtomicLong();
    private final AtomicLong flushedBytes = new AtomicLong();
    private final AtomicLong filesWritten = new AtomicLong();
    private final AtomicLong rowsWritten = new AtomicLong();
    private final AtomicLong spills = new AtomicLong();
    private final AtomicLong spilledBytes = new AtomicLong();

    /** Records the memory one sink holds at some moment (buffer, index arrays, open file writer). */
    public void recordSinkMemory(long bytes)
    {
        peakSinkMemory.accumulateAndGet(bytes, Math::max);
    }

    /** Records a full buffer (or the rest at finish) handed to the indexer: its buffered bytes. */
    public void recordFlush(long bufferedBytes)
    {
        flushes.incrementAndGet();
        flushedBytes.addAndGet(bufferedBytes);
    }

    /** Records a sorted run written to local disk: its bytes. */
    public void recordSpill(long bytes)
    {
        spills.incrementAndGet();
        spilledBytes.addAndGet(bytes);
    }

    public long getSpills()
    {
        return spills.get();
    }

    public long getSpilledBytes()
    {
        return spilledBytes.get();
    }

    public void recordFile(long rows)
    {
        filesWritten.incrementAndGet();
        rowsWritten.addAndGet(rows);
    }

    /** The most memory any sink held at once since the last {@link #reset()}. */
    public long getPeakSinkMemory()
    {
        return peakSinkMemory.get();
    }

    public long getFlushes()
    {
        return flushes.get();
    }

    /** Bytes of buffered pages indexed so far (the in-memory size of the rows written). */
    public long getFlushedBytes()
    {
        return flushedBytes.get();
    }

    public long getFilesWritten()
    {
        return filesWritten.get();
    }

    public long getRowsWritten()
    {
        return rowsWritten.get();
    }

    public void reset()
    {
        peakSinkMemory.set(0);
        flushes.set(0);
        flushedBytes.set(0);
        filesWritten.set(0);
        rowsWritten.set(0);
        spills.set(0);
        spilledBytes.set(0);
    }
}

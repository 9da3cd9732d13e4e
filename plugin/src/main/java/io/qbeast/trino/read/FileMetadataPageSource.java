package io.qbeast.trino.read;

import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.block.RunLengthEncodedBlock;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.metrics.Metrics;

import java.io.IOException;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.ObjLongConsumer;

import static java.util.Objects.requireNonNull;

/**
 * The pages of a data file's page source with the file metadata columns put in: an output channel
 * is either a channel of the file's pages or one value repeated (the file's {@code $path} or
 * {@code $file_modified_time}). The file's columns stay lazy: a channel is loaded only if asked for.
 */
final class FileMetadataPageSource
        implements ConnectorPageSource
{
    private final ConnectorPageSource delegate;
    private final int[] delegateChannels;
    private final Block[] values;

    /**
     * @param delegateChannels for each output channel, the delegate's channel, or -1 for a value
     * @param values for each output channel with -1, its one-position value block
     */
    FileMetadataPageSource(ConnectorPageSource delegate, int[] delegateChannels, Block[] values)
    {
        this.delegate = requireNonNull(delegate, "delegate is null");
        this.delegateChannels = delegateChannels.clone();
        this.values = values.clone();
    }

    @Override
    public SourcePage getNextSourcePage()
    {
        SourcePage page = delegate.getNextSourcePage();
        return page == null ? null : new WithValues(page, delegateChannels, values);
    }

    @Override
    public long getCompletedBytes()
    {
        return delegate.getCompletedBytes();
    }

    @Override
    public OptionalLong getCompletedPositions()
    {
        return delegate.getCompletedPositions();
    }

    @Override
    public long getReadTimeNanos()
    {
        return delegate.getReadTimeNanos();
    }

    @Override
    public boolean isFinished()
    {
        return delegate.isFinished();
    }

    @Override
    public long getMemoryUsage()
    {
        return delegate.getMemoryUsage();
    }

    @Override
    public CompletableFuture<?> isBlocked()
    {
        return delegate.isBlocked();
    }

    @Override
    public Metrics getMetrics()
    {
        return delegate.getMetrics();
    }

    @Override
    public void close()
            throws IOException
    {
        delegate.close();
    }

    private static final class WithValues
            implements SourcePage
    {
        private final SourcePage page;
        private final int[] delegateChannels;
        private final Block[] values;

        WithValues(SourcePage page, int[] delegateChannels, Block[] values)
        {
            this.page = page;
            this.delegateChannels = delegateChannels;
            this.values = values;
        }

        @Override
        public int getPositionCount()
        {
            return page.getPositionCount();
        }

        @Override
        public long getSizeInBytes()
        {
            return page.getSizeInBytes();
        }

        @Override
        public long getRetainedSizeInBytes()
        {
            return page.getRetainedSizeInBytes();
        }

        @Override
        public void retainedBytesForEachPart(ObjLongConsumer<Object> consumer)
        {
            page.retainedBytesForEachPart(consumer);
        }

        @Override
        public int getChannelCount()
        {
            return delegateChannels.length;
        }

        @Override
        public Block getBlock(int channel)
        {
            int delegateChannel = delegateChannels[channel];
            if (delegateChannel >= 0) {
                return page.getBlock(delegateChannel);
            }
            return RunLengthEncodedBlock.create(values[channel], page.getPositionCount());
        }

        @Override
        public Page getPage()
        {
            Block[] blocks = new Block[delegateChannels.length];
            for (int channel = 0; channel < blocks.length; channel++) {
                blocks[channel] = getBlock(channel);
            }
            return new Page(page.getPositionCount(), blocks);
        }

        @Override
        public void selectPositions(int[] positions, int offset, int size)
        {
            page.selectPositions(positions, offset, size);
        }
    }
}

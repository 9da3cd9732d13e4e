package io.qbeast.trino.parquet;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.airlift.units.DataSize;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.filesystem.TrinoInput;
import io.trino.filesystem.TrinoInputFile;
import io.trino.filesystem.TrinoInputStream;
import io.trino.filesystem.local.LocalFileSystem;
import io.trino.parquet.metadata.ParquetMetadata;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.spi.metrics.Metrics;
import org.apache.iceberg.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;

import static io.airlift.slice.Slices.utf8Slice;
import static io.qbeast.trino.parquet.ParquetTesting.READER_OPTIONS;
import static io.qbeast.trino.parquet.ParquetTesting.column;
import static io.qbeast.trino.parquet.ParquetTesting.schema;
import static io.qbeast.trino.parquet.ParquetTesting.smallRowGroups;
import static io.qbeast.trino.parquet.ParquetTesting.write;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link FooterCache} on real files of the writer: concurrent readers of one file wait for one
 * parse, and the weight bound keeps a footer only if it fits.
 */
class TestFooterCache
{
    private static final int THREADS = 6;

    @TempDir
    Path directory;

    @Test
    void testConcurrentReadersParseOnce()
            throws Exception
    {
        TrinoFileSystem fileSystem = new LocalFileSystem(directory);
        WrittenFile file = writeFile(fileSystem, "concurrent.parquet");
        FooterCache cache = new FooterCache(DataSize.of(64, DataSize.Unit.MEGABYTE));
        TrinoInputFile input = fileSystem.newInputFile(Location.of(file.path()), file.fileSizeInBytes());

        // the footer's read is slow, so every reader asks while the first one parses
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService executor = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<Read>> reads = new ArrayList<>();
            for (int i = 0; i < THREADS; i++) {
                reads.add(executor.submit(() -> {
                    start.await();
                    try (QbeastParquetDataSource dataSource = new QbeastParquetDataSource(new SlowTailFile(input), file.fileSizeInBytes(), READER_OPTIONS)) {
                        return new Read(cache.read(dataSource), dataSource.getMetrics());
                    }
                }));
            }
            start.countDown();
            List<Read> results = new ArrayList<>();
            for (Future<Read> read : reads) {
                results.add(read.get());
            }
            assertThat(results.stream().mapToLong(read -> count(read.metrics(), FooterCache.FOOTERS_PARSED)).sum()).isEqualTo(1);
            assertThat(results.stream().mapToLong(read -> count(read.metrics(), FooterCache.FOOTER_CACHE_HITS)).sum()).isEqualTo(THREADS - 1);
            assertThat(results.stream().map(Read::footer).distinct()).hasSize(1);
            assertThat(results.getFirst().footer().getParquetMetadata().getRow_groups()).hasSizeGreaterThan(5);
        }
        finally {
            executor.shutdownNow();
        }
    }

    @Test
    void testFooterLargerThanTheCacheIsNotKept()
            throws IOException
    {
        TrinoFileSystem fileSystem = new LocalFileSystem(directory);
        WrittenFile file = writeFile(fileSystem, "large.parquet");
        TrinoInputFile input = fileSystem.newInputFile(Location.of(file.path()), file.fileSizeInBytes());
        long weight;
        try (QbeastParquetDataSource dataSource = new QbeastParquetDataSource(input, file.fileSizeInBytes(), READER_OPTIONS)) {
            weight = RetainedFooterSize.of(FooterCache.disabled().read(dataSource));
        }
        // the parsed footer weighs more than its serialized Thrift (a column chunk is a dozen objects)
        long footerLength = footerLength(directory.resolve("large.parquet"));
        assertThat(weight).isGreaterThan(footerLength);

        assertThat(parsedTwice(new FooterCache(DataSize.ofBytes(weight - 1)), input, file)).isTrue();
        assertThat(parsedTwice(new FooterCache(DataSize.ofBytes(weight)), input, file)).isFalse();
        assertThat(parsedTwice(FooterCache.disabled(), input, file)).isTrue();
    }

    // whether a second read of the file parses its footer again
    private static boolean parsedTwice(FooterCache cache, TrinoInputFile input, WrittenFile file)
            throws IOException
    {
        for (int i = 0; i < 2; i++) {
            try (QbeastParquetDataSource dataSource = new QbeastParquetDataSource(input, file.fileSizeInBytes(), READER_OPTIONS)) {
                cache.read(dataSource);
                if (i == 1) {
                    return count(dataSource.getMetrics(), FooterCache.FOOTERS_PARSED) == 1;
                }
            }
        }
        throw new AssertionError();
    }

    private static WrittenFile writeFile(TrinoFileSystem fileSystem, String name)
    {
        Schema schema = schema(ImmutableList.of(column("id", BIGINT), column("s", VARCHAR)));
        List<List<Object>> rows = IntStream.range(0, 5000)
                .mapToObj(i -> List.<Object>of((long) i, utf8Slice("value " + i)))
                .toList();
        return write(fileSystem, Location.of("local:///" + name), schema, ImmutableList.of(BIGINT, VARCHAR), rows, smallRowGroups(), ImmutableMap.of());
    }

    // the serialized footer's length, from the file's last 8 bytes
    private static long footerLength(Path file)
            throws IOException
    {
        byte[] bytes = Files.readAllBytes(file);
        return ByteBuffer.wrap(bytes, bytes.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
    }

    private static long count(Metrics metrics, String name)
    {
        return ((LongCount) metrics.getMetrics().get(name)).getTotal();
    }

    private record Read(ParquetMetadata footer, Metrics metrics) {}

    /** A real file whose tail (the footer) takes a while to read. */
    private record SlowTailFile(TrinoInputFile file)
            implements TrinoInputFile
    {
        @Override
        public TrinoInput newInput()
                throws IOException
        {
            TrinoInput input = file.newInput();
            return new TrinoInput()
            {
                @Override
                public void readFully(long position, byte[] buffer, int bufferOffset, int bufferLength)
                        throws IOException
                {
                    input.readFully(position, buffer, bufferOffset, bufferLength);
                }

                @Override
                public int readTail(byte[] buffer, int bufferOffset, int bufferLength)
                        throws IOException
                {
                    try {
                        Thread.sleep(500);
                    }
                    catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IOException(e);
                    }
                    return input.readTail(buffer, bufferOffset, bufferLength);
                }

                @Override
                public void close()
                        throws IOException
                {
                    input.close();
                }
            };
        }

        @Override
        public TrinoInputStream newStream()
                throws IOException
        {
            return file.newStream();
        }

        @Override
        public long length()
                throws IOException
        {
            return file.length();
        }

        @Override
        public Instant lastModified()
                throws IOException
        {
            return file.lastModified();
        }

        @Override
        public boolean exists()
                throws IOException
        {
            return file.exists();
        }

        @Override
        public Location location()
        {
            return file.location();
        }
    }
}

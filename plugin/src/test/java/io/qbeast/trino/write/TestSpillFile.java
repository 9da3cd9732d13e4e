package io.qbeast.trino.write;

import io.airlift.slice.Slices;
import io.qbeast.trino.write.RunTesting.Batch;
import io.qbeast.trino.write.RunTesting.Source;
import io.trino.spi.Page;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.LongArrayBlock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import static io.qbeast.trino.write.RunTesting.SERDE;
import static io.qbeast.trino.write.RunTesting.spill;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestSpillFile
{
    @TempDir
    Path directory;

    @Test
    void testWriteReadAndDeleteInMissingDirectory()
    {
        Path missing = directory.resolve("a").resolve("b");
        assertThat(missing).doesNotExist();
        SpillFile file = SpillFile.create(missing, "query-1-", SERDE);
        assertThat(missing).isDirectory();
        assertThat(file.path()).exists().hasParent(missing);
        assertThat(file.path().getFileName().toString()).startsWith("query-1-").endsWith(".spill");

        // one page far above the 64 kB buffers of the file, to read across buffer boundaries
        List<Page> pages = List.of(page(0, 10), page(10, 3000), page(3010, 1), page(3011, 0));
        int[] cubes = {0, 0, 5, 7};
        for (int i = 0; i < pages.size(); i++) {
            file.write(cubes[i], pages.get(i));
        }
        long size = file.finishWriting();
        assertThat(size).isEqualTo(fileSize(file.path())).isGreaterThan(4L * 64 * 1024);
        assertThatThrownBy(() -> file.write(0, page(0, 1))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(file::finishWriting).isInstanceOf(IllegalStateException.class);

        try (SpillFile.Reader reader = file.reader()) {
            for (int i = 0; i < pages.size(); i++) {
                assertThat(reader.next()).isTrue();
                assertThat(reader.cube()).isEqualTo(cubes[i]);
                assertSamePage(reader.page(), pages.get(i));
            }
            assertThat(reader.next()).isFalse();
            assertThat(reader.page()).isNull();
        }
        file.close();
        assertThat(file.path()).doesNotExist();
        // twice: harmless
        file.close();
        assertThat(file.path()).doesNotExist();
        assertThatThrownBy(file::reader).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void testCloseWithoutReading()
    {
        SpillFile file = SpillFile.create(directory, "unread-", SERDE);
        file.write(3, page(0, 100));
        file.finishWriting();
        assertThat(file.path()).exists();
        file.close();
        assertThat(file.path()).doesNotExist();
        file.close();
        assertThat(files(directory)).isEmpty();
    }

    @Test
    void testCloseWhileWriting()
    {
        SpillFile file = SpillFile.create(directory, "writing-", SERDE);
        file.write(0, page(0, 100));
        file.close();
        assertThat(file.path()).doesNotExist();
        assertThatThrownBy(() -> file.write(0, page(0, 1))).isInstanceOf(IllegalStateException.class);
        file.close();
        assertThat(files(directory)).isEmpty();
    }

    @Test
    void testCloseWithReaderOpen()
    {
        SpillFile file = SpillFile.create(directory, "reading-", SERDE);
        file.write(0, page(0, 100));
        file.write(1, page(100, 100));
        file.finishWriting();
        SpillFile.Reader reader = file.reader();
        assertThat(reader.next()).isTrue();
        file.close();
        reader.close();
        assertThat(files(directory)).isEmpty();
    }

    @Test
    void testEmptyFile()
    {
        SpillFile file = SpillFile.create(directory, "empty-", SERDE);
        assertThat(file.finishWriting()).isEqualTo(Integer.BYTES);
        try (SpillFile.Reader reader = file.reader()) {
            assertThat(reader.next()).isFalse();
        }
        file.close();
        assertThat(files(directory)).isEmpty();
    }

    @Test
    void testDistinctFilesForOnePrefix()
    {
        SpillFile first = SpillFile.create(directory, "same-", SERDE);
        SpillFile second = SpillFile.create(directory, "same-", SERDE);
        assertThat(first.path()).isNotEqualTo(second.path());
        first.close();
        assertThat(second.path()).exists();
        second.close();
        assertThat(files(directory)).isEmpty();
    }

    @Test
    void testDirectoryIsAFile()
            throws IOException
    {
        Path file = Files.createFile(directory.resolve("not-a-directory"));
        assertThatThrownBy(() -> SpillFile.create(file, "x-", SERDE))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining(file.toString());
        assertThatThrownBy(() -> SpillFile.create(file.resolve("below"), "x-", SERDE))
                .isInstanceOf(UncheckedIOException.class);
    }

    @Test
    void testSpilledRunCloseAfterReading()
    {
        Batch batch = new Source(51, 100).addBatch(500);
        SpilledRun run = spill(batch.run(), directory, 20);
        assertThat(run.path()).exists();
        SortedRun.Cursor cursor = run.cursor();
        long rows = 0;
        while (cursor.advance()) {
            rows++;
        }
        assertThat(rows).isEqualTo(500);
        assertThat(run.retainedBytes()).isPositive();
        run.close();
        assertThat(run.path()).doesNotExist();
        run.close();
        assertThat(files(directory)).isEmpty();
    }

    @Test
    void testSpilledRunClosePartlyRead()
    {
        Batch batch = new Source(52, 100).addBatch(500);
        SpilledRun run = spill(batch.run(), directory, 20);
        SortedRun.Cursor cursor = run.cursor();
        for (int i = 0; i < 30; i++) {
            assertThat(cursor.advance()).isTrue();
        }
        run.close();
        run.close();
        assertThat(files(directory)).isEmpty();
    }

    @Test
    void testSpilledRunCloseWithoutReading()
    {
        Batch batch = new Source(53, 100).addBatch(500);
        SpilledRun run = spill(batch.run(), directory, 20);
        assertThat(run.path()).exists();
        assertThat(run.fileBytes()).isEqualTo(fileSize(run.path()));
        run.close();
        assertThat(run.path()).doesNotExist();
        run.close();
        assertThat(files(directory)).isEmpty();
    }

    @Test
    void testSpillFailureDeletesFile()
    {
        Batch batch = new Source(54, 100).addBatch(300);
        // the id channel (bigint) declared as varchar: gathering it fails half-way through the spill
        assertThatThrownBy(() -> SpilledRun.spill(batch.run(), List.of(VARCHAR, VARCHAR, RunTesting.ARRAY_BIGINT), directory, "failing-", SERDE, 20))
                .isInstanceOf(RuntimeException.class);
        assertThat(files(directory)).isEmpty();
    }

    private static Page page(long firstId, int rows)
    {
        long[] ids = new long[rows];
        BlockBuilder payloads = VARCHAR.createBlockBuilder(null, rows);
        BlockBuilder weights = INTEGER.createBlockBuilder(null, rows);
        for (int i = 0; i < rows; i++) {
            ids[i] = firstId + i;
            if (i % 11 == 3) {
                payloads.appendNull();
            }
            else {
                VARCHAR.writeSlice(payloads, Slices.utf8Slice(("row " + ids[i] + " ").repeat(10)));
            }
            int weight = (int) (ids[i] * 2654435761L);
            INTEGER.writeLong(weights, weight);
        }
        return new Page(rows, new LongArrayBlock(rows, Optional.empty(), ids), payloads.build(), weights.build());
    }

    private static void assertSamePage(Page actual, Page expected)
    {
        assertThat(actual.getPositionCount()).isEqualTo(expected.getPositionCount());
        assertThat(actual.getChannelCount()).isEqualTo(expected.getChannelCount());
        for (int position = 0; position < expected.getPositionCount(); position++) {
            assertThat(BIGINT.getLong(actual.getBlock(0), position)).isEqualTo(BIGINT.getLong(expected.getBlock(0), position));
            assertThat(actual.getBlock(1).isNull(position)).isEqualTo(expected.getBlock(1).isNull(position));
            if (!expected.getBlock(1).isNull(position)) {
                assertThat(VARCHAR.getSlice(actual.getBlock(1), position)).isEqualTo(VARCHAR.getSlice(expected.getBlock(1), position));
            }
            assertThat(INTEGER.getInt(actual.getBlock(2), position)).isEqualTo(INTEGER.getInt(expected.getBlock(2), position));
        }
    }

    private static long fileSize(Path path)
    {
        try {
            return Files.size(path);
        }
        catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static List<Path> files(Path directory)
    {
        try (Stream<Path> files = Files.list(directory)) {
            return files.toList();
        }
        catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}

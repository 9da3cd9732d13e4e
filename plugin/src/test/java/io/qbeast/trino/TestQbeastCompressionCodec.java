package io.qbeast.trino;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.qbeast.trino.config.QbeastCompressionCodec;
import io.qbeast.trino.encoding.TypeConverter;
import io.qbeast.trino.handle.QbeastColumnHandle;
import io.qbeast.trino.parquet.QbeastPageSourceFactory;
import io.qbeast.trino.parquet.QbeastParquetFileWriter;
import io.qbeast.trino.parquet.WrittenFile;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.filesystem.local.LocalFileSystemFactory;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.parquet.writer.ParquetWriterOptions;
import io.trino.spi.Page;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.security.ConnectorIdentity;
import org.apache.iceberg.Schema;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.Util;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static io.airlift.slice.Slices.utf8Slice;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;

/** Every {@code qbeast.compression-codec} writes files that trino-parquet reads back. */
class TestQbeastCompressionCodec
{
    @TempDir
    Path root;

    @ParameterizedTest
    @EnumSource(QbeastCompressionCodec.class)
    void testRoundTrip(QbeastCompressionCodec codec)
            throws Exception
    {
        TrinoFileSystem fileSystem = new LocalFileSystemFactory(root).create(ConnectorIdentity.ofUser("test"));
        Schema schema = TypeConverter.toIcebergSchema(List.of(new ColumnMetadata("k", BIGINT), new ColumnMetadata("v", VARCHAR)));
        int rows = 5000;
        BlockBuilder keys = BIGINT.createBlockBuilder(null, rows);
        BlockBuilder values = VARCHAR.createBlockBuilder(null, rows);
        for (int row = 0; row < rows; row++) {
            BIGINT.writeLong(keys, row);
            VARCHAR.writeSlice(values, utf8Slice("value " + (row % 17)));
        }
        Location location = Location.of("local:///" + codec + ".parquet");
        QbeastParquetFileWriter writer = new QbeastParquetFileWriter(fileSystem, location, schema, ImmutableList.of(BIGINT, VARCHAR), ParquetWriterOptions.builder().build(), codec.parquetCodec(), ImmutableMap.of());
        writer.appendPage(new Page(keys.build(), values.build()));
        WrittenFile file = writer.commit();
        assertThat(file.recordCount()).isEqualTo(rows);

        // the footer names the codec
        byte[] bytes = Files.readAllBytes(root.resolve(codec + ".parquet"));
        int footerLength = ByteBuffer.wrap(bytes, bytes.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        FileMetaData footer = Util.readFileMetaData(new ByteArrayInputStream(bytes, bytes.length - 8 - footerLength, footerLength));
        assertThat(footer.getRow_groups().getFirst().getColumns().getFirst().getMeta_data().getCodec()).isEqualTo(codec.parquetCodec());

        List<Long> readKeys = new ArrayList<>();
        List<String> readValues = new ArrayList<>();
        try (ConnectorPageSource source = new QbeastPageSourceFactory().createPageSource(
                fileSystem.newInputFile(location),
                0,
                file.fileSizeInBytes(),
                file.fileSizeInBytes(),
                List.of(new QbeastColumnHandle("k", schema.findField("k").fieldId(), BIGINT, false), new QbeastColumnHandle("v", schema.findField("v").fieldId(), VARCHAR, false)),
                TupleDomain.all(),
                QbeastPageSourceFactory.NO_SAMPLING,
                ParquetReaderOptions.defaultOptions())) {
            while (!source.isFinished()) {
                SourcePage page = source.getNextSourcePage();
                if (page != null) {
                    for (int position = 0; position < page.getPositionCount(); position++) {
                        readKeys.add(BIGINT.getLong(page.getBlock(0), position));
                        readValues.add(VARCHAR.getSlice(page.getBlock(1), position).toStringUtf8());
                    }
                }
            }
        }
        assertThat(readKeys).hasSize(rows);
        for (int row = 0; row < rows; row++) {
            assertThat(readKeys.get(row)).isEqualTo(row);
            assertThat(readValues.get(row)).isEqualTo("value " + (row % 17));
        }
    }
}

package io.qbeast.trino.config;

import org.apache.parquet.format.CompressionCodec;

/**
 * Parquet compression of data files ({@code qbeast.compression-codec}).
 *
 * <p>No LZ4: trino-parquet 476 writes LZ4 blocks without the Hadoop framing its own reader
 * expects for {@code LZ4} (the files do not read back), and cannot write {@code LZ4_RAW}; Trino's
 * Iceberg connector rejects LZ4 for Parquet for the same reason.
 */
public enum QbeastCompressionCodec
{
    NONE(CompressionCodec.UNCOMPRESSED),
    SNAPPY(CompressionCodec.SNAPPY),
    ZSTD(CompressionCodec.ZSTD),
    GZIP(CompressionCodec.GZIP);

    private final CompressionCodec parquetCodec;

    QbeastCompressionCodec(CompressionCodec parquetCodec)
    {
        this.parquetCodec = parquetCodec;
    }

    public CompressionCodec parquetCodec()
    {
        return parquetCodec;
    }
}

package io.qbeast.trino.error;

import io.trino.spi.ErrorCode;
import io.trino.spi.ErrorCodeSupplier;
import io.trino.spi.ErrorType;

import static io.trino.spi.ErrorType.EXTERNAL;
import static io.trino.spi.ErrorType.INTERNAL_ERROR;

/**
 * Error codes of the qbeast connector. Codes are {@code 0x0520_0000 + ordinal}: append new
 * entries at the end, never reorder (the numbers show up in clients and logs).
 */
public enum QbeastErrorCode
        implements ErrorCodeSupplier
{
    /** A data file is unreadable or not what its metadata says (corrupt, truncated, wrong schema). */
    QBEAST_BAD_DATA(0, EXTERNAL),
    /** Reading a data file failed midway (I/O or decoding). */
    QBEAST_CURSOR_ERROR(1, EXTERNAL),
    /** Writing a data file failed. */
    QBEAST_WRITER_ERROR(2, EXTERNAL),
    /** Committing to the Iceberg catalog failed. */
    QBEAST_COMMIT_ERROR(3, EXTERNAL),
    /** The file system refused an operation (open, create, delete, list). */
    QBEAST_FILESYSTEM_ERROR(4, EXTERNAL),
    /** Table metadata (Iceberg or qbeast properties) is missing or inconsistent. */
    QBEAST_INVALID_METADATA(5, EXTERNAL),
    /** A bug in the connector: an invariant of our own code broke. */
    QBEAST_INTERNAL_ERROR(6, INTERNAL_ERROR);

    private final ErrorCode errorCode;

    QbeastErrorCode(int code, ErrorType type)
    {
        errorCode = new ErrorCode(code + 0x0520_0000, name(), type);
    }

    @Override
    public ErrorCode toErrorCode()
    {
        return errorCode;
    }
}

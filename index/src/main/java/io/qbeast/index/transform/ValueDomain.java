package io.qbeast.index.transform;

/**
 * The kinds of values a transformation accepts. The index knows no SQL types: the connector maps
 * each column type onto one of these domains (see {@code index/README.md}, "Value domains").
 */
public enum ValueDomain
{
    /** Signed 64-bit integers in their natural order. */
    LONG,
    /** Doubles ordered as SQL orders them: -Infinity < finite < +Infinity < NaN, and -0.0 == 0.0. */
    DOUBLE,
    /** Byte strings ordered by unsigned lexicographic comparison (UTF-8 text keeps its code point order). */
    BYTES,
    /** false < true. */
    BOOLEAN,
}

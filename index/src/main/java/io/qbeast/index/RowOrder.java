package io.qbeast.index;

import java.util.Arrays;
import java.util.function.IntUnaryOperator;

/**
 * The point order of a slice that {@link FileLayout} cuts into point parts (the rest of a large
 * cube), and of each packed cube's rows past its weight head: the rows of each cube in the order of their points, the first
 * indexed column most significant, then the second, then input (weight) order — a
 * {@code sorted_by} of the leading indexed columns inside each cube. Consecutive runs of this order
 * are the parts' row groups, so each covers a narrow range of the first indexed column, which
 * row-group statistics prune by; the column also compresses to runs. Measured on the SSB flat
 * table (sf0.3, 6 indexed columns): {@code lo_orderdate} took 3.03 MB in weight order, 1.80 MB in
 * point order.
 * <p>
 * The order key quantizes the first coordinate to {@value #FIRST_BITS} bits and the second to
 * {@value #SECOND_BITS} (finer than any cube a table reaches), and keeps the row's place in the
 * input below them, so ties keep the input order (weight order).
 */
public final class RowOrder
{
    /** The leading dimensions the order looks at; a caller needs the coordinates of these only. */
    public static final int ORDER_DIMENSIONS = 2;
    static final int FIRST_BITS = 24;
    static final int SECOND_BITS = 16;
    private static final int INDEX_BITS = Long.SIZE - 1 - FIRST_BITS - SECOND_BITS;
    /** A run of more rows than this stays in input order (a key has no room for its indexes). */
    static final int MAX_SORTED_RUN = 1 << INDEX_BITS;

    private RowOrder() {}

    /**
     * The order of rows {@code [0, rows)}: grouped by cube (ascending {@code cubeOfRow}, as the
     * cubes of a row group are in pre-order), inside a cube by point.
     *
     * @param cubeOfRow the cube of each row, as an ordinal that ascends in cube order
     * @param coordinates row-major coordinates in [0, 1], {@code dimensions} per row (at most
     * {@link #ORDER_DIMENSIONS} are looked at)
     * @return row indexes in their new order
     */
    public static int[] order(int[] cubeOfRow, double[] coordinates, int dimensions, int rows)
    {
        return order(cubeOfRow, coordinates, dimensions, rows, _ -> 0);
    }

    /**
     * As {@link #order(int[], double[], int, int)}, but the first {@code headRows} rows of each
     * cube (given the cube's row count) keep their input order: a packed cube's weight head,
     * which samples read, stays in ascending weight before the rest of the cube in point order
     * ({@link FileLayout#weightOrderedRows}).
     */
    public static int[] order(int[] cubeOfRow, double[] coordinates, int dimensions, int rows, IntUnaryOperator headRows)
    {
        if (dimensions < 1 || cubeOfRow.length < rows || coordinates.length < (long) rows * dimensions) {
            throw new IllegalArgumentException("%s rows of %s dimensions do not fit %s cubes and %s coordinates".formatted(rows, dimensions, cubeOfRow.length, coordinates.length));
        }
        int[] order = byCube(cubeOfRow, rows);
        long[] keys = new long[0];
        int start = 0;
        while (start < rows) {
            int end = start + 1;
            while (end < rows && cubeOfRow[order[end]] == cubeOfRow[order[start]]) {
                end++;
            }
            int head = Math.clamp(headRows.applyAsInt(end - start), 0, end - start);
            int sortedStart = start + head;
            int length = end - sortedStart;
            if (length > 1 && length <= MAX_SORTED_RUN) {
                if (keys.length < length) {
                    keys = new long[Math.max(length, Math.min(rows, 2 * keys.length))];
                }
                for (int i = 0; i < length; i++) {
                    int row = order[sortedStart + i];
                    double second = dimensions > 1 ? coordinates[row * dimensions + 1] : 0;
                    keys[i] = quantize(coordinates[row * dimensions], FIRST_BITS) << (SECOND_BITS + INDEX_BITS)
                            | quantize(second, SECOND_BITS) << INDEX_BITS
                            | i;
                }
                Arrays.sort(keys, 0, length);
                int[] run = Arrays.copyOfRange(order, sortedStart, end);
                for (int i = 0; i < length; i++) {
                    order[sortedStart + i] = run[(int) (keys[i] & (MAX_SORTED_RUN - 1))];
                }
            }
            start = end;
        }
        return order;
    }

    // a stable grouping by cube ordinal; already grouped in the common case of one cube
    private static int[] byCube(int[] cubeOfRow, int rows)
    {
        int[] order = new int[rows];
        boolean grouped = true;
        for (int row = 0; row < rows; row++) {
            order[row] = row;
            grouped &= row == 0 || cubeOfRow[row - 1] <= cubeOfRow[row];
        }
        if (grouped) {
            return order;
        }
        // cube ordinal in the high half, row below: a primitive sort that keeps ties in input order
        long[] keys = new long[rows];
        for (int row = 0; row < rows; row++) {
            keys[row] = (long) cubeOfRow[row] << 32 | row;
        }
        Arrays.sort(keys);
        for (int row = 0; row < rows; row++) {
            order[row] = (int) keys[row];
        }
        return order;
    }

    private static long quantize(double coordinate, int bits)
    {
        long scale = 1L << bits;
        // NaN and out-of-range coordinates (never produced by a transformation) sort at the ends
        long value = (long) Math.floor(coordinate * scale);
        return Math.clamp(value, 0, scale - 1);
    }
}

package io.qbeast.trino.parquet;

import io.qbeast.trino.handle.QbeastColumnHandle;

import java.util.Arrays;
import java.util.List;
import java.util.Set;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * The rows of one data file that delete files remove, as {@link DeleteFileReader} loaded them:
 * file row positions (from position deletes) and sets of column values (from equality deletes).
 * {@link QbeastPageSourceFactory} binds them to the reader's channels ({@link DeleteFilter}).
 *
 * @param positions deleted row positions of the file (0-based, counted over the whole file), ascending and distinct
 */
public record DeletedRows(long[] positions, List<EqualityDeletes> equalityDeletes)
{
    public static final DeletedRows NONE = new DeletedRows(new long[0], List.of());

    public DeletedRows
    {
        requireNonNull(positions, "positions is null");
        for (int i = 1; i < positions.length; i++) {
            checkArgument(positions[i - 1] < positions[i], "positions are not ascending and distinct");
        }
        equalityDeletes = List.copyOf(requireNonNull(equalityDeletes, "equalityDeletes is null"));
    }

    public boolean isEmpty()
    {
        return positions.length == 0 && equalityDeletes.isEmpty();
    }

    public boolean hasPositions()
    {
        return positions.length > 0;
    }

    @Override
    public boolean equals(Object other)
    {
        return other instanceof DeletedRows that && Arrays.equals(positions, that.positions) && equalityDeletes.equals(that.equalityDeletes);
    }

    @Override
    public int hashCode()
    {
        return 31 * Arrays.hashCode(positions) + equalityDeletes.hashCode();
    }

    @Override
    public String toString()
    {
        return "DeletedRows[%s positions, %s equality sets]".formatted(positions.length, equalityDeletes.size());
    }

    /**
     * A row is deleted when its values of {@code columns} equal one of {@code keys} (each key the
     * columns' native Trino values in order; a null matches a null, as Iceberg's equality deletes do).
     */
    public record EqualityDeletes(List<QbeastColumnHandle> columns, Set<List<Object>> keys)
    {
        public EqualityDeletes
        {
            columns = List.copyOf(requireNonNull(columns, "columns is null"));
            requireNonNull(keys, "keys is null");
            checkArgument(!columns.isEmpty(), "no equality columns");
        }
    }
}

package io.qbeast.index;

import io.qbeast.index.transform.Transformation;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * The space one OTree indexes: the indexed columns in order (dimension {@code j} is
 * {@code columns().get(j)}), each with the transformation mapping its values to [0, 1), the
 * desired cube size, and an id.
 *
 * <p>Revisions are immutable and identified by content: {@link #create} derives the id from the
 * canonical JSON of the columns and the cube size, so writers that independently choose the same
 * bounds (see {@link RevisionPlanner}) produce the same id. The JSON form ({@link #toJson()}) is
 * what the table properties store; its format is documented in {@code index/README.md}. It is read
 * back outside the index, by {@code io.qbeast.iceberg.RevisionJsonReader}: parsing JSON takes a
 * library, and the index depends on none.
 */
public record Revision(long id, List<IndexedColumn> columns, long cubeSize)
{
    public Revision
    {
        if (id < 0) {
            throw new IllegalArgumentException("Revision id must not be negative: " + id);
        }
        columns = validateColumns(columns);
        validateCubeSize(cubeSize);
    }

    /**
     * A revision whose id is the content hash of the columns and cube size: a positive 63-bit
     * number taken from the SHA-256 of the canonical JSON without the id.
     */
    public static Revision create(List<IndexedColumn> columns, long cubeSize)
    {
        List<IndexedColumn> validated = validateColumns(columns);
        validateCubeSize(cubeSize);
        return new Revision(CanonicalRevisionJson.contentId(validated, cubeSize), validated, cubeSize);
    }

    /** The canonical JSON, as the table properties store it: {@link #create} hashes the same text. */
    public String toJson()
    {
        return CanonicalRevisionJson.write(this);
    }

    public int dimensions()
    {
        return columns.size();
    }

    public IndexedColumn column(int dimension)
    {
        return columns.get(dimension);
    }

    public Transformation transformation(int dimension)
    {
        return columns.get(dimension).transformation();
    }

    private static List<IndexedColumn> validateColumns(List<IndexedColumn> columns)
    {
        requireNonNull(columns, "columns is null");
        List<IndexedColumn> copy = List.copyOf(columns);
        if (copy.isEmpty()) {
            throw new IllegalArgumentException("A revision needs at least one indexed column");
        }
        Set<String> names = new HashSet<>();
        for (IndexedColumn column : copy) {
            if (!names.add(column.name())) {
                throw new IllegalArgumentException("Column indexed twice: " + column.name());
            }
        }
        return copy;
    }

    private static void validateCubeSize(long cubeSize)
    {
        if (cubeSize <= 0) {
            throw new IllegalArgumentException("Cube size must be positive: " + cubeSize);
        }
    }
}

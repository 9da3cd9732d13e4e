package io.qbeast.iceberg;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.common.base.Splitter;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import org.apache.iceberg.TableProperties;

import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * The qbeast entries of an Iceberg table's properties:
 * <ul>
 *   <li>{@code qbeast.indexed-columns}: JSON array of the indexed column names, in index order;</li>
 *   <li>{@code qbeast.cube-size}: desired rows per cube;</li>
 *   <li>{@code qbeast.revision.<id>}: a revision's JSON ({@code Revision.toJson});</li>
 *   <li>{@code qbeast.revisions}: the revision ids in the order they were committed, comma
 *       separated; the last one is the current revision.</li>
 * </ul>
 */
public final class QbeastTableProperties
{
    public static final String INDEXED_COLUMNS = "qbeast.indexed-columns";
    public static final String CUBE_SIZE = "qbeast.cube-size";
    public static final String REVISION_PREFIX = "qbeast.revision.";
    public static final String REVISIONS = "qbeast.revisions";

    public static final String WEIGHT_COLUMN = "_qbeast_weight";
    public static final String CUBE_COLUMN = "_qbeast_cube";

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Splitter COMMA = Splitter.on(',').omitEmptyStrings().trimResults();

    private QbeastTableProperties() {}

    /** Properties of a new qbeast table (no revision yet: the first write chooses it). */
    public static Map<String, String> newTableProperties(List<String> indexedColumns, long cubeSize)
    {
        return ImmutableMap.<String, String>builder()
                .put(INDEXED_COLUMNS, toJson(indexedColumns))
                .put(CUBE_SIZE, Long.toString(cubeSize))
                .put(TableProperties.FORMAT_VERSION, "2")
                .put(TableProperties.DEFAULT_FILE_FORMAT, "parquet")
                // the block metadata are the bounds of these columns: keep them whole
                .put(TableProperties.METRICS_MODE_COLUMN_CONF_PREFIX + CUBE_COLUMN, "full")
                .put(TableProperties.METRICS_MODE_COLUMN_CONF_PREFIX + WEIGHT_COLUMN, "full")
                // concurrent writers of one table: let Iceberg re-apply an append a few more times
                .put(TableProperties.COMMIT_NUM_RETRIES, "10")
                .buildOrThrow();
    }

    public static boolean isQbeastTable(Map<String, String> properties)
    {
        return properties.containsKey(INDEXED_COLUMNS);
    }

    public static List<String> indexedColumns(Map<String, String> properties)
    {
        String json = properties.get(INDEXED_COLUMNS);
        if (json == null) {
            return ImmutableList.of();
        }
        try {
            return ImmutableList.copyOf(MAPPER.readValue(json, new TypeReference<List<String>>() {}));
        }
        catch (JsonProcessingException e) {
            throw new IllegalArgumentException("Invalid " + INDEXED_COLUMNS + ": " + json, e);
        }
    }

    public static OptionalLong cubeSize(Map<String, String> properties)
    {
        String value = properties.get(CUBE_SIZE);
        if (value == null) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(value.trim()));
        }
        catch (NumberFormatException e) {
            throw new IllegalArgumentException("Invalid " + CUBE_SIZE + ": " + value, e);
        }
    }

    /** Revision ids in commit order (the last is the current revision). */
    public static List<Long> revisionIds(Map<String, String> properties)
    {
        String value = properties.get(REVISIONS);
        if (value == null) {
            return ImmutableList.of();
        }
        try {
            return COMMA.splitToStream(value).map(Long::parseLong).collect(ImmutableList.toImmutableList());
        }
        catch (NumberFormatException e) {
            throw new IllegalArgumentException("Invalid " + REVISIONS + ": " + value, e);
        }
    }

    public static String revisionKey(long revisionId)
    {
        return REVISION_PREFIX + revisionId;
    }

    public static Optional<String> revisionJson(Map<String, String> properties, long revisionId)
    {
        return Optional.ofNullable(properties.get(revisionKey(revisionId)));
    }

    /** The JSON of the current (last committed) revision, if the table has one. */
    public static Optional<String> currentRevisionJson(Map<String, String> properties)
    {
        List<Long> ids = revisionIds(properties);
        if (ids.isEmpty()) {
            return Optional.empty();
        }
        long current = ids.getLast();
        return Optional.of(revisionJson(properties, current)
                .orElseThrow(() -> new IllegalStateException("Table property %s lists revision %s but %s is missing".formatted(REVISIONS, current, revisionKey(current)))));
    }

    /** {@code existing} followed by the ids of {@code added} it does not hold yet, in order. */
    public static String mergeRevisionIds(Map<String, String> existing, Collection<Long> added)
    {
        Set<Long> ids = new LinkedHashSet<>(revisionIds(existing));
        ids.addAll(added);
        List<String> values = new ArrayList<>(ids.size());
        ids.forEach(id -> values.add(Long.toString(id)));
        return String.join(",", values);
    }

    private static String toJson(List<String> values)
    {
        requireNonNull(values, "values is null");
        try {
            return MAPPER.writeValueAsString(values);
        }
        catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}

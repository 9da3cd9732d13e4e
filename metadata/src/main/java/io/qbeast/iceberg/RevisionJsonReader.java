package io.qbeast.iceberg;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import io.qbeast.index.IndexedColumn;
import io.qbeast.index.Revision;
import io.qbeast.index.transform.BooleanTransformation;
import io.qbeast.index.transform.DoubleLinearTransformation;
import io.qbeast.index.transform.HashTransformation;
import io.qbeast.index.transform.LongLinearTransformation;
import io.qbeast.index.transform.OrderedBytesTransformation;
import io.qbeast.index.transform.Transformation;
import io.qbeast.index.transform.ValueDomain;

import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * Reads the JSON form of a {@link Revision}: what a {@code qbeast.revision.<id>} table property
 * holds and {@link Revision#toJson()} writes (the format is documented in {@code index/README.md}).
 * The index writes revisions itself, because their content id hashes the canonical text, but it
 * has no dependencies, so the parsing is done here, with Jackson's tree model.
 *
 * <p>Reading is strict: every field is required, unknown or duplicate fields are errors, and
 * numbers must fit their field exactly (integers as integer literals within 64 bits, doubles
 * finite), because a misread transformation would silently misplace data. Key order and whitespace
 * are free. The stored id is kept as is, not recomputed, so revisions built with explicit ids
 * round-trip too. Every error is an {@link IllegalArgumentException} starting
 * {@code Invalid revision JSON:} and naming the field ({@code columns[0].transformation.min}), or,
 * for text that is not JSON, the parser's complaint and the offset.
 */
public final class RevisionJsonReader
{
    // a revision nests 5 deep; the bound stops a hostile property from exhausting the stack
    private static final int MAX_DEPTH = 32;

    private static final ObjectMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build())
                    .build())
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private RevisionJsonReader() {}

    /**
     * @throws IllegalArgumentException if the text is not JSON or not a valid revision; the
     *         message names what is wrong
     */
    public static Revision read(String json)
    {
        requireNonNull(json, "json is null");
        JsonNode root = object(parse(json), "revision");
        requireFields(root, "", Set.of("id", "cubeSize", "columns"));
        long id = longField(root, "", "id");
        long cubeSize = longField(root, "", "cubeSize");
        JsonNode columnValues = array(root.get("columns"), "columns");
        List<IndexedColumn> columns = new ArrayList<>(columnValues.size());
        for (int i = 0; i < columnValues.size(); i++) {
            columns.add(readColumn(columnValues.get(i), "columns[" + i + "]"));
        }
        try {
            return new Revision(id, columns, cubeSize);
        }
        catch (IllegalArgumentException e) {
            // well-formed columns the revision rejects as a whole, such as a column indexed twice
            throw new IllegalArgumentException("Invalid revision JSON: " + e.getMessage(), e);
        }
    }

    private static JsonNode parse(String json)
    {
        try {
            JsonNode root = MAPPER.readValue(json, JsonNode.class);
            // the document "null" may bind to no node at all
            return root == null ? NullNode.getInstance() : root;
        }
        catch (JsonProcessingException e) {
            // the original message leaves out Jackson's location, which would name the source as REDACTED
            JsonLocation location = e.getLocation();
            String where = location == null || location.getCharOffset() < 0 ? "" : " at offset " + location.getCharOffset();
            throw new InvalidRevisionJson(e.getOriginalMessage() + where);
        }
    }

    private static IndexedColumn readColumn(JsonNode value, String path)
    {
        JsonNode column = object(value, path);
        requireFields(column, path, Set.of("name", "transformation"));
        String name = string(column.get("name"), path + ".name");
        if (name.isEmpty()) {
            throw invalid(path + ".name", "must not be empty");
        }
        return new IndexedColumn(name, readTransformation(column.get("transformation"), path + ".transformation"));
    }

    private static Transformation readTransformation(JsonNode value, String path)
    {
        JsonNode transformation = object(value, path);
        if (!transformation.has("type")) {
            throw invalid(path + ".type", "is missing");
        }
        if (!transformation.has("domain")) {
            throw invalid(path + ".domain", "is missing");
        }
        String type = string(transformation.get("type"), path + ".type");
        ValueDomain domain = domain(string(transformation.get("domain"), path + ".domain"), path + ".domain");
        try {
            return switch (type) {
                case "linear" -> {
                    requireFields(transformation, path, Set.of("type", "domain", "min", "max"));
                    yield switch (domain) {
                        case LONG -> new LongLinearTransformation(longField(transformation, path, "min"), longField(transformation, path, "max"));
                        case DOUBLE -> new DoubleLinearTransformation(doubleField(transformation, path, "min"), doubleField(transformation, path, "max"));
                        default -> throw invalid(path + ".domain", "must be long or double for a linear transformation, found " + domainName(domain));
                    };
                }
                case "quantiles" -> {
                    requireFields(transformation, path, Set.of("type", "domain", "boundaries"));
                    if (domain != ValueDomain.BYTES) {
                        throw invalid(path + ".domain", "must be bytes for a quantiles transformation, found " + domainName(domain));
                    }
                    yield new OrderedBytesTransformation(boundaries(transformation.get("boundaries"), path + ".boundaries"));
                }
                case "hash" -> {
                    requireFields(transformation, path, Set.of("type", "domain"));
                    yield new HashTransformation(domain);
                }
                case "boolean" -> {
                    requireFields(transformation, path, Set.of("type", "domain"));
                    if (domain != ValueDomain.BOOLEAN) {
                        throw invalid(path + ".domain", "must be boolean for a boolean transformation, found " + domainName(domain));
                    }
                    yield new BooleanTransformation();
                }
                default -> throw invalid(path + ".type", "unknown transformation type '" + type + "' (expected linear, quantiles, hash or boolean)");
            };
        }
        catch (InvalidRevisionJson e) {
            throw e;
        }
        catch (IllegalArgumentException e) {
            // a well-formed field with a value the transformation rejects, such as min > max
            throw invalid(path, e.getMessage());
        }
    }

    // Jackson's own base64 reading accepts variants (MIME line breaks, missing padding) the writer never produces
    private static List<byte[]> boundaries(JsonNode value, String path)
    {
        JsonNode encoded = array(value, path);
        List<byte[]> boundaries = new ArrayList<>(encoded.size());
        for (int i = 0; i < encoded.size(); i++) {
            String elementPath = path + "[" + i + "]";
            try {
                boundaries.add(Base64.getDecoder().decode(string(encoded.get(i), elementPath)));
            }
            catch (InvalidRevisionJson e) {
                throw e;
            }
            catch (IllegalArgumentException e) {
                throw invalid(elementPath, "is not base64: " + e.getMessage());
            }
        }
        return boundaries;
    }

    private static String domainName(ValueDomain domain)
    {
        return domain.name().toLowerCase(Locale.ENGLISH);
    }

    private static ValueDomain domain(String name, String path)
    {
        for (ValueDomain domain : ValueDomain.values()) {
            if (domainName(domain).equals(name)) {
                return domain;
            }
        }
        throw invalid(path, "unknown domain '" + name + "' (expected long, double, bytes or boolean)");
    }

    private static void requireFields(JsonNode object, String path, Set<String> fields)
    {
        for (String field : fields) {
            if (!object.has(field)) {
                throw invalid(child(path, field), "is missing");
            }
        }
        for (Iterator<String> names = object.fieldNames(); names.hasNext(); ) {
            String field = names.next();
            if (!fields.contains(field)) {
                throw invalid(child(path, field), "is not a known field");
            }
        }
    }

    private static long longField(JsonNode object, String path, String field)
    {
        String fieldPath = child(path, field);
        JsonNode value = object.get(field);
        if (!value.isNumber()) {
            throw invalid(fieldPath, "expected an integer, found " + describe(value));
        }
        // a literal with a fraction or an exponent is a floating-point node, even when its value is whole
        if (!value.isIntegralNumber()) {
            throw invalid(fieldPath, "expected an integer, found " + value.asText());
        }
        if (!value.canConvertToLong()) {
            throw invalid(fieldPath, "integer out of the 64-bit range: " + value.asText());
        }
        return value.longValue();
    }

    private static double doubleField(JsonNode object, String path, String field)
    {
        String fieldPath = child(path, field);
        JsonNode value = object.get(field);
        if (!value.isNumber()) {
            throw invalid(fieldPath, "expected a number, found " + describe(value));
        }
        // Jackson reads a literal beyond the double range, such as 1e999, as an infinity
        double number = value.doubleValue();
        if (!Double.isFinite(number)) {
            throw invalid(fieldPath, "number out of the double range: " + value.asText());
        }
        return number;
    }

    private static JsonNode object(JsonNode value, String path)
    {
        if (!value.isObject()) {
            throw invalid(path, "expected an object, found " + describe(value));
        }
        return value;
    }

    private static JsonNode array(JsonNode value, String path)
    {
        if (!value.isArray()) {
            throw invalid(path, "expected an array, found " + describe(value));
        }
        return value;
    }

    private static String string(JsonNode value, String path)
    {
        if (!value.isTextual()) {
            throw invalid(path, "expected a string, found " + describe(value));
        }
        return value.textValue();
    }

    private static String describe(JsonNode value)
    {
        if (value.isObject()) {
            return "an object";
        }
        if (value.isArray()) {
            return "an array";
        }
        if (value.isTextual()) {
            return "a string";
        }
        if (value.isNumber()) {
            return "the number " + value.asText();
        }
        // null, true or false
        return value.asText();
    }

    private static String child(String path, String field)
    {
        return path.isEmpty() ? field : path + "." + field;
    }

    private static InvalidRevisionJson invalid(String path, String message)
    {
        return new InvalidRevisionJson(path + ": " + message);
    }

    /** An error found by this reader, as opposed to one a transformation's constructor raised. */
    private static final class InvalidRevisionJson
            extends IllegalArgumentException
    {
        InvalidRevisionJson(String message)
        {
            super("Invalid revision JSON: " + message);
        }
    }
}

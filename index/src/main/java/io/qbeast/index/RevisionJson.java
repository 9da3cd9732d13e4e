package io.qbeast.index;

import io.qbeast.index.transform.BooleanTransformation;
import io.qbeast.index.transform.DoubleLinearTransformation;
import io.qbeast.index.transform.HashTransformation;
import io.qbeast.index.transform.LongLinearTransformation;
import io.qbeast.index.transform.OrderedBytesTransformation;
import io.qbeast.index.transform.Transformation;
import io.qbeast.index.transform.ValueDomain;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * The JSON form of a {@link Revision}, as stored in table properties. Writing is canonical (fixed
 * key order, no whitespace, shortest round-tripping doubles), so equal revisions have equal JSON and
 * the content id is a hash of it. Reading is strict: every field is required, unknown or duplicate
 * fields are errors, and numbers must fit their field exactly, because a misread transformation
 * would silently misplace data. The format is documented in {@code index/README.md}.
 */
final class RevisionJson
{
    private static final int MAX_DEPTH = 32;

    private RevisionJson() {}

    static String write(Revision revision)
    {
        StringBuilder json = new StringBuilder(256);
        json.append("{\"id\":").append(revision.id()).append(',');
        writeContent(json, revision.columns(), revision.cubeSize());
        return json.append('}').toString();
    }

    /** A positive 63-bit id: the first 8 bytes of the SHA-256 of the canonical JSON without the id. */
    static long contentId(List<IndexedColumn> columns, long cubeSize)
    {
        StringBuilder json = new StringBuilder(256).append('{');
        writeContent(json, columns, cubeSize);
        byte[] digest = sha256(json.append('}').toString().getBytes(StandardCharsets.UTF_8));
        long id = 0;
        for (int i = 0; i < Long.BYTES; i++) {
            id = (id << 8) | (digest[i] & 0xFF);
        }
        id &= Long.MAX_VALUE;
        return id == 0 ? 1 : id;
    }

    static Revision read(String json)
    {
        requireNonNull(json, "json is null");
        Map<String, Object> root = object(new Parser(json).parseDocument(), "revision");
        requireFields(root, "", Set.of("id", "cubeSize", "columns"));
        long id = longField(root, "", "id");
        long cubeSize = longField(root, "", "cubeSize");
        List<Object> columnValues = array(root.get("columns"), "columns");
        List<IndexedColumn> columns = new ArrayList<>(columnValues.size());
        for (int i = 0; i < columnValues.size(); i++) {
            columns.add(readColumn(columnValues.get(i), "columns[" + i + "]"));
        }
        try {
            return new Revision(id, columns, cubeSize);
        }
        catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Invalid revision JSON: " + e.getMessage(), e);
        }
    }

    private static void writeContent(StringBuilder json, List<IndexedColumn> columns, long cubeSize)
    {
        json.append("\"cubeSize\":").append(cubeSize).append(",\"columns\":[");
        for (int i = 0; i < columns.size(); i++) {
            IndexedColumn column = columns.get(i);
            json.append(i == 0 ? "" : ",").append("{\"name\":");
            writeString(json, column.name());
            json.append(",\"transformation\":");
            writeTransformation(json, column.transformation());
            json.append('}');
        }
        json.append(']');
    }

    private static void writeTransformation(StringBuilder json, Transformation transformation)
    {
        String domain = "\"domain\":\"" + domainName(transformation.domain()) + "\"";
        switch (transformation) {
            case LongLinearTransformation linear -> json.append("{\"type\":\"linear\",").append(domain)
                    .append(",\"min\":").append(linear.min())
                    .append(",\"max\":").append(linear.max()).append('}');
            case DoubleLinearTransformation linear -> json.append("{\"type\":\"linear\",").append(domain)
                    .append(",\"min\":").append(linear.min())
                    .append(",\"max\":").append(linear.max()).append('}');
            case OrderedBytesTransformation quantiles -> {
                json.append("{\"type\":\"quantiles\",").append(domain).append(",\"boundaries\":[");
                for (int i = 0; i < quantiles.boundaryCount(); i++) {
                    json.append(i == 0 ? "\"" : ",\"").append(Base64.getEncoder().encodeToString(quantiles.boundary(i))).append('"');
                }
                json.append("]}");
            }
            case HashTransformation _ -> json.append("{\"type\":\"hash\",").append(domain).append('}');
            case BooleanTransformation _ -> json.append("{\"type\":\"boolean\",").append(domain).append('}');
        }
    }

    private static IndexedColumn readColumn(Object value, String path)
    {
        Map<String, Object> column = object(value, path);
        requireFields(column, path, Set.of("name", "transformation"));
        String name = string(column.get("name"), path + ".name");
        if (name.isEmpty()) {
            throw invalid(path + ".name", "must not be empty");
        }
        return new IndexedColumn(name, readTransformation(column.get("transformation"), path + ".transformation"));
    }

    private static Transformation readTransformation(Object value, String path)
    {
        Map<String, Object> transformation = object(value, path);
        if (!transformation.containsKey("type")) {
            throw invalid(path + ".type", "is missing");
        }
        if (!transformation.containsKey("domain")) {
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
                    List<Object> encoded = array(transformation.get("boundaries"), path + ".boundaries");
                    List<byte[]> boundaries = new ArrayList<>(encoded.size());
                    for (int i = 0; i < encoded.size(); i++) {
                        String elementPath = path + ".boundaries[" + i + "]";
                        try {
                            boundaries.add(Base64.getDecoder().decode(string(encoded.get(i), elementPath)));
                        }
                        catch (IllegalArgumentException e) {
                            throw invalid(elementPath, "is not base64: " + e.getMessage());
                        }
                    }
                    yield new OrderedBytesTransformation(boundaries);
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
        catch (JsonException e) {
            throw e;
        }
        catch (IllegalArgumentException e) {
            // a well-formed field with a value the transformation rejects, such as min > max
            throw invalid(path, e.getMessage());
        }
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

    private static void requireFields(Map<String, Object> object, String path, Set<String> fields)
    {
        for (String field : fields) {
            if (!object.containsKey(field)) {
                throw invalid(child(path, field), "is missing");
            }
        }
        for (String field : object.keySet()) {
            if (!fields.contains(field)) {
                throw invalid(child(path, field), "is not a known field");
            }
        }
    }

    private static long longField(Map<String, Object> object, String path, String field)
    {
        String fieldPath = child(path, field);
        if (!(object.get(field) instanceof JsonNumber(String literal))) {
            throw invalid(fieldPath, "expected an integer, found " + describe(object.get(field)));
        }
        if (literal.indexOf('.') >= 0 || literal.indexOf('e') >= 0 || literal.indexOf('E') >= 0) {
            throw invalid(fieldPath, "expected an integer, found " + literal);
        }
        try {
            return Long.parseLong(literal);
        }
        catch (NumberFormatException e) {
            throw invalid(fieldPath, "integer out of the 64-bit range: " + literal);
        }
    }

    private static double doubleField(Map<String, Object> object, String path, String field)
    {
        String fieldPath = child(path, field);
        if (!(object.get(field) instanceof JsonNumber(String literal))) {
            throw invalid(fieldPath, "expected a number, found " + describe(object.get(field)));
        }
        double value = Double.parseDouble(literal);
        if (!Double.isFinite(value)) {
            throw invalid(fieldPath, "number out of the double range: " + literal);
        }
        return value;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(Object value, String path)
    {
        if (!(value instanceof Map<?, ?> map)) {
            throw invalid(path, "expected an object, found " + describe(value));
        }
        return (Map<String, Object>) map;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> array(Object value, String path)
    {
        if (!(value instanceof List<?> list)) {
            throw invalid(path, "expected an array, found " + describe(value));
        }
        return (List<Object>) list;
    }

    private static String string(Object value, String path)
    {
        if (!(value instanceof String string)) {
            throw invalid(path, "expected a string, found " + describe(value));
        }
        return string;
    }

    private static String describe(Object value)
    {
        return switch (value) {
            case null -> "null";
            case Map<?, ?> _ -> "an object";
            case List<?> _ -> "an array";
            case String _ -> "a string";
            case JsonNumber(String literal) -> "the number " + literal;
            case Boolean bool -> bool.toString();
            default -> throw new IllegalStateException();
        };
    }

    private static String child(String path, String field)
    {
        return path.isEmpty() ? field : path + "." + field;
    }

    private static JsonException invalid(String path, String message)
    {
        return new JsonException("Invalid revision JSON: " + path + ": " + message);
    }

    private static void writeString(StringBuilder json, String value)
    {
        json.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        json.append("\\u%04x".formatted((int) c));
                    }
                    else {
                        json.append(c);
                    }
                }
            }
        }
        json.append('"');
    }

    private static byte[] sha256(byte[] bytes)
    {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        }
        catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every JDK provides SHA-256", e);
        }
    }

    /** A JSON number, kept as its literal so integers are read exactly. */
    private record JsonNumber(String literal) {}

    private static final class JsonException
            extends IllegalArgumentException
    {
        JsonException(String message)
        {
            super(message);
        }
    }

    /**
     * RFC 8259 JSON into maps (insertion ordered, duplicate keys rejected), lists, strings,
     * {@link JsonNumber}s, booleans and null.
     */
    private static final class Parser
    {
        private final String text;
        private int position;

        Parser(String text)
        {
            this.text = text;
        }

        Object parseDocument()
        {
            Object value = parseValue(0);
            skipWhitespace();
            if (position != text.length()) {
                throw error("unexpected content after the end of the document");
            }
            return value;
        }

        private Object parseValue(int depth)
        {
            if (depth > MAX_DEPTH) {
                throw error("nesting deeper than " + MAX_DEPTH);
            }
            skipWhitespace();
            if (position >= text.length()) {
                throw error("unexpected end of the document");
            }
            char c = text.charAt(position);
            return switch (c) {
                case '{' -> parseObject(depth);
                case '[' -> parseArray(depth);
                case '"' -> parseString();
                case 't' -> literal("true", Boolean.TRUE);
                case 'f' -> literal("false", Boolean.FALSE);
                case 'n' -> literal("null", null);
                default -> {
                    if (c == '-' || (c >= '0' && c <= '9')) {
                        yield parseNumber();
                    }
                    throw error("unexpected character '" + c + "'");
                }
            };
        }

        private Map<String, Object> parseObject(int depth)
        {
            position++;
            Map<String, Object> object = new LinkedHashMap<>();
            skipWhitespace();
            if (peek() == '}') {
                position++;
                return object;
            }
            while (true) {
                skipWhitespace();
                if (peek() != '"') {
                    throw error("expected a field name");
                }
                String key = parseString();
                skipWhitespace();
                expect(':');
                Object value = parseValue(depth + 1);
                if (object.containsKey(key)) {
                    throw error("duplicate field '" + key + "'");
                }
                object.put(key, value);
                skipWhitespace();
                if (peek() == ',') {
                    position++;
                    continue;
                }
                expect('}');
                return object;
            }
        }

        private List<Object> parseArray(int depth)
        {
            position++;
            List<Object> array = new ArrayList<>();
            skipWhitespace();
            if (peek() == ']') {
                position++;
                return array;
            }
            while (true) {
                array.add(parseValue(depth + 1));
                skipWhitespace();
                if (peek() == ',') {
                    position++;
                    continue;
                }
                expect(']');
                return array;
            }
        }

        private String parseString()
        {
            position++;
            StringBuilder value = new StringBuilder();
            while (true) {
                if (position >= text.length()) {
                    throw error("unterminated string");
                }
                char c = text.charAt(position++);
                if (c == '"') {
                    return value.toString();
                }
                if (c < 0x20) {
                    throw error("control character in a string");
                }
                if (c != '\\') {
                    value.append(c);
                    continue;
                }
                if (position >= text.length()) {
                    throw error("unterminated string");
                }
                char escaped = text.charAt(position++);
                switch (escaped) {
                    case '"', '\\', '/' -> value.append(escaped);
                    case 'b' -> value.append('\b');
                    case 'f' -> value.append('\f');
                    case 'n' -> value.append('\n');
                    case 'r' -> value.append('\r');
                    case 't' -> value.append('\t');
                    case 'u' -> {
                        if (position + 4 > text.length()) {
                            throw error("truncated \\u escape");
                        }
                        int code = 0;
                        for (int i = 0; i < 4; i++) {
                            int digit = Character.digit(text.charAt(position++), 16);
                            if (digit < 0) {
                                throw error("invalid \\u escape");
                            }
                            code = code * 16 + digit;
                        }
                        value.append((char) code);
                    }
                    default -> throw error("invalid escape '\\" + escaped + "'");
                }
            }
        }

        private JsonNumber parseNumber()
        {
            int start = position;
            if (peek() == '-') {
                position++;
            }
            if (peek() == '0') {
                position++;
            }
            else if (!digits()) {
                throw error("invalid number");
            }
            if (peek() == '.') {
                position++;
                if (!digits()) {
                    throw error("invalid number: digits expected after '.'");
                }
            }
            if (peek() == 'e' || peek() == 'E') {
                position++;
                if (peek() == '+' || peek() == '-') {
                    position++;
                }
                if (!digits()) {
                    throw error("invalid number: digits expected in the exponent");
                }
            }
            return new JsonNumber(text.substring(start, position));
        }

        private boolean digits()
        {
            int start = position;
            while (position < text.length() && text.charAt(position) >= '0' && text.charAt(position) <= '9') {
                position++;
            }
            return position > start;
        }

        private Object literal(String word, Object value)
        {
            if (!text.startsWith(word, position)) {
                throw error("unexpected token");
            }
            position += word.length();
            return value;
        }

        private void expect(char c)
        {
            if (peek() != c) {
                throw error("expected '" + c + "'");
            }
            position++;
        }

        private char peek()
        {
            return position < text.length() ? text.charAt(position) : '\0';
        }

        private void skipWhitespace()
        {
            while (position < text.length()) {
                char c = text.charAt(position);
                if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                    return;
                }
                position++;
            }
        }

        private JsonException error(String message)
        {
            return new JsonException("Invalid revision JSON: " + message + " at offset " + position);
        }
    }
}

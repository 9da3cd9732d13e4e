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
import java.util.Base64;
import java.util.List;
import java.util.Locale;

/**
 * Writes the JSON form of a {@link Revision}, as stored in table properties. Writing is canonical
 * (fixed key order, no whitespace, shortest round-tripping doubles), so equal revisions have equal
 * JSON and the content id is a hash of it. The writer stays in the index, written by hand, because
 * {@link Revision#create} needs the id and the index depends on nothing. A JSON library would not
 * do here anyway: it picks its own escapes and number forms, and a byte changed here changes the id
 * the same content gets, while tables already store ids. Reading needs a whole parser and is done
 * with the table properties, by {@code io.qbeast.iceberg.RevisionJsonReader}. The format is
 * documented in {@code index/README.md}.
 */
final class CanonicalRevisionJson
{
    private CanonicalRevisionJson() {}

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

    private static String domainName(ValueDomain domain)
    {
        return domain.name().toLowerCase(Locale.ENGLISH);
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
}

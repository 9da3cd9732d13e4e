package io.qbeast.iceberg;

import io.qbeast.index.IndexedColumn;
import io.qbeast.index.Revision;
import io.qbeast.index.transform.BooleanTransformation;
import io.qbeast.index.transform.DoubleLinearTransformation;
import io.qbeast.index.transform.HashTransformation;
import io.qbeast.index.transform.LongLinearTransformation;
import io.qbeast.index.transform.OrderedBytesTransformation;
import io.qbeast.index.transform.ValueDomain;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The stored form of revisions does not drift. {@code stored-revisions.jsonl} holds one revision
 * per line, written by the hand-written writer and parser that preceded {@link RevisionJsonReader}
 * (and checked to read back there). Existing tables hold such JSON and their data files name such
 * ids, so each line must still be what {@link Revision#create} and {@link Revision#toJson()}
 * produce for the same content, byte for byte, and must read back to that content.
 *
 * <p>The entries cover what the format must carry exactly: every transformation and domain, dates
 * and timestamps as the connector stores them (long days and microseconds) and as ISO strings,
 * 64-bit extremes, doubles in every notation {@link Double#toString} uses (and -0.0, stored as
 * 0.0), arbitrary bytes as quantile boundaries, and column names needing escapes or outside ASCII.
 * NaN and infinite bounds have no entry: no transformation accepts them, so no revision holds them.
 */
class TestStoredRevisionFormat
{
    @Test
    void testRevisionsWrittenBeforeJacksonReadAndWriteAlike()
            throws IOException
    {
        List<String> stored = storedLines();
        List<Revision> revisions = revisions();
        assertThat(stored).hasSameSizeAs(revisions);
        for (int i = 0; i < stored.size(); i++) {
            Revision revision = revisions.get(i);
            assertThat(revision.toJson()).as("line %s", i + 1).isEqualTo(stored.get(i));
            Revision read = RevisionJsonReader.read(stored.get(i));
            assertThat(read).as("line %s", i + 1).isEqualTo(revision);
            assertThat(Revision.create(read.columns(), read.cubeSize()).id()).as("line %s", i + 1).isEqualTo(read.id());
        }
    }

    private static List<String> storedLines()
            throws IOException
    {
        try (InputStream in = requireNonNull(TestStoredRevisionFormat.class.getResourceAsStream("stored-revisions.jsonl"), "stored-revisions.jsonl")) {
            // U+2028 in a column name is stored raw; only \n ends a line
            return List.of(new String(in.readAllBytes(), UTF_8).split("\n"));
        }
    }

    // the content of each line of the file, in order; append entries, never change one
    private static List<Revision> revisions()
    {
        return List.of(
                // every transformation kind, with the domains each accepts
                Revision.create(List.of(
                        new IndexedColumn("id", new LongLinearTransformation(0, 1023)),
                        new IndexedColumn("price", new DoubleLinearTransformation(-1.5, 2.5)),
                        new IndexedColumn("url", new OrderedBytesTransformation(List.of(bytes("https://a.example/"), bytes("https://b.example/x")))),
                        new IndexedColumn("user_id", new HashTransformation(ValueDomain.LONG)),
                        new IndexedColumn("score", new HashTransformation(ValueDomain.DOUBLE)),
                        new IndexedColumn("email", new HashTransformation(ValueDomain.BYTES)),
                        new IndexedColumn("active", new BooleanTransformation())), 5000),
                // date (days since 1970-01-01), timestamp (microseconds), and both as ISO strings
                Revision.create(List.of(
                        new IndexedColumn("order_date", new LongLinearTransformation(18262, 20453)),
                        new IndexedColumn("created_at", new LongLinearTransformation(1577836800000000L, 1767225599999999L)),
                        new IndexedColumn("day_text", new OrderedBytesTransformation(List.of(bytes("2020-01-01"), bytes("2022-07-0"), bytes("2025-12-31")))),
                        new IndexedColumn("ts_text", new OrderedBytesTransformation(List.of(bytes("2024-03-01T00:00:00Z"), bytes("2024-03-01T12"))))), 100_000),
                // the extremes of each numeric field, and -0.0, which is stored as 0.0
                Revision.create(List.of(
                        new IndexedColumn("l", new LongLinearTransformation(Long.MIN_VALUE, Long.MAX_VALUE)),
                        new IndexedColumn("d", new DoubleLinearTransformation(-Double.MAX_VALUE, Double.MAX_VALUE)),
                        new IndexedColumn("z", new DoubleLinearTransformation(-0.0, Double.MIN_NORMAL)),
                        new IndexedColumn("n", new LongLinearTransformation(-1, -1))), Long.MAX_VALUE),
                // doubles in plain and scientific notation, subnormal and with 17 significant digits
                Revision.create(List.of(
                        new IndexedColumn("a", new DoubleLinearTransformation(0.1, 0.30000000000000004)),
                        new IndexedColumn("b", new DoubleLinearTransformation(1.0E-5, 1.0E7)),
                        new IndexedColumn("c", new DoubleLinearTransformation(-123456.789, 1e-310)),
                        new IndexedColumn("d", new DoubleLinearTransformation(-1.0E300, 6.02214076E23))), 1),
                // quantile boundaries: none, the empty string, arbitrary bytes, UTF-8 text
                Revision.create(List.of(
                        new IndexedColumn("none", new OrderedBytesTransformation(List.of())),
                        new IndexedColumn("bin", new OrderedBytesTransformation(List.of(new byte[0], new byte[] {0}, new byte[] {0, -1, 62, 63}, new byte[] {-1, -1}))),
                        new IndexedColumn("text", new OrderedBytesTransformation(List.of(bytes("Zürich"), bytes("ünïcödé"), bytes("日本"), bytes("😀"))))), 64),
                // column names a writer must escape or keep outside ASCII
                Revision.create(List.of(
                        new IndexedColumn("\"quoted\"", new BooleanTransformation()),
                        new IndexedColumn("back\\slash", new BooleanTransformation()),
                        new IndexedColumn("tab\tnew\nline\r\b\f\u0000\u0001\u001f", new BooleanTransformation()),
                        new IndexedColumn("/ \u007f\u2028\u2029", new BooleanTransformation()),
                        new IndexedColumn("ünïcödé 日本 😀", new HashTransformation(ValueDomain.BYTES)),
                        new IndexedColumn("a.b[0]", new HashTransformation(ValueDomain.LONG))), 2));
    }

    private static byte[] bytes(String text)
    {
        return text.getBytes(UTF_8);
    }
}

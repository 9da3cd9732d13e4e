package io.qbeast.iceberg;

import io.qbeast.index.IndexedColumn;
import io.qbeast.index.Revision;
import io.qbeast.index.transform.BooleanTransformation;
import io.qbeast.index.transform.DoubleLinearTransformation;
import io.qbeast.index.transform.HashTransformation;
import io.qbeast.index.transform.LongLinearTransformation;
import io.qbeast.index.transform.OrderedBytesTransformation;
import io.qbeast.index.transform.Transformation;
import io.qbeast.index.transform.ValueDomain;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Moved with the reading of revisions from the index's {@code TestRevision}: round trips through
 * {@link Revision#toJson()} and this reader, equal ids for equal content read back, and strict
 * reading. Syntax errors carry Jackson's
 * wording now; each case still asserts an {@link IllegalArgumentException} saying what is wrong.
 */
class TestRevisionJsonReader
{
    private static final String VALID = """
            {"id":7,"cubeSize":5000,"columns":[\
            {"name":"a","transformation":{"type":"linear","domain":"long","min":0,"max":1023}},\
            {"name":"b","transformation":{"type":"linear","domain":"double","min":-1.5,"max":2.5}},\
            {"name":"s","transformation":{"type":"quantiles","domain":"bytes","boundaries":["YQ==","aHR0cA=="]}},\
            {"name":"h","transformation":{"type":"hash","domain":"bytes"}},\
            {"name":"f","transformation":{"type":"boolean","domain":"boolean"}}]}""";

    @Test
    void testJsonRoundTripsForEveryKind()
    {
        Random random = new Random(61);
        for (int i = 0; i < 2_000; i++) {
            Revision revision = randomRevision(random);
            String json = revision.toJson();
            Revision read = RevisionJsonReader.read(json);
            assertThat(read).isEqualTo(revision);
            assertThat(read.toJson()).isEqualTo(json);
            for (int dimension = 0; dimension < revision.dimensions(); dimension++) {
                assertThat(read.transformation(dimension)).isEqualTo(revision.transformation(dimension));
            }
        }
    }

    @Test
    void testDocumentedExampleParses()
    {
        Revision revision = RevisionJsonReader.read(VALID);
        assertThat(revision.id()).isEqualTo(7);
        assertThat(revision.cubeSize()).isEqualTo(5000);
        assertThat(revision.dimensions()).isEqualTo(5);
        assertThat(revision.transformation(0)).isEqualTo(new LongLinearTransformation(0, 1023));
        assertThat(revision.transformation(1)).isEqualTo(new DoubleLinearTransformation(-1.5, 2.5));
        assertThat(revision.transformation(2)).isEqualTo(new OrderedBytesTransformation(List.of("a".getBytes(UTF_8), "http".getBytes(UTF_8))));
        assertThat(revision.transformation(3)).isEqualTo(new HashTransformation(ValueDomain.BYTES));
        assertThat(revision.transformation(4)).isEqualTo(new BooleanTransformation());
        assertThat(revision.toJson()).isEqualTo(VALID);
        // whitespace and field order do not matter when reading
        String reformatted = VALID.replace(",", " ,\n ").replace(":", " : ")
                .replace("{\"id\" : 7 ,\n \"cubeSize\" : 5000 ,\n ", "{\"cubeSize\" : 5000, \"id\":7,");
        assertThat(RevisionJsonReader.read(reformatted)).isEqualTo(revision);
    }

    // that other content gets other ids, and the id of the documented example, are tested in the index
    @Test
    void testContentIdentifiesTheRevision()
    {
        Random random = new Random(62);
        Set<Long> ids = new HashSet<>();
        for (int i = 0; i < 1_000; i++) {
            Revision revision = randomRevision(random);
            Revision created = Revision.create(revision.columns(), revision.cubeSize());
            assertThat(created.id()).isPositive();
            // equal content, built independently (through JSON), gets the equal id
            Revision copy = RevisionJsonReader.read(revision.toJson());
            assertThat(Revision.create(copy.columns(), copy.cubeSize())).isEqualTo(created);
            ids.add(created.id());
        }
        assertThat(ids.size()).isGreaterThan(990);
    }

    @Test
    void testStrictParsingNamesTheField()
    {
        assertInvalid(VALID.replace("\"id\":7", "\"id\":\"7\""), "id: expected an integer, found a string");
        assertInvalid(VALID.replace("\"id\":7,", ""), "id: is missing");
        assertInvalid(VALID.replace("\"cubeSize\":5000", "\"cubeSize\":5000.0"), "cubeSize: expected an integer, found 5000.0");
        assertInvalid(VALID.replace("\"cubeSize\":5000", "\"cubeSize\":0"), "Cube size must be positive");
        assertInvalid(VALID.replace("\"id\":7", "\"id\":9223372036854775808"), "id: integer out of the 64-bit range");
        assertInvalid(VALID.replace("\"id\":7", "\"id\":7,\"extra\":1"), "extra: is not a known field");
        assertInvalid(VALID.replace("\"id\":7", "\"id\":7,\"id\":8"), "Duplicate field 'id'");
        assertInvalid(VALID.replace("\"min\":0,\"max\":1023", "\"min\":2000,\"max\":1023"), "columns[0].transformation: Linear bounds out of order");
        assertInvalid(VALID.replace("\"min\":0,", "\"min\":0.5,"), "columns[0].transformation.min: expected an integer, found 0.5");
        assertInvalid(VALID.replace("\"max\":2.5", "\"max\":1e999"), "columns[1].transformation.max: number out of the double range: Infinity");
        assertInvalid(VALID.replace("\"max\":2.5", "\"max\":NaN"), "Non-standard token 'NaN'");
        assertInvalid(VALID.replace("\"type\":\"linear\",\"domain\":\"long\"", "\"type\":\"linear\",\"domain\":\"bytes\""), "columns[0].transformation.domain: must be long or double");
        assertInvalid(VALID.replace("\"type\":\"hash\"", "\"type\":\"zorder\""), "columns[3].transformation.type: unknown transformation type 'zorder'");
        assertInvalid(VALID.replace("\"domain\":\"bytes\"}", "\"domain\":\"text\"}"), "columns[3].transformation.domain: unknown domain 'text'");
        assertInvalid(VALID.replace("\"type\":\"hash\",", ""), "columns[3].transformation.type: is missing");
        assertInvalid(VALID.replace("\"YQ==\"", "\"not base64!\""), "columns[2].transformation.boundaries[0]: is not base64");
        assertInvalid(VALID.replace("[\"YQ==\",\"aHR0cA==\"]", "[\"aHR0cA==\",\"YQ==\"]"), "columns[2].transformation: Quantile boundaries must be strictly increasing");
        assertInvalid(VALID.replace("\"name\":\"b\"", "\"name\":\"a\""), "Column indexed twice: a");
        assertInvalid(VALID.replace("\"name\":\"b\"", "\"name\":\"\""), "columns[1].name: must not be empty");
        assertInvalid(VALID.replace("\"name\":\"b\"", "\"name\":null"), "columns[1].name: expected a string, found null");
        assertInvalid(VALID.substring(0, VALID.indexOf("\"columns\"")) + "\"columns\":[]}", "at least one indexed column");
        assertInvalid(VALID.replace("\"columns\":[", "\"columns\":{").replace("]}", "}}"), "was expecting double-quote to start field name");
        assertInvalid(VALID + "x", "Unrecognized token 'x'", "at offset ");
        assertInvalid(VALID + " {}", "Trailing token (of type START_OBJECT) found after value", "at offset " + (VALID.length() + 1));
        assertInvalid(VALID.substring(0, VALID.length() - 3), "Unexpected end-of-input: expected close marker for Object", "at offset ");
        assertInvalid(VALID.substring(0, VALID.length() - 10), "Unexpected end-of-input: was expecting closing quote for a string value");
        assertInvalid("[1]", "revision: expected an object, found an array");
        assertInvalid("null", "revision: expected an object, found null");
        assertInvalid("", "No content to map due to end-of-input");
        assertInvalid("{\"id\":01}", "Leading zeroes not allowed at offset 7");
        assertInvalid("01", "Leading zeroes not allowed");
        assertInvalid("{\"id\":\"a\tb\"}", "Illegal unquoted character ((CTRL-CHAR, code 9))");
        assertInvalid("[".repeat(100), "nesting depth (33) exceeds the maximum allowed (32");
        // Jackson's extensions to JSON stay off
        assertInvalid(VALID.replace("}}]}", "}},]}"), "Unexpected character (']' (code 93))");
        assertInvalid(VALID.replace("\"id\":7", "/* c */\"id\":7"), "Unexpected character ('/' (code 47))");
        assertInvalid(VALID.replace("\"name\":\"a\"", "'name':\"a\""), "Unexpected character (''' (code 39))");
        // a non-string boundary is named as such, not reported as bad base64
        assertInvalid(VALID.replace("\"YQ==\"", "5"), "columns[2].transformation.boundaries[0]: expected a string, found the number 5");
    }

    private static void assertInvalid(String json, String... messages)
    {
        assertThatThrownBy(() -> RevisionJsonReader.read(json))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Invalid revision JSON: ")
                .hasMessageContainingAll(messages);
    }

    private static Revision randomRevision(Random random)
    {
        int dimensions = 1 + random.nextInt(6);
        List<IndexedColumn> columns = new ArrayList<>();
        for (int i = 0; i < dimensions; i++) {
            columns.add(new IndexedColumn(randomName(random, i), randomTransformation(random)));
        }
        return new Revision(random.nextLong() & Long.MAX_VALUE, columns, 1 + (random.nextLong() & Long.MAX_VALUE) % (random.nextBoolean() ? 100_000 : Long.MAX_VALUE));
    }

    private static String randomName(Random random, int index)
    {
        String[] parts = {"a", "order_date", "\"quoted\"", "back\\slash", "tab\tnew\nline\u0001", "ünïcödé", "😀", "/", " "};
        return parts[random.nextInt(parts.length)] + index;
    }

    private static Transformation randomTransformation(Random random)
    {
        return switch (random.nextInt(5)) {
            case 0 -> {
                long a = random.nextInt(3) == 0 ? (random.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE) : random.nextLong();
                long b = random.nextLong();
                yield new LongLinearTransformation(Math.min(a, b), Math.max(a, b));
            }
            case 1 -> {
                while (true) {
                    double a = randomFiniteDouble(random);
                    double b = randomFiniteDouble(random);
                    try {
                        yield new DoubleLinearTransformation(Math.min(a, b), Math.max(a, b));
                    }
                    catch (IllegalArgumentException e) {
                        // equal or too close to map: draw again
                    }
                }
            }
            case 2 -> {
                List<byte[]> sample = new ArrayList<>();
                int size = random.nextInt(100);
                for (int i = 0; i < size; i++) {
                    byte[] value = new byte[random.nextInt(12)];
                    random.nextBytes(value);
                    sample.add(value);
                }
                yield OrderedBytesTransformation.fromSample(sample, 1 + random.nextInt(70), 1 + random.nextInt(300));
            }
            case 3 -> new HashTransformation(List.of(ValueDomain.LONG, ValueDomain.DOUBLE, ValueDomain.BYTES).get(random.nextInt(3)));
            default -> new BooleanTransformation();
        };
    }

    private static double randomFiniteDouble(Random random)
    {
        double[] special = {Double.MAX_VALUE, -Double.MAX_VALUE, Double.MIN_VALUE, -Double.MIN_VALUE, 0.1, 1e-310, 123456789.123};
        return switch (random.nextInt(3)) {
            case 0 -> special[random.nextInt(special.length)];
            case 1 -> (random.nextDouble() - 0.5) * 1e6;
            default -> {
                double value = Double.longBitsToDouble(random.nextLong());
                yield Double.isFinite(value) ? value : 0.0;
            }
        };
    }
}

package io.qbeast.index;

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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestRevision
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
            Revision read = Revision.fromJson(json);
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
        Revision revision = Revision.fromJson(VALID);
        assertThat(revision.id()).isEqualTo(7);
        assertThat(revision.cubeSize()).isEqualTo(5000);
        assertThat(revision.dimensions()).isEqualTo(5);
        assertThat(revision.transformation(0)).isEqualTo(new LongLinearTransformation(0, 1023));
        assertThat(revision.transformation(1)).isEqualTo(new DoubleLinearTransformation(-1.5, 2.5));
        assertThat(revision.transformation(2)).isEqualTo(new OrderedBytesTransformation(List.of("a".getBytes(), "http".getBytes())));
        assertThat(revision.transformation(3)).isEqualTo(new HashTransformation(ValueDomain.BYTES));
        assertThat(revision.transformation(4)).isEqualTo(new BooleanTransformation());
        assertThat(revision.toJson()).isEqualTo(VALID);
        // whitespace and field order do not matter when reading
        String reformatted = VALID.replace(",", " ,\n ").replace(":", " : ")
                .replace("{\"id\" : 7 ,\n \"cubeSize\" : 5000 ,\n ", "{\"cubeSize\" : 5000, \"id\":7,");
        assertThat(Revision.fromJson(reformatted)).isEqualTo(revision);
    }

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
            Revision copy = Revision.fromJson(revision.toJson());
            assertThat(Revision.create(copy.columns(), copy.cubeSize())).isEqualTo(created);
            ids.add(created.id());
        }
        assertThat(ids.size()).isGreaterThan(990);

        List<IndexedColumn> columns = List.of(
                new IndexedColumn("a", new LongLinearTransformation(0, 1023)),
                new IndexedColumn("b", new DoubleLinearTransformation(0, 1)));
        long id = Revision.create(columns, 100).id();
        assertThat(Revision.create(columns, 101).id()).isNotEqualTo(id);
        assertThat(Revision.create(columns.reversed(), 100).id()).isNotEqualTo(id);
        assertThat(Revision.create(List.of(columns.get(0), new IndexedColumn("b", new DoubleLinearTransformation(0, 2))), 100).id()).isNotEqualTo(id);
        assertThat(Revision.create(List.of(new IndexedColumn("c", columns.get(0).transformation()), columns.get(1)), 100).id()).isNotEqualTo(id);
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
        assertInvalid(VALID.replace("\"id\":7", "\"id\":7,\"id\":8"), "duplicate field 'id'");
        assertInvalid(VALID.replace("\"min\":0,\"max\":1023", "\"min\":2000,\"max\":1023"), "columns[0].transformation: Linear bounds out of order");
        assertInvalid(VALID.replace("\"min\":0,", "\"min\":0.5,"), "columns[0].transformation.min: expected an integer, found 0.5");
        assertInvalid(VALID.replace("\"max\":2.5", "\"max\":1e999"), "columns[1].transformation.max: number out of the double range");
        assertInvalid(VALID.replace("\"max\":2.5", "\"max\":NaN"), "unexpected character 'N'");
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
        assertInvalid(VALID.replace("\"columns\":[", "\"columns\":{").replace("]}", "}}"), "expected a field name");
        assertInvalid(VALID + "x", "unexpected content after the end of the document");
        assertInvalid(VALID.substring(0, VALID.length() - 3), "expected '}' at offset " + (VALID.length() - 3));
        assertInvalid(VALID.substring(0, VALID.length() - 10), "unterminated string");
        assertInvalid("[1]", "revision: expected an object, found an array");
        assertInvalid("", "unexpected end of the document");
        assertInvalid("{\"id\":01}", "expected '}' at offset 7");
        assertInvalid("01", "unexpected content after the end of the document");
        assertInvalid("{\"id\":\"a\tb\"}", "control character in a string");
        assertInvalid("[".repeat(100), "nesting deeper than");
    }

    @Test
    void testValidation()
    {
        IndexedColumn column = new IndexedColumn("a", new BooleanTransformation());
        assertThatThrownBy(() -> new Revision(-1, List.of(column), 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Revision(1, List.of(), 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Revision(1, List.of(column, column), 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Revision.create(List.of(column), 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new IndexedColumn("", new BooleanTransformation())).isInstanceOf(IllegalArgumentException.class);
        List<IndexedColumn> mutable = new ArrayList<>(List.of(column));
        Revision revision = new Revision(1, mutable, 10);
        mutable.clear();
        assertThat(revision.dimensions()).isEqualTo(1);
    }

    private static void assertInvalid(String json, String message)
    {
        assertThatThrownBy(() -> Revision.fromJson(json))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
    }

    static Revision randomRevision(Random random)
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

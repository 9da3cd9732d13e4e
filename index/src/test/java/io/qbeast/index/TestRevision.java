package io.qbeast.index;

import io.qbeast.index.transform.BooleanTransformation;
import io.qbeast.index.transform.DoubleLinearTransformation;
import io.qbeast.index.transform.HashTransformation;
import io.qbeast.index.transform.LongLinearTransformation;
import io.qbeast.index.transform.OrderedBytesTransformation;
import io.qbeast.index.transform.ValueDomain;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Validation and content ids. The JSON the index writes is tested with the reader of it, in
 * metadata: round trips and the documented example in {@code TestRevisionJsonReader}, the JSON and
 * ids of revisions written before the reader moved there in {@code TestStoredRevisionFormat}.
 */
class TestRevision
{
    @Test
    void testContentIdentifiesTheRevision()
    {
        // the columns of the example in index/README.md; the id was recorded from the first writer:
        // tables store ids and data files name them, so equal content must keep getting this id
        List<IndexedColumn> documented = List.of(
                new IndexedColumn("a", new LongLinearTransformation(0, 1023)),
                new IndexedColumn("b", new DoubleLinearTransformation(-1.5, 2.5)),
                new IndexedColumn("s", new OrderedBytesTransformation(List.of("a".getBytes(UTF_8), "http".getBytes(UTF_8)))),
                new IndexedColumn("h", new HashTransformation(ValueDomain.BYTES)),
                new IndexedColumn("f", new BooleanTransformation()));
        assertThat(Revision.create(documented, 5000).id()).isEqualTo(5554671094309109197L);

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
}

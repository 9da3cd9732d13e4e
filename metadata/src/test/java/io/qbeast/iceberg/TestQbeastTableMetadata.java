package io.qbeast.iceberg;

import io.qbeast.index.IndexedColumn;
import io.qbeast.index.Revision;
import io.qbeast.index.transform.LongLinearTransformation;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestQbeastTableMetadata
{
    private static final Revision FIRST = revision(999);
    private static final Revision SECOND = revision(1999);

    @Test
    void testTableOfAnotherEngineHasNone()
    {
        assertThat(QbeastTableMetadata.of(Map.of("write.format.default", "parquet"))).isEmpty();
    }

    @Test
    void testNewTableHasColumnsAndNoRevision()
    {
        QbeastTableMetadata metadata = QbeastTableMetadata.of(QbeastTableProperties.newTableProperties(List.of("b", "a"), 5_000)).orElseThrow();
        assertThat(metadata.indexedColumns()).containsExactly("b", "a");
        assertThat(metadata.cubeSize()).isEqualTo(OptionalLong.of(5_000));
        assertThat(metadata.currentRevision()).isEmpty();
        assertThat(metadata.revisionIds()).isEmpty();
    }

    @Test
    void testRevisionsInCommitOrderTheLastCurrent()
    {
        Map<String, String> properties = withRevisions(List.of(SECOND, FIRST));
        QbeastTableMetadata metadata = QbeastTableMetadata.of(properties).orElseThrow();
        assertThat(metadata.revisionIds()).containsExactly(SECOND.id(), FIRST.id());
        assertThat(metadata.currentRevision()).contains(FIRST);
        assertThat(metadata.revision(SECOND.id())).contains(SECOND);
        assertThat(metadata.revision(12345)).isEmpty();
        // the cube size a table without one gets
        properties.remove(QbeastTableProperties.CUBE_SIZE);
        assertThat(QbeastTableMetadata.of(properties).orElseThrow().cubeSize(777)).isEqualTo(777);
    }

    /** A revision stored but not listed yet (a commit that raced the list) is found by id, not current. */
    @Test
    void testUnlistedRevisionIsFoundButNotCurrent()
    {
        Map<String, String> properties = withRevisions(List.of(FIRST));
        properties.put(QbeastTableProperties.revisionKey(SECOND.id()), SECOND.toJson());
        QbeastTableMetadata metadata = QbeastTableMetadata.of(properties).orElseThrow();
        assertThat(metadata.revision(SECOND.id())).contains(SECOND);
        assertThat(metadata.currentRevision()).contains(FIRST);
    }

    @Test
    void testMalformedEntriesNameTheirProperty()
    {
        Map<String, String> missing = withRevisions(List.of(FIRST));
        missing.remove(QbeastTableProperties.revisionKey(FIRST.id()));
        assertThatThrownBy(() -> QbeastTableMetadata.of(missing))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(QbeastTableProperties.REVISIONS)
                .hasMessageContaining(QbeastTableProperties.revisionKey(FIRST.id()));

        Map<String, String> badJson = withRevisions(List.of(FIRST));
        badJson.put(QbeastTableProperties.revisionKey(FIRST.id()), "{\"id\":");
        assertThatThrownBy(() -> QbeastTableMetadata.of(badJson))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(QbeastTableProperties.revisionKey(FIRST.id()));

        Map<String, String> badList = withRevisions(List.of(FIRST));
        badList.put(QbeastTableProperties.REVISIONS, "12,x");
        assertThatThrownBy(() -> QbeastTableMetadata.of(badList))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(QbeastTableProperties.REVISIONS);

        Map<String, String> badCubeSize = withRevisions(List.of(FIRST));
        badCubeSize.put(QbeastTableProperties.CUBE_SIZE, "many");
        assertThatThrownBy(() -> QbeastTableMetadata.of(badCubeSize))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(QbeastTableProperties.CUBE_SIZE);

        Map<String, String> badColumns = withRevisions(List.of(FIRST));
        badColumns.put(QbeastTableProperties.INDEXED_COLUMNS, "[x");
        assertThatThrownBy(() -> QbeastTableMetadata.of(badColumns))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(QbeastTableProperties.INDEXED_COLUMNS);
    }

    private static Map<String, String> withRevisions(List<Revision> revisions)
    {
        Map<String, String> properties = new HashMap<>(QbeastTableProperties.newTableProperties(List.of("x"), 100));
        for (Revision revision : revisions) {
            properties.put(QbeastTableProperties.revisionKey(revision.id()), revision.toJson());
        }
        properties.put(QbeastTableProperties.REVISIONS, QbeastTableProperties.mergeRevisionIds(Map.of(), revisions.stream().map(Revision::id).toList()));
        return properties;
    }

    private static Revision revision(long high)
    {
        return Revision.create(List.of(new IndexedColumn("x", new LongLinearTransformation(0, high))), 100);
    }
}

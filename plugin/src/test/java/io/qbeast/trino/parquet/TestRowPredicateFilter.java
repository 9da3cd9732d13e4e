package io.qbeast.trino.parquet;

import io.qbeast.trino.handle.QbeastColumnHandle;
import io.qbeast.trino.handle.RowPredicate;
import io.qbeast.trino.handle.RowPredicate.Call;
import io.qbeast.trino.handle.RowPredicate.ColumnValue;
import io.qbeast.trino.handle.RowPredicate.LongConstant;
import io.qbeast.trino.handle.RowPredicate.Operator;
import io.trino.spi.Page;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.connector.SourcePage;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.BooleanType.BOOLEAN;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The three-valued logic of {@link RowPredicateFilter} where SQL cannot reach it: the engine
 * pushes {@code NOT} down to the comparisons before the connector sees a predicate, so a NULL
 * inside an {@code OR} or {@code AND} under {@code NOT} is checked here, against SQL's truth
 * tables written out by hand (Boolean null = UNKNOWN).
 */
class TestRowPredicateFilter
{
    private static final QbeastColumnHandle A = new QbeastColumnHandle("a", 1, BIGINT, false);
    private static final QbeastColumnHandle B = new QbeastColumnHandle("b", 2, BIGINT, false);
    // every pair of TRUE (1), FALSE (0) and NULL for "a = 1" and "b = 1"
    private static final Long[] VALUES = {1L, 0L, null};

    @Test
    void testNotOfOrAndAndFollowsSqlTruthTables()
    {
        for (Operator logical : List.of(Operator.OR, Operator.AND)) {
            RowPredicate combined = new Call(BOOLEAN, logical, List.of(isOne(A), isOne(B)));
            List<Integer> kept = new ArrayList<>();
            List<Integer> keptNot = new ArrayList<>();
            List<Integer> expected = new ArrayList<>();
            List<Integer> expectedNot = new ArrayList<>();
            int row = 0;
            for (Long a : VALUES) {
                for (Long b : VALUES) {
                    Boolean result = logical == Operator.OR ? or(truth(a), truth(b)) : and(truth(a), truth(b));
                    if (Boolean.TRUE.equals(result)) {
                        expected.add(row);
                    }
                    if (Boolean.FALSE.equals(result)) {
                        expectedNot.add(row);
                    }
                    row++;
                }
            }
            SourcePage page = page();
            addKept(RowPredicateFilter.compile(List.of(combined), column -> column.equals(A) ? 0 : 1), page, kept);
            addKept(RowPredicateFilter.compile(List.of(new Call(BOOLEAN, Operator.NOT, List.of(combined))), column -> column.equals(A) ? 0 : 1), page, keptNot);
            assertThat(kept).as(logical.name()).isEqualTo(expected);
            assertThat(keptNot).as("NOT " + logical.name()).isEqualTo(expectedNot);
        }
    }

    private static void addKept(RowPredicateFilter filter, SourcePage page, List<Integer> kept)
    {
        int[] positions = new int[page.getPositionCount()];
        Arrays.setAll(positions, i -> i);
        int count = filter.filter(page, positions, positions.length);
        for (int i = 0; i < count; i++) {
            kept.add(positions[i]);
        }
    }

    private static SourcePage page()
    {
        BlockBuilder a = BIGINT.createBlockBuilder(null, 9);
        BlockBuilder b = BIGINT.createBlockBuilder(null, 9);
        for (Long first : VALUES) {
            for (Long second : VALUES) {
                append(a, first);
                append(b, second);
            }
        }
        return SourcePage.create(new Page(a.build(), b.build()));
    }

    private static void append(BlockBuilder builder, Long value)
    {
        if (value == null) {
            builder.appendNull();
        }
        else {
            BIGINT.writeLong(builder, value);
        }
    }

    private static RowPredicate isOne(QbeastColumnHandle column)
    {
        return new Call(BOOLEAN, Operator.EQUAL, List.of(new ColumnValue(column), new LongConstant(BIGINT, 1)));
    }

    private static Boolean truth(Long value)
    {
        return value == null ? null : value == 1;
    }

    private static Boolean or(Boolean left, Boolean right)
    {
        if (Boolean.TRUE.equals(left) || Boolean.TRUE.equals(right)) {
            return true;
        }
        return left == null || right == null ? null : false;
    }

    private static Boolean and(Boolean left, Boolean right)
    {
        if (Boolean.FALSE.equals(left) || Boolean.FALSE.equals(right)) {
            return false;
        }
        return left == null || right == null ? null : true;
    }
}

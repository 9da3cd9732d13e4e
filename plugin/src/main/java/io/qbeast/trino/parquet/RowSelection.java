package io.qbeast.trino.parquet;

import io.trino.spi.connector.SourcePage;

/**
 * One step of the page source's row selection, after the weight bound: the predicate's domains,
 * other engines' deletes, the handle's row predicates. Each narrows the positions the steps
 * before it kept.
 */
interface RowSelection
{
    /**
     * @param selection positions to consider, ascending; {@code null}: all
     * @return the positions kept, ascending; {@code null} when all rows are kept
     */
    int[] apply(SourcePage page, int[] selection);
}

package io.qbeast.trino.routing;

import io.qbeast.index.IndexState;
import io.qbeast.index.IndexedColumn;
import io.qbeast.index.RegionCuts;
import io.qbeast.index.Revision;
import io.qbeast.index.transform.LongLinearTransformation;
import io.trino.spi.Page;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.type.Type;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static io.trino.spi.type.BigintType.BIGINT;
import static org.assertj.core.api.Assertions.assertThat;

class TestQbeastRegionBucketFunction
{
    private static final Revision REVISION = Revision.create(List.of(
            new IndexedColumn("x", new LongLinearTransformation(0, 999)),
            new IndexedColumn("y", new LongLinearTransformation(0, 999))), 100);
    private static final List<Type> TYPES = List.of(BIGINT, BIGINT);
    private static final int REGIONS = 8;

    /** A row inside the revision goes to its region's bucket, computed from its coordinates. */
    @Test
    void testRowsInsideTheRevisionGoToTheirRegion()
    {
        RegionCuts cuts = equalCuts();
        QbeastRegionBucketFunction function = new QbeastRegionBucketFunction(handle(cuts), TYPES, REGIONS);
        Random random = new Random(1);
        long[][] values = new long[2][2_000];
        for (int row = 0; row < values[0].length; row++) {
            values[0][row] = random.nextInt(1_000);
            values[1][row] = random.nextInt(1_000);
        }
        Page page = page(values);
        int[] rows = new int[REGIONS];
        for (int position = 0; position < page.getPositionCount(); position++) {
            double[] point = {
                    ((LongLinearTransformation) REVISION.transformation(0)).coordinate(values[0][position]),
                    ((LongLinearTransformation) REVISION.transformation(1)).coordinate(values[1][position])};
            int bucket = function.getBucket(page, position);
            assertThat(bucket).isEqualTo(cuts.region(point, 0));
            rows[bucket]++;
        }
        // equal volumes of uniform points: every bucket used
        assertThat(rows).doesNotContain(0);
    }

    /**
     * Rows beyond the bounds clamp to the revision's edge, where a few regions lie: they are dealt
     * over all buckets instead, evenly.
     */
    @Test
    void testRowsOutsideTheRevisionAreDealtOverAllBuckets()
    {
        RegionCuts cuts = equalCuts();
        QbeastRegionBucketFunction function = new QbeastRegionBucketFunction(handle(cuts), TYPES, REGIONS);
        Random random = new Random(2);
        long[][] values = new long[2][1_600];
        for (int row = 0; row < values[0].length; row++) {
            // x past the upper bound, y inside
            values[0][row] = 1_000 + random.nextInt(5_000);
            values[1][row] = random.nextInt(1_000);
        }
        Page page = page(values);
        int[] rows = new int[REGIONS];
        for (int position = 0; position < page.getPositionCount(); position++) {
            rows[function.getBucket(page, position)]++;
        }
        assertThat(rows).containsOnly(values[0].length / REGIONS);
    }

    /** More engine buckets than regions: regions spread over them in order, never one bucket two regions' rows. */
    @Test
    void testRegionsSpreadOverTheEngineBuckets()
    {
        RegionCuts cuts = equalCuts();
        QbeastRegionBucketFunction function = new QbeastRegionBucketFunction(handle(cuts), TYPES, REGIONS * 2);
        long[][] values = new long[2][1_000];
        for (int row = 0; row < values[0].length; row++) {
            values[0][row] = row;
            values[1][row] = 999 - row;
        }
        Page page = page(values);
        for (int position = 0; position < page.getPositionCount(); position++) {
            double[] point = {
                    ((LongLinearTransformation) REVISION.transformation(0)).coordinate(values[0][position]),
                    ((LongLinearTransformation) REVISION.transformation(1)).coordinate(values[1][position])};
            assertThat(function.getBucket(page, position)).isEqualTo(cuts.region(point, 0) * 2);
        }
    }

    private static RegionCuts equalCuts()
    {
        return RegionCuts.plan(IndexState.empty(REVISION), REGIONS);
    }

    private static QbeastRegionPartitioningHandle handle(RegionCuts cuts)
    {
        return new QbeastRegionPartitioningHandle(REVISION.toJson(), Arrays.stream(cuts.cuts()).boxed().toList());
    }

    private static Page page(long[][] columns)
    {
        BlockBuilder x = BIGINT.createFixedSizeBlockBuilder(columns[0].length);
        BlockBuilder y = BIGINT.createFixedSizeBlockBuilder(columns[1].length);
        for (int row = 0; row < columns[0].length; row++) {
            BIGINT.writeLong(x, columns[0][row]);
            BIGINT.writeLong(y, columns[1][row]);
        }
        return new Page(x.build(), y.build());
    }
}

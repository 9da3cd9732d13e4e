package io.qbeast.trino.routing;

import io.qbeast.iceberg.RevisionJsonReader;
import io.qbeast.index.IndexedColumn;
import io.qbeast.index.RegionCuts;
import io.qbeast.index.Revision;
import io.qbeast.trino.encoding.PointMapper;
import io.trino.spi.Page;
import io.trino.spi.connector.BucketFunction;
import io.trino.spi.type.Type;

import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.IntStream;

/**
 * The bucket of a row under a {@link QbeastRegionPartitioningHandle}: its region. The engine asks
 * for every position of a page in turn, so the regions of a whole page are computed at its first
 * position (one pass of the page sink's own value encoding) and kept until the next page. Callers
 * may share the function across threads: the cache is one immutable pair, replaced whole.
 *
 * <p>A row outside the revision's bounds goes to any bucket, the page's such rows dealt over all
 * of them in turn: its coordinates are clamped to the revision's edge, so its region says nothing
 * of where it will lie, and its writer will widen the revision. Dealt evenly, every writer sees
 * the same spread of new values and widens to the same revision (the widening snaps to a grid),
 * where routing by the clamped point would give each writer another part of the new range and
 * another widened revision.
 */
public final class QbeastRegionBucketFunction
        implements BucketFunction
{
    private final Revision revision;
    private final RegionCuts cuts;
    private final PointMapper pointMapper;
    private final int bucketCount;
    private volatile PageRegions last = new PageRegions(null, new int[0]);

    /**
     * @param bucketCount the engine's buckets: the regions when it took the connector's node map,
     *         else regions are spread over its buckets in order
     */
    public QbeastRegionBucketFunction(QbeastRegionPartitioningHandle handle, List<Type> indexedTypes, int bucketCount)
    {
        this.bucketCount = bucketCount;
        this.revision = RevisionJsonReader.read(handle.revisionJson());
        List<String> names = revision.columns().stream().map(IndexedColumn::name).toList();
        this.pointMapper = new PointMapper(names, IntStream.range(0, names.size()).boxed().toList(), indexedTypes);
        pointMapper.validate(revision);
        this.cuts = RegionCuts.of(revision.dimensions(), handle.cuts().stream().mapToLong(Long::longValue).toArray());
    }

    @Override
    public int getBucket(Page page, int position)
    {
        PageRegions regions = last;
        if (regions.page() != page) {
            regions = new PageRegions(page, regions(page));
            last = regions;
        }
        return regions.regions()[position];
    }

    private int[] regions(Page page)
    {
        int dimensions = revision.dimensions();
        int positions = page.getPositionCount();
        double[] coordinates = new double[positions * dimensions];
        pointMapper.coordinates(revision, page, coordinates, 0);
        boolean[] outside = new boolean[positions];
        pointMapper.markOutside(revision, page, outside);
        int[] regions = new int[positions];
        int dealt = ThreadLocalRandom.current().nextInt(bucketCount);
        for (int position = 0; position < positions; position++) {
            regions[position] = outside[position]
                    ? dealt++ % bucketCount
                    : (int) ((long) cuts.region(coordinates, position * dimensions) * bucketCount / cuts.regions());
        }
        return regions;
    }

    private record PageRegions(Page page, int[] regions) {}
}

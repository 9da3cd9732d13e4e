package io.qbeast.trino.read;

import io.qbeast.iceberg.QbeastTableMetadata;
import io.qbeast.iceberg.QbeastTableProperties;
import io.qbeast.iceberg.SnapshotIndexReader;
import io.qbeast.index.FileFacts;
import io.qbeast.index.QuerySpace;
import io.qbeast.index.Revision;
import io.qbeast.index.Weight;
import io.qbeast.index.transform.BooleanTransformation;
import io.qbeast.index.transform.CoordinateRanges;
import io.qbeast.index.transform.DoubleLinearTransformation;
import io.qbeast.index.transform.HashTransformation;
import io.qbeast.index.transform.LongLinearTransformation;
import io.qbeast.index.transform.OrderedBytesTransformation;
import io.qbeast.index.transform.Transformation;
import io.qbeast.trino.handle.QbeastColumnHandle;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.predicate.ValueSet;
import io.trino.spi.type.Type;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.qbeast.trino.encoding.ValueEncoding.bytesValue;
import static io.qbeast.trino.encoding.ValueEncoding.doubleValue;
import static io.qbeast.trino.encoding.ValueEncoding.longValue;
import static java.util.Objects.requireNonNull;

/**
 * Drops files that cannot hold a row of the scan: the predicate on the indexed columns becomes
 * one {@link QuerySpace} per revision (each column's {@link Domain} mapped through the revision's
 * transformation), with the sample's weight bound, and a file is kept only if
 * {@link QuerySpace#mayContainFile} says its rollup root's region meets the space and its lightest
 * row is under the bound. Always conservative: bounds are passed inclusive (some mappings are not
 * injective), a value that cannot be mapped means "all", and files without index bounds (written by
 * another engine) or of an unknown revision are kept (their rows are sampled one by one by the
 * Parquet layer).
 */
public final class QbeastFilePruner
{
    private final Optional<QbeastTableMetadata> qbeast;
    private final int cubeFieldId;
    private final int weightFieldId;
    private final long weightBound;
    private final Map<Long, Optional<QuerySpace>> spaces = new HashMap<>();
    private TupleDomain<QbeastColumnHandle> predicate;

    /**
     * @param qbeast the table's qbeast metadata; empty for a table of another engine (nothing is pruned by region)
     */
    public QbeastFilePruner(Schema schema, Optional<QbeastTableMetadata> qbeast, TupleDomain<QbeastColumnHandle> predicate, long weightBound)
    {
        this.qbeast = requireNonNull(qbeast, "qbeast is null");
        Types.NestedField cube = schema.findField(QbeastTableProperties.CUBE_COLUMN);
        Types.NestedField weight = schema.findField(QbeastTableProperties.WEIGHT_COLUMN);
        this.cubeFieldId = cube == null ? -1 : cube.fieldId();
        this.weightFieldId = weight == null ? -1 : weight.fieldId();
        this.predicate = requireNonNull(predicate, "predicate is null");
        this.weightBound = weightBound;
    }

    /** Replaces the predicate (e.g. narrowed by a dynamic filter); the per-revision spaces are rebuilt lazily. */
    public void setPredicate(TupleDomain<QbeastColumnHandle> predicate)
    {
        if (!predicate.equals(this.predicate)) {
            this.predicate = predicate;
            spaces.clear();
        }
    }

    /** Why a file is kept or dropped. */
    public enum Verdict
    {
        KEEP,
        /** the predicate is NONE, or the sample is empty */
        EMPTY_SCAN,
        /** its lightest row is not in the sample */
        SAMPLE,
        /** its rollup root's region misses the predicate */
        REGION,
    }

    public boolean mayContain(DataFile file)
    {
        return check(file) == Verdict.KEEP;
    }

    public Verdict check(DataFile file)
    {
        if (predicate.isNone() || weightBound <= Weight.NONE) {
            return Verdict.EMPTY_SCAN;
        }
        if (cubeFieldId < 0 || weightFieldId < 0) {
            return Verdict.KEEP;
        }
        FileFacts facts = SnapshotIndexReader.facts(file, cubeFieldId, weightFieldId);
        if (facts == null || hasUnindexedRows(file)) {
            // no index bounds, or some rows without a stored weight (a file of another engine, or
            // rewritten by one): those rows get derived weights in the Parquet layer and lie in no
            // cube, so neither the weight bounds nor the cube region say anything about them
            return Verdict.KEEP;
        }
        if (facts.minWeight() >= weightBound) {
            return Verdict.SAMPLE;
        }
        Optional<QuerySpace> space = spaces.computeIfAbsent(SnapshotIndexReader.revisionId(facts.minCube()), this::space);
        return space.map(querySpace -> querySpace.mayContainFile(facts)).orElse(true) ? Verdict.KEEP : Verdict.REGION;
    }

    private boolean hasUnindexedRows(DataFile file)
    {
        Map<Integer, Long> nulls = file.nullValueCounts();
        if (nulls == null) {
            return false;
        }
        Long weightNulls = nulls.get(weightFieldId);
        Long cubeNulls = nulls.get(cubeFieldId);
        return (weightNulls != null && weightNulls > 0) || (cubeNulls != null && cubeNulls > 0);
    }

    private Optional<QuerySpace> space(long revisionId)
    {
        Optional<Revision> found = qbeast.flatMap(metadata -> metadata.revision(revisionId));
        if (found.isEmpty()) {
            return Optional.empty();
        }
        Revision revision = found.get();
        Map<String, Domain> domains = new HashMap<>();
        predicate.getDomains().orElseThrow().forEach((column, domain) -> domains.put(column.name(), domain));
        List<CoordinateRanges> ranges = new ArrayList<>(revision.dimensions());
        for (int dimension = 0; dimension < revision.dimensions(); dimension++) {
            Domain domain = domains.get(revision.column(dimension).name());
            CoordinateRanges coordinates = CoordinateRanges.all();
            if (domain != null) {
                try {
                    coordinates = ranges(revision.transformation(dimension), domain);
                }
                catch (RuntimeException e) {
                    // a value this mapping does not know: do not prune on this column
                    coordinates = CoordinateRanges.all();
                }
            }
            ranges.add(coordinates);
        }
        return Optional.of(new QuerySpace(ranges, weightBound));
    }

    /** The coordinates a domain's values (and NULL, if allowed) can have under a transformation; conservative. */
    public static CoordinateRanges ranges(Transformation transformation, Domain domain)
    {
        if (domain.isAll()) {
            return CoordinateRanges.all();
        }
        CoordinateRanges result = domain.isNullAllowed() ? transformation.nullRange() : CoordinateRanges.none();
        ValueSet values = domain.getValues();
        if (values.isNone()) {
            return result;
        }
        if (values.isAll()) {
            return CoordinateRanges.all();
        }
        Type type = domain.getType();
        CoordinateRanges valueRanges = values.getValuesProcessor().transform(
                rangeSet -> {
                    CoordinateRanges union = CoordinateRanges.none();
                    for (Range range : rangeSet.getOrderedRanges()) {
                        union = union.union(range(transformation, type, range));
                    }
                    return union;
                },
                discrete -> {
                    if (!discrete.isInclusive()) {
                        return CoordinateRanges.all();
                    }
                    CoordinateRanges union = CoordinateRanges.none();
                    for (Object value : discrete.getValues()) {
                        union = union.union(range(transformation, type, value, value));
                    }
                    return union;
                },
                allOrNone -> allOrNone.isAll() ? CoordinateRanges.all() : CoordinateRanges.none());
        return result.union(valueRanges);
    }

    private static CoordinateRanges range(Transformation transformation, Type type, Range range)
    {
        Object low = range.isLowUnbounded() ? null : range.getLowBoundedValue();
        Object high = range.isHighUnbounded() ? null : range.getHighBoundedValue();
        return range(transformation, type, low, high);
    }

    /** Bounds always inclusive ({@code null}: unbounded); see the README's rule for lossy mappings. */
    private static CoordinateRanges range(Transformation transformation, Type type, Object low, Object high)
    {
        return switch (transformation) {
            case LongLinearTransformation linear -> linear.range(
                    low == null ? Long.MIN_VALUE : longValue(type, low), true,
                    high == null ? Long.MAX_VALUE : longValue(type, high), true);
            case DoubleLinearTransformation linear -> linear.range(
                    low == null ? Double.NEGATIVE_INFINITY : doubleValue(type, low), true,
                    high == null ? Double.NaN : doubleValue(type, high), true);
            case OrderedBytesTransformation ordered -> ordered.range(
                    low == null ? null : bytesValue(type, low).getBytes(), true,
                    high == null ? null : bytesValue(type, high).getBytes(), true);
            case BooleanTransformation bool -> bool.range(
                    low == null ? false : (Boolean) low, true,
                    high == null ? true : (Boolean) high, true);
            case HashTransformation hash -> switch (hash.domain()) {
                case LONG -> hash.range(
                        low == null ? Long.MIN_VALUE : longValue(type, low), true,
                        high == null ? Long.MAX_VALUE : longValue(type, high), true);
                case DOUBLE -> hash.range(
                        low == null ? Double.NEGATIVE_INFINITY : doubleValue(type, low), true,
                        high == null ? Double.NaN : doubleValue(type, high), true);
                case BYTES -> hash.range(low == null ? null : bytesValue(type, low).getBytes(), true, high == null ? null : bytesValue(type, high).getBytes(), true);
                case BOOLEAN -> CoordinateRanges.all();
            };
        };
    }
}

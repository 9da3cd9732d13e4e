package io.qbeast.index.transform;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The coordinates one dimension of a query may take: a union of closed intervals, kept sorted,
 * disjoint and merged, so that equal sets have equal representations. Empty means no row can
 * match; {@link #isAll()} means the dimension does not restrict anything.
 */
public record CoordinateRanges(List<CoordinateRange> ranges)
{
    private static final CoordinateRanges ALL = new CoordinateRanges(List.of(CoordinateRange.ALL));
    private static final CoordinateRanges NONE = new CoordinateRanges(List.of());

    public CoordinateRanges
    {
        ranges = normalize(requireNonNull(ranges, "ranges is null"));
    }

    public static CoordinateRanges all()
    {
        return ALL;
    }

    public static CoordinateRanges none()
    {
        return NONE;
    }

    public static CoordinateRanges of(double low, double high)
    {
        return new CoordinateRanges(List.of(new CoordinateRange(low, high)));
    }

    public static CoordinateRanges point(double coordinate)
    {
        return of(coordinate, coordinate);
    }

    public boolean isAll()
    {
        return ranges.size() == 1 && ranges.getFirst().isAll();
    }

    public boolean isNone()
    {
        return ranges.isEmpty();
    }

    public boolean contains(double coordinate)
    {
        int index = firstEndingAtOrAfter(coordinate);
        return index < ranges.size() && ranges.get(index).contains(coordinate);
    }

    /**
     * Whether some coordinate of these ranges lies in {@code [lowInclusive, highExclusive)}, such as
     * a cube's extent in one dimension.
     */
    public boolean intersects(double lowInclusive, double highExclusive)
    {
        int index = firstEndingAtOrAfter(lowInclusive);
        return index < ranges.size() && ranges.get(index).intersects(lowInclusive, highExclusive);
    }

    public CoordinateRanges union(CoordinateRanges other)
    {
        if (isAll() || other.isNone()) {
            return this;
        }
        if (other.isAll() || isNone()) {
            return other;
        }
        List<CoordinateRange> all = new ArrayList<>(ranges);
        all.addAll(other.ranges);
        return new CoordinateRanges(all);
    }

    public CoordinateRanges intersect(CoordinateRanges other)
    {
        List<CoordinateRange> result = new ArrayList<>();
        int i = 0;
        int j = 0;
        while (i < ranges.size() && j < other.ranges.size()) {
            CoordinateRange a = ranges.get(i);
            CoordinateRange b = other.ranges.get(j);
            double low = Math.max(a.low(), b.low());
            double high = Math.min(a.high(), b.high());
            if (low <= high) {
                result.add(new CoordinateRange(low, high));
            }
            if (a.high() < b.high()) {
                i++;
            }
            else {
                j++;
            }
        }
        return new CoordinateRanges(result);
    }

    // binary search: the first range whose high end is >= coordinate
    private int firstEndingAtOrAfter(double coordinate)
    {
        int low = 0;
        int high = ranges.size();
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (ranges.get(middle).high() < coordinate) {
                low = middle + 1;
            }
            else {
                high = middle;
            }
        }
        return low;
    }

    private static List<CoordinateRange> normalize(List<CoordinateRange> ranges)
    {
        if (ranges.size() <= 1) {
            return List.copyOf(ranges);
        }
        List<CoordinateRange> sorted = new ArrayList<>(ranges);
        sorted.sort(Comparator.comparingDouble(CoordinateRange::low));
        List<CoordinateRange> merged = new ArrayList<>();
        CoordinateRange current = sorted.getFirst();
        for (CoordinateRange next : sorted.subList(1, sorted.size())) {
            // no double lies strictly between current.high() and nextUp(current.high()): adjacent ranges merge
            if (next.low() <= Math.nextUp(current.high())) {
                current = new CoordinateRange(current.low(), Math.max(current.high(), next.high()));
            }
            else {
                merged.add(current);
                current = next;
            }
        }
        merged.add(current);
        return List.copyOf(merged);
    }
}

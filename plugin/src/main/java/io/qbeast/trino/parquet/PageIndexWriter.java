package io.qbeast.trino.parquet;

import io.airlift.slice.BasicSliceInput;
import io.airlift.slice.DynamicSliceOutput;
import io.airlift.slice.Slice;
import io.trino.spi.block.Block;
import org.apache.parquet.format.BoundaryOrder;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnIndex;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.OffsetIndex;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageLocation;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Util;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

import static io.qbeast.trino.handle.QbeastColumnHandle.WEIGHT_COLUMN;
import static io.trino.spi.type.IntegerType.INTEGER;

/**
 * The page indexes of one data file: an offset index of every column chunk (where each data page
 * starts, its size, its first row) and a column index of {@code _qbeast_weight} (each page's lowest
 * and highest weight). trino-parquet's writer writes neither, so without them a reader reads every
 * page of a row group it keeps.
 *
 * <p>Why: a sample of fraction f keeps the row groups whose weights start below its bound, and the
 * weight-ordered ones (heads, middles and packs of cubes, see {@code FileLayout}) hold those rows in
 * their first pages. With the indexes, trino-parquet's column-index filtering reads only the pages
 * whose weights lie under the bound, in every column read: a root cube of 50,000 rows is one row
 * group (below the minimum row-group size), of which a 0.1% sample needs a few percent.
 *
 * <p>The offset index is read back from the page headers of the row group the writer encoded (page
 * boundaries are trino-parquet's); the weights of each page come from the rows appended. Files with
 * repeated (list, map) columns get no indexes: there a v1 page header counts values, not rows.
 */
final class PageIndexWriter
{
    private static final int PAGE_LOCATION_BYTES = 48;

    private final int weightChannel;
    private final List<RowGroupIndexes> rowGroups = new ArrayList<>();
    private int[] weights = new int[1024];
    private final BitSet nullWeights = new BitSet();
    private int weightCount;
    private long retainedBytes;

    /**
     * @param weightChannel page channel of {@code _qbeast_weight} (an INTEGER column), or -1 when
     * the file has none: then only offset indexes are written
     */
    PageIndexWriter(int weightChannel)
    {
        this.weightChannel = weightChannel;
    }

    private record RowGroupIndexes(List<OffsetIndex> offsetIndexes, int weightColumn, ColumnIndex weightIndex) {}

    /** Records the weights of rows appended to the open row group. */
    void appendWeights(Block block)
    {
        if (weightChannel < 0) {
            return;
        }
        int positions = block.getPositionCount();
        if (weightCount + positions > weights.length) {
            weights = Arrays.copyOf(weights, Math.max(weightCount + positions, weights.length * 2));
        }
        for (int position = 0; position < positions; position++) {
            if (block.isNull(position)) {
                nullWeights.set(weightCount);
            }
            else {
                weights[weightCount] = INTEGER.getInt(block, position);
            }
            weightCount++;
        }
    }

    /** Forgets the weights recorded since the last row group (the writer wrote no row group of them). */
    void discardWeights()
    {
        weightCount = 0;
        nullWeights.clear();
    }

    int weightChannel()
    {
        return weightChannel;
    }

    /**
     * Indexes the row group just encoded: {@code rowGroupFile} is the in-memory file of that one
     * row group, {@code rowGroup} its metadata there; its pages land {@code shift} bytes later in
     * the data file. Forgets the weights recorded for it.
     */
    void finishRowGroup(Slice rowGroupFile, RowGroup rowGroup, long shift)
            throws IOException
    {
        int rows = weightCount;
        weightCount = 0;
        if (rowGroup.getNum_rows() == 0) {
            rowGroups.add(new RowGroupIndexes(List.of(), -1, null));
            nullWeights.clear();
            return;
        }
        List<OffsetIndex> offsetIndexes = new ArrayList<>(rowGroup.getColumns().size());
        int weightColumn = -1;
        for (int column = 0; column < rowGroup.getColumns().size(); column++) {
            ColumnMetaData metadata = rowGroup.getColumns().get(column).getMeta_data();
            OffsetIndex offsetIndex = offsetIndex(rowGroupFile, metadata, shift, rowGroup.getNum_rows());
            if (offsetIndex == null) {
                // pages that count values of a repeated column, not rows: no indexes for this row group
                rowGroups.add(new RowGroupIndexes(List.of(), -1, null));
                nullWeights.clear();
                return;
            }
            offsetIndexes.add(offsetIndex);
            retainedBytes += (long) offsetIndex.getPage_locationsSize() * PAGE_LOCATION_BYTES;
            if (metadata.getPath_in_schema().equals(List.of(WEIGHT_COLUMN))) {
                weightColumn = column;
            }
        }
        ColumnIndex weightIndex = null;
        if (weightChannel >= 0 && weightColumn >= 0 && rows == rowGroup.getNum_rows()) {
            weightIndex = weightIndex(offsetIndexes.get(weightColumn), rows);
            retainedBytes += (long) weightIndex.getNull_pagesSize() * PAGE_LOCATION_BYTES;
        }
        nullWeights.clear();
        rowGroups.add(new RowGroupIndexes(offsetIndexes, weightIndex == null ? -1 : weightColumn, weightIndex));
    }

    // the data pages of a column chunk, from its page headers; null when they do not add up to the
    // row group's rows (a v1 page header counts the values of a repeated column, not its rows)
    private static OffsetIndex offsetIndex(Slice rowGroupFile, ColumnMetaData metadata, long shift, long rowGroupRows)
            throws IOException
    {
        long start = metadata.isSetDictionary_page_offset() && metadata.getDictionary_page_offset() > 0
                ? Math.min(metadata.getDictionary_page_offset(), metadata.getData_page_offset())
                : metadata.getData_page_offset();
        long end = start + metadata.getTotal_compressed_size();
        BasicSliceInput input = rowGroupFile.slice(0, (int) end).getInput();
        input.setPosition(start);
        List<PageLocation> pages = new ArrayList<>();
        long firstRow = 0;
        while (input.position() < end) {
            long pageStart = input.position();
            PageHeader header = Util.readPageHeader(input);
            long pageEnd = input.position() + header.getCompressed_page_size();
            int rows = switch (header.getType()) {
                case DATA_PAGE -> header.getData_page_header().getNum_values();
                case DATA_PAGE_V2 -> header.getData_page_header_v2().getNum_rows();
                case DICTIONARY_PAGE, INDEX_PAGE -> -1;
            };
            if (rows >= 0) {
                pages.add(new PageLocation(shift + pageStart, (int) (pageEnd - pageStart), firstRow));
                firstRow += rows;
            }
            input.setPosition(pageEnd);
        }
        return firstRow == rowGroupRows ? new OffsetIndex(pages) : null;
    }

    private ColumnIndex weightIndex(OffsetIndex pages, int rows)
    {
        List<PageLocation> locations = pages.getPage_locations();
        List<Boolean> nullPages = new ArrayList<>(locations.size());
        List<ByteBuffer> mins = new ArrayList<>(locations.size());
        List<ByteBuffer> maxes = new ArrayList<>(locations.size());
        List<Long> nullCounts = new ArrayList<>(locations.size());
        boolean ascending = true;
        boolean descending = true;
        int lastMin = 0;
        int lastMax = 0;
        boolean any = false;
        for (int page = 0; page < locations.size(); page++) {
            int from = (int) locations.get(page).getFirst_row_index();
            int to = page + 1 < locations.size() ? (int) locations.get(page + 1).getFirst_row_index() : rows;
            int min = Integer.MAX_VALUE;
            int max = Integer.MIN_VALUE;
            long nulls = 0;
            for (int row = from; row < to; row++) {
                if (nullWeights.get(row)) {
                    nulls++;
                    continue;
                }
                min = Math.min(min, weights[row]);
                max = Math.max(max, weights[row]);
            }
            nullCounts.add(nulls);
            if (nulls == to - from) {
                nullPages.add(true);
                mins.add(ByteBuffer.allocate(0));
                maxes.add(ByteBuffer.allocate(0));
                continue;
            }
            nullPages.add(false);
            mins.add(int32(min));
            maxes.add(int32(max));
            if (any) {
                ascending &= lastMin <= min && lastMax <= max;
                descending &= lastMin >= min && lastMax >= max;
            }
            any = true;
            lastMin = min;
            lastMax = max;
        }
        BoundaryOrder order = ascending ? BoundaryOrder.ASCENDING : descending ? BoundaryOrder.DESCENDING : BoundaryOrder.UNORDERED;
        ColumnIndex index = new ColumnIndex(nullPages, mins, maxes, order);
        index.setNull_counts(nullCounts);
        return index;
    }

    // Parquet's plain encoding of an INT32 statistic: four bytes, little endian
    private static ByteBuffer int32(int value)
    {
        return ByteBuffer.allocate(Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN).putInt(0, value);
    }

    /**
     * Writes the indexes of every row group at {@code position} of the file (column indexes, then
     * offset indexes, as parquet-mr lays them out) and sets their references in the row groups'
     * column chunks, which are the footer's.
     *
     * @return the bytes written
     */
    long write(List<RowGroup> fileRowGroups, OutputStream output, long position)
            throws IOException
    {
        if (fileRowGroups.size() != rowGroups.size()) {
            throw new IllegalStateException("%s row groups in the file, %s indexed".formatted(fileRowGroups.size(), rowGroups.size()));
        }
        DynamicSliceOutput buffer = new DynamicSliceOutput(16 * 1024);
        for (int group = 0; group < rowGroups.size(); group++) {
            RowGroupIndexes indexes = rowGroups.get(group);
            if (indexes.weightIndex() != null) {
                ColumnChunk chunk = fileRowGroups.get(group).getColumns().get(indexes.weightColumn());
                int start = buffer.size();
                Util.writeColumnIndex(indexes.weightIndex(), buffer);
                chunk.setColumn_index_offset(position + start);
                chunk.setColumn_index_length(buffer.size() - start);
            }
        }
        for (int group = 0; group < rowGroups.size(); group++) {
            List<OffsetIndex> offsetIndexes = rowGroups.get(group).offsetIndexes();
            for (int column = 0; column < offsetIndexes.size(); column++) {
                ColumnChunk chunk = fileRowGroups.get(group).getColumns().get(column);
                int start = buffer.size();
                Util.writeOffsetIndex(offsetIndexes.get(column), buffer);
                chunk.setOffset_index_offset(position + start);
                chunk.setOffset_index_length(buffer.size() - start);
            }
        }
        Slice bytes = buffer.slice();
        output.write(bytes.byteArray(), bytes.byteArrayOffset(), bytes.length());
        return bytes.length();
    }

    /** Heap held: the weights of the open row group and the indexes of the finished ones. */
    long retainedBytes()
    {
        return (long) weights.length * Integer.BYTES + nullWeights.size() / 8 + retainedBytes;
    }
}

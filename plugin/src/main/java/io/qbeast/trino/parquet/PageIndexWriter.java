package io.qbeast.trino.parquet;

import com.google.common.collect.ImmutableList;
import io.airlift.slice.BasicSliceInput;
import io.airlift.slice.DynamicSliceOutput;
import io.airlift.slice.Slice;
import io.trino.spi.Page;
import io.trino.spi.type.Type;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * The page indexes of one data file: an offset index of every column chunk (where each data page
 * starts, its size, its first row) and a column index (each page's lowest and highest value, its
 * nulls) of every top-level column of these types ({@link PageBounds}): integers, decimals up to
 * precision 18, {@code real}, {@code double}, dates, timestamps without zone, strings and binaries
 * ({@code _qbeast_weight} and {@code _qbeast_cube} among them). trino-parquet's writer writes
 * neither, so without them a reader reads every page of a row group it keeps.
 *
 * <p>Why the weights: a sample of fraction f keeps the row groups whose weights start below its
 * bound, and the weight-ordered ones (heads, middles of cubes, each cube of a pack, see
 * {@code FileLayout}) hold those rows in their first pages. With the indexes, trino-parquet's
 * column-index filtering reads only the pages whose weights lie under the bound, in every column
 * read: a root cube of 50,000 rows is one row group (below the minimum row-group size), of which
 * a 0.1% sample needs a few percent. Why the other columns: the rows of a pack are cube after cube
 * and the point parts of a large cube in point order, so a page of an indexed column covers a
 * narrow range of it, and a range predicate skips the pages of the cubes (or point ranges) it
 * misses inside a row group, where row-group statistics see only the union.
 *
 * <p>The offset index is read back from the page headers of the row group the writer encoded (page
 * boundaries are trino-parquet's). The values of a page are not kept: each column keeps the
 * bounds of every run of rows the Parquet writer encodes at once ({@link #append}), and trino-parquet
 * ends a page only after such a run, so a page's bounds are those of its runs. Were a page to end
 * inside a run, its bounds would be the runs' it overlaps: wider, still bounds (the Parquet spec
 * asks for lower and upper bounds), and its null count is then left out. Files with repeated
 * (list, map) columns get no indexes: there a v1 page header counts values, not rows.
 */
final class PageIndexWriter
{
    private static final int PAGE_LOCATION_BYTES = 48;

    private final int runRows;
    private final List<PageBounds> columns;
    private final List<RowGroupIndexes> rowGroups = new ArrayList<>();
    private long appendedRows;
    private long retainedBytes;

    /**
     * @param schema the file's columns, in page channel order
     * @param columnTypes Trino types of the page channels
     * @param runRows rows the Parquet writer encodes at once (its batch size)
     */
    PageIndexWriter(Schema schema, List<Type> columnTypes, int runRows)
    {
        checkArgument(runRows > 0, "runRows must be positive: %s", runRows);
        this.runRows = runRows;
        ImmutableList.Builder<PageBounds> columns = ImmutableList.builder();
        List<Types.NestedField> fields = schema.columns();
        for (int channel = 0; channel < fields.size(); channel++) {
            int current = channel;
            PageBounds.Kind.of(columnTypes.get(channel), fields.get(channel).type())
                    .ifPresent(kind -> columns.add(new PageBounds(current, fields.get(current).name(), columnTypes.get(current), kind)));
        }
        this.columns = columns.build();
    }

    private record RowGroupIndexes(List<OffsetIndex> offsetIndexes, Map<Integer, ColumnIndex> columnIndexes) {}

    /** Records the bounds of the rows of a page appended to the open row group. */
    void append(Page page)
    {
        int positions = page.getPositionCount();
        // trino-parquet's ParquetWriter.write encodes a page in runs of at most its batch size
        for (int start = 0; start < positions; start += runRows) {
            int length = Math.min(runRows, positions - start);
            for (PageBounds column : columns) {
                column.addRun(page.getBlock(column.channel()), start, length);
            }
        }
        appendedRows += positions;
    }

    /** Forgets the rows recorded since the last row group (the writer wrote no row group of them). */
    void discardRows()
    {
        appendedRows = 0;
        columns.forEach(PageBounds::clear);
    }

    /**
     * Indexes the row group just encoded: {@code rowGroupFile} is the in-memory file of that one
     * row group, {@code rowGroup} its metadata there; its pages land {@code shift} bytes later in
     * the data file. Forgets the rows recorded for it.
     */
    void finishRowGroup(Slice rowGroupFile, RowGroup rowGroup, long shift)
            throws IOException
    {
        long rows = appendedRows;
        appendedRows = 0;
        try {
            if (rowGroup.getNum_rows() == 0) {
                rowGroups.add(new RowGroupIndexes(List.of(), Map.of()));
                return;
            }
            List<OffsetIndex> offsetIndexes = new ArrayList<>(rowGroup.getColumns().size());
            Map<List<String>, Integer> columnOfPath = new HashMap<>();
            for (int column = 0; column < rowGroup.getColumns().size(); column++) {
                ColumnMetaData metadata = rowGroup.getColumns().get(column).getMeta_data();
                OffsetIndex offsetIndex = offsetIndex(rowGroupFile, metadata, shift, rowGroup.getNum_rows());
                if (offsetIndex == null) {
                    // pages that count values of a repeated column, not rows: no indexes for this row group
                    rowGroups.add(new RowGroupIndexes(List.of(), Map.of()));
                    return;
                }
                offsetIndexes.add(offsetIndex);
                retainedBytes += (long) offsetIndex.getPage_locationsSize() * PAGE_LOCATION_BYTES;
                columnOfPath.put(metadata.getPath_in_schema(), column);
            }
            Map<Integer, ColumnIndex> columnIndexes = new HashMap<>();
            // the rows recorded are this row group's only when it is the one row group of its writer
            if (rows == rowGroup.getNum_rows()) {
                for (PageBounds bounds : columns) {
                    Integer column = columnOfPath.get(List.of(bounds.name()));
                    if (column == null) {
                        continue;
                    }
                    bounds.columnIndex(offsetIndexes.get(column), rows).ifPresent(index -> {
                        columnIndexes.put(column, index);
                        retainedBytes += (long) index.getNull_pagesSize() * PAGE_LOCATION_BYTES;
                    });
                }
            }
            rowGroups.add(new RowGroupIndexes(offsetIndexes, columnIndexes));
        }
        finally {
            columns.forEach(PageBounds::clear);
        }
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
            Map<Integer, ColumnIndex> columnIndexes = rowGroups.get(group).columnIndexes();
            for (int column = 0; column < fileRowGroups.get(group).getColumns().size(); column++) {
                ColumnIndex index = columnIndexes.get(column);
                if (index == null) {
                    continue;
                }
                ColumnChunk chunk = fileRowGroups.get(group).getColumns().get(column);
                int start = buffer.size();
                Util.writeColumnIndex(index, buffer);
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

    /** Heap held: the bounds of the open row group's runs and the indexes of the finished ones. */
    long retainedBytes()
    {
        long held = retainedBytes;
        for (PageBounds column : columns) {
            held += column.retainedBytes();
        }
        return held;
    }
}

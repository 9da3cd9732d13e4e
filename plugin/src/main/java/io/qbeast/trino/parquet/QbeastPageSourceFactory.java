package io.qbeast.trino.parquet;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.qbeast.trino.handle.QbeastColumnHandle;
import io.qbeast.trino.handle.RowPredicate;
import io.trino.filesystem.TrinoInputFile;
import io.trino.memory.context.AggregatedMemoryContext;
import io.trino.parquet.Column;
import io.trino.parquet.Field;
import io.trino.parquet.ParquetCorruptionException;
import io.trino.parquet.ParquetDataSource;
import io.trino.parquet.ParquetDataSourceId;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.parquet.metadata.FileMetadata;
import io.trino.parquet.metadata.ParquetMetadata;
import io.trino.parquet.predicate.TupleDomainParquetPredicate;
import io.trino.parquet.reader.ParquetReader;
import io.trino.parquet.reader.RowGroupInfo;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.EmptyPageSource;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.predicate.ValueSet;
import io.trino.spi.type.ArrayType;
import io.trino.spi.type.MapType;
import io.trino.spi.type.RowType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types.NestedField;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.io.ColumnIO;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.collect.ImmutableMap.toImmutableMap;
import static io.airlift.slice.Slices.utf8Slice;
import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_BAD_DATA;
import static io.qbeast.trino.error.QbeastErrorCode.QBEAST_FILESYSTEM_ERROR;
import static io.qbeast.trino.handle.QbeastColumnHandle.WEIGHT_COLUMN;
import static io.trino.memory.context.AggregatedMemoryContext.newSimpleAggregatedMemoryContext;
import static io.trino.parquet.ParquetTypeUtils.getColumnIO;
import static io.trino.parquet.ParquetTypeUtils.getDescriptors;
import static io.trino.parquet.predicate.PredicateUtils.buildPredicate;
import static io.trino.spi.type.IntegerType.INTEGER;
import static java.util.Objects.requireNonNull;
import static java.util.function.Function.identity;
import static org.joda.time.DateTimeZone.UTC;

/**
 * Opens a page source over one split of a Parquet data file of a qbeast table.
 *
 * <p>Columns are resolved by Iceberg field id (by name only for files without ids), so renamed
 * columns read and columns added after the file was written read as null. Row groups are pruned
 * with the predicate and with the sample's weight range {@code _qbeast_weight < weightUpperBound}
 * (files are written sorted by weight, so a sample reads a prefix of each file); the weight bound
 * is then enforced exactly per row, and so are the predicate's domains on the columns
 * {@link #isEnforceable} accepts and the table handle's row predicates (the rest the engine filters).
 */
public final class QbeastPageSourceFactory
{
    /** The weight bound that samples nothing away. */
    public static final long NO_SAMPLING = Integer.MAX_VALUE + 1L;

    // how many discrete values a domain may keep before row-group pruning simplifies it to a range
    private static final int DOMAIN_COMPACTION_THRESHOLD = 1000;

    private final FooterCache footers;

    /** A factory whose every page source parses its file's footer. */
    public QbeastPageSourceFactory()
    {
        this(FooterCache.disabled());
    }

    public QbeastPageSourceFactory(FooterCache footers)
    {
        this.footers = requireNonNull(footers, "footers is null");
    }

    /**
     * Like {@link #createPageSource(TrinoInputFile, long, long, long, List, Optional, TupleDomain, long, ParquetReaderOptions)}
     * without the table schema: nested row fields are then matched by name.
     */
    public ConnectorPageSource createPageSource(
            TrinoInputFile inputFile,
            long start,
            long length,
            long fileSize,
            List<QbeastColumnHandle> columns,
            TupleDomain<QbeastColumnHandle> predicate,
            long weightUpperBound,
            ParquetReaderOptions options)
    {
        return createPageSource(inputFile, start, length, fileSize, columns, Optional.empty(), predicate, weightUpperBound, options);
    }

    /**
     * @param start first byte of the split; row groups that start in {@code [start, start + length)} are read
     * @param fileSize the file size from the manifest
     * @param columns the columns to return, in output channel order (hidden columns included if requested)
     * @param tableSchema the table's current Iceberg schema, used to match nested fields by id
     * @param predicate used only to skip row groups; rows are not filtered by it
     * @param weightUpperBound exclusive bound on {@code _qbeast_weight}; {@link #NO_SAMPLING} reads all rows
     */
    public ConnectorPageSource createPageSource(
            TrinoInputFile inputFile,
            long start,
            long length,
            long fileSize,
            List<QbeastColumnHandle> columns,
            Optional<Schema> tableSchema,
            TupleDomain<QbeastColumnHandle> predicate,
            long weightUpperBound,
            ParquetReaderOptions options)
    {
        return createPageSource(inputFile, start, length, fileSize, columns, tableSchema, predicate, TupleDomain.all(), weightUpperBound, options);
    }

    /**
     * Like the above, and also filters rows: only rows whose values are in {@code enforced}'s
     * domains are returned (its columns need not be among {@code columns}; each must be
     * {@link #isEnforceable enforceable}).
     */
    public ConnectorPageSource createPageSource(
            TrinoInputFile inputFile,
            long start,
            long length,
            long fileSize,
            List<QbeastColumnHandle> columns,
            Optional<Schema> tableSchema,
            TupleDomain<QbeastColumnHandle> predicate,
            TupleDomain<QbeastColumnHandle> enforced,
            long weightUpperBound,
            ParquetReaderOptions options)
    {
        return createPageSource(inputFile, start, length, fileSize, columns, tableSchema, predicate, enforced, List.of(), weightUpperBound, DeletedRows.NONE, options);
    }

    /**
     * Like the above, without the rows {@code deletes} removes (the rows that delete files of other
     * engines delete from this file, loaded by {@link DeleteFileReader}): a sample is then the live
     * rows under the weight bound. Of those it also returns only the rows where every one of
     * {@code rowPredicates} is TRUE, evaluated after the weight bound, {@code enforced}'s domains and
     * the deletes ({@link RowPredicateFilter}; their columns need not be among {@code columns}).
     */
    public ConnectorPageSource createPageSource(
            TrinoInputFile inputFile,
            long start,
            long length,
            long fileSize,
            List<QbeastColumnHandle> columns,
            Optional<Schema> tableSchema,
            TupleDomain<QbeastColumnHandle> predicate,
            TupleDomain<QbeastColumnHandle> enforced,
            List<RowPredicate> rowPredicates,
            long weightUpperBound,
            DeletedRows deletes,
            ParquetReaderOptions options)
    {
        requireNonNull(deletes, "deletes is null");
        requireNonNull(enforced, "enforced is null");
        requireNonNull(rowPredicates, "rowPredicates is null");
        if (enforced.isNone()) {
            return new EmptyPageSource();
        }
        predicate = predicate.intersect(enforced);
        requireNonNull(inputFile, "inputFile is null");
        requireNonNull(columns, "columns is null");
        requireNonNull(tableSchema, "tableSchema is null");
        requireNonNull(predicate, "predicate is null");
        requireNonNull(options, "options is null");
        checkArgument(weightUpperBound <= NO_SAMPLING, "weightUpperBound above Integer.MAX_VALUE + 1: %s", weightUpperBound);

        if (predicate.isNone() || weightUpperBound <= Integer.MIN_VALUE) {
            return new EmptyPageSource();
        }
        boolean sampling = weightUpperBound < NO_SAMPLING;

        AggregatedMemoryContext memoryContext = newSimpleAggregatedMemoryContext();
        QbeastParquetDataSource dataSource = null;
        try {
            dataSource = new QbeastParquetDataSource(inputFile, fileSize, options);
            ParquetMetadata parquetMetadata = footers.read(dataSource);
            FileMetadata fileMetadata = parquetMetadata.getFileMetaData();
            MessageType fileSchema = fileMetadata.getSchema();
            FileColumns fileColumns = new FileColumns(fileSchema);

            Optional<QbeastColumnHandle> weightColumn = sampling ? weightColumn(columns, predicate, fileColumns) : Optional.empty();

            // the requested schema: columns to read, plus predicate columns whose statistics prune row groups
            Set<Type> requestedFields = new LinkedHashSet<>();
            columns.forEach(column -> fileColumns.find(column).ifPresent(requestedFields::add));
            weightColumn.flatMap(fileColumns::find).ifPresent(requestedFields::add);
            boolean rowIdWeightsRequested = columns.stream().anyMatch(column -> column.isMergeRowId() && column.mergeRowIdHasWeights());
            if (rowIdWeightsRequested) {
                fileColumns.findByName(WEIGHT_COLUMN).ifPresent(requestedFields::add);
            }
            predicate.getDomains().orElseThrow().keySet().forEach(column -> fileColumns.find(column).ifPresent(requestedFields::add));
            RowPredicateFilter.columns(rowPredicates).forEach(column -> fileColumns.find(column).ifPresent(requestedFields::add));
            deletes.equalityDeletes().forEach(equality -> equality.columns().forEach(column -> fileColumns.find(column).ifPresent(requestedFields::add)));
            MessageType requestedSchema = new MessageType(fileSchema.getName(), fileSchema.getFields().stream()
                    .filter(requestedFields::contains)
                    .collect(ImmutableList.toImmutableList()));
            MessageColumnIO messageColumnIO = getColumnIO(fileSchema, requestedSchema);

            // reader channels: requested columns present in the file, then the weight if sampling needs it
            List<Column> readerColumns = new ArrayList<>();
            Map<Integer, Integer> readerChannelById = new HashMap<>();
            int[] outputToReaderChannel = new int[columns.size()];
            Block[] missingValues = new Block[columns.size()];
            for (int channel = 0; channel < columns.size(); channel++) {
                QbeastColumnHandle column = columns.get(channel);
                missingValues[channel] = column.type().createNullBlock();
                outputToReaderChannel[channel] = readerChannel(column, fileColumns, messageColumnIO, tableSchema, readerColumns, readerChannelById);
            }
            int weightChannel = weightColumn
                    .map(weight -> readerChannel(weight, fileColumns, messageColumnIO, Optional.empty(), readerColumns, readerChannelById))
                    .orElse(-1);

            // the merge row id of DELETE, UPDATE and MERGE: the row's position and weight (by name: every
            // qbeast file has it; a file of another engine may not, its rows then get their derived weight)
            int mergeRowIdChannel = -1;
            for (int channel = 0; channel < columns.size(); channel++) {
                if (columns.get(channel).isMergeRowId()) {
                    mergeRowIdChannel = channel;
                }
            }
            int rowIdWeightChannel = !rowIdWeightsRequested ? -1 : fileColumns.findByName(WEIGHT_COLUMN)
                    .map(field -> readerChannel(new QbeastColumnHandle(WEIGHT_COLUMN, field.getId() == null ? -1 : field.getId().intValue(), INTEGER, true), fileColumns, messageColumnIO, Optional.empty(), readerColumns, readerChannelById))
                    .orElse(-1);

            // columns of the enforced predicate, read to filter rows
            Optional<QbeastParquetPageSource.RowFilter> rowFilter = Optional.empty();
            if (!enforced.isAll()) {
                List<Integer> filterChannels = new ArrayList<>();
                List<Domain> filterDomains = new ArrayList<>();
                List<io.trino.spi.type.Type> filterTypes = new ArrayList<>();
                for (Map.Entry<QbeastColumnHandle, Domain> entry : enforced.getDomains().orElseThrow().entrySet()) {
                    checkArgument(isEnforceable(entry.getKey().type()), "Cannot enforce a predicate on %s", entry.getKey().name());
                    filterChannels.add(readerChannel(entry.getKey(), fileColumns, messageColumnIO, tableSchema, readerColumns, readerChannelById));
                    filterDomains.add(entry.getValue());
                    filterTypes.add(entry.getKey().type());
                }
                rowFilter = Optional.of(new QbeastParquetPageSource.RowFilter(filterChannels.stream().mapToInt(Integer::intValue).toArray(), filterDomains, filterTypes));
            }

            // columns of the row predicates, read to evaluate them
            Optional<RowPredicateFilter> rowPredicateFilter = Optional.empty();
            if (!rowPredicates.isEmpty()) {
                rowPredicateFilter = Optional.of(RowPredicateFilter.compile(rowPredicates,
                        column -> readerChannel(column, fileColumns, messageColumnIO, tableSchema, readerColumns, readerChannelById)));
            }

            Map<List<String>, ColumnDescriptor> descriptorsByPath = getDescriptors(fileSchema, requestedSchema);
            boolean storedWeights = weightColumn.flatMap(fileColumns::find)
                    .map(field -> storedWeights(parquetMetadata.getParquetMetadata(), field.getName(), start, length))
                    .orElse(false);
            TupleDomain<ColumnDescriptor> parquetDomain = options.isIgnoreStatistics()
                    ? TupleDomain.all()
                    : parquetDomain(descriptorsByPath, predicate, weightColumn, weightUpperBound, !storedWeights);
            TupleDomainParquetPredicate parquetPredicate = buildPredicate(requestedSchema, parquetDomain, descriptorsByPath, UTC);
            List<RowGroupInfo> rowGroups = FooterRowGroupFilter.rowGroups(
                    start,
                    length,
                    dataSource,
                    parquetMetadata,
                    parquetDomain,
                    parquetPredicate,
                    descriptorsByPath,
                    DOMAIN_COMPACTION_THRESHOLD,
                    options);

            // columns of the equality deletes, read to match rows even when not projected
            List<DeleteFilter.BoundEquality> equalities = new ArrayList<>();
            for (DeletedRows.EqualityDeletes equality : deletes.equalityDeletes()) {
                int[] channels = new int[equality.columns().size()];
                for (int column = 0; column < channels.length; column++) {
                    channels[column] = readerChannel(equality.columns().get(column), fileColumns, messageColumnIO, tableSchema, readerColumns, readerChannelById);
                }
                equalities.add(new DeleteFilter.BoundEquality(channels, equality.columns().stream().map(QbeastColumnHandle::type).collect(ImmutableList.toImmutableList()), equality.keys()));
            }

            // sampling needs row numbers for the rows that have no stored weight, position deletes to match rows
            boolean rowNumbers = (sampling && !storedWeights) || deletes.hasPositions() || mergeRowIdChannel >= 0;
            int rowNumberChannel = readerColumns.size();
            Optional<MergeRowIds> mergeRowIds = mergeRowIdChannel < 0
                    ? Optional.empty()
                    : Optional.of(new MergeRowIds(mergeRowIdChannel, rowIdWeightsRequested, rowIdWeightChannel, rowNumberChannel, utf8Slice(inputFile.location().toString()), fileSeed(inputFile)));
            Optional<DeleteFilter> deleteFilter = deletes.isEmpty()
                    ? Optional.empty()
                    : Optional.of(new DeleteFilter(deletes.hasPositions() ? rowNumberChannel : -1, deletes.positions(), equalities));
            ParquetDataSourceId dataSourceId = dataSource.getId();
            ParquetReader reader = new ParquetReader(
                    Optional.ofNullable(fileMetadata.getCreatedBy()),
                    ImmutableList.copyOf(readerColumns),
                    rowNumbers,
                    rowGroups,
                    dataSource,
                    UTC,
                    memoryContext,
                    options,
                    exception -> QbeastParquetPageSource.handleException(dataSourceId, exception),
                    // column-index (page) filtering would shift row numbers; only used when they are not needed
                    rowNumbers ? Optional.empty() : Optional.of(pagePredicate(requestedSchema, parquetDomain, descriptorsByPath, readerColumns)),
                    Optional.empty(),
                    // the writer never encrypts; a file encrypted by another engine fails in readFooter
                    Optional.empty());

            Optional<QbeastParquetPageSource.WeightFilter> weightFilter = sampling
                    ? Optional.of(new QbeastParquetPageSource.WeightFilter(weightChannel, rowNumberChannel, weightUpperBound, fileSeed(inputFile)))
                    : Optional.empty();
            long rowGroupsInSplit = rowGroupsStartingIn(parquetMetadata.getParquetMetadata(), start, length);
            // the page sink writes a file's rows in ascending weight: a sample may stop at the first row past its bound
            boolean sortedByWeight = sampling && weightChannel >= 0 && QbeastParquetFileWriter.isWeightOrdered(Optional.ofNullable(fileMetadata.getCreatedBy()));
            return new QbeastParquetPageSource(reader, outputToReaderChannel, missingValues, weightFilter, rowFilter, deleteFilter, rowPredicateFilter, mergeRowIds, sortedByWeight, rowGroups.size(), rowGroupsInSplit - rowGroups.size());
        }
        catch (IOException | RuntimeException e) {
            closeQuietly(dataSource, e);
            if (e instanceof TrinoException trinoException) {
                throw trinoException;
            }
            if (e instanceof ParquetCorruptionException) {
                throw new TrinoException(QBEAST_BAD_DATA, "Corrupt Parquet file %s: %s".formatted(inputFile.location(), e.getMessage()), e);
            }
            throw new TrinoException(QBEAST_FILESYSTEM_ERROR, "Error opening Parquet file %s (offset=%s, length=%s): %s".formatted(inputFile.location(), start, length, e.getMessage()), e);
        }
    }

    /**
     * Whether every row of the split's row groups has a stored weight (the weight column's
     * statistics count no nulls). A sample then needs no row numbers, so the reader may skip the
     * pages whose weights lie past the bound (column-index filtering, which would shift row
     * numbers), and its weight domain need not allow nulls (with nulls allowed, trino-parquet keeps
     * every page: it reads page indexes without their null counts). Files appended by other engines
     * have no weights, or null ones.
     */
    static boolean storedWeights(org.apache.parquet.format.FileMetaData footer, String weightField, long start, long length)
    {
        for (org.apache.parquet.format.RowGroup rowGroup : footer.getRow_groups()) {
            OptionalLong firstByte = FooterRowGroupFilter.firstByte(rowGroup);
            if (firstByte.isEmpty() || firstByte.getAsLong() < start || firstByte.getAsLong() >= start + length) {
                continue;
            }
            boolean counted = false;
            for (org.apache.parquet.format.ColumnChunk chunk : rowGroup.getColumns()) {
                org.apache.parquet.format.ColumnMetaData metadata = chunk.getMeta_data();
                if (metadata != null && metadata.getPath_in_schema().size() == 1 && metadata.getPath_in_schema().getFirst().equals(weightField)) {
                    counted = metadata.isSetStatistics() && metadata.getStatistics().isSetNull_count() && metadata.getStatistics().getNull_count() == 0;
                }
            }
            if (!counted) {
                return false;
            }
        }
        return true;
    }

    /**
     * The predicate the reader filters pages by: the domains of the columns it reads only.
     * parquet-java's column-index filter takes a column the reader does not read for one that is
     * all null, so a domain of a predicate-only column (read for its row-group statistics, never
     * decoded) would leave no rows.
     */
    private static TupleDomainParquetPredicate pagePredicate(MessageType requestedSchema, TupleDomain<ColumnDescriptor> parquetDomain, Map<List<String>, ColumnDescriptor> descriptorsByPath, List<Column> readerColumns)
    {
        Set<ColumnDescriptor> read = new HashSet<>();
        readerColumns.forEach(column -> addLeaves(column.field(), read));
        TupleDomain<ColumnDescriptor> readDomain = parquetDomain.filter((descriptor, _) -> read.contains(descriptor));
        return buildPredicate(requestedSchema, readDomain, descriptorsByPath, UTC);
    }

    private static void addLeaves(io.trino.parquet.Field field, Set<ColumnDescriptor> leaves)
    {
        if (field instanceof io.trino.parquet.PrimitiveField primitive) {
            leaves.add(primitive.getDescriptor());
        }
        else if (field instanceof io.trino.parquet.GroupField group) {
            group.getChildren().forEach(child -> child.ifPresent(value -> addLeaves(value, leaves)));
        }
    }

    /**
     * Row groups of the split, counted on the thrift footer: {@code getBlocks} would convert every
     * column chunk's metadata a second time (the row-group filter already did) only to count them.
     * A row group belongs to the split its file offset (else its first page) lies in, as in trino-parquet.
     */
    static long rowGroupsStartingIn(org.apache.parquet.format.FileMetaData footer, long start, long length)
    {
        return footer.getRow_groups().stream()
                .map(FooterRowGroupFilter::firstByte)
                .filter(firstByte -> firstByte.isPresent() && start <= firstByte.getAsLong() && firstByte.getAsLong() < start + length)
                .count();
    }

    /**
     * @return the reader channel of the column, adding it to the reader's columns on first use;
     * -1 when the file does not have it (or none of its nested fields)
     */
    private static int readerChannel(
            QbeastColumnHandle column,
            FileColumns fileColumns,
            MessageColumnIO messageColumnIO,
            Optional<Schema> tableSchema,
            List<Column> readerColumns,
            Map<Integer, Integer> readerChannelById)
    {
        Integer existing = readerChannelById.get(column.fieldId());
        if (existing != null) {
            return existing;
        }
        Optional<Type> parquetField = fileColumns.find(column);
        if (parquetField.isEmpty()) {
            return -1;
        }
        Optional<org.apache.iceberg.types.Type> icebergType = tableSchema
                .map(schema -> schema.findField(column.fieldId()))
                .map(NestedField::type);
        ColumnIO columnIO = messageColumnIO.getChild(parquetField.get().getName());
        Optional<Field> field = ParquetColumnFields.constructField(column.type(), icebergType, columnIO);
        if (field.isEmpty()) {
            return -1;
        }
        readerColumns.add(new Column(parquetField.get().getName(), field.get()));
        readerChannelById.put(column.fieldId(), readerColumns.size() - 1);
        return readerColumns.size() - 1;
    }

    /** Whether rows can be filtered by a domain of this type (not of nested types). */
    public static boolean isEnforceable(io.trino.spi.type.Type type)
    {
        return !(type instanceof io.trino.spi.type.ArrayType || type instanceof io.trino.spi.type.MapType || type instanceof io.trino.spi.type.RowType);
    }

    // the weight column read for sampling: the caller's handle if it has one, else the file's field of that name
    private static Optional<QbeastColumnHandle> weightColumn(List<QbeastColumnHandle> columns, TupleDomain<QbeastColumnHandle> predicate, FileColumns fileColumns)
    {
        Optional<QbeastColumnHandle> handle = columns.stream()
                .filter(column -> column.name().equals(WEIGHT_COLUMN))
                .findFirst()
                .or(() -> predicate.getDomains().orElseThrow().keySet().stream()
                        .filter(column -> column.name().equals(WEIGHT_COLUMN))
                        .findFirst())
                .or(() -> fileColumns.findByName(WEIGHT_COLUMN)
                        .map(field -> new QbeastColumnHandle(WEIGHT_COLUMN, field.getId() == null ? -1 : field.getId().intValue(), INTEGER, true)));
        return handle.filter(weight -> fileColumns.find(weight).isPresent());
    }

    private static TupleDomain<ColumnDescriptor> parquetDomain(
            Map<List<String>, ColumnDescriptor> descriptorsByPath,
            TupleDomain<QbeastColumnHandle> predicate,
            Optional<QbeastColumnHandle> weightColumn,
            long weightUpperBound,
            boolean weightsMayBeMissing)
    {
        Map<Integer, ColumnDescriptor> descriptorsById = descriptorsByPath.values().stream()
                .filter(descriptor -> descriptor.getPrimitiveType().getId() != null)
                .collect(toImmutableMap(descriptor -> descriptor.getPrimitiveType().getId().intValue(), identity()));
        Map<ColumnDescriptor, Domain> domains = new HashMap<>();
        predicate.getDomains().orElseThrow().forEach((column, domain) -> {
            // Parquet keeps statistics for primitive columns only
            if (isPrimitive(column.type()) && descriptorsById.containsKey(column.fieldId())) {
                domains.put(descriptorsById.get(column.fieldId()), domain);
            }
        });
        if (weightColumn.isPresent() && descriptorsById.containsKey(weightColumn.get().fieldId())) {
            // null allowed where weights may be missing: a row without a stored weight (written by another
            // engine) gets a derived one, which may be under the bound, so a row group of such rows is never skipped by it
            Domain below = Domain.create(ValueSet.ofRanges(Range.lessThan(INTEGER, weightUpperBound)), weightsMayBeMissing);
            domains.merge(descriptorsById.get(weightColumn.get().fieldId()), below, Domain::intersect);
        }
        return TupleDomain.withColumnDomains(ImmutableMap.copyOf(domains));
    }

    private static boolean isPrimitive(io.trino.spi.type.Type type)
    {
        return !(type instanceof RowType || type instanceof ArrayType || type instanceof MapType);
    }

    // different files get different derived weights for the same row positions
    private static long fileSeed(TrinoInputFile inputFile)
    {
        return inputFile.location().toString().hashCode() * 0x9E3779B97F4A7C15L;
    }

    private static void closeQuietly(ParquetDataSource dataSource, Exception failure)
    {
        if (dataSource == null) {
            return;
        }
        try {
            dataSource.close();
        }
        catch (IOException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    /**
     * The top-level fields of a file, by Iceberg field id; by lower-case name for files written
     * without ids (then ids cannot be trusted, and names are all there is).
     */
    private static final class FileColumns
    {
        private final boolean hasIds;
        private final Map<Integer, Type> byId;
        private final Map<String, Type> byName;

        FileColumns(MessageType fileSchema)
        {
            this.hasIds = fileSchema.getFields().stream().anyMatch(field -> field.getId() != null);
            this.byId = fileSchema.getFields().stream()
                    .filter(field -> field.getId() != null)
                    .collect(toImmutableMap(field -> field.getId().intValue(), identity(), (first, _) -> first));
            this.byName = fileSchema.getFields().stream()
                    .collect(toImmutableMap(field -> field.getName().toLowerCase(Locale.ENGLISH), identity(), (first, _) -> first));
        }

        Optional<Type> find(QbeastColumnHandle column)
        {
            if (hasIds) {
                return Optional.ofNullable(byId.get(column.fieldId()));
            }
            return findByName(column.name());
        }

        Optional<Type> findByName(String name)
        {
            return Optional.ofNullable(byName.get(name.toLowerCase(Locale.ENGLISH)));
        }
    }
}

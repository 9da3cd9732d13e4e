package io.qbeast.trino.config;

import io.airlift.configuration.Config;
import io.airlift.configuration.ConfigDescription;
import io.airlift.configuration.ConfigSecuritySensitive;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import io.airlift.units.MaxDataSize;
import io.airlift.units.MinDataSize;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

import java.util.Optional;

import static io.airlift.units.DataSize.Unit.KILOBYTE;
import static io.airlift.units.DataSize.Unit.MEGABYTE;
import static java.util.concurrent.TimeUnit.DAYS;

/** Catalog properties of a {@code connector.name=qbeast} catalog. */
public class QbeastConfig
{
    // the bounds of the sizes, shared with their session properties (QbeastSessionProperties)
    static final String MIN_WRITER_BUFFER_SIZE = "1kB";
    static final String MAX_WRITER_BUFFER_SIZE = "16GB";
    static final String MIN_TARGET_FILE_SIZE = "1kB";
    static final String MIN_MAX_SPLIT_SIZE = "1kB";
    static final String MIN_PARQUET_PAGE_SIZE = "1kB";
    static final String MAX_PARQUET_PAGE_SIZE = "64MB";
    static final int MAX_PARQUET_BATCH_SIZE = 1_000_000;
    // named in the error of a table procedure refused for a retention below them
    public static final String EXPIRE_SNAPSHOTS_MIN_RETENTION = "qbeast.expire-snapshots.min-retention";
    public static final String REMOVE_ORPHAN_FILES_MIN_RETENTION = "qbeast.remove-orphan-files.min-retention";

    private static final int PAGE_SIZE_KB = 16;

    /**
     * Rows per cube of new tables. 1M rows: a cube is then a file of tens to a few hundred MB
     * for typical row widths (close to the 256MB target file size), the top of the tree (one
     * cube) is a ~1M-row uniform sample, and a 1-billion-row table has a tree of about a
     * thousand cubes: few enough files for the manifests, enough cubes for pruning. Qbeast's own
     * default (5M) gives files above the target size for wide rows.
     */
    public static final long DEFAULT_CUBE_SIZE = 1_000_000;

    private CatalogType catalogType = CatalogType.JDBC;
    private String warehouse;
    private String jdbcConnectionUrl;
    private String jdbcConnectionUser;
    private String jdbcConnectionPassword;
    private String jdbcCatalogName;
    private String restUri;
    private String restWarehouse;
    private String restCredential;
    private String restToken;
    private DataSize writerBufferSize = DataSize.of(256, MEGABYTE);
    private DataSize targetFileSize = DataSize.of(512, MEGABYTE);
    private String writerSpillPath = System.getProperty("java.io.tmpdir");
    private long defaultCubeSize = DEFAULT_CUBE_SIZE;
    private QbeastCompressionCodec compressionCodec = QbeastCompressionCodec.ZSTD;
    private int splitManagerThreads = Runtime.getRuntime().availableProcessors() * 2;
    private Duration expireSnapshotsMinRetention = new Duration(7, DAYS);
    private Duration removeOrphanFilesMinRetention = new Duration(7, DAYS);
    private DataSize maxSplitSize = DataSize.of(128, MEGABYTE);
    private DataSize parquetFooterCacheMaxSize = DataSize.of(256, MEGABYTE);
    // pages small enough that a sample reads a few pages of a cube's weight-ordered row group (see README)
    private DataSize parquetWriterPageSize = DataSize.of(PAGE_SIZE_KB, KILOBYTE);
    private int parquetWriterBatchSize = 1024;

    @NotNull
    public CatalogType getCatalogType()
    {
        return catalogType;
    }

    @Config("qbeast.catalog.type")
    @ConfigDescription("Iceberg catalog holding the tables: JDBC (Iceberg's JDBC catalog; SQLite file by default) or REST")
    public QbeastConfig setCatalogType(CatalogType catalogType)
    {
        this.catalogType = catalogType;
        return this;
    }

    public Optional<String> getWarehouse()
    {
        return Optional.ofNullable(warehouse);
    }

    @Config("qbeast.warehouse")
    @ConfigDescription("Location under which new schemas and tables are created, e.g. file:///var/lib/qbeast/warehouse or s3://bucket/path (required for the JDBC catalog)")
    public QbeastConfig setWarehouse(String warehouse)
    {
        this.warehouse = warehouse;
        return this;
    }

    public Optional<String> getJdbcConnectionUrl()
    {
        return Optional.ofNullable(jdbcConnectionUrl);
    }

    @Config("qbeast.jdbc.connection-url")
    @ConfigDescription("JDBC URL of the catalog database (jdbc:sqlite:... or jdbc:postgresql://...); default: the SQLite file qbeast-catalog.db in a local warehouse")
    public QbeastConfig setJdbcConnectionUrl(String jdbcConnectionUrl)
    {
        this.jdbcConnectionUrl = jdbcConnectionUrl;
        return this;
    }

    public Optional<String> getJdbcConnectionUser()
    {
        return Optional.ofNullable(jdbcConnectionUser);
    }

    @Config("qbeast.jdbc.connection-user")
    @ConfigDescription("User of the catalog database")
    public QbeastConfig setJdbcConnectionUser(String jdbcConnectionUser)
    {
        this.jdbcConnectionUser = jdbcConnectionUser;
        return this;
    }

    public Optional<String> getJdbcConnectionPassword()
    {
        return Optional.ofNullable(jdbcConnectionPassword);
    }

    @Config("qbeast.jdbc.connection-password")
    @ConfigSecuritySensitive
    @ConfigDescription("Password of the catalog database")
    public QbeastConfig setJdbcConnectionPassword(String jdbcConnectionPassword)
    {
        this.jdbcConnectionPassword = jdbcConnectionPassword;
        return this;
    }

    public Optional<String> getJdbcCatalogName()
    {
        return Optional.ofNullable(jdbcCatalogName);
    }

    @Config("qbeast.jdbc.catalog-name")
    @ConfigDescription("Name of the catalog inside the JDBC catalog database (Iceberg's catalog_name); default: the Trino catalog name")
    public QbeastConfig setJdbcCatalogName(String jdbcCatalogName)
    {
        this.jdbcCatalogName = jdbcCatalogName;
        return this;
    }

    public Optional<String> getRestUri()
    {
        return Optional.ofNullable(restUri);
    }

    @Config("qbeast.rest.uri")
    @ConfigDescription("URI of the Iceberg REST catalog (required when qbeast.catalog.type=REST)")
    public QbeastConfig setRestUri(String restUri)
    {
        this.restUri = restUri;
        return this;
    }

    public Optional<String> getRestWarehouse()
    {
        return Optional.ofNullable(restWarehouse);
    }

    @Config("qbeast.rest.warehouse")
    @ConfigDescription("Warehouse identifier passed to the REST catalog")
    public QbeastConfig setRestWarehouse(String restWarehouse)
    {
        this.restWarehouse = restWarehouse;
        return this;
    }

    public Optional<String> getRestCredential()
    {
        return Optional.ofNullable(restCredential);
    }

    @Config("qbeast.rest.credential")
    @ConfigSecuritySensitive
    @ConfigDescription("OAuth2 client credential (client-id:secret) for the REST catalog")
    public QbeastConfig setRestCredential(String restCredential)
    {
        this.restCredential = restCredential;
        return this;
    }

    public Optional<String> getRestToken()
    {
        return Optional.ofNullable(restToken);
    }

    @Config("qbeast.rest.token")
    @ConfigSecuritySensitive
    @ConfigDescription("Bearer token for the REST catalog")
    public QbeastConfig setRestToken(String restToken)
    {
        this.restToken = restToken;
        return this;
    }

    @NotNull
    @MinDataSize(MIN_WRITER_BUFFER_SIZE)
    @MaxDataSize(MAX_WRITER_BUFFER_SIZE)
    public DataSize getWriterBufferSize()
    {
        return writerBufferSize;
    }

    @Config("qbeast.writer.buffer-size")
    @ConfigDescription("Memory budget of each writer (buffered rows, the merge, the open Parquet row group; reported to Trino); rows beyond half of it are spilled to qbeast.writer.spill-path")
    public QbeastConfig setWriterBufferSize(DataSize writerBufferSize)
    {
        this.writerBufferSize = writerBufferSize;
        return this;
    }

    @NotNull
    @MinDataSize(MIN_TARGET_FILE_SIZE)
    public DataSize getTargetFileSize()
    {
        return targetFileSize;
    }

    @Config("qbeast.target-file-size")
    @ConfigDescription("Target size of a data file: a writer starts a new file before a row group that would take the open one past it")
    public QbeastConfig setTargetFileSize(DataSize targetFileSize)
    {
        this.targetFileSize = targetFileSize;
        return this;
    }

    @NotNull
    public String getWriterSpillPath()
    {
        return writerSpillPath;
    }

    @Config("qbeast.writer.spill-path")
    @ConfigDescription("Local directory where writers spill sorted runs beyond their memory budget (files are deleted when the write ends)")
    public QbeastConfig setWriterSpillPath(String writerSpillPath)
    {
        this.writerSpillPath = writerSpillPath;
        return this;
    }

    @Min(1)
    public int getSplitManagerThreads()
    {
        return splitManagerThreads;
    }

    @Config("qbeast.split-manager-threads")
    @ConfigDescription("Threads of the coordinator for planning scans (reading manifests) and for the batches of splits, each pool bounded by this many")
    public QbeastConfig setSplitManagerThreads(int splitManagerThreads)
    {
        this.splitManagerThreads = splitManagerThreads;
        return this;
    }

    @Min(1)
    public long getDefaultCubeSize()
    {
        return defaultCubeSize;
    }

    @Config("qbeast.default-cube-size")
    @ConfigDescription("Rows per cube of new tables that do not set the cube_size table property")
    public QbeastConfig setDefaultCubeSize(long defaultCubeSize)
    {
        this.defaultCubeSize = defaultCubeSize;
        return this;
    }

    @NotNull
    public QbeastCompressionCodec getCompressionCodec()
    {
        return compressionCodec;
    }

    @Config("qbeast.compression-codec")
    @ConfigDescription("Compression of Parquet data files: ZSTD, SNAPPY, GZIP or NONE")
    public QbeastConfig setCompressionCodec(QbeastCompressionCodec compressionCodec)
    {
        this.compressionCodec = compressionCodec;
        return this;
    }

    @NotNull
    public Duration getExpireSnapshotsMinRetention()
    {
        return expireSnapshotsMinRetention;
    }

    @Config(EXPIRE_SNAPSHOTS_MIN_RETENTION)
    @ConfigDescription("Shortest retention_threshold that ALTER TABLE ... EXECUTE expire_snapshots accepts: a guard against expiring the snapshots a running query or a time travel still reads")
    public QbeastConfig setExpireSnapshotsMinRetention(Duration expireSnapshotsMinRetention)
    {
        this.expireSnapshotsMinRetention = expireSnapshotsMinRetention;
        return this;
    }

    @NotNull
    public Duration getRemoveOrphanFilesMinRetention()
    {
        return removeOrphanFilesMinRetention;
    }

    @Config(REMOVE_ORPHAN_FILES_MIN_RETENTION)
    @ConfigDescription("Shortest retention_threshold that ALTER TABLE ... EXECUTE remove_orphan_files accepts: a guard against deleting the files of a write still in flight")
    public QbeastConfig setRemoveOrphanFilesMinRetention(Duration removeOrphanFilesMinRetention)
    {
        this.removeOrphanFilesMinRetention = removeOrphanFilesMinRetention;
        return this;
    }

    @NotNull
    @MinDataSize(MIN_MAX_SPLIT_SIZE)
    public DataSize getMaxSplitSize()
    {
        return maxSplitSize;
    }

    @Config("qbeast.max-split-size")
    @ConfigDescription("Largest split of a data file: a file is read in pieces of whole row groups of up to this size (a row group larger than it is a split of its own)")
    public QbeastConfig setMaxSplitSize(DataSize maxSplitSize)
    {
        this.maxSplitSize = maxSplitSize;
        return this;
    }

    @NotNull
    @MinDataSize("0B")
    public DataSize getParquetFooterCacheMaxSize()
    {
        return parquetFooterCacheMaxSize;
    }

    @Config("qbeast.parquet-footer-cache.max-size")
    @ConfigDescription("Heap of each node's cache of parsed Parquet footers (estimated), shared by the splits of a file; 0B disables it")
    public QbeastConfig setParquetFooterCacheMaxSize(DataSize parquetFooterCacheMaxSize)
    {
        this.parquetFooterCacheMaxSize = parquetFooterCacheMaxSize;
        return this;
    }

    @NotNull
    @MinDataSize(MIN_PARQUET_PAGE_SIZE)
    @MaxDataSize(MAX_PARQUET_PAGE_SIZE)
    public DataSize getParquetWriterPageSize()
    {
        return parquetWriterPageSize;
    }

    @Config("qbeast.parquet.writer.page-size")
    @ConfigDescription("Parquet page size a writer aims at (encoded bytes of a column's page); pages are indexed, so a read skips pages outside its weight bound")
    public QbeastConfig setParquetWriterPageSize(DataSize parquetWriterPageSize)
    {
        this.parquetWriterPageSize = parquetWriterPageSize;
        return this;
    }

    @Min(1)
    @jakarta.validation.constraints.Max(MAX_PARQUET_BATCH_SIZE)
    public int getParquetWriterBatchSize()
    {
        return parquetWriterBatchSize;
    }

    @Config("qbeast.parquet.writer.batch-size")
    @ConfigDescription("Rows the Parquet writer encodes at once; a page ends only between batches, so this is the fewest rows of a page")
    public QbeastConfig setParquetWriterBatchSize(int parquetWriterBatchSize)
    {
        this.parquetWriterBatchSize = parquetWriterBatchSize;
        return this;
    }

    @AssertTrue(message = "qbeast.rest.uri is required when qbeast.catalog.type=REST")
    public boolean isRestUriSetForRest()
    {
        return catalogType != CatalogType.REST || restUri != null;
    }

    @AssertTrue(message = "qbeast.warehouse is required when qbeast.catalog.type=JDBC")
    public boolean isWarehouseSetForJdbc()
    {
        return catalogType != CatalogType.JDBC || warehouse != null;
    }
}

package io.qbeast.trino.config;

/** Which Iceberg catalog holds qbeast tables ({@code qbeast.catalog.type}). */
public enum CatalogType
{
    /** Iceberg's JDBC catalog: an embedded SQLite file by default, PostgreSQL for a cluster. */
    JDBC,
    /** An Iceberg REST catalog (Polaris, Lakekeeper, Nessie, Gravitino, ...). */
    REST,
}

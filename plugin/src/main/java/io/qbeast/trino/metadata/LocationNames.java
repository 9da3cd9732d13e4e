package io.qbeast.trino.metadata;

import io.trino.spi.TrinoException;

import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;

/**
 * The rule for schema and table names, which become directory names: a schema is
 * {@code <warehouse>/<schema>} and a table {@code <schema location>/<table>-<random>}
 * ({@link NewTable}); a REST catalog builds its locations from the names likewise. A name must be
 * one path segment of a sane length: a {@code /} or {@code \} would nest directories, a name of
 * dots ({@code ..}) would leave the warehouse (and the file system then refuses every table in
 * it), a control character is no file name. Checked when a schema or table is created, so a bad
 * name is refused before anything exists.
 */
final class LocationNames
{
    /** Within the 255-byte file name limit of common file systems. */
    static final int MAX_SCHEMA_NAME_LENGTH = 255;
    /** A table's directory is {@code <table>-<32 hex digits>}: within the same limit. */
    static final int MAX_TABLE_NAME_LENGTH = 255 - 33;

    private LocationNames() {}

    static void checkSchemaName(String name)
    {
        if (name.length() > MAX_SCHEMA_NAME_LENGTH) {
            throw new TrinoException(NOT_SUPPORTED, "Schema name must be shorter than or equal to '%s' characters but got '%s'".formatted(MAX_SCHEMA_NAME_LENGTH, name.length()));
        }
        checkPathSegment("Schema", name);
    }

    /**
     * @param connectorChoosesLocation whether this connector builds the table's location (the
     *         length limit is this connector's own; a REST catalog applies its own)
     */
    static void checkTableName(String name, boolean connectorChoosesLocation)
    {
        if (connectorChoosesLocation && name.length() > MAX_TABLE_NAME_LENGTH) {
            throw new TrinoException(NOT_SUPPORTED, "Table name must be shorter than or equal to '%s' characters but got '%s'".formatted(MAX_TABLE_NAME_LENGTH, name.length()));
        }
        checkPathSegment("Table", name);
    }

    private static void checkPathSegment(String kind, String name)
    {
        String problem = null;
        if (name.indexOf('/') >= 0 || name.indexOf('\\') >= 0) {
            problem = "it must not contain '/' or '\\'";
        }
        else if (!name.isEmpty() && name.chars().allMatch(c -> c == '.')) {
            problem = "it must not consist of dots only";
        }
        else if (name.chars().anyMatch(Character::isISOControl)) {
            problem = "it must not contain control characters";
        }
        if (problem != null) {
            throw new TrinoException(NOT_SUPPORTED, "%s name '%s' is not supported: %s, as the name becomes a directory name in the warehouse".formatted(kind, name, problem));
        }
    }
}

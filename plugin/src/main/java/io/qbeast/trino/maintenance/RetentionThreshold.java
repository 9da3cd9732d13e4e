package io.qbeast.trino.maintenance;

import io.airlift.units.Duration;
import io.trino.spi.TrinoException;
import io.trino.spi.session.PropertyMetadata;

import java.util.Map;

import static io.trino.plugin.base.session.PropertyMetadataUtil.durationProperty;
import static io.trino.spi.StandardErrorCode.INVALID_PROCEDURE_ARGUMENT;

/**
 * The {@code retention_threshold} argument of {@code expire_snapshots} and
 * {@code remove_orphan_files}, and the catalog's minimum for it.
 */
final class RetentionThreshold
{
    static final String NAME = "retention_threshold";
    private static final Duration DEFAULT = Duration.valueOf("7d");

    private RetentionThreshold() {}

    static PropertyMetadata<Duration> property(String description)
    {
        return durationProperty(NAME, description, DEFAULT, false);
    }

    /**
     * The threshold given, refused when shorter than the catalog's minimum (the Iceberg
     * connector's rule and message): a short one could remove what a running query still reads.
     */
    static Duration checked(Map<String, Object> executeProperties, Duration minimum, String minimumProperty)
    {
        Duration retention = (Duration) executeProperties.get(NAME);
        if (retention == null) {
            throw new TrinoException(INVALID_PROCEDURE_ARGUMENT, "Argument '%s' must not be null".formatted(NAME));
        }
        if (retention.compareTo(minimum) < 0) {
            throw new TrinoException(INVALID_PROCEDURE_ARGUMENT, "Retention specified (%s) is shorter than the minimum retention configured in the system (%s). Minimum retention can be changed with %s configuration property"
                    .formatted(retention, minimum, minimumProperty));
        }
        return retention;
    }
}

package io.qbeast.iceberg;

import org.apache.iceberg.metrics.MetricsReport;
import org.apache.iceberg.metrics.MetricsReporter;

/**
 * Drops Iceberg's scan and commit reports (its default reporter logs every one at INFO level,
 * a multi-kilobyte line per query). Loaded by class name through {@code metrics-reporter-impl}.
 */
public final class NoopMetricsReporter
        implements MetricsReporter
{
    public NoopMetricsReporter() {}

    @Override
    public void report(MetricsReport report) {}
}

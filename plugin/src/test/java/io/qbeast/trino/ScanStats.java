package io.qbeast.trino;

import io.trino.execution.QueryStats;
import io.trino.operator.OperatorStats;

/** What a query's table scans read: splits (scan drivers), rows and bytes. */
record ScanStats(long splits, long positions, long bytes)
{
    static ScanStats of(QueryStats stats)
    {
        long splits = 0;
        for (OperatorStats operator : stats.getOperatorSummaries()) {
            if (operator.getOperatorType().equals("TableScanOperator") || operator.getOperatorType().equals("ScanFilterAndProjectOperator")) {
                splits += operator.getTotalDrivers();
            }
        }
        return new ScanStats(splits, stats.getPhysicalInputPositions(), stats.getPhysicalInputDataSize().toBytes());
    }
}

package io.snapcommit.flink.internal;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;

/**
 * The committer's metrics, in the operator metric group under "snapcommit":
 * commits, lostClaims, retries, conflicts, filteredReplays, unknownOutcomes,
 * commitFailures (counters); commitLatencyMs (histogram);
 * lastCommitLatencyMs, lastSnapshotId, lastCommittedCheckpoint, pendingCheckpoints (gauges).
 */
final class CommitterMetrics {
    final Counter commits, lostClaims, retries, conflicts, filteredReplays, unknownOutcomes, commitFailures;
    final Histogram commitLatencyMs;
    volatile long lastCommitLatencyMs = -1;
    volatile long lastSnapshotId = -1;
    volatile long lastCommittedCheckpoint = -1;
    volatile int pendingCheckpoints;

    CommitterMetrics(MetricGroup operatorGroup) {
        MetricGroup g = operatorGroup.addGroup("snapcommit");
        commits = g.counter("commits");
        lostClaims = g.counter("lostClaims");
        retries = g.counter("retries");
        conflicts = g.counter("conflicts");
        filteredReplays = g.counter("filteredReplays");
        unknownOutcomes = g.counter("unknownOutcomes");
        commitFailures = g.counter("commitFailures");
        commitLatencyMs = g.histogram("commitLatencyMs", new DescriptiveStatisticsHistogram(1000));
        g.gauge("lastCommitLatencyMs", (Gauge<Long>) () -> lastCommitLatencyMs);
        g.gauge("lastSnapshotId", (Gauge<Long>) () -> lastSnapshotId);
        g.gauge("lastCommittedCheckpoint", (Gauge<Long>) () -> lastCommittedCheckpoint);
        g.gauge("pendingCheckpoints", (Gauge<Integer>) () -> pendingCheckpoints);
    }
}

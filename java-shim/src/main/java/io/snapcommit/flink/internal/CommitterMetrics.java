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
 * Snapshot expiration (written by the expiration thread only): expirations (runs that succeeded),
 * expiredSnapshots, expiredFiles (data files + manifests + manifest lists), expiredBytes,
 * expireFailures (counters); lastExpireDurationMs (gauge, -1 before the first run).
 */
final class CommitterMetrics implements SnapshotExpirer.Sink {
    final Counter commits, lostClaims, retries, conflicts, filteredReplays, unknownOutcomes, commitFailures;
    final Counter expirations, expiredSnapshots, expiredFiles, expiredBytes, expireFailures;
    final Histogram commitLatencyMs;
    volatile long lastExpireDurationMs = -1;
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
        expirations = g.counter("expirations");
        expiredSnapshots = g.counter("expiredSnapshots");
        expiredFiles = g.counter("expiredFiles");
        expiredBytes = g.counter("expiredBytes");
        expireFailures = g.counter("expireFailures");
        g.gauge("lastExpireDurationMs", (Gauge<Long>) () -> lastExpireDurationMs);
        commitLatencyMs = g.histogram("commitLatencyMs", new DescriptiveStatisticsHistogram(1000));
        g.gauge("lastCommitLatencyMs", (Gauge<Long>) () -> lastCommitLatencyMs);
        g.gauge("lastSnapshotId", (Gauge<Long>) () -> lastSnapshotId);
        g.gauge("lastCommittedCheckpoint", (Gauge<Long>) () -> lastCommittedCheckpoint);
        g.gauge("pendingCheckpoints", (Gauge<Integer>) () -> pendingCheckpoints);
    }

    @Override
    public void ran(io.snapcommit.jni.ExpireResult r, long millis) {
        expirations.inc();
        expiredSnapshots.inc(r.snapshotsExpired());
        expiredFiles.inc(r.filesDeleted());
        expiredBytes.inc(r.bytesDeleted());
        lastExpireDurationMs = millis;
    }

    @Override
    public void failed(long millis) {
        expireFailures.inc();
        lastExpireDurationMs = millis;
    }
}

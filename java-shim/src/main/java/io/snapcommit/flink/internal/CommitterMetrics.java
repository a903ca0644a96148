package io.snapcommit.flink.internal;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;

/**
 * The committer's metrics, in the operator metric group under "snapcommit":
 * commits, lostClaims, retries, conflicts, filteredReplays, unknownOutcomes,
 * commitFailures, abandonedCompactions (restored compaction-only checkpoints that conflicted and were
 * dropped, as Paimon's restore drops them) (counters); commitLatencyMs (histogram);
 * lastCommitLatencyMs, lastSnapshotId, lastCommittedCheckpoint, pendingCheckpoints (gauges).
 * Snapshot expiration (written by the expiration thread only): expirations (runs that succeeded),
 * expiredSnapshots, expiredFiles (data files + manifests + manifest lists), expiredBytes,
 * expireFailures (counters); lastExpireDurationMs (gauge, -1 before the first run).
 * Small-file compaction (written by the upkeep thread only): compactions (rounds that committed a
 * COMPACT snapshot), compactionConflicts (rounds that lost to a concurrent change),
 * compactionFailures (errors, unknown outcomes included), compactedFilesBefore and
 * compactedFilesAfter (files deleted and added by committed rounds; counters);
 * lastCompactionDurationMs (gauge, -1 before the first round that found something to do).
 */
final class CommitterMetrics implements TableUpkeep.Sink {
    final Counter commits, lostClaims, retries, conflicts, filteredReplays, unknownOutcomes, commitFailures;
    final Counter abandonedCompactions;
    final Counter expirations, expiredSnapshots, expiredFiles, expiredBytes, expireFailures;
    final Histogram commitLatencyMs;
    final Counter compactions, compactionConflicts, compactionFailures, compactedFilesBefore, compactedFilesAfter;
    volatile long lastExpireDurationMs = -1;
    volatile long lastCompactionDurationMs = -1;
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
        abandonedCompactions = g.counter("abandonedCompactions");
        expirations = g.counter("expirations");
        expiredSnapshots = g.counter("expiredSnapshots");
        expiredFiles = g.counter("expiredFiles");
        expiredBytes = g.counter("expiredBytes");
        expireFailures = g.counter("expireFailures");
        g.gauge("lastExpireDurationMs", (Gauge<Long>) () -> lastExpireDurationMs);
        compactions = g.counter("compactions");
        compactionConflicts = g.counter("compactionConflicts");
        compactionFailures = g.counter("compactionFailures");
        compactedFilesBefore = g.counter("compactedFilesBefore");
        compactedFilesAfter = g.counter("compactedFilesAfter");
        g.gauge("lastCompactionDurationMs", (Gauge<Long>) () -> lastCompactionDurationMs);
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

    @Override
    public void compacted(io.snapcommit.flink.paimon.PaimonAppendCompaction.Result r, long millis) {
        switch (r.outcome) {
            case COMPACTED:
                compactions.inc();
                compactedFilesBefore.inc(r.filesBefore);
                compactedFilesAfter.inc(r.filesAfter);
                break;
            case CONFLICT:
                compactionConflicts.inc();
                break;
            case NOTHING_TO_DO:
                // A plan that found nothing is not a compaction: its duration would hide the last real one.
                return;
            default:
                break;
        }
        lastCompactionDurationMs = millis;
    }

    @Override
    public void compactionFailed(long millis) {
        compactionFailures.inc();
        lastCompactionDurationMs = millis;
    }
}

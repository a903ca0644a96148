package io.snapcommit.flink.internal;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.Snapshot;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.table.source.snapshot.FullCompactedStartingScanner;
import org.apache.paimon.utils.SnapshotManager;

/**
 * Paimon's GlobalFullCompactionSinkWrite on Paimon's core API: every writer fully compacts, at the
 * same checkpoint, each bucket it wrote since the last full compaction that landed. That is a
 * checkpoint whose id is a multiple of {@code full-compaction.delta-commits} (1 when unset:
 * every checkpoint) and the end of input; Paimon's writer (FullChangelogMergeTreeCompactRewriter,
 * chosen by {@code changelog-producer = full-compaction}) then writes the changelog of that
 * compaction. The buckets written are remembered per checkpoint, in the writer's state across
 * restores, until a COMPACT snapshot of this commit user with the identifier of a checkpoint that
 * submitted the full compaction is found among the table's snapshots (only that full compaction
 * compacted every bucket remembered; the writers' own compactions may reach the top level of a
 * single bucket too).
 */
final class FullCompactionTrigger {
    /** Paimon's key, so its state reads the same (GlobalFullCompactionSinkWrite.WRITTEN_BUCKETS_STATE_NAME). */
    static final String WRITTEN_BUCKETS = "paimon_written_buckets";
    /** Paimon's Flink option (FlinkConnectorOptions): the trigger as a duration, turned into delta commits by the checkpoint interval. */
    static final String COMPACTION_INTERVAL = "changelog-producer.compaction-interval";

    private final int deltaCommits;
    private final String commitUser;
    private final SnapshotManager snapshots;
    private final Set<BucketChannel.Key> current = new HashSet<>();
    private final NavigableMap<Long, Set<BucketChannel.Key>> written = new TreeMap<>();
    private final TreeSet<Long> toCheck = new TreeSet<>();

    FullCompactionTrigger(int deltaCommits, String commitUser, SnapshotManager snapshots, WriterBucketState state) {
        this.deltaCommits = deltaCommits;
        this.commitUser = commitUser;
        this.snapshots = snapshots;
        for (WriterBucketState.Value v : state.get(WRITTEN_BUCKETS))
            written.computeIfAbsent(bytesToLong(v.value), k -> new HashSet<>())
                .add(new BucketChannel.Key(v.partition, v.bucket));
    }

    /**
     * The delta commits of Paimon's StoreSinkWrite.createWriteProvider: a write-only table has no
     * trigger (-1), else {@code full-compaction.delta-commits} (at least 1) when set or when the
     * changelog producer is full-compaction (then 1 by default), else -1.
     *
     * @throws IllegalArgumentException for {@value #COMPACTION_INTERVAL}, which needs the
     *     checkpoint interval (not ported; {@code full-compaction.delta-commits} says the same)
     */
    static int deltaCommits(CoreOptions o) {
        if (o.writeOnly()) return -1;
        Options options = o.toConfiguration();
        int delta = -1;
        if (options.contains(CoreOptions.FULL_COMPACTION_DELTA_COMMITS))
            delta = options.get(CoreOptions.FULL_COMPACTION_DELTA_COMMITS);
        else if (options.containsKey(COMPACTION_INTERVAL))
            throw new IllegalArgumentException(COMPACTION_INTERVAL + " is not supported by the snapcommit sink; set "
                + CoreOptions.FULL_COMPACTION_DELTA_COMMITS.key() + " (checkpoints between full compactions) instead");
        if (o.changelogProducer() == CoreOptions.ChangelogProducer.FULL_COMPACTION || delta >= 0)
            return Math.max(delta, 1);
        return -1;
    }

    /** A row was written to, or a compaction asked of, this bucket (partition may be a reused row: copied). */
    void touch(BinaryRow partition, int bucket) {
        if (!current.contains(new BucketChannel.Key(partition, bucket)))
            current.add(new BucketChannel.Key(partition.copy(), bucket));
    }

    /**
     * Before {@code prepareCommit(wait, checkpointId)} (wait: the end of input): submits the full
     * compaction of every remembered bucket when this checkpoint is a full-compaction one, and
     * returns whether the commit must then wait for compaction.
     */
    boolean beforePrepareCommit(TableWriteImpl<?> write, boolean wait, long checkpointId) throws Exception {
        if (!toCheck.isEmpty()) snapshots.traversalSnapshotsFromLatestSafely(this::landed);
        if (!current.isEmpty()) {
            written.computeIfAbsent(checkpointId, k -> new HashSet<>()).addAll(current);
            current.clear();
        }
        if (!written.isEmpty() && FullCompactedStartingScanner.isFullCompactedIdentifier(checkpointId, deltaCommits))
            wait = true;
        if (wait) {
            Set<BucketChannel.Key> compacted = new HashSet<>();
            for (Set<BucketChannel.Key> buckets : written.values())
                for (BucketChannel.Key b : buckets)
                    if (compacted.add(b)) write.compact(b.partition, b.bucket, true);
            toCheck.add(checkpointId);
        }
        return wait;
    }

    /** A full compaction this writer submitted was committed: forget the buckets it compacted. */
    private boolean landed(Snapshot s) {
        if (!s.commitUser().equals(commitUser) || s.commitKind() != Snapshot.CommitKind.COMPACT
            || !toCheck.contains(s.commitIdentifier()))
            return false;
        written.headMap(s.commitIdentifier(), true).clear();
        toCheck.headSet(s.commitIdentifier()).clear();
        return true;
    }

    /** The remembered buckets into the writer's state (value: the checkpoint id, 8 bytes big-endian, as Paimon). */
    void snapshot(WriterBucketState state) {
        List<WriterBucketState.Value> list = new ArrayList<>();
        for (Map.Entry<Long, Set<BucketChannel.Key>> e : written.entrySet())
            for (BucketChannel.Key b : e.getValue())
                list.add(new WriterBucketState.Value(b.partition, b.bucket, longToBytes(e.getKey())));
        state.put(WRITTEN_BUCKETS, list);
    }

    private static byte[] longToBytes(long l) {
        byte[] b = new byte[8];
        for (int i = 7; i >= 0; i--) {
            b[i] = (byte) l;
            l >>= 8;
        }
        return b;
    }

    private static long bytesToLong(byte[] b) {
        long l = 0;
        for (int i = 0; i < 8; i++) l = (l << 8) | (b[i] & 0xFF);
        return l;
    }
}

package io.snapcommit.flink.internal;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.UUID;

import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.BasicTypeInfo;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.snapcommit.flink.CommitEvent;
import io.snapcommit.flink.CommitListener;
import io.snapcommit.flink.SinkConfig;
import io.snapcommit.flink.paimon.AppendCompactor;
import io.snapcommit.flink.paimon.PaimonTableSpec;
import io.snapcommit.jni.AlreadyCommittedException;
import io.snapcommit.jni.CommitKind;
import io.snapcommit.jni.CommitResult;
import io.snapcommit.jni.ConflictException;
import io.snapcommit.jni.NativeChanges;
import io.snapcommit.jni.NativeLog;
import io.snapcommit.jni.NativeTable;
import io.snapcommit.jni.RetriesExhaustedException;
import io.snapcommit.jni.Strategy;
import io.snapcommit.jni.UnknownOutcomeException;

/**
 * The single committer (parallelism 1) of a snapcommit sink: one table
 * snapshot per completed checkpoint, identifier = checkpoint id, commit user
 * kept in checkpoint state.
 *
 * <p>Protocol:
 * <ul>
 *   <li>Files announced by writers are collected as they arrive. In
 *       {@code snapshotState(c)} everything received since the previous
 *       snapshot becomes pending checkpoint {@code c}, and the whole pending
 *       map is stored in operator state with the commit user (union state
 *       "commit_user_state"). Everything in that state was written by rows
 *       the sources consumed before barrier {@code c}.</li>
 *   <li>{@code notifyCheckpointComplete(c)} commits every pending checkpoint
 *       {@code <= c} in increasing order, one snapshot each, with identifier =
 *       its checkpoint id (notifications may be skipped or come late; savepoints
 *       that commit no side effects are caught up by the next checkpoint).</li>
 *   <li>On restore the pending checkpoints in state all belong to completed
 *       checkpoints. Those whose identifier is at or below the user's watermark
 *       are dropped (sc_table_filter_committed: their commit succeeded before the
 *       failure), the rest are committed before any new record is processed.
 *       SC_ECOMMITTED from a commit means the same and is counted as filtered.</li>
 *   <li>An unknown outcome, a conflict or exhausted retries fail the task: the
 *       job restarts from the last checkpoint and the replay is reconciled by the
 *       native watermark, never guessed.</li>
 *   <li>Without checkpointing (batch), everything is committed at end of input.</li>
 *   <li>After commits, table upkeep is requested from a {@link TableUpkeep}: its own thread and
 *       handles, a non-blocking request, never a failure of the job. Each run compacts small files
 *       ({@code sink.compaction.enabled}, off by default; append tables) as commit user
 *       {@code <commit user>-compact}, then expires snapshots. Both off when Paimon's
 *       {@code write-only} is true.</li>
 * </ul>
 */
public final class SnapcommitCommitterOperator extends AbstractStreamOperator<Void>
        implements OneInputStreamOperator<byte[], Void>, BoundedOneInput {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(SnapcommitCommitterOperator.class);

    private final SinkConfig config;
    private final PaimonTableSpec spec;

    private transient ListState<String> userState;
    private transient ListState<byte[]> pendingState;
    private transient String commitUser;
    private transient TreeMap<Long, List<DataFile>> pending;
    private transient List<DataFile> received;
    private transient boolean restored;
    private transient NativeTable table;
    private transient CommitterMetrics metrics;
    private transient TableUpkeep upkeep;
    /** finish() was called: the input ended, so close() lets the upkeep catch up (bounded). */
    private transient boolean finished;

    /** How long close() waits for the upkeep thread: after the end of input, and otherwise. */
    static final java.time.Duration EXPIRE_DRAIN_WAIT = java.time.Duration.ofSeconds(30);
    static final java.time.Duration EXPIRE_STOP_WAIT = java.time.Duration.ofSeconds(2);

    public SnapcommitCommitterOperator(SinkConfig config, PaimonTableSpec spec) {
        this.config = Objects.requireNonNull(config);
        this.spec = Objects.requireNonNull(spec);
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        userState = context.getOperatorStateStore().getUnionListState(
            new ListStateDescriptor<>("commit_user_state", BasicTypeInfo.STRING_TYPE_INFO));
        pendingState = context.getOperatorStateStore().getListState(
            new ListStateDescriptor<>("snapcommit_pending", PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        pending = new TreeMap<>();
        received = new ArrayList<>();
        String restoredUser = null;
        for (String u : userState.get()) {
            restoredUser = u;
            break;
        }
        if (restoredUser != null) {
            commitUser = restoredUser;
            if (config.commitUser() != null && !config.commitUser().equals(restoredUser))
                LOG.warn("commit.user {} ignored: the restored state holds commit user {}", config.commitUser(),
                         restoredUser);
        } else {
            commitUser = config.commitUser() != null ? config.commitUser() : "flink-" + UUID.randomUUID();
        }
        if (context.isRestored()) {
            restored = true;
            for (byte[] raw : pendingState.get()) {
                Committables.Pending p = Committables.decodePending(raw);
                pending.computeIfAbsent(p.checkpointId, k -> new ArrayList<>()).addAll(p.files);
            }
        }
        LOG.info("snapcommit committer for {}: commit user {} ({}), {} pending checkpoint(s) restored",
                 config.location(), commitUser, restoredUser != null ? "restored" : "new", pending.size());
    }

    @Override
    public void open() throws Exception {
        super.open();
        metrics = new CommitterMetrics(getMetricGroup());
        NativeLog.enable();
        table = NativeTable.openOrCreate(config.location(), config.strategy(), config.storeConfig(), spec.json());
        // The writers wrote with `spec`: the table (created by us, or by someone else since planning)
        // must have that schema, or the files would not be readable as the table's.
        PaimonTableSpec stored = spec.against(table.schemaJson(), config.location());
        if (stored.schemaId() != spec.schemaId())
            throw new IllegalArgumentException("table " + config.location() + " is at schema " + stored.schemaId()
                                               + " but the job writes with schema " + spec.schemaId());
        if (config.strategy() != Strategy.AUTO && config.strategy() != table.strategy()) {
            throw new IllegalArgumentException("commit.strategy " + config.strategy() + " does not match table "
                                               + config.location() + ", created with " + table.strategy());
        }
        table.retryPolicy(config.maxRetries(), config.minRetryWait(), config.maxRetryWait(), config.commitTimeout());
        boolean writeOnly = config.writeOnly() != null ? config.writeOnly() : stored.coreOptions().writeOnly();
        if (writeOnly) {
            LOG.info("write-only: no snapshot expiration and no compaction for {}", config.location());
        } else {
            TableUpkeep.Compaction compaction = compaction(stored);
            upkeep = new TableUpkeep(config.location(), config.storeConfig(), config.expireOptions(), compaction,
                                     t -> t.retryPolicy(config.maxRetries(), config.minRetryWait(),
                                                        config.maxRetryWait(), config.commitTimeout()),
                                     metrics);
            upkeep.start();
        }
        if (restored && !pending.isEmpty()) commitRestored();
        metrics.pendingCheckpoints = pending.size();
    }

    /** The compaction settings of this job, or null when compaction is off (logged). */
    private TableUpkeep.Compaction compaction(PaimonTableSpec stored) {
        if (!config.compactionEnabled()) return null;
        if (!stored.schema().primaryKeys().isEmpty()) {
            LOG.info("sink.compaction.enabled: {} has primary keys, and only append tables are compacted by the "
                     + "sink: no compaction", config.location());
            return null;
        }
        AppendCompactor.Settings s = AppendCompactor.Settings.of(stored).withTargetFileSize(config.targetFileSize());
        // Explicit values win; a default that contradicts one (SinkConfig checked min <= max) yields to it.
        Integer givenMin = config.compactionMinFileNum();
        Integer givenMax = config.compactionMaxFileNum();
        int min = givenMin != null ? givenMin : givenMax != null ? Math.min(s.minFileNum, givenMax) : s.minFileNum;
        int max = givenMax != null ? givenMax : Math.max(s.maxFileNum, min);
        s = min <= s.maxFileNum ? s.withMinFileNum(min).withMaxFileNum(max) : s.withMaxFileNum(max).withMinFileNum(min);
        String user = commitUser + "-compact";
        if (user.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 255) {
            LOG.warn("sink.compaction.enabled: the compaction commit user {} would be longer than 255 bytes: no "
                     + "compaction (use a shorter commit.user)", user);
            return null;
        }
        LOG.info("small-file compaction of {} after commits: {}, commit user {}", config.location(), s, user);
        return new TableUpkeep.Compaction(stored, s, user, TableUpkeep.DEFAULT_MAX_TASKS);
    }

    @Override
    public void processElement(StreamRecord<byte[]> element) {
        received.addAll(Committables.decodeMessage(element.getValue()).files);
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        long checkpointId = context.getCheckpointId();
        if (!received.isEmpty()) {
            pending.computeIfAbsent(checkpointId, k -> new ArrayList<>()).addAll(received);
            received = new ArrayList<>();
        }
        List<byte[]> encoded = new ArrayList<>(pending.size());
        for (Map.Entry<Long, List<DataFile>> e : pending.entrySet())
            encoded.add(Committables.encode(new Committables.Pending(e.getKey(), e.getValue())));
        pendingState.update(encoded);
        List<String> user = new ArrayList<>(1);
        user.add(commitUser);
        userState.update(user);
        metrics.pendingCheckpoints = pending.size();
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        commitUpTo(checkpointId);
    }

    @Override
    public void endInput() throws Exception {
        if (!getOperatorConfig().isCheckpointingEnabled()) {
            // No checkpoint will come: commit what the writers sent, identifier after the user's last.
            if (!received.isEmpty()) {
                OptionalLong last = table.lastCommittedIdentifier(commitUser);
                long id = Math.max(last.isPresent() ? last.getAsLong() + 1 : 1, pending.isEmpty() ? 1 : pending.lastKey() + 1);
                pending.computeIfAbsent(id, k -> new ArrayList<>()).addAll(received);
                received = new ArrayList<>();
            }
            commitUpTo(Long.MAX_VALUE);
        }
        // With checkpointing, the final checkpoint snapshots what is left and its notification commits it.
    }

    /** Restored pending checkpoints: drop the ones already committed, commit the rest now. */
    private void commitRestored() throws Exception {
        long[] ids = new long[pending.size()];
        int i = 0;
        for (Long id : pending.keySet()) ids[i++] = id;
        long[] keep = table.filterUncommitted(commitUser, ids);
        java.util.Set<Long> kept = new java.util.HashSet<>();
        for (long id : keep) kept.add(id);
        for (Iterator<Map.Entry<Long, List<DataFile>>> it = pending.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Long, List<DataFile>> e = it.next();
            if (!kept.contains(e.getKey())) {
                metrics.filteredReplays.inc();
                LOG.info("checkpoint {} of commit user {} was committed before the restore: replay filtered ({} files)",
                         e.getKey(), commitUser, e.getValue().size());
                it.remove();
            }
        }
        commitUpTo(Long.MAX_VALUE);
    }

    /** Commit pending checkpoints with id <= upTo, in increasing order, one snapshot each. */
    private void commitUpTo(long upTo) throws Exception {
        boolean committed = false;
        while (!pending.isEmpty() && pending.firstKey() <= upTo) {
            Map.Entry<Long, List<DataFile>> e = pending.firstEntry();
            committed |= commitOne(e.getKey(), e.getValue());
            pending.remove(e.getKey());
            metrics.pendingCheckpoints = pending.size();
        }
        // Only a flag for the upkeep thread: the next commit never waits for a compaction or an expiration.
        if (committed && upkeep != null) upkeep.request();
    }

    /** @return true when a snapshot was published (false: a filtered replay) */
    private boolean commitOne(long identifier, List<DataFile> files) throws Exception {
        long started = System.nanoTime();
        try (NativeChanges changes = new NativeChanges()) {
            for (DataFile f : files) changes.addFile(f.toEntry());
            CommitResult r = table.commit(commitUser, identifier, CommitKind.APPEND, 0, changes);
            long latency = (System.nanoTime() - started) / 1_000_000;
            metrics.commits.inc();
            metrics.lostClaims.inc(r.lostClaims());
            metrics.retries.inc(Math.max(0, r.attempts() - 1));
            metrics.unknownOutcomes.inc(r.unknownOutcomes());
            metrics.commitLatencyMs.update(latency);
            metrics.lastCommitLatencyMs = latency;
            metrics.lastSnapshotId = r.snapshotId();
            metrics.lastCommittedCheckpoint = identifier;
            LOG.info("committed checkpoint {} as snapshot {} of {} ({} files, user {}): {}", identifier,
                     r.snapshotId(), config.location(), files.size(), commitUser, r);
            CommitListener listener = config.commitListener();
            if (listener != null) listener.onCommitted(new CommitEvent(config.location(), commitUser, identifier,
                                                                    files.size(), r));
            return true;
        } catch (AlreadyCommittedException e) {
            metrics.filteredReplays.inc();
            metrics.lastCommittedCheckpoint = identifier;
            LOG.info("checkpoint {} of commit user {} already committed (snapshot {}): replay filtered", identifier,
                     commitUser, e.existingSnapshot());
            return false;
        } catch (ConflictException e) {
            metrics.conflicts.inc();
            metrics.commitFailures.inc();
            throw e;
        } catch (UnknownOutcomeException e) {
            metrics.unknownOutcomes.inc();
            metrics.commitFailures.inc();
            LOG.warn("commit of checkpoint {} has an unknown outcome; failing so that the restore reconciles it: {}",
                     identifier, e.getMessage());
            throw e;
        } catch (RetriesExhaustedException e) {
            metrics.commitFailures.inc();
            throw e;
        }
    }

    @Override
    public void finish() throws Exception {
        finished = true;
        super.finish();
    }

    @Override
    public void close() throws Exception {
        try {
            if (upkeep != null) {
                // After the end of input the final checkpoint's commit is done: let the upkeep
                // catch up so that a finished job leaves its table compacted and within retention.
                // On cancel or failover only a short wait; an abandoned run is finished by the next one.
                if (finished) upkeep.request();
                upkeep.close(finished ? EXPIRE_DRAIN_WAIT : EXPIRE_STOP_WAIT, finished);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            upkeep = null;
            try {
                if (table != null) table.close();
            } finally {
                table = null;
                super.close();
            }
        }
    }
}

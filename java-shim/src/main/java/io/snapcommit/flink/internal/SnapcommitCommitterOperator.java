package io.snapcommit.flink.internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.paimon.io.DataInputDeserializer;
import org.apache.paimon.io.DataOutputViewStreamWrapper;
import org.apache.paimon.manifest.ManifestCommittable;
import org.apache.paimon.manifest.ManifestCommittableSerializer;
import org.apache.paimon.table.sink.CommitMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.snapcommit.flink.CommitEvent;
import io.snapcommit.flink.CommitListener;
import io.snapcommit.flink.SinkConfig;
import io.snapcommit.flink.paimon.PaimonSections;
import io.snapcommit.flink.paimon.PaimonTableSpec;
import io.snapcommit.jni.AlreadyCommittedException;
import io.snapcommit.jni.CheckpointResult;
import io.snapcommit.jni.ConflictException;
import io.snapcommit.jni.Overwrite;
import io.snapcommit.jni.NativeChanges;
import io.snapcommit.jni.NativeLog;
import io.snapcommit.jni.NativeTable;
import io.snapcommit.jni.RetriesExhaustedException;
import io.snapcommit.jni.SnapcommitException;
import io.snapcommit.jni.Strategy;
import io.snapcommit.jni.UnknownOutcomeException;

/**
 * The single committer (parallelism 1) of a snapcommit sink: one Paimon checkpoint commit per
 * completed checkpoint, identifier = checkpoint id, commit user kept in checkpoint state.
 *
 * <p>Protocol:
 * <ul>
 *   <li>Writers send Paimon's CommitMessages ({@link WriterCommittable}), tagged with the checkpoint
 *       whose barrier they preceded. In {@code snapshotState(c)} the messages received since the
 *       previous snapshot become pending checkpoints, grouped by that tag as Paimon's
 *       CommitterOperator groups them (see {@link #pendingIdOf}): each a Paimon
 *       {@link ManifestCommittable} (identifier = the tag, the current watermark), stored in operator
 *       state with Paimon's {@link ManifestCommittableSerializer}, with the commit user (union state
 *       "commit_user_state", shared with the writers). Messages a writer sent at end of input belong
 *       to the checkpoint that follows (Paimon would commit them as identifier Long.MAX_VALUE).</li>
 *   <li>{@code notifyCheckpointComplete(c)} commits every pending checkpoint {@code <= c} in
 *       increasing order: the messages split by Paimon's ManifestEntryChanges into the APPEND and
 *       COMPACT parts ({@link PaimonSections}), each section a Paimon manifest-format Avro container,
 *       committed by sc_table_commit_checkpoint — up to two snapshots with the same identifier.</li>
 *   <li>On restore the pending checkpoints in state all belong to completed
 *       checkpoints. Those whose identifier is at or below the user's watermark
 *       are dropped (sc_table_filter_committed: their commit succeeded before the
 *       failure), the rest are committed before any new record is processed.
 *       SC_ECOMMITTED from a commit means the same and is counted as filtered.</li>
 *   <li>An unknown outcome, a conflict or exhausted retries fail the task: the
 *       job restarts from the last checkpoint and the replay is reconciled by the
 *       native watermark, never guessed.</li>
 *   <li>One exception, on restore only: a checkpoint that is only a compaction (an empty APPEND
 *       part, so no snapshot would carry its identifier) whose COMPACT part conflicts is abandoned
 *       (WARN, counter abandonedCompactions), as by Paimon's streaming committer, which writes an
 *       empty APPEND snapshot with the identifier first, so that its restore filters the
 *       checkpoint. Its first attempt still fails the task, so that the writers restart from the
 *       latest snapshot.</li>
 *   <li>Without checkpointing (batch), everything is committed at end of input.</li>
 *   <li>After commits, table upkeep is requested from a {@link TableUpkeep}: its own thread and
 *       handles, a non-blocking request, never a failure of the job. Each run compacts a
 *       bucket-unaware append table ({@code sink.compaction.enabled}, off by default) with Paimon's
 *       AppendCompactCoordinator as commit user {@code <commit user>-compact} (a fixed-bucket
 *       table is compacted by its writers), then expires snapshots. Both off when Paimon's
 *       {@code write-only} is true.</li>
 * </ul>
 */
public final class SnapcommitCommitterOperator extends AbstractStreamOperator<Void>
        implements OneInputStreamOperator<byte[], Void>, BoundedOneInput {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(SnapcommitCommitterOperator.class);

    /** One pending checkpoint in state: magic, ManifestCommittableSerializer version, its bytes. */
    static final int STATE_MAGIC = 0x53435033; // "SCP3"
    static final String STATE_NAME = "snapcommit_committables";
    /** The state of the sink before Paimon's write path: SCP2 records (DataFile lists). */
    static final String LEGACY_STATE_NAME = "snapcommit_pending";
    static final int LEGACY_MAGIC = 0x53435032; // "SCP2"

    private final SinkConfig config;
    private final PaimonTableSpec spec;
    private final String initialCommitUser;
    /** INSERT OVERWRITE: Paimon's static partition (possibly partial or empty); null for none. */
    private final java.util.LinkedHashMap<String, String> overwritePartition;
    private transient Overwrite overwrite;

    private transient ListState<byte[]> pendingState;
    private transient String commitUser;
    private transient TreeMap<Long, ManifestCommittable> pending;
    /** The writers' messages since the last snapshot, in arrival order, each with the writer's checkpoint tag. */
    private transient List<WriterCommittable> received;
    /**
     * The highest checkpoint whose state this committer took (or restored from): a writer's message
     * tagged with it or an earlier one was in flight when that state was taken (an unaligned
     * checkpoint's channel state), so it belongs to the next snapshot.
     */
    private transient long lastSnapshotted;
    private transient long currentWatermark;
    private transient boolean restored;
    private transient long[] legacyIds;
    private transient NativeTable table;
    private transient CommitterMetrics metrics;
    private transient TableUpkeep upkeep;
    private transient int defaultBuckets;
    private transient String manifestCompression;
    /** Restored checkpoints abandoned by {@link #commitOne} during {@link #commitRestored}. */
    private transient int abandonedOnRestore;
    /** finish() was called: the input ended, so close() lets the upkeep catch up (bounded). */
    private transient boolean finished;

    /** How long close() waits for the upkeep thread: after the end of input, and otherwise. */
    static final java.time.Duration EXPIRE_DRAIN_WAIT = java.time.Duration.ofSeconds(30);
    static final java.time.Duration EXPIRE_STOP_WAIT = java.time.Duration.ofSeconds(2);

    public SnapcommitCommitterOperator(SinkConfig config, PaimonTableSpec spec, String initialCommitUser) {
        this(config, spec, initialCommitUser, null);
    }

    /** @param overwritePartition an INSERT OVERWRITE's static partition (see {@link #overwriteOf}), null for none */
    public SnapcommitCommitterOperator(SinkConfig config, PaimonTableSpec spec, String initialCommitUser,
                                       java.util.LinkedHashMap<String, String> overwritePartition) {
        this.overwritePartition = overwritePartition;
        this.config = Objects.requireNonNull(config);
        this.spec = Objects.requireNonNull(spec);
        this.initialCommitUser = Objects.requireNonNull(initialCommitUser);
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        commitUser = CommitUserState.restoreOrInit(context, initialCommitUser);
        if (config.commitUser() != null && !config.commitUser().equals(commitUser))
            LOG.warn("commit.user {} ignored: the restored state holds commit user {}", config.commitUser(), commitUser);
        pendingState = context.getOperatorStateStore().getListState(
            new ListStateDescriptor<>(STATE_NAME, PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        ListState<byte[]> legacy = context.getOperatorStateStore().getListState(
            new ListStateDescriptor<>(LEGACY_STATE_NAME, PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        pending = new TreeMap<>();
        received = new ArrayList<>();
        lastSnapshotted = context.getRestoredCheckpointId().orElse(Long.MIN_VALUE);
        currentWatermark = Long.MIN_VALUE;
        if (context.isRestored()) {
            restored = true;
            for (byte[] raw : pendingState.get()) {
                ManifestCommittable c = decodeState(raw);
                pending.put(c.identifier(), c);
            }
            List<Long> ids = new ArrayList<>();
            for (byte[] raw : legacy.get()) ids.add(legacyCheckpointId(raw));
            legacyIds = ids.stream().mapToLong(Long::longValue).toArray();
            legacy.clear();
        }
        LOG.info("snapcommit committer for {}: commit user {}, {} pending checkpoint(s) restored", config.location(),
                 commitUser, pending.size());
    }

    static byte[] encodeState(ManifestCommittable c) throws IOException {
        ManifestCommittableSerializer s = new ManifestCommittableSerializer();
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        DataOutputViewStreamWrapper out = new DataOutputViewStreamWrapper(bytes);
        out.writeInt(STATE_MAGIC);
        out.writeInt(s.getVersion());
        out.write(s.serialize(c));
        return bytes.toByteArray();
    }

    static ManifestCommittable decodeState(byte[] raw) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(raw);
        int magic = in.readInt();
        if (magic != STATE_MAGIC)
            throw new IOException("snapcommit committer state: not a pending checkpoint (magic "
                                  + Integer.toHexString(magic) + ")");
        int version = in.readInt();
        byte[] body = new byte[raw.length - 8];
        in.readFully(body);
        return new ManifestCommittableSerializer().deserialize(version, body);
    }

    /** The checkpoint id of an SCP2 record (magic, then the id), the rest left unread. */
    static long legacyCheckpointId(byte[] raw) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(raw);
        int magic = in.readInt();
        if (magic != LEGACY_MAGIC)
            throw new IOException("snapcommit committer state " + LEGACY_STATE_NAME + ": unknown record (magic "
                                  + Integer.toHexString(magic) + ")");
        return in.readLong();
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
        overwrite = overwriteOf(overwritePartition, stored);
        if (overwrite != Overwrite.NONE && getOperatorConfig().isCheckpointingEnabled())
            // Paimon's overwrite commits exactly one committable; every checkpoint's would replace the last's rows.
            throw new UnsupportedOperationException("INSERT OVERWRITE into " + config.location() + " runs as a batch "
                + "job (execution.runtime-mode = batch): with checkpointing, each checkpoint's commit would replace "
                + "the rows the previous ones wrote");
        defaultBuckets = stored.coreOptions().bucket();
        manifestCompression = stored.coreOptions().manifestCompression();
        if (legacyIds != null && legacyIds.length > 0) checkLegacy();
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

    /**
     * Pending checkpoints in the SCP2 state of the sink before Paimon's write path cannot be
     * committed by this one: fine when all were committed already (a savepoint whose checkpoint
     * completed, as stop-with-savepoint does), refused otherwise, naming the format.
     */
    private void checkLegacy() {
        long[] open = table.filterUncommitted(commitUser, legacyIds);
        if (open.length > 0)
            throw new IllegalStateException("the restored state of the snapcommit committer of " + config.location()
                + " holds " + open.length + " uncommitted checkpoint(s) (" + java.util.Arrays.toString(open)
                + ") in the SCP2 format of the snapcommit sink before Paimon's write path, which this version "
                + "cannot commit. Restore that savepoint with the previous snapcommit version and stop the job with "
                + "stop-with-savepoint (which commits them), then restore the new savepoint with this version");
        LOG.info("restored SCP2 state of {}: its {} checkpoint(s) were all committed already", config.location(),
                 legacyIds.length);
    }

    /** The compaction of the upkeep thread, or null when off (logged): bucket-unaware append tables only. */
    private TableUpkeep.Compaction compaction(PaimonTableSpec stored) {
        if (!config.compactionEnabled()) return null;
        if (config.compactionMaxFileNum() != null)
            LOG.warn("sink.compaction.max-file-num = {} is ignored: Paimon's compaction decides how many files a task "
                     + "merges", config.compactionMaxFileNum());
        if (!stored.schema().primaryKeys().isEmpty()) {
            LOG.info("sink.compaction.enabled: {} has primary keys, and only append tables are compacted by the "
                     + "sink: no compaction", config.location());
            return null;
        }
        if (stored.coreOptions().bucket() > 0) {
            LOG.info("sink.compaction.enabled: {} has fixed buckets; its writers compact them (Paimon's bucketed "
                     + "append compaction)", config.location());
            return null;
        }
        String user = commitUser + "-compact";
        if (user.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 255) {
            LOG.warn("sink.compaction.enabled: the compaction commit user {} would be longer than 255 bytes: no "
                     + "compaction (use a shorter commit.user)", user);
            return null;
        }
        Map<String, String> options = SnapcommitWriterOperator.writeOptions(config, stored);
        options.remove("write-only");
        LOG.info("small-file compaction of {} after commits (Paimon's AppendCompactCoordinator, options {}), commit "
                 + "user {}", config.location(), options, user);
        return new TableUpkeep.Compaction(stored, options, user, TableUpkeep.DEFAULT_MAX_TASKS);
    }

    @Override
    public void processElement(StreamRecord<byte[]> element) throws Exception {
        received.add(WriterCommittable.decode(element.getValue()));
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        super.processWatermark(mark);
        // As Paimon's CommitterOperator: the end-of-input watermark of a bounded input is no event time.
        if (mark.getTimestamp() != Long.MAX_VALUE) currentWatermark = mark.getTimestamp();
    }

    private static int messageCount(List<WriterCommittable> ws) {
        int n = 0;
        for (WriterCommittable w : ws) n += w.messages.size();
        return n;
    }

    private Long watermark() {
        return currentWatermark == Long.MIN_VALUE ? null : currentWatermark;
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        long checkpointId = context.getCheckpointId();
        for (WriterCommittable w : received) {
            if (w.messages.isEmpty()) continue;
            ManifestCommittable c = pending.computeIfAbsent(pendingIdOf(w.checkpointId, checkpointId, lastSnapshotted),
                                                            id -> new ManifestCommittable(id, watermark()));
            for (CommitMessage m : w.messages) c.addFileCommittable(m);
        }
        received = new ArrayList<>();
        lastSnapshotted = Math.max(lastSnapshotted, checkpointId);
        List<byte[]> encoded = new ArrayList<>(pending.size());
        for (ManifestCommittable c : pending.values()) encoded.add(encodeState(c));
        pendingState.update(encoded);
        metrics.pendingCheckpoints = pending.size();
    }

    /**
     * The pending checkpoint (the commit identifier) of messages a writer sent before the barrier of
     * {@code writerCheckpoint}, taken into the committer's snapshot of {@code checkpoint}: the
     * writer's own checkpoint, as Paimon's CommitterOperator groups committables — not the
     * snapshot that happens to take them. The two differ when the writer's checkpoint was aborted
     * before its barrier reached the committer (expired, or declined by a task that is closing):
     * its messages arrive with the next checkpoint's. Committing them under that later identifier
     * would break what Paimon's writer relies on: (1) each checkpoint's compaction is committed on
     * its own, so a compaction never deletes a file that another compaction in the same COMPACT part
     * adds (the output of the aborted checkpoint's compaction, compacted again by the next one, would
     * be a delete of a file that is not live, SC_ECONFLICT); (2) a writer whose last change has
     * identifier {@code k} is closed once an identifier above {@code k} is committed
     * (AbstractFileStoreWrite's writer clean-up), assuming every snapshot of {@code k} has landed;
     * under the later identifier its COMPACT part may not have, and the bucket's next writer would
     * restore files that part deletes and compact them again.
     *
     * <p>End of input, and a message tagged with a checkpoint this committer has already taken its
     * state for (in flight during an unaligned checkpoint, restored from its channel state), go to
     * {@code checkpoint}: that id is above every identifier committed or pending before.
     */
    static long pendingIdOf(long writerCheckpoint, long checkpoint, long lastSnapshotted) {
        if (writerCheckpoint == WriterCommittable.END_OF_INPUT || writerCheckpoint <= lastSnapshotted
            || writerCheckpoint > checkpoint) return checkpoint;
        return writerCheckpoint;
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
            OptionalLong last = table.lastCommittedIdentifier(commitUser);
            if (last.isPresent() && config.commitUser() == null && !restored) {
                // The user was generated for this job, and a job without checkpoints commits once: an
                // earlier attempt of this task committed before it failed (a batch job restarts the
                // committer's region and it reads the writers' results again). Committing again would
                // re-apply it: an overwrite would delete what others wrote since. Paimon's committer
                // filters its end-of-input commit (identifier Long.MAX_VALUE) the same way.
                metrics.filteredReplays.inc();
                LOG.info("end-of-input commit of commit user {} landed before this task restarted (identifier {}): "
                         + "replay filtered ({} messages)", commitUser, last.getAsLong(), messageCount(received));
                received = new ArrayList<>();
                return;
            }
            if (!received.isEmpty() || overwrite != Overwrite.NONE) {
                long id = Math.max(last.isPresent() ? last.getAsLong() + 1 : 1,
                                   pending.isEmpty() ? 1 : pending.lastKey() + 1);
                ManifestCommittable c = new ManifestCommittable(id, watermark());
                for (WriterCommittable w : received) for (CommitMessage m : w.messages) c.addFileCommittable(m);
                pending.put(id, c);
                received = new ArrayList<>();
            }
            commitUpTo(Long.MAX_VALUE);
        }
        // With checkpointing, the final checkpoint snapshots what is left and its notification commits it.
    }

    /**
     * Restored pending checkpoints: drop the ones already committed, commit the rest now. Paimon's
     * committer then fails once (RestoreAndFailCommittableStateManager) so that writers restart
     * from the new snapshot. Not done for append tables: a bucket-unaware writer restores nothing;
     * a fixed-bucket writer that read its bucket before this commit only repeats sequence numbers
     * of the re-committed files, which loses or doubles no row. A primary-key table needs it: its
     * writers restored their buckets (files, max sequence number, lookup levels, deletion vectors)
     * from the snapshot before these commits, so their next files would carry sequence numbers
     * at or below the re-committed ones (a later update could lose against an older row) and
     * their compactions would rewrite without the re-committed files (a conflict, or deletion
     * vectors missing their rows). Failing once restarts them on the new snapshot; on that second
     * restore the same pending checkpoints are all filtered as committed, so it does not fail again.
     * Not done either when every restored checkpoint was an abandoned compaction ({@link #commitOne}):
     * nothing was written, so the writers' restored buckets are the table's, and the next restore
     * would abandon the same compactions again and fail again, a restart loop.
     */
    private void commitRestored() throws Exception {
        long[] ids = new long[pending.size()];
        int i = 0;
        for (Long id : pending.keySet()) ids[i++] = id;
        long[] keep = table.filterUncommitted(commitUser, ids);
        Set<Long> kept = new HashSet<>();
        for (long id : keep) kept.add(id);
        for (Iterator<Map.Entry<Long, ManifestCommittable>> it = pending.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Long, ManifestCommittable> e = it.next();
            if (!kept.contains(e.getKey())) {
                metrics.filteredReplays.inc();
                LOG.info("checkpoint {} of commit user {} was committed before the restore: replay filtered ({} "
                         + "messages)", e.getKey(), commitUser, e.getValue().fileCommittables().size());
                it.remove();
            }
        }
        int restoredCount = pending.size();
        abandonedOnRestore = 0;
        commitUpTo(Long.MAX_VALUE, true);
        boolean recommitted = restoredCount > abandonedOnRestore;
        if (recommitted && !spec.schema().primaryKeys().isEmpty())
            throw new RestoredCommitsException("checkpoint(s) " + kept + " of " + config.location() + " were committed "
                + "on restore; failing once on purpose so that the writers of this primary-key table restart on the "
                + "new snapshot");
    }

    /** Thrown once after restored checkpoints were committed (see {@link #commitRestored}). */
    public static final class RestoredCommitsException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        RestoredCommitsException(String message) { super(message); }
    }

    /** Commit pending checkpoints with id <= upTo, in increasing order. */
    private void commitUpTo(long upTo) throws Exception {
        commitUpTo(upTo, false);
    }

    /** @param restoring the restored pending checkpoints, committed before any record (see {@link #commitOne}) */
    private void commitUpTo(long upTo, boolean restoring) throws Exception {
        boolean committed = false;
        while (!pending.isEmpty() && pending.firstKey() <= upTo) {
            Map.Entry<Long, ManifestCommittable> e = pending.firstEntry();
            committed |= commitOne(e.getValue(), restoring);
            pending.remove(e.getKey());
            metrics.pendingCheckpoints = pending.size();
        }
        // Only a flag for the upkeep thread: the next commit never waits for a compaction or an expiration.
        if (committed && upkeep != null) upkeep.request();
    }

    /**
     * Paimon's FileStoreCommitImpl.overwritePartition: a partitioned table with
     * dynamic-partition-overwrite (the default) replaces the partitions written; otherwise the
     * partitions matching the static partition (all of them when it is empty).
     */
    static Overwrite overwriteOf(java.util.Map<String, String> staticPartition, PaimonTableSpec spec) {
        if (staticPartition == null) return Overwrite.NONE;
        java.util.List<String> keys = spec.schema().partitionKeys();
        if (!keys.isEmpty() && spec.coreOptions().dynamicPartitionOverwrite()) return Overwrite.DYNAMIC;
        java.util.LinkedHashMap<String, String> ordered = new java.util.LinkedHashMap<>();
        for (String k : keys) if (staticPartition.containsKey(k)) ordered.put(k, staticPartition.get(k));
        if (ordered.isEmpty()) return Overwrite.TABLE;
        String path = org.apache.paimon.utils.PartitionPathUtils.generatePartitionPath(ordered);
        return Overwrite.partition(path.endsWith("/") ? path.substring(0, path.length() - 1) : path);
    }

    /**
     * @param restoring a restored pending checkpoint: one that is only a compaction and conflicts is
     *     abandoned instead of failing the task. Its identifier is on no snapshot (the native commit
     *     writes no snapshot for an empty APPEND part, where Paimon's streaming committer writes an
     *     empty one), so every restore would commit it again and conflict again; Paimon's restore
     *     filters it by that empty APPEND and so drops the compaction (its new files become orphans).
     *     The first attempt still fails: the writers compacted on files the table no longer has and
     *     must restart from the latest snapshot.
     * @return true when a snapshot was published (false: nothing to commit, a filtered replay or an
     *     abandoned compaction)
     */
    private boolean commitOne(ManifestCommittable committable, boolean restoring) throws Exception {
        long identifier = committable.identifier();
        long started = System.nanoTime();
        PaimonSections sections = PaimonSections.of(committable.fileCommittables(), defaultBuckets, manifestCompression);
        // An overwrite commits even with no file: a static one empties its partitions (Paimon's).
        if (sections.append.isEmpty() && sections.compact.isEmpty() && overwrite == Overwrite.NONE) return false;
        try (NativeChanges append = sections.append.toNative(); NativeChanges compact = sections.compact.toNative()) {
            CheckpointResult r = table.commitCheckpoint(commitUser, identifier, 0, committable.watermark(), append,
                                                        compact, overwrite);
            long latency = (System.nanoTime() - started) / 1_000_000;
            for (CheckpointResult.Part p : new CheckpointResult.Part[] {r.append(), r.compact()}) {
                if (!p.written()) continue;
                metrics.commits.inc();
                metrics.lostClaims.inc(p.lostClaims());
                metrics.retries.inc(Math.max(0, p.attempts() - 1));
                metrics.unknownOutcomes.inc(p.unknownOutcomes());
            }
            metrics.commitLatencyMs.update(latency);
            metrics.lastCommitLatencyMs = latency;
            if (r.lastSnapshotId() != 0) metrics.lastSnapshotId = r.lastSnapshotId();
            metrics.lastCommittedCheckpoint = identifier;
            LOG.info("committed checkpoint {} of {} (user {}; append: {}; compact: {}): {}", identifier,
                     config.location(), commitUser, sections.append, sections.compact, r);
            CommitListener listener = config.commitListener();
            if (listener != null && r.lastSnapshotId() != 0)
                listener.onCommitted(new CommitEvent(config.location(), commitUser, identifier,
                                                     sections.append.addedDataFiles, r));
            return r.lastSnapshotId() != 0;
        } catch (AlreadyCommittedException e) {
            metrics.filteredReplays.inc();
            metrics.lastCommittedCheckpoint = identifier;
            LOG.info("checkpoint {} of commit user {} already committed (snapshot {}): replay filtered", identifier,
                     commitUser, e.existingSnapshot());
            return false;
        } catch (ConflictException e) {
            metrics.conflicts.inc();
            if (restoring && sections.append.isEmpty() && overwrite == Overwrite.NONE && e.landedSnapshot() == 0) {
                metrics.abandonedCompactions.inc();
                abandonedOnRestore++;
                LOG.warn("restored checkpoint {} of commit user {} on {} holds only a compaction ({}), and it conflicts: "
                         + "abandoned, as Paimon's restore does (its new files are left for orphan removal): {}",
                         identifier, commitUser, config.location(), sections.compact, e.getMessage());
                return false;
            }
            metrics.commitFailures.inc();
            logLanded(identifier, e);
            throw e;
        } catch (UnknownOutcomeException e) {
            metrics.unknownOutcomes.inc();
            metrics.commitFailures.inc();
            logLanded(identifier, e);
            LOG.warn("commit of checkpoint {} has an unknown outcome; failing so that the restore reconciles it: {}",
                     identifier, e.getMessage());
            throw e;
        } catch (RetriesExhaustedException e) {
            metrics.commitFailures.inc();
            logLanded(identifier, e);
            throw e;
        }
    }

    private void logLanded(long identifier, SnapcommitException e) {
        if (e.landedSnapshot() != 0)
            LOG.warn("checkpoint {}: its APPEND part landed as snapshot {}, its COMPACT part failed ({}); the restore "
                     + "filters the checkpoint, the compaction's files are left for orphan removal", identifier,
                     e.landedSnapshot(), e.getMessage());
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

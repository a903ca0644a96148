package io.snapcommit.flink.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.BasicTypeInfo;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.SinkRecord;
import org.apache.paimon.table.sink.TableWriteImpl;

import io.snapcommit.flink.SinkConfig;
import io.snapcommit.flink.paimon.PaimonStoreTable;
import io.snapcommit.flink.paimon.PaimonTableSpec;
import io.snapcommit.flink.paimon.RowConverter;

/**
 * Writer subtask: Paimon's own write path. Rows are converted to Paimon rows and written by the
 * table's {@link TableWriteImpl} ({@code FileStoreTable.newWrite(commitUser, subtask)}, as
 * Paimon's StoreSinkWriteImpl makes it), with an IOManager on Flink's spill directories; its data
 * files go through Paimon's FileIO straight to the table's storage. A fixed-bucket table's rows
 * arrive shuffled by Paimon's channel rule ({@link BucketChannel}), so each bucket has one writer,
 * whose TableWriteImpl restores that bucket's files from the latest snapshot and compacts them
 * (Paimon's bucketed append compaction) unless compaction is off for the job.
 *
 * <p>As Paimon's PrepareCommitOperator: before every checkpoint barrier
 * {@code prepareCommit(false, checkpointId)}, at end of input {@code prepareCommit(true,
 * Long.MAX_VALUE)}; the CommitMessages go to the committer as a {@link WriterCommittable}.
 * The commit user is kept in the union list state {@code commit_user_state}, as Paimon keeps it,
 * starting from the one the sink chose for writers and committer alike.
 *
 * <p>{@link #rows} takes RowData whose bucket Paimon's extractor computes (bucket-unaware and
 * fixed-bucket tables); {@link #rowsWithBucket} takes (RowData, bucket) pairs that the dynamic-bucket
 * assigner ({@link DynamicBucketAssignerOperator}) chose, written with {@code write(row, bucket)} as
 * Paimon's DynamicBucketRowWriteOperator does; the writer then keeps the buckets' HASH index and
 * sends its new index files in the CommitMessages.
 *
 * <p>Compaction triggers of Paimon's StoreSinkWrite variants, chosen by its rule
 * (StoreSinkWrite.createWriteProvider; none for a write-only table): with
 * {@code changelog-producer = full-compaction} or {@code full-compaction.delta-commits}, the
 * global full compaction of GlobalFullCompactionSinkWrite ({@link FullCompactionTrigger}); else,
 * when the table needs lookup (changelog-producer lookup, deletion vectors, first-row), as
 * LookupSinkWrite: the buckets with a writer at a checkpoint are kept in state
 * ({@link WriterBucketState}) and a restored writer compacts them at once, so the level-0 files a
 * checkpoint committed without waiting for their compaction (lookup-wait off, or the restore
 * came before that compaction landed) get their changelog and deletion vectors even when no new
 * row reaches their bucket.
 */
public final class SnapcommitWriterOperator<IN> extends AbstractStreamOperator<byte[]>
        implements OneInputStreamOperator<IN, byte[]>, BoundedOneInput {
    private static final long serialVersionUID = 1L;

    private final SinkConfig config;
    private final PaimonTableSpec spec;
    private final RowType rowType;
    private final String initialCommitUser;
    /** An INSERT OVERWRITE: write as into an empty table (Paimon's withIgnorePreviousFiles). */
    private final boolean ignorePreviousFiles;
    /** The input is (row, bucket) from the dynamic-bucket assigner, not rows. */
    private final boolean withBucket;

    private transient String commitUser;
    private transient IOManager ioManager;
    private transient TableWriteImpl<?> write;
    private transient RowConverter converter;
    private transient boolean endOfInput;
    private transient boolean primaryKeyTable;
    private transient boolean waitCompaction;
    private transient Counter rowsOut, filesOut, bytesOut;
    private transient WriterBucketState bucketState;
    /** Paimon's GlobalFullCompactionSinkWrite trigger; null when the table has none. */
    private transient FullCompactionTrigger fullCompaction;
    /** Paimon's LookupSinkWrite: keep the active buckets, compact them on restore. */
    private transient boolean lookupRestore;

    private SnapcommitWriterOperator(SinkConfig config, PaimonTableSpec spec, RowType rowType, String initialCommitUser,
                                     boolean withBucket, boolean ignorePreviousFiles) {
        this.withBucket = withBucket;
        this.ignorePreviousFiles = ignorePreviousFiles;
        this.config = Objects.requireNonNull(config);
        this.spec = Objects.requireNonNull(spec);
        this.rowType = Objects.requireNonNull(rowType);
        this.initialCommitUser = Objects.requireNonNull(initialCommitUser);
    }

    /** A writer of rows whose bucket Paimon's extractor computes. */
    public static SnapcommitWriterOperator<RowData> rows(SinkConfig config, PaimonTableSpec spec, RowType rowType,
                                                         String initialCommitUser) {
        return rows(config, spec, rowType, initialCommitUser, false);
    }

    /**
     * As {@link #rows(SinkConfig, PaimonTableSpec, RowType, String)}; {@code ignorePreviousFiles} for an INSERT
     * OVERWRITE: write as into an empty table, the commit replaces what was there.
     */
    public static SnapcommitWriterOperator<RowData> rows(SinkConfig config, PaimonTableSpec spec, RowType rowType,
                                                         String initialCommitUser, boolean ignorePreviousFiles) {
        return new SnapcommitWriterOperator<>(config, spec, rowType, initialCommitUser, false, ignorePreviousFiles);
    }

    /** A writer of (row, bucket) pairs from the dynamic-bucket assigner. */
    public static SnapcommitWriterOperator<Tuple2<RowData, Integer>> rowsWithBucket(
            SinkConfig config, PaimonTableSpec spec, RowType rowType, String initialCommitUser) {
        return new SnapcommitWriterOperator<>(config, spec, rowType, initialCommitUser, true, false);
    }

    /** A fixed-bucket table's input shuffled to the writers by Paimon's channel rule ({@link BucketChannel}). */
    public static org.apache.flink.streaming.api.datastream.DataStream<RowData> shuffleByBucket(
            org.apache.flink.streaming.api.datastream.DataStream<RowData> input, PaimonTableSpec spec, RowType rowType) {
        return input.partitionCustom(new BucketChannel.Channel(), new BucketChannel.Selector(spec, rowType));
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        commitUser = CommitUserState.restoreOrInit(context, initialCommitUser);
        bucketState = new WriterBucketState(context, getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
                                            getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks());
    }

    @Override
    public void open() throws Exception {
        super.open();
        int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        MetricGroup g = getMetricGroup().addGroup("snapcommit");
        rowsOut = g.counter("rowsWritten");
        filesOut = g.counter("filesWritten");
        bytesOut = g.counter("bytesWritten");
        converter = new RowConverter(rowType);
        FileStoreTable table = PaimonStoreTable.open(config.location(), config.storeConfig(), spec,
                                                     writeOptions(config, spec));
        ioManager = IOManager.create(getContainingTask().getEnvironment().getIOManager().getSpillingDirectoriesPaths());
        write = table.newWrite(commitUser, subtask).withIOManager(ioManager).withIgnorePreviousFiles(ignorePreviousFiles);
        primaryKeyTable = !spec.schema().primaryKeys().isEmpty();
        waitCompaction = waitCompaction(table.coreOptions());
        int deltaCommits = FullCompactionTrigger.deltaCommits(table.coreOptions());
        if (deltaCommits > 0) {
            fullCompaction = new FullCompactionTrigger(deltaCommits, commitUser, table.snapshotManager(), bucketState);
        } else if (!table.coreOptions().writeOnly() && table.coreOptions().needLookup()) {
            lookupRestore = true;
            for (WriterBucketState.Value v : bucketState.get(ACTIVE_BUCKETS)) write.compact(v.partition, v.bucket, false);
        }
    }

    /** Paimon's key (LookupSinkWrite.ACTIVE_BUCKETS_STATE_NAME). */
    static final String ACTIVE_BUCKETS = "paimon_async_lookup_active_buckets";

    /**
     * Paimon's rule (StoreSinkWrite.createWriteProvider): a write-only writer never waits; else a
     * checkpoint waits for the running compaction when the table needs lookup (changelog-producer
     * lookup, deletion vectors, first-row, ...) and lookup-wait is on, so that the changelog or
     * deletion vectors of the checkpoint's rows are in its commit.
     */
    static boolean waitCompaction(org.apache.paimon.CoreOptions o) {
        return !o.writeOnly() && o.prepareCommitWaitCompaction();
    }

    /**
     * The dynamic options of the writers' table: the sink's target file size, and write-only (no
     * compaction inside the writer) unless the job compacts (a primary-key table, or
     * {@code sink.compaction.enabled}; never when write-only).
     */
    static Map<String, String> writeOptions(SinkConfig config, PaimonTableSpec spec) {
        Map<String, String> o = new java.util.HashMap<>();
        o.put("target-file-size", Long.toString(config.targetFileSize()));
        boolean writeOnly = config.writeOnly() != null ? config.writeOnly() : spec.coreOptions().writeOnly();
        // A primary-key table compacts in its writers as Paimon's sink does (its LSM levels are what a
        // lookup changelog, deletion vectors and first-row read from); sink.compaction.enabled is
        // the opt-in of append tables.
        boolean compacts = !spec.schema().primaryKeys().isEmpty() || config.compactionEnabled();
        if (!compacts || writeOnly) o.put("write-only", "true");
        if (config.compactionMinFileNum() != null)
            o.put("compaction.min.file-num", Integer.toString(config.compactionMinFileNum()));
        return o;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void processElement(StreamRecord<IN> element) throws Exception {
        RowData row;
        int bucket = -1;
        if (withBucket) {
            Tuple2<RowData, Integer> t = (Tuple2<RowData, Integer>) element.getValue();
            row = t.f0;
            bucket = t.f1;
        } else {
            row = (RowData) element.getValue();
        }
        if (!primaryKeyTable && row.getRowKind() != RowKind.INSERT)
            throw new IllegalArgumentException("an append table (no primary key) takes inserts only: got a "
                                               + row.getRowKind() + " row");
        SinkRecord r = withBucket ? write.writeAndReturn(converter.convert(row), bucket)
                                  : write.writeAndReturn(converter.convert(row));
        if (r != null && fullCompaction != null) fullCompaction.touch(r.partition(), r.bucket());
        rowsOut.inc();
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        if (!endOfInput) emit(false, checkpointId);
    }

    @Override
    public void endInput() throws Exception {
        if (!endOfInput) {
            endOfInput = true;
            emit(true, WriterCommittable.END_OF_INPUT);
        }
    }

    /** As Paimon's StoreSinkWriteImpl.prepareCommit: wait = the end of input, or the table's rule, or a full compaction. */
    private void emit(boolean wait, long checkpointId) throws Exception {
        if (fullCompaction != null) wait = fullCompaction.beforePrepareCommit(write, wait, checkpointId);
        List<CommitMessage> messages = new ArrayList<>(write.prepareCommit(waitCompaction || wait, checkpointId));
        messages.removeIf(m -> ((CommitMessageImpl) m).isEmpty());
        if (messages.isEmpty()) return;
        for (CommitMessage m : messages) {
            for (DataFileMeta f : ((CommitMessageImpl) m).newFilesIncrement().newFiles()) {
                filesOut.inc();
                bytesOut.inc(f.fileSize());
            }
        }
        output.collect(new StreamRecord<>(new WriterCommittable(checkpointId, messages).encode()));
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        if (fullCompaction != null) fullCompaction.snapshot(bucketState);
        if (lookupRestore) {
            List<WriterBucketState.Value> active = new ArrayList<>();
            for (Map.Entry<BinaryRow, List<Integer>> e
                     : ((org.apache.paimon.operation.AbstractFileStoreWrite<?>) write.getWrite()).getActiveBuckets().entrySet())
                for (int bucket : e.getValue()) active.add(new WriterBucketState.Value(e.getKey(), bucket, new byte[0]));
            bucketState.put(ACTIVE_BUCKETS, active);
        }
        bucketState.snapshot();
    }

    @Override
    public void close() throws Exception {
        try {
            if (write != null) write.close(); // deletes the files of an unfinished checkpoint
            if (ioManager != null) ioManager.close();
        } finally {
            write = null;
            ioManager = null;
            super.close();
        }
    }
}

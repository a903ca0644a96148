package io.snapcommit.flink.internal;

import java.util.Collections;
import java.util.Objects;

import org.apache.flink.api.common.typeinfo.BasicTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.typeutils.TupleTypeInfo;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.index.BucketAssigner;
import org.apache.paimon.index.HashBucketAssigner;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.RowPartitionKeyExtractor;
import org.apache.paimon.utils.MathUtils;

import io.snapcommit.flink.SinkConfig;
import io.snapcommit.flink.paimon.PaimonStoreTable;
import io.snapcommit.flink.paimon.PaimonTableSpec;
import io.snapcommit.flink.paimon.RowConverter;

/**
 * The bucket assigner of a dynamic-bucket primary-key table ({@code bucket = -1}), as Paimon's
 * HashBucketAssignerOperator: Paimon's {@link HashBucketAssigner} — loading each partition's HASH
 * index from the latest snapshot, keeping keys in the bucket they are in and filling buckets up to
 * {@code dynamic-bucket.target-row-num} — assigns each row a bucket; the row goes on with it to the
 * writers. Rows arrive shuffled by {@link BucketChannel.AssignerChannel}, so every key has one
 * assigner. Before every checkpoint barrier {@code prepareCommit(checkpointId)} drops the index of
 * partitions untouched since a commit of this user landed (read from the snapshots by the commit
 * user, kept in {@code commit_user_state} as the writers and committer keep it).
 */
public final class DynamicBucketAssignerOperator extends AbstractStreamOperator<Tuple2<RowData, Integer>>
        implements OneInputStreamOperator<RowData, Tuple2<RowData, Integer>> {
    private static final long serialVersionUID = 1L;

    private final SinkConfig config;
    private final PaimonTableSpec spec;
    private final RowType rowType;
    private final String initialCommitUser;
    private final Integer numAssigners;

    private transient String commitUser;
    private transient BucketAssigner assigner;
    private transient RowPartitionKeyExtractor extractor;
    private transient RowConverter converter;

    private DynamicBucketAssignerOperator(SinkConfig config, PaimonTableSpec spec, RowType rowType,
                                          String initialCommitUser) {
        this.config = Objects.requireNonNull(config);
        this.spec = Objects.requireNonNull(spec);
        this.rowType = Objects.requireNonNull(rowType);
        this.initialCommitUser = Objects.requireNonNull(initialCommitUser);
        this.numAssigners = spec.coreOptions().dynamicBucketInitialBuckets();
    }

    /**
     * Paimon's DynamicBucketSink topology up to the writers: shuffle by key hash to the assigners
     * (parallelism {@code dynamic-bucket.assigner-parallelism}, else the writers'), assign, then
     * shuffle the pairs by (partition, bucket) to the writers.
     *
     * @param writerParallelism the writers' parallelism, or &lt;= 0 for the job's default
     */
    public static DataStream<Tuple2<RowData, Integer>> assignAndShuffle(
            DataStream<RowData> input, SinkConfig config, PaimonTableSpec spec, RowType rowType, String initialCommitUser,
            String uid, int writerParallelism) {
        DynamicBucketAssignerOperator op = new DynamicBucketAssignerOperator(config, spec, rowType, initialCommitUser);
        TypeInformation<Tuple2<RowData, Integer>> pairType =
            new TupleTypeInfo<>(input.getType(), BasicTypeInfo.INT_TYPE_INFO);
        DataStream<RowData> byKey = input.partitionCustom(new BucketChannel.AssignerChannel(op.numAssigners),
                                                          new BucketChannel.AssignerSelector(spec, rowType));
        org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator<Tuple2<RowData, Integer>> assigned =
            byKey.transform("dynamic-bucket-assigner: " + config.location(), pairType, op);
        assigned.uid(uid).name("dynamic-bucket-assigner: " + config.location());
        Integer p = spec.coreOptions().dynamicBucketAssignerParallelism();
        if (p != null) assigned.setParallelism(p);
        else if (writerParallelism > 0) assigned.setParallelism(writerParallelism);
        return assigned.partitionCustom(new BucketChannel.Channel(), new BucketChannel.WithBucketSelector(spec, rowType));
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        commitUser = CommitUserState.restoreOrInit(context, initialCommitUser);
        int tasks = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
        int task = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        FileStoreTable table = PaimonStoreTable.open(config.location(), config.storeConfig(), spec,
                                                     Collections.emptyMap());
        CoreOptions o = table.coreOptions();
        assigner = new HashBucketAssigner(table.snapshotManager(), commitUser, table.store().newIndexFileHandler(),
                                          tasks, MathUtils.min(numAssigners, tasks), task,
                                          o.dynamicBucketTargetRowNum(), o.dynamicBucketMaxBuckets());
        extractor = new RowPartitionKeyExtractor(spec.schema());
        converter = new RowConverter(rowType);
    }

    @Override
    public void processElement(StreamRecord<RowData> element) throws Exception {
        RowData row = element.getValue();
        InternalRow r = converter.convert(row);
        int bucket = assigner.assign(extractor.partition(r), extractor.trimmedPrimaryKey(r).hashCode());
        output.collect(new StreamRecord<>(new Tuple2<>(row, bucket)));
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        assigner.prepareCommit(checkpointId);
    }
}

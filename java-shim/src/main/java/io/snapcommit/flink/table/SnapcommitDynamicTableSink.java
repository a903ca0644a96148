package io.snapcommit.flink.table;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.sink.DataStreamSinkProvider;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.abilities.SupportsOverwrite;
import org.apache.flink.table.connector.sink.abilities.SupportsPartitioning;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

import io.snapcommit.flink.SinkConfig;
import io.snapcommit.flink.SnapcommitSink;
import io.snapcommit.flink.paimon.PaimonTableSpec;

/**
 * The 'snapcommit' table sink, partitioned by the table's PARTITIONED BY columns; a batch INSERT
 * OVERWRITE (with or without a static PARTITION) replaces as Paimon's FlinkTableSinkBase does.
 */
final class SnapcommitDynamicTableSink implements DynamicTableSink, SupportsPartitioning, SupportsOverwrite {
    private final SinkConfig config;
    private final PaimonTableSpec spec;
    private final RowType rowType;
    private final Integer parallelism;
    private final String tableName;
    private final String uidPrefix; // sink.uid-prefix, null when unset
    private boolean overwrite;
    private final LinkedHashMap<String, String> staticPartitions = new LinkedHashMap<>();

    SnapcommitDynamicTableSink(SinkConfig config, PaimonTableSpec spec, RowType rowType, Integer parallelism,
                               String tableName, String uidPrefix) {
        this.config = config;
        this.spec = spec;
        this.rowType = rowType;
        this.parallelism = parallelism;
        this.tableName = tableName;
        this.uidPrefix = uidPrefix;
    }

    /**
     * The prefix of the sink's operator uids, which a savepoint maps state by: the pinned one
     * (sink.uid-prefix), else the planner's when it generates uids (a compiled plan, or
     * table.exec.uid.generation = ALWAYS), else one derived from the table's location. Never the
     * table's name: renaming the table in the DDL must not orphan the committer's state.
     */
    static String uidPrefix(String pinned, Optional<String> generated, String location) {
        if (pinned != null) return pinned;
        return generated.orElseGet(() -> SnapcommitSink.defaultUidPrefix(location));
    }

    /**
     * As Paimon's FlinkTableSinkBase: an append table takes inserts; a primary-key table takes
     * what the query produces, without UPDATE_BEFORE (an upsert by key) unless the table needs
     * the retractions: changelog-producer input (they are its changelog), merge-engine aggregation,
     * or partial-update with aggregate functions (they retract).
     */
    @Override
    public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
        if (spec.schema().primaryKeys().isEmpty()) return ChangelogMode.insertOnly();
        org.apache.paimon.CoreOptions o = spec.coreOptions();
        if (o.changelogProducer() == org.apache.paimon.CoreOptions.ChangelogProducer.INPUT
            || o.mergeEngine() == org.apache.paimon.CoreOptions.MergeEngine.AGGREGATE
            || (o.mergeEngine() == org.apache.paimon.CoreOptions.MergeEngine.PARTIAL_UPDATE && o.definedAggFunc()))
            return requestedMode;
        ChangelogMode.Builder b = ChangelogMode.newBuilder();
        for (org.apache.flink.types.RowKind k : requestedMode.getContainedKinds())
            if (k != org.apache.flink.types.RowKind.UPDATE_BEFORE) b.addContainedKind(k);
        return b.build();
    }

    @Override
    public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
        if (overwrite && !context.isBounded())
            throw new UnsupportedOperationException("Paimon doesn't support streaming INSERT OVERWRITE.");
        return new Provider(config, spec, rowType, parallelism, tableName, uidPrefix,
                            overwrite ? new LinkedHashMap<>(staticPartitions) : null);
    }

    /** A class, not a lambda: DataStreamSinkProvider has no single abstract method in Flink 1.20. */
    private static final class Provider implements DataStreamSinkProvider {
        private final SinkConfig config;
        private final PaimonTableSpec spec;
        private final RowType rowType;
        private final Integer parallelism;
        private final String tableName;
        private final String uidPrefix;
        private final LinkedHashMap<String, String> overwritePartition; // null: not an overwrite

        Provider(SinkConfig config, PaimonTableSpec spec, RowType rowType, Integer parallelism, String tableName,
                 String uidPrefix, LinkedHashMap<String, String> overwritePartition) {
            this.overwritePartition = overwritePartition;
            this.config = config;
            this.spec = spec;
            this.rowType = rowType;
            this.parallelism = parallelism;
            this.tableName = tableName;
            this.uidPrefix = uidPrefix;
        }

        @Override
        public DataStreamSink<?> consumeDataStream(ProviderContext context, DataStream<RowData> input) {
            String uid = uidPrefix(uidPrefix, context.generateUid("snapcommit"), config.location());
            try {
                int p = parallelism == null ? -1 : parallelism;
                return overwritePartition == null ? SnapcommitSink.attach(input, config, spec, rowType, uid, p)
                    : SnapcommitSink.attachOverwrite(input, config, spec, rowType, uid, p, overwritePartition);
            } catch (IllegalArgumentException e) {
                // Raised while the planner translates the INSERT: the statement fails before submission.
                throw new ValidationException("Cannot write to snapcommit table " + tableName + ": " + e.getMessage(), e);
            }
        }
    }

    @Override
    public void applyStaticPartition(Map<String, String> partition) {
        // The planner fills the values into the rows; an overwrite replaces the partitions they name
        // (Paimon's FlinkTableSinkBase keeps the ones of partition keys).
        staticPartitions.clear();
        for (String key : spec.schema().partitionKeys())
            if (partition.containsKey(key)) staticPartitions.put(key, partition.get(key));
    }

    @Override
    public void applyOverwrite(boolean overwrite) {
        this.overwrite = overwrite;
    }

    @Override
    public DynamicTableSink copy() {
        SnapcommitDynamicTableSink copy = new SnapcommitDynamicTableSink(config, spec, rowType, parallelism, tableName,
                                                                         uidPrefix);
        copy.overwrite = overwrite;
        copy.staticPartitions.putAll(staticPartitions);
        return copy;
    }

    @Override
    public String asSummaryString() {
        return "snapcommit(" + config.location() + ")";
    }
}

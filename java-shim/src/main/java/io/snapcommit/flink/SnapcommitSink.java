package io.snapcommit.flink;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.snapcommit.flink.internal.DynamicBucketAssignerOperator;
import io.snapcommit.flink.internal.SnapcommitCommitterOperator;
import io.snapcommit.flink.internal.SnapcommitWriterOperator;
import io.snapcommit.flink.paimon.PaimonTableSpec;
import io.snapcommit.jni.ErrorCode;
import io.snapcommit.jni.ExpireOptions;
import io.snapcommit.jni.NativeLoader;
import io.snapcommit.jni.NativeTable;
import io.snapcommit.jni.SnapcommitException;
import io.snapcommit.jni.StoreConfig;
import io.snapcommit.jni.Strategy;

/**
 * A DataStream sink that writes {@link RowData} into a snapcommit table — an Apache Paimon table:
 * Paimon's layout, schema and data files (Parquet by default, written with Paimon's own format
 * writers) — and publishes one snapshot per completed checkpoint, exactly once.
 *
 * <pre>{@code
 * SnapcommitSink.builder()
 *     .path("/data/orders")                       // or file:///data/orders, s3://bucket/orders
 *     .rowType(orderRowType)                      // the Flink RowType of the RowData stream
 *     .partitionKeys("dt")                        // optional, Hive-style dt=.../
 *     .bucket(8, "customer")                      // optional; default bucket-unaware (-1)
 *     .build()
 *     .sinkTo(orders);
 * }</pre>
 *
 * The table is created with the schema derived from the row type, partition keys and options when
 * it does not exist; when it does, the derived schema must match the table's (checked when the sink
 * is built, when the library loads on the client, and always when the committer opens the table).
 *
 * Topology: writer operators (the input's parallelism, or {@link Builder#writerParallelism}) write
 * data files with Paimon's own TableWriteImpl straight to the table's storage (a fixed-bucket
 * table's rows shuffled so that each bucket has one writer; a dynamic-bucket primary-key table's
 * rows first through Paimon's bucket assigner, operator {@code <uidPrefix>-assigner}) and send Paimon's CommitMessages to
 * one committer operator (parallelism 1) that commits them through the native library at each
 * completed checkpoint. Operator uids
 * are {@code <uidPrefix>-writer} and {@code <uidPrefix>-committer}; keep the prefix
 * stable to restore from savepoints.
 */
public final class SnapcommitSink {
    private static final Logger LOG = LoggerFactory.getLogger(SnapcommitSink.class);

    private final SinkConfig config;
    private final PaimonTableSpec spec;
    private final RowType rowType;
    private final String uidPrefix;
    private final int writerParallelism;

    private SnapcommitSink(SinkConfig config, PaimonTableSpec spec, RowType rowType, String uidPrefix,
                           int writerParallelism) {
        this.config = config;
        this.spec = spec;
        this.rowType = rowType;
        this.uidPrefix = uidPrefix;
        this.writerParallelism = writerParallelism;
    }

    public static Builder builder() {
        return new Builder();
    }

    public SinkConfig config() {
        return config;
    }

    /** The Paimon schema the sink writes with (the table's own when it existed at build time). */
    public PaimonTableSpec tableSpec() {
        return spec;
    }

    /**
     * Add writers and the committer behind input; returns the terminal sink of the topology.
     * The job's checkpointing is checked when the job graph is built ({@code env.execute()},
     * {@code executeAsync()}, {@code getStreamGraph()}), so checkpointing may be configured before or
     * after this call: a job that could not commit correctly (see {@link SinkJobChecks}) makes
     * {@code execute()} throw IllegalArgumentException naming the setting, before anything is submitted.
     */
    public DataStreamSink<Void> sinkTo(DataStream<RowData> input) {
        return addTopology(input, config, spec, rowType, uidPrefix, writerParallelism, false, null);
    }

    /**
     * For front ends that add the sink after the job's configuration is final (the table sink: the
     * planner applies the session's configuration to the environment before it translates). Refuses
     * (IllegalArgumentException naming the setting) a job that could not commit correctly, now:
     * checkpointing off with an unbounded source, or checkpoints in at-least-once mode (see
     * {@link SinkJobChecks}). DataStream programs use {@link #sinkTo}, which checks at execute().
     */
    public static DataStreamSink<Void> attach(DataStream<RowData> input, SinkConfig config, PaimonTableSpec spec,
                                              RowType rowType, String uidPrefix, int writerParallelism) {
        return addTopology(input, config, spec, rowType, uidPrefix, writerParallelism, true, null);
    }

    /**
     * {@link #attach} for a batch INSERT OVERWRITE (Paimon's FlinkSinkBuilder.overwrite): writers
     * ignore the table's previous files, and the one commit at the end of input replaces the
     * partitions of {@code overwritePartition} (the static partition, possibly partial or empty),
     * or, when the table is partitioned and dynamic-partition-overwrite is on (Paimon's default),
     * the partitions written. Only for a job without checkpointing (the committer refuses one
     * that has it: each checkpoint's commit would replace the previous one's rows).
     */
    public static DataStreamSink<Void> attachOverwrite(DataStream<RowData> input, SinkConfig config,
                                                       PaimonTableSpec spec, RowType rowType, String uidPrefix,
                                                       int writerParallelism, Map<String, String> overwritePartition) {
        return addTopology(input, config, spec, rowType, uidPrefix, writerParallelism, true,
                           new LinkedHashMap<>(Objects.requireNonNull(overwritePartition)));
    }

    private static DataStreamSink<Void> addTopology(DataStream<RowData> input, SinkConfig config, PaimonTableSpec spec,
                                                    RowType rowType, String uidPrefix, int writerParallelism,
                                                    boolean checkNow, LinkedHashMap<String, String> overwrite) {
        if (checkNow) SinkJobChecks.check(input.getExecutionEnvironment(), input.getTransformation(), config.location());
        // One commit user for writers and committer, chosen when the job graph is built (as Paimon's
        // FlinkSink does) and kept in their state from then on.
        String initialUser = config.commitUser() != null ? config.commitUser() : "flink-" + UUID.randomUUID();
        if (!spec.schema().primaryKeys().isEmpty() && hasSinkMaterializer(input))
            // Paimon's rule (StoreSinkWrite): its writers merge by key and sequence number, and the
            // planner's materializer in front of them would reorder nothing but cost state.
            throw new IllegalArgumentException("Sink materializer must not be used with a primary-key table: set '"
                + "table.exec.sink.upsert-materialize' to 'NONE' in Flink's config");
        SingleOutputStreamOperator<byte[]> written;
        if (spec.coreOptions().bucket() == -1 && !spec.schema().primaryKeys().isEmpty()) {
            if (overwrite != null)
                // Paimon overwrites such tables with its SimpleHashBucketAssigner, not ported yet.
                throw new IllegalArgumentException("INSERT OVERWRITE of a dynamic-bucket primary-key table (bucket = -1) is "
                    + "not supported by the snapcommit sink yet; use a fixed bucket count");
            // Dynamic buckets (Paimon's DynamicBucketSink): key hash → bucket assigner → (partition, bucket) → writer.
            written = DynamicBucketAssignerOperator.assignAndShuffle(input, config, spec, rowType, initialUser,
                                                                     uidPrefix + "-assigner", writerParallelism)
                .transform("snapcommit-writer: " + config.location(), PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO,
                           SnapcommitWriterOperator.rowsWithBucket(config, spec, rowType, initialUser));
        } else {
            DataStream<RowData> routed = input;
            if (spec.coreOptions().bucket() > 0) {
                // Fixed buckets: each (partition, bucket) to one writer, by Paimon's channel rule.
                routed = SnapcommitWriterOperator.shuffleByBucket(input, spec, rowType);
            }
            written = routed.transform(
                "snapcommit-writer: " + config.location(), PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO,
                SnapcommitWriterOperator.rows(config, spec, rowType, initialUser, overwrite != null));
        }
        written.uid(uidPrefix + "-writer").name("snapcommit-writer: " + config.location());
        if (writerParallelism > 0) written.setParallelism(writerParallelism);

        SingleOutputStreamOperator<Void> committed = written.transform(
            "snapcommit-committer: " + config.location(), Types.VOID, new SnapcommitCommitterOperator(config, spec, initialUser, overwrite));
        committed.uid(uidPrefix + "-committer").setParallelism(1).setMaxParallelism(1);

        // Checked already: a plain discarding end. Otherwise the end runs the checks at graph generation.
        DataStreamSink<Void> end = committed.sinkTo(checkNow ? new DiscardingSink<>()
                                                             : new JobCheckingEndSink<>(config.location()));
        end.uid(uidPrefix + "-end").name("snapcommit-end").setParallelism(1);
        return end;
    }

    /** Whether the planner put its SinkMaterializer before the sink (searched as Paimon's FlinkSink does). */
    static boolean hasSinkMaterializer(DataStream<RowData> input) {
        java.util.Set<Integer> seen = new java.util.HashSet<>();
        java.util.ArrayDeque<org.apache.flink.api.dag.Transformation<?>> queue = new java.util.ArrayDeque<>();
        queue.add(input.getTransformation());
        seen.add(input.getTransformation().getId());
        while (!queue.isEmpty()) {
            org.apache.flink.api.dag.Transformation<?> t = queue.poll();
            if (t.getName().startsWith("SinkMaterializer")) return true;
            for (org.apache.flink.api.dag.Transformation<?> in : t.getInputs())
                if (seen.add(in.getId())) queue.add(in);
        }
        return false;
    }

    /**
     * The default uid prefix (DataStream sink and table sink alike): derived from the location as
     * configured, so it is stable across runs and table renames; a location spelled differently
     * (/data/t vs file:///data/t) gives another prefix.
     */
    public static String defaultUidPrefix(String location) {
        return "snapcommit-" + Integer.toHexString(location.hashCode());
    }

    /**
     * The schema to write with: the table's own when the table exists and matches {@code derived},
     * {@code derived} when there is no table yet. Read on the client when libsnapcommit_jni loads
     * there; a client that cannot load it skips the check with a WARN (the committer checks when it
     * opens the table) unless {@code required}.
     *
     * @throws IllegalArgumentException naming the first difference, or why the schema cannot be read
     */
    public static PaimonTableSpec resolveSchema(SinkConfig config, PaimonTableSpec derived, boolean required) {
        try {
            NativeLoader.load();
        } catch (LinkageError e) {
            if (required) throw new IllegalArgumentException("cannot check the schema of " + config.location()
                                                             + ": this client cannot load libsnapcommit_jni ("
                                                             + e.getMessage() + ")", null);
            LOG.warn("snapcommit: not checking the schema of {} at planning time: this client cannot load "
                     + "libsnapcommit_jni ({}); the committer checks it when it opens the table",
                     config.location(), e.getMessage());
            return derived;
        }
        String json;
        try (NativeTable t = NativeTable.openTable(config.location(), config.storeConfig())) {
            json = t.schemaJson();
        } catch (SnapcommitException e) {
            if (e.errorCode() != ErrorCode.ENOTABLE)
                throw new IllegalArgumentException("cannot read the schema of table " + config.location() + ": "
                                                   + config.mask(e.getMessage()), null);
            // No snapcommit table: a Paimon table there (Paimon's own committer wrote it) is adopted
            // by the committer, and the job must match its schema like any existing table's.
            // Read-only here: planning (EXPLAIN too) writes nothing.
            try {
                json = NativeTable.paimonSchemaJson(config.location(), config.storeConfig());
            } catch (SnapcommitException | IllegalStateException e2) {
                throw new IllegalArgumentException("cannot read the schema of table " + config.location() + ": "
                                                   + config.mask(e2.getMessage()), null);
            }
            if (json == null) return derived;
            PaimonTableSpec adopted = derived.against(json, config.location());
            LOG.info("snapcommit: {} holds a Paimon table without snapcommit metadata (schema {} matches the job); "
                     + "the committer adopts it", config.location(), adopted.schemaId());
            return adopted;
        }
        return derived.against(json, config.location());
    }

    public static final class Builder {
        private String path;
        private Strategy strategy = Strategy.AUTO;
        private String commitUser;
        private int maxRetries = SinkConfig.UNBOUNDED_RETRIES;
        private Duration minRetryWait = Duration.ofMillis(10);
        private Duration maxRetryWait = Duration.ofSeconds(10);
        private Duration commitTimeout = SinkConfig.DEFAULT_COMMIT_TIMEOUT;
        private long targetFileSize = 128L << 20;
        private RowType rowType;
        private final List<String> partitionKeys = new ArrayList<>();
        private final List<String> primaryKeys = new ArrayList<>();
        private final Map<String, String> options = new LinkedHashMap<>();
        private final StoreConfig.Builder storage = StoreConfig.builder();
        private Boolean checkStorage; // null: the default, best effort (see SinkConfig#checkStorage)
        private String uidPrefix;
        private int writerParallelism = -1;
        private CommitListener commitListener;
        private ExpireOptions expire = ExpireOptions.FROM_TABLE;
        private Boolean writeOnly;
        private boolean compaction;
        private Integer compactionMinFileNum;
        private Integer compactionMaxFileNum;

        /** Table location: an absolute local directory, file:///dir or s3://bucket/prefix (relative: refused). Required. */
        public Builder path(String path) { this.path = path; return this; }
        /** The Flink row type of the input's RowData: the table's columns, in order. Required. */
        public Builder rowType(RowType type) { this.rowType = type; return this; }
        /** Partition columns (Hive-style directories; Paimon's escaping and default partition name). */
        public Builder partitionKeys(String... keys) { partitionKeys.addAll(Arrays.asList(keys)); return this; }
        /** Primary key columns: fixed buckets ({@link #bucket}) or dynamic (the default, bucket -1); see docs/flink.md. */
        public Builder primaryKeys(String... keys) { primaryKeys.addAll(Arrays.asList(keys)); return this; }
        /** A Paimon table option stored in the schema: bucket, bucket-key or file.format. */
        public Builder option(String key, String value) {
            options.put(Objects.requireNonNull(key), Objects.requireNonNull(value));
            return this;
        }
        /** Fixed buckets ('bucket' = n > 0) hashed on the given columns (all non-partition columns when none). */
        public Builder bucket(int n, String... bucketKey) {
            option("bucket", Integer.toString(n));
            if (bucketKey.length > 0) option("bucket-key", String.join(",", bucketKey));
            return this;
        }
        /** Data file format: parquet (default), orc or avro. */
        public Builder fileFormat(String format) { return option("file.format", format); }
        /** Claim strategy when the table is created: AUTO (default), RENAME, CONDITIONAL, HEAD, TRACKER. */
        public Builder strategy(Strategy strategy) { this.strategy = strategy; return this; }
        /** As {@link #strategy(Strategy)}, by configuration name: auto, rename, conditional, head, tracker. */
        public Builder strategy(String strategy) { this.strategy = Strategy.parse(strategy); return this; }
        /** Fixed commit user; by default one is generated once and kept in checkpoint state. */
        public Builder commitUser(String user) { this.commitUser = user; return this; }
        public Builder maxRetries(int n) { this.maxRetries = n; return this; }
        public Builder minRetryWait(Duration d) { this.minRetryWait = d; return this; }
        public Builder maxRetryWait(Duration d) { this.maxRetryWait = d; return this; }
        public Builder commitTimeout(Duration d) { this.commitTimeout = d; return this; }
        /** Roll a data file once it reaches this size (default 128 MiB, Paimon's target-file-size). */
        public Builder targetFileSize(long bytes) { this.targetFileSize = bytes; return this; }
        /** S3 endpoint of this table only; unset: $AWS_ENDPOINT_URL_S3 / $AWS_ENDPOINT_URL / AWS. */
        public Builder s3Endpoint(String v) { storage.endpoint(v); return this; }
        public Builder s3Region(String v) { storage.region(v); return this; }
        /** Credentials of this table only (never process-wide); set both keys or neither. */
        public Builder s3AccessKey(String v) { storage.accessKey(v); return this; }
        public Builder s3SecretKey(String v) { storage.secretKey(v); return this; }
        public Builder s3SessionToken(String v) { storage.sessionToken(v); return this; }
        public Builder s3PathStyle(boolean v) { storage.pathStyle(v); return this; }
        public Builder s3ConnectTimeout(Duration d) { storage.connectTimeout(d); return this; }
        public Builder s3RequestTimeout(Duration d) { storage.requestTimeout(d); return this; }
        /** false only for throwaway test servers with self-signed certificates. */
        public Builder s3TlsVerify(boolean v) { storage.tlsVerify(v); return this; }
        /**
         * Check at build() that an s3:// table's bucket is reachable with its credentials. By default the
         * check is made when this client can load libsnapcommit_jni and skipped with a WARN when it cannot
         * (the TaskManagers check at open). true: required, a client that cannot load the library fails
         * build(); false: never checked.
         */
        public Builder checkStorage(boolean v) { this.checkStorage = v; return this; }
        /** Told about each snapshot the sink publishes (see {@link CommitListener}); none by default. */
        public Builder commitListener(CommitListener l) { this.commitListener = l; return this; }
        /** Paimon's {@code snapshot.num-retained.min} for the sink's expiration (default: the table's, else 10). */
        public Builder snapshotNumRetainedMin(int n) { expire = expire.retainMin(n); return this; }
        /** Paimon's {@code snapshot.num-retained.max} (default: the table's, else Integer.MAX_VALUE). */
        public Builder snapshotNumRetainedMax(int n) { expire = expire.retainMax(n); return this; }
        /** Paimon's {@code snapshot.time-retained} (default: the table's, else 1 h). */
        public Builder snapshotTimeRetained(Duration d) { expire = expire.olderThan(d); return this; }
        /** Paimon's {@code snapshot.expire.limit}: snapshots expired per run at most (default: the table's, else 50). */
        public Builder snapshotExpireLimit(int n) { expire = expire.limit(n); return this; }
        /** Paimon's {@code write-only}: true = no snapshot expiration by this sink (default: the table's, else false). */
        public Builder writeOnly(boolean v) { this.writeOnly = v; return this; }
        /**
         * {@code sink.compaction.enabled}: the committer's upkeep thread compacts the small files of an
         * append table after commits, off the commit path (default false; write-only = true turns it off).
         */
        public Builder compaction(boolean v) { this.compaction = v; return this; }
        /** Paimon's {@code compaction.min.file-num} for the sink's compaction (default: the table's, else 5). */
        public Builder compactionMinFileNum(int n) { this.compactionMinFileNum = n; return this; }
        /** {@code sink.compaction.max-file-num}: accepted and ignored (Paimon's compaction decides; logged). */
        public Builder compactionMaxFileNum(int n) { this.compactionMaxFileNum = n; return this; }
        public Builder uidPrefix(String p) { this.uidPrefix = p; return this; }
        public Builder writerParallelism(int p) { this.writerParallelism = p; return this; }

        /**
         * @throws IllegalArgumentException for bad options, a schema that cannot be derived, or one that
         *     differs from the existing table's (naming the first difference)
         */
        public SnapcommitSink build() {
            SinkConfig config = new SinkConfig(path, strategy, commitUser, maxRetries, minRetryWait, maxRetryWait,
                                               commitTimeout, targetFileSize, storage.build(), commitListener)
                .withExpiration(expire, writeOnly)
                .withCompaction(compaction, compactionMinFileNum, compactionMaxFileNum);
            if (rowType == null) throw new IllegalArgumentException("rowType is required (the Flink RowType of the input)");
            PaimonTableSpec derived = PaimonTableSpec.derive(rowType, partitionKeys, primaryKeys, options);
            boolean checked = false;
            if (checkStorage == null || checkStorage) checked = config.checkStorage(checkStorage != null);
            PaimonTableSpec spec = checkStorage == null || checkStorage || !config.isS3()
                ? resolveSchema(config, derived, false) : derived;
            LOG.debug("snapcommit sink for {} (storage checked: {}): schema {}", config.location(), checked, spec);
            return new SnapcommitSink(config, spec, rowType,
                                      uidPrefix != null ? uidPrefix : defaultUidPrefix(config.location()),
                                      writerParallelism);
        }
    }
}

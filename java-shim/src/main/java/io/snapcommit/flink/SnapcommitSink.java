package io.snapcommit.flink;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.apache.flink.api.common.functions.Function;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

import io.snapcommit.flink.internal.PartitionPath;
import io.snapcommit.flink.internal.SnapcommitCommitterOperator;
import io.snapcommit.flink.internal.SnapcommitWriterOperator;
import io.snapcommit.jni.StoreConfig;
import io.snapcommit.jni.Strategy;

/**
 * A DataStream sink that writes records into a snapcommit table and
 * publishes one snapshot per completed checkpoint, exactly once.
 *
 * <pre>{@code
 * SnapcommitSink.<Order>builder()
 *     .path("/data/orders")                       // or file:///data/orders, s3://bucket/orders
 *     .encoder(order -> json(order))              // one line per record
 *     .partitionBy("dt", order -> order.day)      // optional, Hive-style dt=.../
 *     .build()
 *     .sinkTo(orders);
 * }</pre>
 *
 * Topology: writer operators (the input's parallelism, or {@link Builder#writerParallelism})
 * put data files through the native store and send their names to one committer
 * operator (parallelism 1) that commits at each completed checkpoint. Operator uids
 * are {@code <uidPrefix>-writer} and {@code <uidPrefix>-committer}; keep the prefix
 * stable to restore from savepoints.
 */
public final class SnapcommitSink<T> {
    private final SinkConfig config;
    private final RecordEncoder<T> encoder;
    private final String uidPrefix;
    private final int writerParallelism;

    private SnapcommitSink(SinkConfig config, RecordEncoder<T> encoder, String uidPrefix, int writerParallelism) {
        this.config = config;
        this.encoder = encoder;
        this.uidPrefix = uidPrefix;
        this.writerParallelism = writerParallelism;
    }

    public static <T> Builder<T> builder() {
        return new Builder<>();
    }

    public SinkConfig config() {
        return config;
    }

    /**
     * Add writers and the committer behind input; returns the terminal sink of the topology.
     * The job's checkpointing is checked when the job graph is built ({@code env.execute()},
     * {@code executeAsync()}, {@code getStreamGraph()}), so checkpointing may be configured before or
     * after this call: a job that could not commit correctly (see {@link SinkJobChecks}) makes
     * {@code execute()} throw IllegalArgumentException naming the setting, before anything is submitted.
     */
    public DataStreamSink<Void> sinkTo(DataStream<T> input) {
        return addTopology(input, config, encoder, uidPrefix, writerParallelism, false);
    }

    /**
     * For front ends that add the sink after the job's configuration is final (the table sink: the
     * planner applies the session's configuration to the environment before it translates). Refuses
     * (IllegalArgumentException naming the setting) a job that could not commit correctly, now:
     * checkpointing off with an unbounded source, or checkpoints in at-least-once mode (see
     * {@link SinkJobChecks}). DataStream programs use {@link #sinkTo}, which checks at execute().
     */
    public static <T> DataStreamSink<Void> attach(DataStream<T> input, SinkConfig config, RecordEncoder<T> encoder,
                                                  String uidPrefix, int writerParallelism) {
        return addTopology(input, config, encoder, uidPrefix, writerParallelism, true);
    }

    private static <T> DataStreamSink<Void> addTopology(DataStream<T> input, SinkConfig config, RecordEncoder<T> encoder,
                                                        String uidPrefix, int writerParallelism, boolean checkNow) {
        if (checkNow) SinkJobChecks.check(input.getExecutionEnvironment(), input.getTransformation(), config.location());
        SingleOutputStreamOperator<byte[]> written = input.transform(
            "snapcommit-writer: " + config.location(), PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO,
            new SnapcommitWriterOperator<>(config, encoder));
        written.uid(uidPrefix + "-writer").name("snapcommit-writer: " + config.location());
        if (writerParallelism > 0) written.setParallelism(writerParallelism);

        SingleOutputStreamOperator<Void> committed = written.transform(
            "snapcommit-committer: " + config.location(), Types.VOID, new SnapcommitCommitterOperator(config));
        committed.uid(uidPrefix + "-committer").setParallelism(1).setMaxParallelism(1);

        // Checked already: a plain discarding end. Otherwise the end runs the checks at graph generation.
        DataStreamSink<Void> end = committed.sinkTo(checkNow ? new DiscardingSink<>()
                                                             : new JobCheckingEndSink<>(config.location()));
        end.uid(uidPrefix + "-end").name("snapcommit-end").setParallelism(1);
        return end;
    }

    /** A uid prefix derived from the location, stable across runs of the same job. */
    static String defaultUidPrefix(String location) {
        return "snapcommit-" + Integer.toHexString(location.hashCode());
    }

    /** Lambda-friendly encoder. */
    @FunctionalInterface
    public interface Encoder<T> extends Function {
        byte[] encode(T record) throws Exception;
    }

    /** Lambda-friendly field extractor for partitions and bucket keys. */
    @FunctionalInterface
    public interface FieldExtractor<T> extends Function {
        Object extract(T record);
    }

    public static final class Builder<T> {
        private String path;
        private Strategy strategy = Strategy.AUTO;
        private String commitUser;
        private int maxRetries = 10;
        private Duration minRetryWait = Duration.ofMillis(10);
        private Duration maxRetryWait = Duration.ofSeconds(10);
        private Duration commitTimeout;
        private long targetFileSize = 16L << 20;
        private String fileExtension = "json";
        private int buckets;
        private FieldExtractor<T> bucketKey;
        private final StoreConfig.Builder storage = StoreConfig.builder();
        private Boolean checkStorage; // null: the default, best effort (see SinkConfig#checkStorage)
        private SerializationSchema<T> schema;
        private Encoder<T> encoder;
        private RecordEncoder<T> recordEncoder;
        private final List<String> partitionNames = new ArrayList<>();
        private final List<FieldExtractor<T>> partitionFields = new ArrayList<>();
        private String uidPrefix;
        private int writerParallelism = -1;
        private CommitListener commitListener;

        /** Table location: an absolute local directory, file:///dir or s3://bucket/prefix (relative: refused). Required. */
        public Builder<T> path(String path) { this.path = path; return this; }
        /** Claim strategy when the table is created: AUTO (default), RENAME, CONDITIONAL, HEAD, TRACKER. */
        public Builder<T> strategy(Strategy strategy) { this.strategy = strategy; return this; }
        /** As {@link #strategy(Strategy)}, by configuration name: auto, rename, conditional, head, tracker. */
        public Builder<T> strategy(String strategy) { this.strategy = Strategy.parse(strategy); return this; }
        /** Fixed commit user; by default one is generated once and kept in checkpoint state. */
        public Builder<T> commitUser(String user) { this.commitUser = user; return this; }
        public Builder<T> maxRetries(int n) { this.maxRetries = n; return this; }
        public Builder<T> minRetryWait(Duration d) { this.minRetryWait = d; return this; }
        public Builder<T> maxRetryWait(Duration d) { this.maxRetryWait = d; return this; }
        public Builder<T> commitTimeout(Duration d) { this.commitTimeout = d; return this; }
        /** Roll a data file once its buffer reaches this size (default 16 MiB). */
        public Builder<T> targetFileSize(long bytes) { this.targetFileSize = bytes; return this; }
        /** Extension of data files, e.g. json (default) or csv. */
        public Builder<T> fileExtension(String ext) { this.fileExtension = ext; return this; }
        /** Encode records with a Flink SerializationSchema (one record per line). */
        public Builder<T> serializationSchema(SerializationSchema<T> s) { this.schema = s; return this; }
        /** Encode records with a function (one record per line). */
        public Builder<T> encoder(Encoder<T> e) { this.encoder = e; return this; }
        /** Full control over encoding, partitions and buckets. */
        public Builder<T> recordEncoder(RecordEncoder<T> e) { this.recordEncoder = e; return this; }
        /** Add a partition level name=value (Hive style; values are escaped). */
        public Builder<T> partitionBy(String name, FieldExtractor<T> value) {
            partitionNames.add(Objects.requireNonNull(name));
            partitionFields.add(Objects.requireNonNull(value));
            return this;
        }
        /** Spread records over n buckets by the hash of a key. */
        public Builder<T> buckets(int n, FieldExtractor<T> key) { this.buckets = n; this.bucketKey = key; return this; }
        /** S3 endpoint of this table only; unset: $AWS_ENDPOINT_URL_S3 / $AWS_ENDPOINT_URL / AWS. */
        public Builder<T> s3Endpoint(String v) { storage.endpoint(v); return this; }
        public Builder<T> s3Region(String v) { storage.region(v); return this; }
        /** Credentials of this table only (never process-wide); set both keys or neither. */
        public Builder<T> s3AccessKey(String v) { storage.accessKey(v); return this; }
        public Builder<T> s3SecretKey(String v) { storage.secretKey(v); return this; }
        public Builder<T> s3SessionToken(String v) { storage.sessionToken(v); return this; }
        public Builder<T> s3PathStyle(boolean v) { storage.pathStyle(v); return this; }
        public Builder<T> s3ConnectTimeout(Duration d) { storage.connectTimeout(d); return this; }
        public Builder<T> s3RequestTimeout(Duration d) { storage.requestTimeout(d); return this; }
        /** false only for throwaway test servers with self-signed certificates. */
        public Builder<T> s3TlsVerify(boolean v) { storage.tlsVerify(v); return this; }
        /**
         * Check at build() that an s3:// table's bucket is reachable with its credentials. By default the
         * check is made when this client can load libsnapcommit_jni and skipped with a WARN when it cannot
         * (the TaskManagers check at open). true: required, a client that cannot load the library fails
         * build(); false: never checked.
         */
        public Builder<T> checkStorage(boolean v) { this.checkStorage = v; return this; }
        /** Told about each snapshot the sink publishes (see {@link CommitListener}); none by default. */
        public Builder<T> commitListener(CommitListener l) { this.commitListener = l; return this; }
        public Builder<T> uidPrefix(String p) { this.uidPrefix = p; return this; }
        public Builder<T> writerParallelism(int p) { this.writerParallelism = p; return this; }

        public SnapcommitSink<T> build() {
            SinkConfig config = new SinkConfig(path, strategy, commitUser, maxRetries, minRetryWait, maxRetryWait,
                                               commitTimeout, targetFileSize, fileExtension, buckets, storage.build(),
                                               commitListener);
            int given = (schema != null ? 1 : 0) + (encoder != null ? 1 : 0) + (recordEncoder != null ? 1 : 0);
            if (given != 1) throw new IllegalArgumentException("set exactly one of serializationSchema, encoder, recordEncoder");
            RecordEncoder<T> enc = recordEncoder != null ? recordEncoder
                : new FunctionEncoder<>(schema, encoder, partitionNames, partitionFields, bucketKey);
            if (buckets > 0 && recordEncoder == null && bucketKey == null)
                throw new IllegalArgumentException("buckets need a bucket key");
            if (checkStorage == null || checkStorage) config.checkStorage(checkStorage != null);
            return new SnapcommitSink<>(config, enc, uidPrefix != null ? uidPrefix : defaultUidPrefix(config.location()),
                                        writerParallelism);
        }
    }

    /** RecordEncoder from a schema or function plus partition and bucket extractors. */
    private static final class FunctionEncoder<T> implements RecordEncoder<T> {
        private static final long serialVersionUID = 1L;
        private final SerializationSchema<T> schema;
        private final Encoder<T> encoder;
        private final List<String> partitionNames;
        private final List<FieldExtractor<T>> partitionFields;
        private final FieldExtractor<T> bucketKey;

        FunctionEncoder(SerializationSchema<T> schema, Encoder<T> encoder, List<String> partitionNames,
                        List<FieldExtractor<T>> partitionFields, FieldExtractor<T> bucketKey) {
            this.schema = schema;
            this.encoder = encoder;
            this.partitionNames = new ArrayList<>(partitionNames);
            this.partitionFields = new ArrayList<>(partitionFields);
            this.bucketKey = bucketKey;
        }

        @Override
        public void open(SerializationSchema.InitializationContext context) throws Exception {
            if (schema != null) schema.open(context);
        }

        @Override
        public byte[] encode(T record) {
            if (schema != null) return schema.serialize(record);
            try {
                return encoder.encode(record);
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("encoding a record failed", e);
            }
        }

        @Override
        public String partition(T record) {
            if (partitionNames.isEmpty()) return "";
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < partitionNames.size(); i++) {
                if (i > 0) sb.append('/');
                Object v = partitionFields.get(i).extract(record);
                sb.append(PartitionPath.escape(partitionNames.get(i))).append('=')
                  .append(PartitionPath.escape(v == null ? null : v.toString()));
            }
            return sb.toString();
        }

        @Override
        public int bucket(T record, int buckets) {
            Object key = bucketKey.extract(record);
            return Math.floorMod(key == null ? 0 : key.hashCode(), buckets);
        }
    }
}

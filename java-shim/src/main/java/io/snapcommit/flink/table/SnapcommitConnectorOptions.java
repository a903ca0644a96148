package io.snapcommit.flink.table;

import java.time.Duration;
import java.util.List;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

/** Options of the 'snapcommit' table connector. */
public final class SnapcommitConnectorOptions {
    private SnapcommitConnectorOptions() {}

    public static final ConfigOption<String> PATH = ConfigOptions.key("path").stringType().noDefaultValue()
        .withDescription("Table location: an absolute local directory on storage every TaskManager shares, "
                         + "file:///dir or s3://bucket/prefix (relative paths are refused). "
                         + "The table is created on first commit when absent.");

    public static final ConfigOption<String> COMMIT_USER = ConfigOptions.key("commit.user").stringType()
        .noDefaultValue()
        .withDescription("Fixed commit user. By default a user is generated once per job and kept in "
                         + "checkpoint state (it survives failover and savepoint restore). Two jobs must never "
                         + "share a commit user on one table.");

    public static final ConfigOption<String> COMMIT_STRATEGY = ConfigOptions.key("commit.strategy").stringType()
        .defaultValue("auto")
        .withDescription("How snapshot N+1 is claimed when the table is created: auto, rename, conditional, head, "
                         + "tracker. For an existing table it must be auto or match the table's strategy.");

    public static final ConfigOption<Integer> COMMIT_MAX_RETRIES = ConfigOptions.key("commit.max-retries")
        .intType().noDefaultValue()
        .withDescription("Lost claims retried before failing. Unset (the default): no count limit, the "
                         + "commit.timeout budget decides (a fixed count gives up on the writers that lose most).");

    public static final ConfigOption<Duration> COMMIT_MIN_RETRY_WAIT = ConfigOptions.key("commit.min-retry-wait")
        .durationType().defaultValue(Duration.ofMillis(10)).withDescription("Backoff after the first lost claim.");

    public static final ConfigOption<Duration> COMMIT_MAX_RETRY_WAIT = ConfigOptions.key("commit.max-retry-wait")
        .durationType().defaultValue(Duration.ofSeconds(10)).withDescription("Backoff cap.");

    public static final ConfigOption<Duration> COMMIT_TIMEOUT = ConfigOptions.key("commit.timeout").durationType()
        .defaultValue(Duration.ofSeconds(60))
        .withDescription("The commit's budget: give up a commit whose claims keep being lost after this long "
                         + "(the library's default, 60 s; 0 = none).");

    public static final ConfigOption<MemorySize> TARGET_FILE_SIZE = ConfigOptions.key("sink.target-file-size")
        .memoryType().defaultValue(MemorySize.parse("128mb"))
        .withDescription("A writer rolls a data file once it reaches this size (as Paimon's writer measures it); "
                         + "files are also closed at every checkpoint.");

    public static final ConfigOption<String> UID_PREFIX = ConfigOptions.key("sink.uid-prefix").stringType()
        .noDefaultValue()
        .withDescription("Prefix of the sink's operator uids (<prefix>-writer, <prefix>-committer, <prefix>-end), "
                         + "which savepoints map state by. Unset: the uid the planner generates when it generates "
                         + "uids (a compiled plan, table.exec.uid.generation = ALWAYS), else one derived from "
                         + "'path' as written, so renaming the table in the DDL keeps the state.");

    // Snapshot expiration after commits (Paimon's names and defaults). Sink options: not stored in the
    // schema; each one given here overrides the table's own option of that name, the others come
    // from the table's schema, else Paimon's default.

    public static final ConfigOption<Integer> SNAPSHOT_NUM_RETAINED_MIN = ConfigOptions.key("snapshot.num-retained.min")
        .intType().noDefaultValue()
        .withDescription("At least this many snapshots are kept (>= 1). Unset: the table's option, else 10.");

    public static final ConfigOption<Integer> SNAPSHOT_NUM_RETAINED_MAX = ConfigOptions.key("snapshot.num-retained.max")
        .intType().noDefaultValue()
        .withDescription("At most this many snapshots are kept; older ones expire even when younger than "
                         + "snapshot.time-retained. Unset: the table's option, else Integer.MAX_VALUE.");

    public static final ConfigOption<Duration> SNAPSHOT_TIME_RETAINED = ConfigOptions.key("snapshot.time-retained")
        .durationType().noDefaultValue()
        .withDescription("Snapshots younger than this are kept (down to snapshot.num-retained.max). Unset: the "
                         + "table's option, else 1 h.");

    public static final ConfigOption<Integer> SNAPSHOT_EXPIRE_LIMIT = ConfigOptions.key("snapshot.expire.limit")
        .intType().noDefaultValue()
        .withDescription("At most this many snapshots expire per run. Unset: the table's option, else 50.");

    public static final ConfigOption<Boolean> WRITE_ONLY = ConfigOptions.key("write-only").booleanType()
        .noDefaultValue()
        .withDescription("Paimon's write-only: true = the sink expires no snapshots (another job or "
                         + "'snapcommit expire' does). Unset: the table's option, else false.");

    // Small-file compaction of an append table by the committer's upkeep thread (off by default).

    public static final ConfigOption<Boolean> COMPACTION_ENABLED = ConfigOptions.key("sink.compaction.enabled")
        .booleanType().defaultValue(false)
        .withDescription("true: after commits the committer's upkeep thread (never the commit itself) compacts "
                         + "the small files of each partition/bucket of an append table into COMPACT snapshots. "
                         + "Off by default because it reads and rewrites data on the committer's single "
                         + "task; Paimon's own sink compacts by default unless write-only. write-only = true "
                         + "turns it off.");

    public static final ConfigOption<Integer> COMPACTION_MIN_FILE_NUM = ConfigOptions.key("compaction.min.file-num")
        .intType().noDefaultValue()
        .withDescription("Paimon's compaction.min.file-num: a partition/bucket is compacted once it has this many "
                         + "small files (or enough of them to fill two target files). Unset: the table's "
                         + "option, else 5.");

    public static final ConfigOption<Integer> COMPACTION_MAX_FILE_NUM = ConfigOptions.key("sink.compaction.max-file-num")
        .intType().noDefaultValue()
        .withDescription("Accepted and ignored (logged): compaction is Paimon's own, which decides how many files "
                         + "a task merges; Paimon 1.4 has no such option.");

    // Paimon table options: stored in the table's schema (schema/schema-0) when the sink creates the
    // table, and compared with the stored schema when it exists.

    public static final ConfigOption<Integer> BUCKET = ConfigOptions.key("bucket").intType().noDefaultValue()
        .withDescription("Paimon's 'bucket': -1 (the default) = bucket-unaware append table (every file in "
                         + "bucket 0, total buckets -1), dynamic buckets for a primary-key table (Paimon's "
                         + "bucket assigner in the job); N > 0 = fixed buckets, rows hashed on 'bucket-key' with "
                         + "Paimon's bucket function.");

    public static final ConfigOption<List<String>> BUCKET_KEY = ConfigOptions.key("bucket-key").stringType()
        .asList().noDefaultValue()
        .withDescription("Paimon's 'bucket-key': columns hashed into the bucket (default: every non-partition column).");

    public static final ConfigOption<String> FILE_FORMAT = ConfigOptions.key("file.format").stringType()
        .noDefaultValue()
        .withDescription("Paimon's 'file.format' of the data files: parquet (the default), orc or avro.");

    // s3.*: settings of this table's store only. Each unset option falls back to the environment
    // variable named in its description (on the TaskManager, and on the client for the planning
    // check), then to the default. Nothing is applied process-wide.

    public static final ConfigOption<String> S3_ENDPOINT = ConfigOptions.key("s3.endpoint").stringType()
        .noDefaultValue().withDescription("S3 endpoint URL; unset: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, "
                                          + "else AWS (https://s3.<region>.amazonaws.com).");

    public static final ConfigOption<String> S3_REGION = ConfigOptions.key("s3.region").stringType()
        .noDefaultValue().withDescription("S3 signing region; unset: $AWS_REGION, $AWS_DEFAULT_REGION, else us-east-1.");

    public static final ConfigOption<String> S3_ACCESS_KEY = ConfigOptions.key("s3.access-key").stringType()
        .noDefaultValue().withDescription("Access key id of this table; set with s3.secret-key. Unset (both): "
                                          + "$AWS_ACCESS_KEY_ID, $AWS_SECRET_ACCESS_KEY and $AWS_SESSION_TOKEN.");

    public static final ConfigOption<String> S3_SECRET_KEY = ConfigOptions.key("s3.secret-key").stringType()
        .noDefaultValue().withDescription("Secret access key of this table (never logged); set with s3.access-key.");

    public static final ConfigOption<String> S3_SESSION_TOKEN = ConfigOptions.key("s3.session-token").stringType()
        .noDefaultValue().withDescription("Session token of temporary credentials (never logged); needs "
                                          + "s3.access-key and s3.secret-key.");

    public static final ConfigOption<Boolean> S3_PATH_STYLE = ConfigOptions.key("s3.path-style").booleanType()
        .noDefaultValue().withDescription("Path-style addressing; unset: $SNAPCOMMIT_S3_PATH_STYLE, else on with a "
                                          + "custom endpoint and off for AWS.");

    public static final ConfigOption<Boolean> S3_TLS_VERIFY = ConfigOptions.key("s3.tls-verify").booleanType()
        .noDefaultValue().withDescription("Verify the server's TLS certificate (default true; false only for "
                                          + "throwaway test servers).");

    public static final ConfigOption<Duration> S3_CONNECT_TIMEOUT = ConfigOptions.key("s3.connect-timeout")
        .durationType().noDefaultValue()
        .withDescription("Connection timeout; unset: $SNAPCOMMIT_S3_CONNECT_TIMEOUT_MS, else 5 s.");

    public static final ConfigOption<Duration> S3_REQUEST_TIMEOUT = ConfigOptions.key("s3.request-timeout")
        .durationType().noDefaultValue()
        .withDescription("Whole-request timeout; unset: $SNAPCOMMIT_S3_REQUEST_TIMEOUT_MS, else 30 s.");

    public static final ConfigOption<Boolean> S3_CHECK_ON_PLAN = ConfigOptions.key("s3.check-on-plan").booleanType()
        .defaultValue(true)
        .withDescription("At planning time, make one authenticated request (ListObjectsV2, max-keys=1) to check "
                         + "that the bucket exists and the credentials are accepted. Turn off only when the "
                         + "client cannot reach the storage the TaskManagers use. Left unset, a client that cannot "
                         + "load libsnapcommit_jni (another OS or architecture, missing system libraries) skips "
                         + "the check with a warning; set to true explicitly, such a client fails the statement.");
}

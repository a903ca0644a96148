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
        .intType().defaultValue(10).withDescription("Claims retried after a lost one before failing.");

    public static final ConfigOption<Duration> COMMIT_MIN_RETRY_WAIT = ConfigOptions.key("commit.min-retry-wait")
        .durationType().defaultValue(Duration.ofMillis(10)).withDescription("Backoff after the first lost claim.");

    public static final ConfigOption<Duration> COMMIT_MAX_RETRY_WAIT = ConfigOptions.key("commit.max-retry-wait")
        .durationType().defaultValue(Duration.ofSeconds(10)).withDescription("Backoff cap.");

    public static final ConfigOption<Duration> COMMIT_TIMEOUT = ConfigOptions.key("commit.timeout").durationType()
        .noDefaultValue().withDescription("Give up a commit whose claims keep being lost after this long (default: none).");

    public static final ConfigOption<MemorySize> TARGET_FILE_SIZE = ConfigOptions.key("sink.target-file-size")
        .memoryType().defaultValue(MemorySize.parse("16mb"))
        .withDescription("A writer rolls a data file once its buffer reaches this size; files are also closed at "
                         + "every checkpoint.");

    public static final ConfigOption<Integer> BUCKET = ConfigOptions.key("bucket").intType().defaultValue(0)
        .withDescription("Number of buckets (0 = not bucketed).");

    public static final ConfigOption<List<String>> BUCKET_KEY = ConfigOptions.key("bucket-key").stringType()
        .asList().noDefaultValue().withDescription("Columns hashed into the bucket (default: every column).");

    public static final ConfigOption<String> S3_ENDPOINT = ConfigOptions.key("s3.endpoint").stringType()
        .noDefaultValue().withDescription("S3 endpoint URL; default $AWS_ENDPOINT_URL_S3 / $AWS_ENDPOINT_URL.");

    public static final ConfigOption<String> S3_REGION = ConfigOptions.key("s3.region").stringType()
        .noDefaultValue().withDescription("S3 region; default $AWS_REGION.");

    public static final ConfigOption<String> S3_ACCESS_KEY = ConfigOptions.key("s3.access-key").stringType()
        .noDefaultValue().withDescription("Access key id; default $AWS_ACCESS_KEY_ID.");

    public static final ConfigOption<String> S3_SECRET_KEY = ConfigOptions.key("s3.secret-key").stringType()
        .noDefaultValue().withDescription("Secret access key; default $AWS_SECRET_ACCESS_KEY.");

    public static final ConfigOption<String> S3_SESSION_TOKEN = ConfigOptions.key("s3.session-token").stringType()
        .noDefaultValue().withDescription("Session token; default $AWS_SESSION_TOKEN.");

    public static final ConfigOption<Boolean> S3_PATH_STYLE = ConfigOptions.key("s3.path-style").booleanType()
        .noDefaultValue().withDescription("Path-style addressing for self-hosted servers; default virtual-host style.");
}

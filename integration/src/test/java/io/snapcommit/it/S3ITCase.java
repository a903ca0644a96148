package io.snapcommit.it;

import static org.junit.jupiter.api.Assertions.*;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import io.snapcommit.demo.CollectingReporter;
import io.snapcommit.demo.TableContents;
import io.snapcommit.flink.paimon.PaimonTableSpec;
import io.snapcommit.jni.FileEntry;
import io.snapcommit.jni.NativeStore;
import io.snapcommit.jni.SnapshotInfo;
import io.snapcommit.jni.StoreConfig;

/**
 * The connector on S3: gofakes3 (scripts/s3-servers.sh; atomic conditional writes, no signature
 * checks) stands in for MinIO. Tables live under s3://$SC_S3_BUCKET/flink-it/<run>/; rows are read
 * back through the native store (NativeStore.getObject = sc_store_get). Without the servers every
 * test fails: scripts/flink-test.sh starts them.
 *
 * s3.* options and builder settings are per table (StoreConfig, handed to the native store at
 * open): they never change the process environment, so the test that relies on the JVM's own
 * AWS_* variables can run in any order; it runs last to show that the jobs before it, with their
 * own (and wrong) credentials, left nothing behind.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class S3ITCase extends ITBase {
    static final String NOT_RUNNING = "S3 test servers not running: run scripts/s3-servers.sh start";
    /** One prefix per test JVM run: gofakes3 keeps its (in-memory) objects across runs. */
    static final String RUN = "flink-it/" + System.getProperty("flink.line", "x") + "-"
                              + UUID.randomUUID().toString().substring(0, 8);

    String endpoint, accessKey, secretKey, bucket;

    /**
     * A setting handed over by Surefire (systemPropertyVariables in integration/pom.xml) or, when
     * run otherwise, from the environment. An unset Maven ${env.X} stays literal: that is absent.
     */
    static String setting(String name) {
        String v = System.getProperty(name);
        if (v == null || v.isBlank() || v.startsWith("${")) v = System.getenv(name);
        return v == null || v.isBlank() || v.startsWith("${") ? null : v.trim();
    }

    @BeforeEach
    void servers() {
        endpoint = setting("SC_GOFAKES3_ENDPOINT");
        if (endpoint == null) fail(NOT_RUNNING);
        accessKey = setting("SC_GOFAKES3_ACCESS_KEY_ID");
        secretKey = setting("SC_GOFAKES3_SECRET_ACCESS_KEY");
        bucket = setting("SC_S3_BUCKET");
        assertNotNull(accessKey, "SC_GOFAKES3_ACCESS_KEY_ID is not set (" + NOT_RUNNING + ")");
        assertNotNull(secretKey, "SC_GOFAKES3_SECRET_ACCESS_KEY is not set (" + NOT_RUNNING + ")");
        assertNotNull(bucket, "SC_S3_BUCKET is not set (" + NOT_RUNNING + ")");
        int code;
        try {
            code = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create(endpoint + "/" + bucket + "?list-type=2&max-keys=1"))
                    .timeout(Duration.ofSeconds(5)).GET().build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (Exception e) {
            throw new AssertionError(NOT_RUNNING + " (" + endpoint + " does not answer: " + e + ")", e);
        }
        assertEquals(200, code, NOT_RUNNING + " (listing bucket " + bucket + " at " + endpoint + ")");
    }

    /** An S3 table in Paimon's filesystem-catalog layout: s3://bucket/<run>/warehouse/db.db/<name>. */
    String s3Table(String name) {
        return "s3://" + bucket + "/" + RUN + "/warehouse/db.db/" + name;
    }

    /** The table's key prefix inside the bucket. */
    String keyPrefix(String table) {
        return table.substring(("s3://" + bucket + "/").length()) + "/";
    }

    String s3Options() {
        return "'s3.endpoint' = '" + endpoint + "', 's3.access-key' = '" + accessKey + "', 's3.secret-key' = '"
               + secretKey + "', 's3.path-style' = 'true', 's3.region' = 'us-east-1'";
    }

    /** The test's own reads go to gofakes3 with its own settings, never through the environment. */
    StoreConfig gofakes3() {
        return StoreConfig.builder().endpoint(endpoint).accessKey(accessKey).secretKey(secretKey).region("us-east-1")
            .pathStyle(true).build();
    }

    /** Every key under prefix, asked of gofakes3 over plain HTTP (not through libsnapcommit). */
    List<String> serverKeys(String prefix) throws Exception {
        List<String> keys = new ArrayList<>();
        HttpClient http = HttpClient.newHttpClient();
        String token = null;
        Pattern key = Pattern.compile("<Key>([^<]*)</Key>");
        Pattern next = Pattern.compile("<NextContinuationToken>([^<]*)</NextContinuationToken>");
        do {
            String url = endpoint + "/" + bucket + "?list-type=2&prefix=" + URLEncoder.encode(prefix, StandardCharsets.UTF_8)
                         + (token == null ? "" : "&continuation-token=" + URLEncoder.encode(token, StandardCharsets.UTF_8));
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                                                   .GET().build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode(), r.body());
            Matcher m = key.matcher(r.body());
            while (m.find()) keys.add(m.group(1));
            Matcher n = next.matcher(r.body());
            token = r.body().contains("<IsTruncated>true</IsTruncated>") && n.find() ? n.group(1) : null;
        } while (token != null);
        return keys;
    }

    /** The snapshot log and the objects on the server agree that the table is on S3. */
    void assertOnServer(String table) throws Exception {
        List<String> keys = serverKeys(keyPrefix(table));
        long data = keys.stream().filter(k -> k.substring(keyPrefix(table).length()).matches("(.*/)?bucket-[0-9]+/data-.*"))
                        .count();
        assertTrue(data >= 1, "no data files on gofakes3 under " + keyPrefix(table) + ": " + keys);
        assertTrue(keys.size() > data, "only data files on gofakes3 under " + keyPrefix(table) + ": " + keys);
        try (NativeStore s = NativeStore.openStore(table, gofakes3())) {
            assertEquals("s3", s.backendName());
            assertEquals(keys.size(), s.listKeys("").size(), "native listing vs. gofakes3 listing");
        }
        PaimonTableSpec spec = spec(table, gofakes3());
        for (FileEntry f : TableContents.liveFiles(table, gofakes3())) {
            String path = spec.dataFilePath(f);
            assertTrue(keys.contains(keyPrefix(table) + path), path + " is not on gofakes3");
        }
    }

    private StreamTableEnvironment tableEnv(String jobName) {
        StreamTableEnvironment t = StreamTableEnvironment.create(env("200 ms", Map.of()));
        t.getConfig().set("pipeline.name", jobName);
        return t;
    }

    /** SQL INSERT of a bounded datagen sequence [0, rows) into table with the given extra WITH options. */
    private long sqlInsert(String jobName, String table, String extraOptions, String tag, long rows) throws Exception {
        StreamTableEnvironment t = tableEnv(jobName);
        t.executeSql("CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence', "
                     + "'fields.id.start' = '0', 'fields.id.end' = '" + (rows - 1) + "')");
        t.executeSql("CREATE TABLE s3t (id BIGINT, tag STRING, p STRING) PARTITIONED BY (p) WITH ("
                     + "'connector' = 'snapcommit', 'path' = '" + table + "'" + extraOptions + ")");
        long t0 = System.currentTimeMillis();
        t.executeSql("INSERT INTO s3t SELECT id, '" + tag + "', CAST(MOD(id, 2) AS STRING) FROM gen").await();
        return System.currentTimeMillis() - t0;
    }

    private void assertSqlTable(String table, String tag, long rows) throws Exception {
        List<SnapshotInfo> log = TableContents.log(table, gofakes3());
        assertFalse(log.isEmpty(), "nothing committed");
        assertIdentifiersIncreasing(log);
        assertEquals(1, log.stream().map(SnapshotInfo::commitUser).distinct().count(), log.toString());
        assertEquals(rows, log.get(log.size() - 1).totalRecordCount());
        assertExactlyOnce(table, tag, rows, gofakes3());
        PaimonTableSpec spec = spec(table, gofakes3());
        for (FileEntry f : TableContents.liveFiles(table, gofakes3())) {
            String path = spec.dataFilePath(f);
            assertTrue(path.matches("p=[01]/bucket-0/" + DATA_FILE + "parquet"), path);
        }
        assertOnServer(table);
    }

    /** (c) No s3.* option: the native store uses the task manager's own AWS_* variables. */
    @Test
    @Order(10)
    void sqlInsertWithTheJvmsAwsEnvironment() throws Exception {
        String own = System.getenv("AWS_ENDPOINT_URL_S3") != null ? System.getenv("AWS_ENDPOINT_URL_S3")
                                                                  : System.getenv("AWS_ENDPOINT_URL");
        Assumptions.assumeTrue(endpoint.equals(own),
                               "the JVM's AWS_ENDPOINT_URL_S3 (" + own + ") is not gofakes3 (" + endpoint + ")");
        String table = s3Table("env-defaults");
        long rows = 300;
        long ms = sqlInsert(testName, table, "", "env", rows);
        // The jobs before this one (s3.* options, wrong secrets) changed nothing process-wide.
        assertSqlTable(table, "env", rows);
        summary(String.format("S3 (gofakes3, AWS_* of the JVM, no s3.* options): SQL INSERT %d rows -> %d snapshot(s), "
                              + "exactly once, %d ms; %s", rows, TableContents.log(table, gofakes3()).size(), ms, metricsLine(testName)));
    }

    /** (a) CREATE TABLE ... WITH (s3.* options) + INSERT of a bounded source. */
    @Test
    @Order(2)
    void sqlInsertWithS3Options() throws Exception {
        String table = s3Table("sql");
        long rows = 600;
        long ms = sqlInsert(testName, table, ", " + s3Options(), "sql", rows);
        assertSqlTable(table, "sql", rows);
        assertTrue(CollectingReporter.counter(testName, "commits") >= 1);
        summary(String.format("S3 (gofakes3, s3.* options): SQL INSERT %d rows -> %d snapshot(s), %d live files on the "
                              + "server, exactly once, %d ms; %s", rows, TableContents.log(table, gofakes3()).size(),
                              TableContents.liveFiles(table, gofakes3()).size(), ms, metricsLine(testName)));
    }

    /** (b) Checkpointed streaming job, a map throws once on attempt 0: every row once, identifiers = checkpoint ids. */
    @Test
    @Order(3)
    void checkpointedJobWithFailoverOnS3() throws Exception {
        String table = s3Table("failover");
        long rows = 600, failAfter = 150;
        StreamExecutionEnvironment env = env("200 ms", Map.of());
        sink(table).uidPrefix("s3fo").s3Endpoint(endpoint).s3AccessKey(accessKey).s3SecretKey(secretKey)
            .s3Region("us-east-1").s3PathStyle(true).build()
            .sinkTo(rows(generate(env, "s3fo", rows, 300).map(new FailOnceMap(failAfter)).uid("fail-once")
                        .map(new RestoreAwareRecorder(testName)).uid("recorder")));
        long t0 = System.currentTimeMillis();
        env.execute(testName);
        long ms = System.currentTimeMillis() - t0;

        assertTrue(RestoreAwareRecorder.maxAttempt(testName) >= 1, "the job never failed over");
        List<SnapshotInfo> log = TableContents.log(table, gofakes3());
        assertTrue(log.size() >= 2, "expected several checkpoints to commit, got " + log);
        assertIdentifiersIncreasing(log);
        assertEquals(1, log.stream().map(SnapshotInfo::commitUser).distinct().count(), "commit user changed: " + log);
        Set<Long> checkpoints = RestoreAwareRecorder.checkpoints(testName);
        assertIdentifiersAreCheckpoints(log, checkpoints);
        for (SnapshotInfo s : log) {
            assertEquals(io.snapcommit.jni.CommitKind.APPEND, s.commitKind());
        }
        assertEquals(rows, log.get(log.size() - 1).totalRecordCount());
        assertExactlyOnce(table, "s3fo", rows, gofakes3());
        assertPypaimonReads(table, "s3fo", rows, gofakes3());
        assertOnServer(table);
        long written = CollectingReporter.counter(testName, "rowsWritten");
        assertTrue(written >= rows, "writers wrote " + written + " rows");
        long dataObjects = serverKeys(keyPrefix(table) + "bucket-0/").size();
        summary(String.format("S3 (gofakes3) failover (map throws once after %d rows of subtask 0, attempt 0; restored "
                              + "from checkpoint %s): %d rows generated, %d rows flushed into data files by writers "
                              + "incl. replays, %d live rows, %d data objects on the server (%d live), %d snapshots = "
                              + "checkpoint ids %s, %d ms; %s",
                              failAfter, RestoreAwareRecorder.restored(testName), rows, written,
                              TableContents.liveRows(table, gofakes3()).size(), dataObjects, TableContents.liveFiles(table, gofakes3()).size(),
                              log.size(), log.stream().map(SnapshotInfo::commitIdentifier).toList(), ms,
                              metricsLine(testName)));
    }

    /**
     * Records completed checkpoints (notifications) and the checkpoint a restored attempt starts
     * from (itself completed, and possibly never notified to the failed attempt), plus the highest
     * attempt number seen.
     */
    static final class RestoreAwareRecorder extends RichMapFunction<String, String>
        implements CheckpointListener, CheckpointedFunction {
        private static final long serialVersionUID = 1L;
        static final Map<String, Set<Long>> CHECKPOINTS = new ConcurrentHashMap<>();
        static final Map<String, Set<Long>> RESTORED = new ConcurrentHashMap<>();
        static final Map<String, Integer> ATTEMPTS = new ConcurrentHashMap<>();
        private final String key;

        RestoreAwareRecorder(String key) {
            this.key = key;
        }

        static Set<Long> checkpoints(String key) {
            return CHECKPOINTS.computeIfAbsent(key, k -> new ConcurrentSkipListSet<>());
        }

        static Set<Long> restored(String key) {
            return RESTORED.computeIfAbsent(key, k -> new ConcurrentSkipListSet<>());
        }

        static int maxAttempt(String key) {
            return ATTEMPTS.getOrDefault(key, 0);
        }

        @Override
        public String map(String value) {
            ATTEMPTS.merge(key, getRuntimeContext().getTaskInfo().getAttemptNumber(), Math::max);
            return value;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            checkpoints(key).add(checkpointId);
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) {}

        @Override
        public void initializeState(FunctionInitializationContext context) {
            context.getRestoredCheckpointId().ifPresent(id -> {
                checkpoints(key).add(id);
                restored(key).add(id);
            });
        }
    }
}

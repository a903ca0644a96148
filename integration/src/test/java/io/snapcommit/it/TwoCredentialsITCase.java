package io.snapcommit.it;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.snapcommit.demo.TableContents;
import io.snapcommit.jni.SnapshotInfo;
import io.snapcommit.jni.StoreConfig;

/**
 * Per-table S3 credentials in one TaskManager (issue 8, item 4). Two servers stand for two
 * accounts: moto (scripts/s3-servers.sh; SigV4 signatures verified against an IAM user) and
 * gofakes3 (no checks). Credentials are per store: nothing is written to the process
 * environment, so two jobs with different credentials run side by side, a job's wrong secret
 * never leaks into the next job, and secrets appear in no message.
 */
class TwoCredentialsITCase extends ITBase {
    static final String RUN = "flink-2cred/" + System.getProperty("flink.line", "x") + "-"
                              + UUID.randomUUID().toString().substring(0, 8);
    static final String WRONG_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzzWRONGSECRET";

    String bucket, gofakes3Endpoint, gofakes3Key, gofakes3Secret, motoEndpoint, motoKey, motoSecret;

    @BeforeEach
    void servers() {
        bucket = S3ITCase.setting("SC_S3_BUCKET");
        gofakes3Endpoint = S3ITCase.setting("SC_GOFAKES3_ENDPOINT");
        gofakes3Key = S3ITCase.setting("SC_GOFAKES3_ACCESS_KEY_ID");
        gofakes3Secret = S3ITCase.setting("SC_GOFAKES3_SECRET_ACCESS_KEY");
        motoEndpoint = S3ITCase.setting("SC_MOTO_ENDPOINT");
        motoKey = S3ITCase.setting("SC_MOTO_ACCESS_KEY_ID");
        motoSecret = S3ITCase.setting("SC_MOTO_SECRET_ACCESS_KEY");
        for (String v : new String[] {bucket, gofakes3Endpoint, gofakes3Key, gofakes3Secret, motoEndpoint, motoKey,
                                      motoSecret})
            assertNotNull(v, S3ITCase.NOT_RUNNING + " (SC_S3_BUCKET, SC_GOFAKES3_* and SC_MOTO_* must be set)");
        assertEquals("1", S3ITCase.setting("SC_MOTO_AUTH"), "moto runs without signature checks: restart it with "
                                                            + "scripts/s3-servers.sh stop && scripts/s3-servers.sh start");
    }

    StoreConfig moto() {
        return StoreConfig.builder().endpoint(motoEndpoint).accessKey(motoKey).secretKey(motoSecret)
            .region("us-east-1").pathStyle(true).build();
    }

    StoreConfig gofakes3() {
        return StoreConfig.builder().endpoint(gofakes3Endpoint).accessKey(gofakes3Key).secretKey(gofakes3Secret)
            .region("us-east-1").pathStyle(true).build();
    }

    String table(String name) {
        return "s3://" + bucket + "/" + RUN + "/warehouse/db.db/" + name;
    }

    /** A checkpointed bounded job writing rows of `tag` into table with the given credentials. */
    JobClient start(String tag, String table, StoreConfig c, boolean checkStorage, int restarts) throws Exception {
        StreamExecutionEnvironment env = env("200 ms", Map.of("restart-strategy.fixed-delay.attempts",
                                                               Integer.toString(restarts)));
        var b = sink(table).uidPrefix(tag).checkStorage(checkStorage);
        if (c.endpoint() != null) b.s3Endpoint(c.endpoint()).s3Region(c.region()).s3PathStyle(true);
        if (c.accessKey() != null) b.s3AccessKey(c.accessKey()).s3SecretKey(c.secretKey());
        b.build().sinkTo(rows(generate(env, tag, 400, 800)));
        return env.executeAsync(testName + "-" + tag);
    }

    void assertCommitted(String table, String tag, StoreConfig c) {
        List<SnapshotInfo> log = TableContents.log(table, c);
        assertFalse(log.isEmpty(), "nothing committed to " + table);
        assertEquals(400, log.get(log.size() - 1).totalRecordCount(), log.toString());
        assertExactlyOnce(table, tag, 400, c);
    }

    /** Two jobs at once in one TaskManager, each with its own server and credentials. */
    @Test
    void twoJobsTwoCredentialsAtOnce() throws Exception {
        String onMoto = table("moto"), onGofakes3 = table("gofakes3");
        JobClient a = start("moto", onMoto, moto(), true, 0);
        JobClient b = start("gofakes3", onGofakes3, gofakes3(), true, 0);
        // No restarts allowed: a job signed with the other job's key fails outright.
        a.getJobExecutionResult().get();
        b.getJobExecutionResult().get();
        assertCommitted(onMoto, "moto", moto());
        assertCommitted(onGofakes3, "gofakes3", gofakes3());
        // moto checked the signatures: the table is readable with moto's key and refused without it.
        StoreConfig wrong = StoreConfig.builder().endpoint(motoEndpoint).accessKey(motoKey).secretKey(WRONG_SECRET)
            .region("us-east-1").pathStyle(true).build();
        RuntimeException e = assertThrows(RuntimeException.class, () -> TableContents.log(onMoto, wrong));
        assertTrue(e.getMessage().contains("SignatureDoesNotMatch"), e.getMessage());
        assertFalse(e.getMessage().contains(WRONG_SECRET), e.getMessage());
        summary("two jobs in one TaskManager, moto (SigV4 checked) and gofakes3 with different credentials: "
                + "400 rows each, exactly once");
    }

    /**
     * A job with a wrong secret (runtime only: the planning check is off) fails; the next job,
     * with no s3.* settings at all, must use the TaskManager's own AWS_* environment, not the
     * failed job's key or endpoint.
     */
    @Test
    void aFailedJobsCredentialsDoNotLeakIntoTheNext() throws Exception {
        String jvmEndpoint = System.getenv("AWS_ENDPOINT_URL_S3");
        Assumptions.assumeTrue(gofakes3Endpoint.equals(jvmEndpoint),
                               "the JVM's AWS_ENDPOINT_URL_S3 (" + jvmEndpoint + ") is not gofakes3");
        StoreConfig wrong = StoreConfig.builder().endpoint(motoEndpoint).accessKey(motoKey).secretKey(WRONG_SECRET)
            .region("us-east-1").pathStyle(true).build();
        JobClient bad = start("wrong", table("wrong"), wrong, false, 0);
        Exception failure = assertThrows(Exception.class, () -> bad.getJobExecutionResult().get());
        StringBuilder all = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) all.append(t).append('\n');
        assertTrue(all.toString().contains("SignatureDoesNotMatch"), all.toString());
        assertFalse(all.toString().contains(WRONG_SECRET), "the secret leaked: " + all);
        // No s3.* settings: the environment (gofakes3) is the default.
        String next = table("env");
        JobClient good = start("env", next, StoreConfig.DEFAULTS, true, 0);
        good.getJobExecutionResult().get();
        assertCommitted(next, "env", gofakes3());
    }

    /** Planning-time checks: a wrong secret, a missing bucket and rename on s3:// fail at planning, masked. */
    @Test
    void planningTimeChecks() {
        StreamTableEnvironment t = StreamTableEnvironment.create(env("200 ms", Map.of()));
        t.executeSql("CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '10')");
        String common = "'s3.endpoint' = '" + motoEndpoint + "', 's3.region' = 'us-east-1', 's3.path-style' = 'true', "
                        + "'s3.access-key' = '" + motoKey + "', ";
        t.executeSql("CREATE TABLE wrong_secret (id BIGINT) WITH ('connector' = 'snapcommit', 'path' = '"
                     + table("planning") + "', " + common + "'s3.secret-key' = '" + WRONG_SECRET
                     + "', 's3.session-token' = 'SESSIONTOKENNOTSHOWN')");
        ValidationException e = assertThrows(ValidationException.class,
                                             () -> t.executeSql("INSERT INTO wrong_secret SELECT id FROM gen"));
        String all = chain(e);
        assertTrue(all.contains("S3 refused the credentials for " + table("planning")), all);
        assertFalse(all.contains(WRONG_SECRET), "the secret leaked: " + all);
        assertFalse(all.contains("SESSIONTOKENNOTSHOWN"), "the session token leaked: " + all);

        t.executeSql("CREATE TABLE no_bucket (id BIGINT) WITH ('connector' = 'snapcommit', 'path' = "
                     + "'s3://no-such-bucket-" + RUN.hashCode() + "/t', " + common + "'s3.secret-key' = '" + motoSecret
                     + "')");
        e = assertThrows(ValidationException.class, () -> t.executeSql("INSERT INTO no_bucket SELECT id FROM gen"));
        all = chain(e);
        assertTrue(all.contains("does not exist") && all.contains("NoSuchBucket"), all);
        assertFalse(all.contains(motoSecret), "the secret leaked: " + all);

        t.executeSql("CREATE TABLE renamed (id BIGINT) WITH ('connector' = 'snapcommit', 'path' = '"
                     + table("rename") + "', 'commit.strategy' = 'rename', " + common + "'s3.secret-key' = '"
                     + motoSecret + "')");
        e = assertThrows(ValidationException.class, () -> t.executeSql("INSERT INTO renamed SELECT id FROM gen"));
        all = chain(e);
        assertTrue(all.contains("commit.strategy rename") && all.contains("S3 has no rename"), all);
    }

    static String chain(Throwable e) {
        StringBuilder sb = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) sb.append(t.getMessage()).append('\n');
        return sb.toString();
    }
}

package io.snapcommit.it;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.Map;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

import io.snapcommit.demo.CollectingReporter;
import io.snapcommit.demo.TableContents;
import io.snapcommit.jni.SnapshotInfo;

/** Two jobs append to one table at the same time: both complete, nothing is lost. */
class TwoJobsITCase extends ITBase {

    @Test
    void twoJobsAppendConcurrently() throws Exception {
        String table = table("shared");
        long rows = 800;
        // No table yet: both committers find it missing and race to create it.
        JobClient[] jobs = new JobClient[2];
        String[] tags = {"a", "b"};
        long t0 = System.currentTimeMillis();
        for (int i = 0; i < 2; i++) {
            StreamExecutionEnvironment env = env("150 ms", Map.of());
            env.setParallelism(1);
            sink(table).uidPrefix("job-" + tags[i]).maxRetries(50).build().sinkTo(rows(generate(env, tags[i], rows, 400)));
            jobs[i] = env.executeAsync(testName + "-" + tags[i]);
        }
        for (JobClient j : jobs) j.getJobExecutionResult().get();
        long ms = System.currentTimeMillis() - t0;

        List<SnapshotInfo> log = TableContents.log(table);
        assertEquals(2, log.stream().map(SnapshotInfo::commitUser).distinct().count(), "expected two commit users");
        assertIdentifiersIncreasing(log);
        assertExactlyOnce(table, "a", rows);
        assertExactlyOnce(table, "b", rows);
        assertEquals(2 * rows, log.get(log.size() - 1).totalRecordCount());
        long commits = CollectingReporter.counter(testName + "-a", "commits")
                       + CollectingReporter.counter(testName + "-b", "commits");
        assertEquals(log.size(), commits, "every commit is one snapshot");
        long lost = CollectingReporter.counter(testName + "-a", "lostClaims")
                    + CollectingReporter.counter(testName + "-b", "lostClaims");
        summary(String.format("two jobs on one table: %d + %d rows, %d snapshots, %d lost claims, %d ms; job a %s; job b %s",
                              rows, rows, log.size(), lost, ms, metricsLine(testName + "-a"),
                              metricsLine(testName + "-b")));
    }
}

package io.snapcommit.it;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.Map;

import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.junit.jupiter.api.Test;

import io.snapcommit.demo.CollectingReporter;
import io.snapcommit.demo.TableContents;
import io.snapcommit.jni.NativeTable;
import io.snapcommit.jni.SnapshotInfo;

/** Stop with a savepoint, restore as a new job: same commit user, nothing committed twice. */
class SavepointRestoreITCase extends ITBase {

    private static void topology(StreamExecutionEnvironment env, String table, long rows) {
        sink(table).uidPrefix("sp").build().sinkTo(rows(generate(env, "sp", rows, 150)));
    }

    @Test
    void stopWithSavepointAndRestoreAsNewJob(@InjectMiniCluster MiniCluster cluster) throws Exception {
        String table = table("savepoint");
        long rows = 1200;
        StreamExecutionEnvironment first = env("200 ms", Map.of());
        topology(first, table, rows);
        JobClient job = first.executeAsync(testName + "-first");
        waitUntil("two snapshots", 60_000, () -> {
            try (NativeTable t = NativeTable.openTable(table)) {
                return t.latestSnapshotId() >= 2;
            } catch (RuntimeException e) {
                return false;
            }
        });
        String savepoint = cluster.stopWithSavepoint(job.getJobID(), tmp.resolve("savepoints").toUri().toString(),
                                                     false, SavepointFormatType.CANONICAL).get();
        job.getJobExecutionResult().get();
        List<SnapshotInfo> before = TableContents.log(table);
        assertFalse(before.isEmpty());
        String user = before.get(0).commitUser();
        long rowsBefore = before.get(before.size() - 1).totalRecordCount();
        assertTrue(rowsBefore < rows, "the first job finished before the savepoint");

        StreamExecutionEnvironment second = env("200 ms", Map.of(StateRecoveryOptions.SAVEPOINT_PATH.key(), savepoint));
        topology(second, table, rows);
        second.execute(testName + "-second");

        List<SnapshotInfo> log = TableContents.log(table);
        assertTrue(log.size() > before.size(), "the restored job committed nothing");
        for (SnapshotInfo s : log) assertEquals(user, s.commitUser(), "commit user changed across the restore: " + log);
        assertIdentifiersIncreasing(log);
        assertExactlyOnce(table, "sp", rows);
        summary(String.format("savepoint restore: first job %d snapshots (%d rows) up to the savepoint, restored job "
                              + "%d more; one commit user %s; %d rows exactly once; restored job %s",
                              before.size(), rowsBefore, log.size() - before.size(), user, rows,
                              metricsLine(testName + "-second")));
        assertTrue(CollectingReporter.counter(testName + "-second", "commits") >= 1);
    }
}

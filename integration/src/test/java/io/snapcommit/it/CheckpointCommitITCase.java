package io.snapcommit.it;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.flink.api.common.JobID;
import org.apache.flink.core.execution.CheckpointType;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.junit.jupiter.api.Test;

import io.snapcommit.demo.TableContents;
import io.snapcommit.flink.paimon.PaimonTableSpec;
import io.snapcommit.jni.FileEntry;
import io.snapcommit.jni.NativeStore;
import io.snapcommit.jni.NativeTable;
import io.snapcommit.jni.SnapshotInfo;

/** One snapshot per completed checkpoint, identifier = checkpoint id, nothing before the first checkpoint. */
class CheckpointCommitITCase extends ITBase {

    @Test
    void snapshotsFollowCompletedCheckpoints() throws Exception {
        String table = table("events");
        long rows = 800;
        StreamExecutionEnvironment env = env("250 ms", Map.of());
        sink(table).partitionKeys("p").uidPrefix("cp")
            .build().sinkTo(rows(generate(env, "cp", rows, 400).map(new CheckpointRecorder(testName)).uid("recorder")));
        long t0 = System.currentTimeMillis();
        env.execute(testName);
        long ms = System.currentTimeMillis() - t0;

        List<SnapshotInfo> log = TableContents.log(table);
        Set<Long> completed = CheckpointRecorder.completed(testName);
        assertTrue(log.size() >= 2, "expected several checkpoints to commit, got " + log);
        assertIdentifiersIncreasing(log);
        assertIdentifiersAreCheckpoints(log, completed);
        for (SnapshotInfo s : log) {
            assertEquals(log.get(0).commitUser(), s.commitUser());
            assertEquals(io.snapcommit.jni.CommitKind.APPEND, s.commitKind());
        }
        assertEquals(rows, log.get(log.size() - 1).totalRecordCount());
        assertExactlyOnce(table, "cp", rows);
        PaimonTableSpec spec = spec(table, null);
        assertEquals(List.of("p"), spec.schema().partitionKeys());
        for (FileEntry f : TableContents.liveFiles(table)) {
            // Paimon's layout: the partition is the BinaryRow of (p), the file lives under p=<v>/bucket-0/.
            String path = spec.dataFilePath(f);
            assertTrue(path.matches("p=[01]/bucket-0/" + DATA_FILE + "parquet"), path);
            assertTrue(java.nio.file.Files.isRegularFile(java.nio.file.Paths.get(table, path)), path);
            assertEquals(0, f.bucket());
            assertEquals(-1, f.totalBuckets(), "a bucket-unaware append table");
        }
        summary(String.format("checkpoint commits: %d rows, %d snapshots for %d completed checkpoints, %d ms; %s",
                              rows, log.size(), completed.size(), ms, metricsLine(testName)));
    }

    @Test
    void nothingIsCommittedBeforeTheFirstCheckpoint(@InjectMiniCluster MiniCluster cluster) throws Exception {
        String table = table("manual");
        // No periodic checkpoint within the test; tiny files so that data files appear without a barrier.
        StreamExecutionEnvironment env = env("1 h", Map.of());
        sink(table).targetFileSize(64).uidPrefix("manual").build()
            .sinkTo(rows(generate(env, "m", Long.MAX_VALUE, 200)));
        JobClient job = env.executeAsync(testName);
        JobID id = job.getJobID();
        try {
            // A fresh store per poll: a posix store opened before its root exists keeps seeing an
            // empty table (opening creates nothing; only its own first write would), and the job
            // creates the table after this test starts.
            waitUntil("data files", 60_000, () -> {
                try {
                    return dataFileCount(table) >= 5;
                } catch (RuntimeException e) {
                    return false;
                }
            });
            waitUntil("the table", 30_000, () -> {
                try (NativeTable t = NativeTable.openTable(table)) {
                    return true;
                } catch (RuntimeException e) {
                    return false;
                }
            });
            try (NativeTable t = NativeTable.openTable(table)) {
                assertEquals(0, t.latestSnapshotId(), "committed before any checkpoint completed");
                long cp1 = cluster.triggerCheckpoint(id, CheckpointType.CONFIGURED).get();
                waitUntil("snapshot 1", 30_000, () -> t.latestSnapshotId() >= 1);
                assertEquals(cp1, t.snapshot(1).commitIdentifier());
                long cp2 = cluster.triggerCheckpoint(id, CheckpointType.CONFIGURED).get();
                waitUntil("snapshot 2", 30_000, () -> t.latestSnapshotId() >= 2);
                assertEquals(cp2, t.snapshot(2).commitIdentifier());
                assertTrue(cp2 > cp1);
                assertTrue(t.snapshot(2).totalRecordCount() > t.snapshot(1).totalRecordCount());
                summary("manual checkpoints " + cp1 + ", " + cp2 + " -> snapshots 1, 2 with those identifiers; "
                        + dataFileCount(table) + " data files, 0 snapshots before the first checkpoint");
            }
        } finally {
            cancelAndAwait(job); // before the test's temp dir is deleted
        }
    }

    private static int dataFileCount(String table) {
        try (NativeStore store = NativeStore.openStore(table)) {
            return store.listKeys("bucket-0/").size();
        }
    }

    @Test
    void boundedJobWithoutCheckpointsCommitsAtEndOfInput() throws Exception {
        String table = table("batch");
        StreamExecutionEnvironment env = env(null, Map.of());
        sink(table).uidPrefix("batch").build().sinkTo(rows(generate(env, "b", 300, 100_000)));
        env.execute(testName);
        List<SnapshotInfo> log = TableContents.log(table);
        assertEquals(1, log.size(), log.toString());
        assertEquals(1, log.get(0).commitIdentifier());
        assertExactlyOnce(table, "b", 300);
    }
}

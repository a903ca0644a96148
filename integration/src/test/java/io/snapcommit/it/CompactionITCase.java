package io.snapcommit.it;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

import io.snapcommit.demo.CollectingReporter;
import io.snapcommit.demo.PaimonReader;
import io.snapcommit.demo.TableContents;
import io.snapcommit.flink.CommitListener;
import io.snapcommit.jni.CommitKind;
import io.snapcommit.jni.FileEntry;
import io.snapcommit.jni.NativeTable;
import io.snapcommit.jni.SnapshotInfo;

/**
 * Small-file compaction by the sink's committer (issue 12, sink.compaction.enabled): a streaming
 * job that closes small files at every checkpoint into a partitioned append table ends with a
 * handful of live files, COMPACT snapshots by its own commit user, and every row exactly once for
 * Paimon's Java reader and pypaimon.
 */
class CompactionITCase extends ITBase {
    static final int ROWS = 2000;
    static final int ROWS_PER_CHECKPOINT = 40;
    static final int MIN_FILE_NUM = 3;
    /** Data files the job's APPEND commits added, per test (told by the commit listener). */
    static final Map<String, AtomicLong> WRITTEN = new ConcurrentHashMap<>();

    /**
     * About 50 checkpoints (RateLimiterStrategy.perCheckpoint), 2 writers, 2 partitions
     * (p = id % 2): a few small files per commit. compaction.min.file-num = 3, so the upkeep thread compacts a
     * partition once it holds 3 small files; at the end of input the committer lets it catch up, so
     * each partition is left with fewer than 3 files (the compacted outputs are small too and are
     * merged again).
     */
    @Test
    void streamingJobCompactsSmallFiles() throws Exception {
        String table = table("compact");
        StreamExecutionEnvironment env = env("10 ms", Map.of());
        DataGeneratorSource<String> src = new DataGeneratorSource<>(
            id -> "{\"id\":" + id + ",\"tag\":\"c\"}", ROWS, RateLimiterStrategy.perCheckpoint(ROWS_PER_CHECKPOINT),
            Types.STRING);
        DataStream<String> lines = env.fromSource(src, WatermarkStrategy.noWatermarks(), "generator-c")
                                      .uid("generator-c").setParallelism(1);
        String key = testName;
        WRITTEN.put(key, new AtomicLong());
        CommitListener count = e -> WRITTEN.get(key).addAndGet(e.fileCount());
        sink(table).uidPrefix("cmp").partitionKeys("p").writerParallelism(2).commitUser("cmp-job")
            .compaction(true).compactionMinFileNum(MIN_FILE_NUM).commitListener(count).build().sinkTo(rows(lines));
        long t0 = System.currentTimeMillis();
        env.execute(testName);
        long ms = System.currentTimeMillis() - t0;

        long written = WRITTEN.get(key).get();
        List<FileEntry> live = TableContents.liveFiles(table);
        List<SnapshotInfo> log = TableContents.log(table);
        long compactSnapshots = log.stream().filter(s -> s.commitKind() == CommitKind.COMPACT).count();
        long compactions = CollectingReporter.counter(testName, "compactions");
        long before = CollectingReporter.counter(testName, "compactedFilesBefore");
        long after = CollectingReporter.counter(testName, "compactedFilesAfter");

        assertEquals(0, CollectingReporter.counter(testName, "compactionFailures"));
        // The compaction is the only commit that deletes files, on one thread: nothing to conflict with.
        assertEquals(0, CollectingReporter.counter(testName, "compactionConflicts"));
        assertEquals(0, CollectingReporter.counter(testName, "commitFailures"));
        // About one file per partition per checkpoint (a checkpoint may take more or fewer than 40 rows).
        assertTrue(written >= 20, "small files written: " + written);
        assertTrue(compactions > 0, "compaction rounds committed");
        assertEquals(compactions, compactSnapshots, "one COMPACT snapshot per committed round");
        for (SnapshotInfo s : log)
            if (s.commitKind() == CommitKind.COMPACT) assertEquals("cmp-job-compact", s.commitUser());
            else assertEquals("cmp-job", s.commitUser());
        assertEquals(written - before + after, live.size(), "live files = written - compacted inputs + outputs");
        assertTrue(live.size() <= 2 * (MIN_FILE_NUM - 1),
                   "after the end-of-input drain each of the 2 partitions holds fewer than " + MIN_FILE_NUM
                   + " files: " + live.size() + " live of " + written + " written");
        assertTrue(10L * live.size() <= written, live.size() + " live files of " + written + " written");
        assertEquals(ROWS, live.stream().mapToLong(FileEntry::rows).sum());

        try (PaimonReader r = PaimonReader.open(table, Map.of())) {
            assertExactlyOnce(r.rows(), "c", ROWS);
        }
        assertPypaimonReads(table, "c", ROWS, null);
        try (NativeTable t = NativeTable.openTable(table)) {
            t.fsck();
            assertEquals(compactions, t.lastCommittedIdentifier("cmp-job-compact").getAsLong(),
                         "identifiers 1, 2, ... of the compact user, one per committed round (no conflicts)");
        }
        summary(String.format("compaction: %d rows, %d small files written by %d APPEND commits, %d COMPACT commits "
                              + "(%d -> %d files), %d live files at the end; %d ms; %s",
                              ROWS, written, log.size() - compactSnapshots, compactSnapshots, before, after,
                              live.size(), ms, metricsLine(testName)));
    }

    /**
     * A fixed-bucket table compacts in its writers, as Paimon's sink does: rows shuffled so that
     * each bucket has one writer, whose TableWriteImpl compacts the bucket (compaction.min.file-num
     * 3); each compaction is the COMPACT part of a checkpoint — a COMPACT snapshot right after the
     * checkpoint's APPEND snapshot, same commit user and identifier (alone when the checkpoint had no
     * new rows) — and the upkeep thread compacts
     * nothing. Event-time watermarks reach the snapshots (Paimon's snapshot manager reads them).
     */
    @Test
    void fixedBucketWritersCompactInTheirCheckpoint() throws Exception {
        String table = table("compact-fixed");
        StreamExecutionEnvironment env = env("10 ms", Map.of());
        DataGeneratorSource<String> src = new DataGeneratorSource<>(
            id -> "{\"id\":" + id + ",\"tag\":\"f\"}", ROWS, RateLimiterStrategy.perCheckpoint(ROWS_PER_CHECKPOINT),
            Types.STRING);
        WatermarkStrategy<String> byId = WatermarkStrategy.<String>forMonotonousTimestamps()
            .withTimestampAssigner((line, ts) -> idOf(line));
        DataStream<String> lines = env.fromSource(src, byId, "generator-f").uid("generator-f").setParallelism(1);
        sink(table).uidPrefix("cmpb").partitionKeys("p").bucket(2, "id").writerParallelism(2).commitUser("cmpb-job")
            .compaction(true).compactionMinFileNum(MIN_FILE_NUM).build().sinkTo(rows(lines));
        long t0 = System.currentTimeMillis();
        env.execute(testName);
        long ms = System.currentTimeMillis() - t0;

        List<SnapshotInfo> log = TableContents.log(table);
        List<FileEntry> live = TableContents.liveFiles(table);
        long compactSnapshots = 0, pairs = 0;
        for (int i = 0; i < log.size(); i++) {
            SnapshotInfo s = log.get(i);
            assertEquals("cmpb-job", s.commitUser(), "one commit user: " + s);
            if (i > 0) {
                SnapshotInfo prev = log.get(i - 1);
                // Only a checkpoint's COMPACT part may repeat the identifier of the snapshot before it.
                if (s.commitKind() == CommitKind.COMPACT && prev.commitKind() == CommitKind.APPEND
                    && prev.commitIdentifier() == s.commitIdentifier()) pairs++;
                else assertTrue(s.commitIdentifier() > prev.commitIdentifier(), prev + " then " + s);
            }
            if (s.commitKind() == CommitKind.COMPACT) compactSnapshots++;
        }
        assertTrue(compactSnapshots > 0, "the writers compacted: " + log.size() + " snapshots");
        // A compaction that finishes with no new rows in its checkpoint is a COMPACT part alone.
        assertTrue(pairs > 0, "some checkpoint committed an APPEND and a COMPACT part: " + log);
        assertEquals(0, CollectingReporter.counter(testName, "compactions"), "no upkeep compaction of fixed buckets");
        assertEquals(0, CollectingReporter.counter(testName, "commitFailures"));
        for (FileEntry f : live) assertTrue(f.bucket() == 0 || f.bucket() == 1, f.toString());
        assertTrue(live.size() <= 2 * 2 * (MIN_FILE_NUM + 1), "compacted buckets: " + live.size() + " live files");
        assertEquals(ROWS, live.stream().mapToLong(FileEntry::rows).sum());

        try (PaimonReader r = PaimonReader.open(table, Map.of())) {
            assertExactlyOnce(r.rows(), "f", ROWS);
        }
        assertPypaimonReads(table, "f", ROWS, null);
        Long watermark = org.apache.paimon.table.FileStoreTableFactory
            .create(org.apache.paimon.fs.local.LocalFileIO.create(), new org.apache.paimon.fs.Path(table))
            .snapshotManager().latestSnapshot().watermark();
        assertNotNull(watermark, "the checkpoints' watermark is in the snapshot");
        assertTrue(watermark > 0 && watermark < ROWS, "watermark " + watermark);
        try (NativeTable t = NativeTable.openTable(table)) {
            t.fsck();
        }
        summary(String.format("fixed-bucket compaction in the writers: %d rows, %d snapshots (%d COMPACT, each after "
                              + "its checkpoint's APPEND), %d live files, watermark %d; %d ms; %s", ROWS, log.size(),
                              compactSnapshots, live.size(), watermark, ms, metricsLine(testName)));
    }

    /**
     * The fixed-bucket writers' compactions when checkpoints abort between the writers and the
     * committer: a checkpoint timeout of 15 ms (tolerated) makes many checkpoints expire after the
     * writers sent their messages but before the committer took its state, so one committer
     * snapshot receives the messages of several writer checkpoints; 4 buckets per partition and 10
     * rows per checkpoint leave buckets without rows in some checkpoints, so Paimon's writers close
     * and restore them. A compaction's output compacted again in a later writer checkpoint, or a
     * writer closed because a later identifier landed, must not make a COMPACT part delete a file
     * that is not live: the committer commits each writer checkpoint under its own identifier, as
     * Paimon's committer does. Before that, about one run in three failed with SC_ECONFLICT.
     */
    @Test
    void fixedBucketCompactionsSurviveAbortedCheckpoints() throws Exception {
        String table = table("compact-aborted");
        StreamExecutionEnvironment env = env("10 ms", Map.of("execution.checkpointing.timeout", "10 ms",
                                                             "execution.checkpointing.tolerable-failed-checkpoints",
                                                             Integer.toString(Integer.MAX_VALUE)));
        int rows = 1000;
        DataGeneratorSource<String> src = new DataGeneratorSource<>(
            id -> "{\"id\":" + id + ",\"tag\":\"a\"}", rows, RateLimiterStrategy.perCheckpoint(10), Types.STRING);
        DataStream<String> lines = env.fromSource(src, WatermarkStrategy.noWatermarks(), "generator-a")
                                      .uid("generator-a").setParallelism(1);
        AbortedCheckpoints aborted = new AbortedCheckpoints(testName);
        sink(table).uidPrefix("cmpa").partitionKeys("p").bucket(2, "id").writerParallelism(2).commitUser("cmpa-job")
            .compaction(true).compactionMinFileNum(MIN_FILE_NUM).build().sinkTo(rows(lines.map(aborted)));
        env.execute(testName);

        List<SnapshotInfo> log = TableContents.log(table);
        List<FileEntry> live = TableContents.liveFiles(table);
        assertEquals(0, CollectingReporter.counter(testName, "commitFailures"));
        assertEquals(0, CollectingReporter.counter(testName, "conflicts"));
        assertTrue(AbortedCheckpoints.count(testName) > 0, "checkpoints aborted between the writers and the committer");
        assertTrue(log.stream().anyMatch(s -> s.commitKind() == CommitKind.COMPACT), "the writers compacted");
        for (int i = 1; i < log.size(); i++)
            assertTrue(log.get(i).commitIdentifier() >= log.get(i - 1).commitIdentifier(), log.get(i - 1) + " then " + log.get(i));
        assertEquals(rows, live.stream().mapToLong(FileEntry::rows).sum());
        try (PaimonReader r = PaimonReader.open(table, Map.of())) {
            assertExactlyOnce(r.rows(), "a", rows);
        }
        try (NativeTable t = NativeTable.openTable(table)) {
            t.fsck();
        }
        summary(String.format("fixed-bucket compaction with aborted checkpoints: %d rows, %d snapshots, %d checkpoints "
                              + "aborted, %d live files; %s", rows, log.size(), AbortedCheckpoints.count(testName),
                              live.size(), metricsLine(testName)));
    }

    /** Counts the checkpoints the job aborted (same JVM as the MiniCluster): the pressure the test relies on. */
    static final class AbortedCheckpoints extends org.apache.flink.api.common.functions.RichMapFunction<String, String>
            implements org.apache.flink.api.common.state.CheckpointListener {
        private static final long serialVersionUID = 1L;
        static final Map<String, AtomicLong> ABORTED = new ConcurrentHashMap<>();
        private final String key;

        AbortedCheckpoints(String key) {
            this.key = key;
            ABORTED.put(key, new AtomicLong());
        }

        static long count(String key) {
            return ABORTED.get(key).get();
        }

        @Override
        public String map(String line) {
            return line;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {}

        @Override
        public void notifyCheckpointAborted(long checkpointId) {
            ABORTED.get(key).incrementAndGet();
        }
    }
}

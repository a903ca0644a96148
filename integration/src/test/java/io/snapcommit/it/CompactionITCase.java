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
}

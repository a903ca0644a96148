package io.snapcommit.flink.internal;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Map;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.snapcommit.flink.paimon.PaimonAppendCompaction;
import io.snapcommit.flink.paimon.PaimonSections;
import io.snapcommit.flink.paimon.PaimonStoreTable;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.TableWriteImpl;
import io.snapcommit.jni.StoreConfig;
import io.snapcommit.flink.paimon.PaimonTableSpec;
import io.snapcommit.flink.paimon.RowConverter;
import io.snapcommit.jni.CommitKind;
import io.snapcommit.jni.ExpireOptions;
import io.snapcommit.jni.ExpireResult;
import io.snapcommit.jni.FileEntry;
import io.snapcommit.jni.NativeChanges;
import io.snapcommit.jni.NativeStore;
import io.snapcommit.jni.NativeTable;
import io.snapcommit.jni.Strategy;

/** The committer's upkeep thread (expiration, compaction) against the real native library (no Flink). */
class TableUpkeepTest {
    @TempDir Path dir;

    static final String SCHEMA = "{\"fields\":[{\"name\":\"v\",\"type\":\"BIGINT\"}]}";

    /** Records what the expirer reports. */
    static final class Recorder implements TableUpkeep.Sink {
        final List<ExpireResult> runs = new CopyOnWriteArrayList<>();
        final AtomicInteger failures = new AtomicInteger();
        final List<PaimonAppendCompaction.Result> compactions = new CopyOnWriteArrayList<>();
        final AtomicInteger compactionFailures = new AtomicInteger();

        @Override
        public void compacted(PaimonAppendCompaction.Result r, long millis) {
            assertTrue(millis >= 0);
            compactions.add(r);
        }

        @Override
        public void compactionFailed(long millis) {
            compactionFailures.incrementAndGet();
        }

        long committedCompactions() {
            return compactions.stream().filter(r -> r.outcome == PaimonAppendCompaction.Outcome.COMPACTED).count();
        }

        @Override
        public void ran(ExpireResult r, long millis) {
            assertTrue(millis >= 0);
            runs.add(r);
        }

        @Override
        public void failed(long millis) {
            failures.incrementAndGet();
        }

        long expired() {
            return runs.stream().mapToLong(ExpireResult::snapshotsExpired).sum();
        }
    }

    private String table(int snapshots) {
        String location = dir.resolve("t").toString();
        try (NativeTable t = NativeTable.openOrCreate(location, Strategy.AUTO, null, SCHEMA)) {
            for (int i = 1; i <= snapshots; i++)
                try (NativeChanges c = new NativeChanges().addFile(FileEntry.appendFile(new byte[0], 0, -1,
                                                                                        "data-" + i + ".parquet", 1, 10))) {
                    t.commit("u", i, CommitKind.APPEND, 0, c);
                }
        }
        return location;
    }

    private static long earliest(String location) {
        try (NativeTable t = NativeTable.openTable(location)) {
            return t.earliestSnapshotId();
        }
    }

    /** Draining at the end of input runs until nothing is left, across several limited runs. */
    @Test
    void drainCatchesUpAcrossLimitedRuns() throws Exception {
        String location = table(30);
        Recorder rec = new Recorder();
        TableUpkeep e = new TableUpkeep(location, null,
                                                ExpireOptions.FROM_TABLE.retainMin(1).retainMax(5).limit(10), rec);
        e.start();
        assertTrue(e.close(Duration.ofSeconds(60), true), "the drain ends");
        assertEquals(0, rec.failures.get());
        assertEquals(25, rec.expired(), "30 snapshots, 5 kept");
        assertTrue(rec.runs.size() >= 3, "at most 10 per run: " + rec.runs.size() + " runs");
        assertEquals(0, rec.runs.get(rec.runs.size() - 1).snapshotsExpired(), "the last run found nothing");
        assertEquals(26, earliest(location));
        assertFalse(e.request(), "no work taken after close");
    }

    /** A request runs one expiration; without drain, close only stops the thread. */
    @Test
    void requestRunsOnceAndCloseWithoutDrainStops() throws Exception {
        String location = table(12);
        Recorder rec = new Recorder();
        TableUpkeep e = new TableUpkeep(location, null, ExpireOptions.FROM_TABLE.retainMax(10), rec);
        e.start();
        assertTrue(e.request());
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (rec.runs.isEmpty() && System.nanoTime() < deadline) Thread.sleep(5);
        assertTrue(e.close(Duration.ofSeconds(30), false));
        // Requests coalesce: at most the one made, and at least one run happened.
        assertEquals(1, rec.runs.size());
        assertEquals(2, rec.expired());
        assertEquals(3, earliest(location));
    }

    /** A failing run is counted and logged, never thrown; the thread keeps taking work. */
    @Test
    void failuresAreCountedNotThrown() throws Exception {
        Recorder rec = new Recorder();
        // No table there: every run fails to open it (ENOTABLE).
        TableUpkeep e = new TableUpkeep(dir.resolve("none").toString(), null, ExpireOptions.FROM_TABLE, rec);
        e.start();
        assertTrue(e.request());
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (rec.failures.get() == 0 && System.nanoTime() < deadline) Thread.sleep(5);
        assertEquals(1, rec.failures.get());
        assertTrue(e.request(), "still taking work after a failure");
        while (rec.failures.get() < 2 && System.nanoTime() < deadline) Thread.sleep(5);
        assertEquals(2, rec.failures.get());
        assertTrue(e.close(Duration.ofSeconds(30), true));
        assertTrue(rec.runs.isEmpty());
    }

    static final RowType ROW = RowType.of(new LogicalType[] {new VarCharType(VarCharType.MAX_LENGTH), new BigIntType()},
                                          new String[] {"dt", "id"});
    static final PaimonTableSpec SPEC = PaimonTableSpec.derive(ROW, List.of("dt"), List.of(), Map.of());

    /**
     * An append table partitioned in 3 days: {@code commits} APPEND commits of user "w", one small
     * file per day each, written by Paimon's TableWriteImpl and committed through the sink's path
     * (CommitMessages → PaimonSections → sc_changes_add_paimon).
     */
    private String appendTable(String name, int commits, long firstCommit) throws Exception {
        String location = dir.resolve(name).toString();
        RowConverter conv = new RowConverter(ROW);
        try (NativeTable t = NativeTable.openOrCreate(location, Strategy.AUTO, null, SPEC.json())) {
            FileStoreTable paimon = PaimonStoreTable.open(location, StoreConfig.DEFAULTS, SPEC, Map.of("write-only", "true"));
            for (long c = firstCommit; c < firstCommit + commits; c++) {
                List<CommitMessage> messages;
                try (TableWriteImpl<?> w = paimon.newWrite("w")) {
                    for (int i = 0; i < 9; i++)
                        w.write(conv.convert(GenericRowData.of(StringData.fromString("d" + (i % 3)), c * 100 + i)));
                    messages = w.prepareCommit(false, c);
                }
                PaimonSections sections = PaimonSections.of(messages, -1, "zstd");
                try (NativeChanges ch = sections.append.toNative()) {
                    t.commit("w", c, CommitKind.APPEND, 0, ch);
                }
            }
        }
        return location;
    }

    private static TableUpkeep.Compaction compaction(int minFileNum, int maxTasks) {
        return new TableUpkeep.Compaction(SPEC, Map.of("compaction.min.file-num", Integer.toString(minFileNum)),
                                          "w-compact", maxTasks);
    }

    private static int liveFiles(String location) {
        try (NativeTable t = NativeTable.openTable(location)) {
            return t.liveFiles(t.latestSnapshotId()).size();
        }
    }

    private static long liveRows(String location) {
        try (NativeTable t = NativeTable.openTable(location)) {
            return t.liveFiles(t.latestSnapshotId()).stream().mapToLong(FileEntry::rows).sum();
        }
    }

    /**
     * A drain compacts the whole backlog over rounds of at most maxTasks tasks, as its own user with
     * identifiers after the ones that user committed before (a restarted job never reuses one).
     */
    @Test
    void drainCompactsBacklogInBoundedRoundsWithFreshIdentifiers() throws Exception {
        String location = appendTable("c", 6, 1);
        assertEquals(18, liveFiles(location), "6 commits x 3 days");
        // The compact user committed identifier 41 earlier (a previous run of the job).
        try (NativeTable t = NativeTable.openTable(location);
             NativeChanges none = new NativeChanges()) {
            t.commit("w-compact", 41, CommitKind.COMPACT, 0, none);
        }
        Recorder rec = new Recorder();
        TableUpkeep u = new TableUpkeep(location, null, null, compaction(3, 1), null, rec);
        u.start();
        assertTrue(u.close(Duration.ofSeconds(60), true), "the drain ends");
        assertEquals(0, rec.compactionFailures.get());
        assertEquals(3, rec.committedCompactions(), "one task per round, one task per day: " + rec.compactions);
        assertEquals(PaimonAppendCompaction.Outcome.NOTHING_TO_DO, rec.compactions.get(rec.compactions.size() - 1).outcome);
        assertEquals(3, liveFiles(location));
        assertEquals(54, liveRows(location));
        try (NativeTable t = NativeTable.openTable(location)) {
            assertEquals(44, t.lastCommittedIdentifier("w-compact").getAsLong(), "42, 43, 44 after 41");
            assertEquals(CommitKind.COMPACT, t.snapshot(t.latestSnapshotId()).commitKind());
            assertEquals("w-compact", t.snapshot(t.latestSnapshotId()).commitUser());
            t.fsck();
        }
        assertTrue(rec.runs.isEmpty(), "expiration off: no expiration ran");

        // A restarted job (a new upkeep) after more commits continues after 44.
        appendTable("c", 4, 7);
        Recorder again = new Recorder();
        TableUpkeep v = new TableUpkeep(location, null, ExpireOptions.FROM_TABLE.retainMin(1).retainMax(2), compaction(3, 8),
                                        null, again);
        v.start();
        assertTrue(v.request());
        assertTrue(v.close(Duration.ofSeconds(60), true));
        assertEquals(0, again.compactionFailures.get());
        assertEquals(1, again.committedCompactions(), again.compactions.toString());
        assertEquals(3, liveFiles(location), "each day's 1 + 4 files merged again");
        assertEquals(90, liveRows(location));
        assertTrue(again.expired() > 0, "the expiration ran after the compaction");
        try (NativeTable t = NativeTable.openTable(location)) {
            assertEquals(45, t.lastCommittedIdentifier("w-compact").getAsLong());
            assertEquals(t.latestSnapshotId() - 1, t.earliestSnapshotId(), "2 snapshots retained");
            t.fsck();
        }
    }

    /** Fewer small files than compaction.min.file-num: nothing is written or committed. */
    @Test
    void belowMinFileNumNothingIsCommitted() throws Exception {
        String location = appendTable("few", 2, 1);
        Recorder rec = new Recorder();
        TableUpkeep u = new TableUpkeep(location, null, null, compaction(3, 8), null, rec);
        u.start();
        assertTrue(u.request());
        assertTrue(u.close(Duration.ofSeconds(60), true));
        assertEquals(0, rec.committedCompactions());
        assertFalse(rec.compactions.isEmpty());
        try (NativeTable t = NativeTable.openTable(location)) {
            assertEquals(2, t.latestSnapshotId());
            assertFalse(t.lastCommittedIdentifier("w-compact").isPresent());
        }
    }

    /** A failing compaction is counted and logged, never thrown; expiration still runs after it. */
    @Test
    void compactionFailuresAreCountedNotThrown() throws Exception {
        Recorder rec = new Recorder();
        TableUpkeep u = new TableUpkeep(dir.resolve("none").toString(), null, ExpireOptions.FROM_TABLE,
                                        compaction(3, 8), null, rec);
        u.start();
        assertTrue(u.request());
        assertTrue(u.close(Duration.ofSeconds(30), true));
        assertTrue(rec.compactionFailures.get() >= 1);
        assertTrue(rec.failures.get() >= 1, "the expiration was tried too");
        assertFalse(u.request());
    }

    /** Neither compaction nor expiration: requests are refused, close returns at once. */
    @Test
    void nothingOnTakesNoWork() throws Exception {
        TableUpkeep u = new TableUpkeep(dir.toString(), null, null, null, null, new Recorder());
        u.start();
        assertFalse(u.request());
        assertTrue(u.close(Duration.ofSeconds(30), true));
    }
}

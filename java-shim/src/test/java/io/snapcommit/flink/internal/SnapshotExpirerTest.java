package io.snapcommit.flink.internal;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.snapcommit.jni.CommitKind;
import io.snapcommit.jni.ExpireOptions;
import io.snapcommit.jni.ExpireResult;
import io.snapcommit.jni.FileEntry;
import io.snapcommit.jni.NativeChanges;
import io.snapcommit.jni.NativeTable;
import io.snapcommit.jni.Strategy;

/** The committer's expiration thread against the real native library (no Flink). */
class SnapshotExpirerTest {
    @TempDir Path dir;

    static final String SCHEMA = "{\"fields\":[{\"name\":\"v\",\"type\":\"BIGINT\"}]}";

    /** Records what the expirer reports. */
    static final class Recorder implements SnapshotExpirer.Sink {
        final List<ExpireResult> runs = new CopyOnWriteArrayList<>();
        final AtomicInteger failures = new AtomicInteger();

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
        SnapshotExpirer e = new SnapshotExpirer(location, null,
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
        SnapshotExpirer e = new SnapshotExpirer(location, null, ExpireOptions.FROM_TABLE.retainMax(10), rec);
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
        SnapshotExpirer e = new SnapshotExpirer(dir.resolve("none").toString(), null, ExpireOptions.FROM_TABLE, rec);
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
}

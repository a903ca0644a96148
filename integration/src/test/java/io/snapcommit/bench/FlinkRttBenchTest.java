package io.snapcommit.bench;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

import org.junit.jupiter.api.Test;

/** How FlinkRttBench pairs the snapshots its poller found with the checkpoints' completion notices. */
class FlinkRttBenchTest {
    private static final long MS = 1_000_000L;

    private static String job(String name) {
        String job = name + "_" + System.nanoTime();
        FlinkRttBench.FOUND.put(job, new ConcurrentSkipListMap<>());
        UpsertBench.COMPLETED.put(job, new ConcurrentHashMap<>());
        FlinkRttBench.RETURNED.put(job, new ConcurrentHashMap<>());
        return job;
    }

    private static void notice(String job, long checkpoint, long ms) {
        UpsertBench.COMPLETED.get(job).put(checkpoint, ms * MS);
    }

    private static void found(String job, long snapshot, long ms, long gapMs, long identifier) {
        FlinkRttBench.FOUND.get(job).put(snapshot, new long[] {ms * MS, gapMs * MS, identifier});
    }

    @Test
    void eachCheckpointIsTimedFromItsNoticeToItsFirstSnapshotAfterTheWarmup() {
        String job = job("pairs");
        for (long c = 1; c <= 4; c++) notice(job, c, 1000 * c);
        found(job, 1, 1300, 2, 1);     // warm-up: left out
        found(job, 2, 2400, 3, 2);     // APPEND of checkpoint 2: 400 ms
        found(job, 3, 2450, 1, 2);     // its COMPACT: the data were visible at the APPEND already
        found(job, 4, 3250, 5, 3);     // 250 ms
        found(job, 5, 4900, 1, 4);     // beyond warmup + n: left out
        FlinkRttBench.RETURNED.get(job).put(2L, 2500 * MS);
        List<List<Long>> l = FlinkRttBench.latencies(job, 1, 2);
        assertEquals(List.of(400_000L, 250_000L), l.get(0));
        assertEquals(List.of(3_000L, 5_000L), l.get(1));
        assertEquals(List.of(500_000L), l.get(2));
    }

    @Test
    void aCheckpointWhoseNoticeTheProbeMissedIsTimedFromTheNextNotice() {
        String job = job("missed");
        notice(job, 1, 1000);
        notice(job, 3, 3000);          // no notice of 2 at the probe: 2 was committed when 3 completed
        found(job, 1, 3200, 1, 2);
        found(job, 2, 3300, 1, 3);
        assertEquals(List.of(200_000L, 300_000L), FlinkRttBench.latencies(job, 1, 2).get(0));
    }

    @Test
    void aSnapshotWithoutANoticeAtOrAfterItIsLeftOut() {
        String job = job("late");
        notice(job, 1, 1000);
        found(job, 1, 1100, 1, 2);     // the job was cancelled before the probe saw checkpoint 2 complete
        assertTrue(FlinkRttBench.latencies(job, 0, 5).get(0).isEmpty());
    }

    @Test
    void badArgumentsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> FlinkRttBench.parse(new String[] {"--endpoint", "x"}));
        assertThrows(IllegalArgumentException.class, () -> FlinkRttBench.parse(new String[] {"--nope"}));
        assertThrows(IllegalArgumentException.class, () -> FlinkRttBench.parse(new String[] {"--paimon-option", "novalue"}));
    }
}

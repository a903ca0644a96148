package io.snapcommit.bench;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;

/** The steady window of the upsert benchmark: first checkpoint to the last one completed while the source ran. */
class UpsertBenchTest {
    private static void completion(String job, long checkpoint, long nanos, long rowsGenerated) {
        UpsertBench.COMPLETED.computeIfAbsent(job, j -> new ConcurrentHashMap<>()).put(checkpoint, nanos);
        UpsertBench.ROWS_AT.computeIfAbsent(job, j -> new ConcurrentHashMap<>()).put(checkpoint, rowsGenerated);
    }

    @Test
    void windowExcludesTheFirstIntervalAndTheCheckpointsAfterTheLastRow() {
        String job = "window_" + System.nanoTime();
        completion(job, 1, 1_000_000_000L, 100);    // start: the first interval (start-up) is before it
        completion(job, 2, 2_000_000_000L, 400);
        completion(job, 3, 3_500_000_000L, 900);    // end: the last completion while the source ran
        completion(job, 4, 4_000_000_000L, 1_000);  // the source had finished: end of input, outside
        completion(job, 5, 4_200_000_000L, 1_000);
        long[] w = UpsertBench.window(job, 1_000);
        assertArrayEquals(new long[] {800, 2_500_000_000L, 2}, w);
    }

    @Test
    void noWindowWithFewerThanTwoCheckpointsWhileTheSourceRan() {
        String job = "short_" + System.nanoTime();
        completion(job, 1, 1_000_000_000L, 500);
        completion(job, 2, 2_000_000_000L, 1_000);
        assertNull(UpsertBench.window(job, 1_000));
        assertNull(UpsertBench.window("never_ran", 1_000));
    }

    @Test
    void aCheckpointWhoseNoticeTheProbeDidNotRecordIsSkipped() {
        String job = "gap_" + System.nanoTime();
        completion(job, 1, 1_000_000_000L, 100);
        completion(job, 3, 3_000_000_000L, 700);
        UpsertBench.ROWS_AT.get(job).put(2L, 400L); // rows recorded, completion time missing
        Map<Long, Long> done = UpsertBench.COMPLETED.get(job);
        assertFalse(done.containsKey(2L));
        assertArrayEquals(new long[] {600, 2_000_000_000L, 1}, UpsertBench.window(job, 1_000));
    }

    @Test
    void aBadOrderIsRefusedBeforeAnyJobRuns() {
        assertEquals(Map.of("sc", java.util.List.of("sc_1", "sc_4"), "paimon", java.util.List.of("paimon_2", "paimon_3")),
                     UpsertBench.jobs("sc,paimon,paimon,sc".split(",")));
        for (String bad : new String[] {"sc,sc", "sc,paimon,sc", "sc,pamion", "paimon"})
            assertThrows(IllegalArgumentException.class, () -> UpsertBench.jobs(bad.split(",")), bad);
    }
}

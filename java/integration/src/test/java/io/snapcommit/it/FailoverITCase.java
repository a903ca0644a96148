package io.snapcommit.it;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

import io.snapcommit.demo.CollectingReporter;
import io.snapcommit.demo.TableContents;
import io.snapcommit.flink.internal.CommitterTestHooks;
import io.snapcommit.jni.SnapshotInfo;

/** Failover: replays after restore are filtered natively; every row lands exactly once. */
class FailoverITCase extends ITBase {

    @Test
    void taskFailureMidStreamKeepsExactlyOnce() throws Exception {
        String table = table("failover");
        long rows = 1200, failAfter = 200;
        StreamExecutionEnvironment env = env("200 ms", Map.of());
        sink(table).uidPrefix("fo").build()
            .sinkTo(generate(env, "fo", rows, 300).map(new FailOnceMap(failAfter)).uid("fail-once"));
        long t0 = System.currentTimeMillis();
        env.execute(testName);
        long ms = System.currentTimeMillis() - t0;

        List<SnapshotInfo> log = TableContents.log(table);
        assertIdentifiersIncreasing(log);
        assertEquals(1, log.stream().map(SnapshotInfo::commitUser).distinct().count(), "commit user changed: " + log);
        assertExactlyOnce(table, "fo", rows);
        assertEquals(rows, log.get(log.size() - 1).totalRecordCount());
        long written = CollectingReporter.counter(testName, "rowsWritten");
        assertTrue(written >= rows, "writers wrote " + written + " rows");
        summary(String.format("failover (map throws once after %d rows of subtask 0, attempt 0): %d rows generated, "
                              + "%d rows flushed into data files by writers, %d live rows, %d snapshots, %d ms; %s",
                              failAfter, rows, written, TableContents.liveRows(table).size(), log.size(), ms,
                              metricsLine(testName)));
    }

    @Test
    void commitThatSucceededBeforeTheFailureIsFilteredOnReplay() throws Exception {
        String table = table("replay");
        long rows = 1000;
        AtomicLong failedAt = new AtomicLong(-1);
        CommitterTestHooks.afterCommit = (t, user, identifier, snapshot) -> {
            // The native commit landed; the job dies before the committer can acknowledge it.
            if (t.equals(table) && identifier >= 2 && failedAt.compareAndSet(-1, identifier)) {
                throw new IllegalStateException("injected failure after committing checkpoint " + identifier
                                                + " as snapshot " + snapshot);
            }
        };
        StreamExecutionEnvironment env = env("200 ms", Map.of());
        sink(table).uidPrefix("replay").build().sinkTo(generate(env, "r", rows, 300));
        env.execute(testName);

        assertTrue(failedAt.get() >= 2, "the hook never fired");
        List<SnapshotInfo> log = TableContents.log(table);
        assertIdentifiersIncreasing(log);
        assertEquals(1, log.stream().filter(s -> s.commitIdentifier() == failedAt.get()).count(),
                     "checkpoint " + failedAt.get() + " committed " + log);
        long filtered = CollectingReporter.counter(testName, "filteredReplays");
        assertTrue(filtered >= 1, "the replayed commit was not filtered");
        assertExactlyOnce(table, "r", rows);
        summary(String.format("commit acknowledged after a failure: checkpoint %d committed natively, job failed, "
                              + "replay filtered %d time(s); %d rows exactly once in %d snapshots; %s",
                              failedAt.get(), filtered, rows, log.size(), metricsLine(testName)));
    }
}

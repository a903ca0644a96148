package io.snapcommit.it;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

import io.snapcommit.demo.CollectingReporter;
import io.snapcommit.demo.TableContents;
import io.snapcommit.flink.CommitEvent;
import io.snapcommit.flink.CommitListener;
import io.snapcommit.jni.SnapshotInfo;

/** Failover: replays after restore are filtered natively; every row lands exactly once. */
class FailoverITCase extends ITBase {

    @Test
    void taskFailureMidStreamKeepsExactlyOnce() throws Exception {
        String table = table("failover");
        long rows = 1200, failAfter = 200;
        StreamExecutionEnvironment env = env("200 ms", Map.of());
        sink(table).uidPrefix("fo").build()
            .sinkTo(rows(generate(env, "fo", rows, 300).map(new FailOnceMap(failAfter)).uid("fail-once")));
        long t0 = System.currentTimeMillis();
        env.execute(testName);
        long ms = System.currentTimeMillis() - t0;

        List<SnapshotInfo> log = TableContents.log(table);
        assertIdentifiersIncreasing(log);
        assertEquals(1, log.stream().map(SnapshotInfo::commitUser).distinct().count(), "commit user changed: " + log);
        assertExactlyOnce(table, "fo", rows);
        assertPypaimonReads(table, "fo", rows, null);
        assertEquals(rows, log.get(log.size() - 1).totalRecordCount());
        long written = CollectingReporter.counter(testName, "rowsWritten");
        assertTrue(written >= rows, "writers wrote " + written + " rows");
        summary(String.format("failover (map throws once after %d rows of subtask 0, attempt 0): %d rows generated, "
                              + "%d rows flushed into data files by writers, %d live rows, %d snapshots, %d ms; %s",
                              failAfter, rows, written, TableContents.liveRows(table).size(), log.size(), ms,
                              metricsLine(testName)));
    }

    /** Checkpoint at which FailOnceAfterCommit failed the committer, per table. */
    static final Map<String, Long> FAILED_AT = new ConcurrentHashMap<>();
    /** Snapshot ids reported to FailOnceAfterCommit, per table, in call order. */
    static final Map<String, List<Long>> REPORTED = new ConcurrentHashMap<>();

    /**
     * A commit listener that throws once, for the first checkpoint >= 2: the native commit has landed,
     * and the committer task dies before it records it. The sink ships a serialized copy to the
     * committer (same JVM on the MiniCluster), so the outcome goes through the static map.
     */
    static final class FailOnceAfterCommit implements CommitListener {
        private static final long serialVersionUID = 1L;

        @Override
        public void onCommitted(CommitEvent event) {
            REPORTED.computeIfAbsent(event.table(), t -> new CopyOnWriteArrayList<>()).add(event.snapshotId());
            if (event.checkpointId() >= 2 && FAILED_AT.putIfAbsent(event.table(), event.checkpointId()) == null) {
                throw new IllegalStateException("injected failure after committing checkpoint " + event.checkpointId()
                                                + " as snapshot " + event.snapshotId());
            }
        }
    }

    @Test
    void commitThatSucceededBeforeTheFailureIsFilteredOnReplay() throws Exception {
        String table = table("replay");
        long rows = 1000;
        StreamExecutionEnvironment env = env("200 ms", Map.of());
        sink(table).uidPrefix("replay").commitListener(new FailOnceAfterCommit()).build()
            .sinkTo(rows(generate(env, "r", rows, 300)));
        env.execute(testName);

        String location = sink(table).build().config().location();
        Long failedAt = FAILED_AT.get(location);
        assertNotNull(failedAt, "the commit listener never failed the committer");
        List<SnapshotInfo> log = TableContents.log(table);
        // The listener saw every snapshot once, the one whose acknowledgement failed included, and
        // not the filtered replay of it.
        assertEquals(log.stream().map(SnapshotInfo::id).collect(Collectors.toList()), REPORTED.get(location));
        assertIdentifiersIncreasing(log);
        assertEquals(1, log.stream().filter(s -> s.commitIdentifier() == failedAt).count(),
                     "checkpoint " + failedAt + " committed " + log);
        long filtered = CollectingReporter.counter(testName, "filteredReplays");
        assertTrue(filtered >= 1, "the replayed commit was not filtered");
        assertExactlyOnce(table, "r", rows);
        summary(String.format("commit acknowledged after a failure: checkpoint %d committed natively, job failed, "
                              + "replay filtered %d time(s); %d rows exactly once in %d snapshots; %s",
                              failedAt, filtered, rows, log.size(), metricsLine(testName)));
    }
}

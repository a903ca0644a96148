package io.snapcommit.it;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.junit.jupiter.api.Test;

import io.snapcommit.demo.TableContents;
import io.snapcommit.jni.SnapshotInfo;

/**
 * Jobs the sink cannot serve correctly are refused before they are submitted, with a message naming
 * the setting to change (checkpointing off with an unbounded source, at-least-once checkpoints, a
 * relative path, a strategy the scheme cannot honour); valid configurations run and commit.
 */
class GuardRailsITCase extends ITBase {

    /** Declares the wrapped source unbounded (Flink's generator sources are bounded); it still ends. */
    static final class DeclaredUnbounded<T, S extends SourceSplit, E> implements Source<T, S, E> {
        private static final long serialVersionUID = 1L;
        private final Source<T, S, E> inner;

        DeclaredUnbounded(Source<T, S, E> inner) {
            this.inner = inner;
        }

        @Override public Boundedness getBoundedness() { return Boundedness.CONTINUOUS_UNBOUNDED; }
        @Override public SourceReader<T, S> createReader(SourceReaderContext c) throws Exception { return inner.createReader(c); }
        @Override public SplitEnumerator<S, E> createEnumerator(SplitEnumeratorContext<S> c) throws Exception {
            return inner.createEnumerator(c);
        }
        @Override public SplitEnumerator<S, E> restoreEnumerator(SplitEnumeratorContext<S> c, E cp) throws Exception {
            return inner.restoreEnumerator(c, cp);
        }
        @Override public SimpleVersionedSerializer<S> getSplitSerializer() { return inner.getSplitSerializer(); }
        @Override public SimpleVersionedSerializer<E> getEnumeratorCheckpointSerializer() {
            return inner.getEnumeratorCheckpointSerializer();
        }
    }

    /** Rows {"id":N,"tag":"T"} for N in [0, count) from a source that declares itself unbounded. */
    static DataStream<String> unboundedGenerate(StreamExecutionEnvironment env, String tag, long count, double rate) {
        DataGeneratorSource<String> src = new DataGeneratorSource<>(
            id -> "{\"id\":" + id + ",\"tag\":\"" + tag + "\"}", count, RateLimiterStrategy.perSecond(rate), Types.STRING);
        return env.fromSource(new DeclaredUnbounded<>(src), WatermarkStrategy.noWatermarks(), "unbounded-" + tag,
                              Types.STRING).uid("unbounded-" + tag);
    }

    private static String messages(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) sb.append(c.getMessage()).append('\n');
        return sb.toString();
    }

    private static void assertContains(String text, String... parts) {
        for (String p : parts) assertTrue(text.contains(p), "expected \"" + p + "\" in: " + text);
    }

    /** A DataStream job is checked when execute() builds the job graph, before anything is submitted. */
    @Test
    void dataStreamWithoutCheckpointingOnAnUnboundedSourceIsRefused() {
        String table = table("no-checkpoints");
        StreamExecutionEnvironment env = env(null, Map.of());
        sink(table).uidPrefix("nc").build().sinkTo(rows(unboundedGenerate(env, "n", 100, 1000)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> env.execute(testName));
        assertContains(e.getMessage(), "checkpointing is disabled", "execution.checkpointing.interval",
                       "before env.execute()", table);
        assertFalse(Files.exists(Paths.get(table)), "nothing may be created for a refused job");
    }

    @Test
    void dataStreamWithAtLeastOnceCheckpointsIsRefused() {
        String table = table("at-least-once");
        StreamExecutionEnvironment env = env("200 ms", Map.of("execution.checkpointing.mode", "AT_LEAST_ONCE"));
        sink(table).uidPrefix("alo").build().sinkTo(rows(unboundedGenerate(env, "a", 100, 1000)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> env.execute(testName));
        assertContains(e.getMessage(), "AT_LEAST_ONCE", "execution.checkpointing.mode = EXACTLY_ONCE");
        assertFalse(Files.exists(Paths.get(table)), "nothing may be created for a refused job");
    }

    /** Flink accepts checkpointing enabled after the sinks are added; the sink does too, and commits. */
    @Test
    void dataStreamCheckpointingEnabledAfterSinkToRunsAndCommits() throws Exception {
        String table = table("late-checkpointing");
        StreamExecutionEnvironment env = env(null, Map.of());
        sink(table).uidPrefix("late").build().sinkTo(rows(unboundedGenerate(env, "late", 400, 1000)));
        env.enableCheckpointing(200);
        env.execute(testName);
        assertExactlyOnce(table, "late", 400);
        assertFalse(TableContents.log(table).isEmpty());
    }

    /**
     * The strategy must suit the scheme, checked when the statement is planned (no native I/O): a
     * local table refuses conditional and head (they need S3 conditional writes), names the option
     * and the values allowed; an allowed pair (tracker on a local path) runs and commits.
     */
    @Test
    void sqlStrategyThatTheSchemeCannotHonourFailsAtPlanning() throws Exception {
        StreamTableEnvironment t = StreamTableEnvironment.create(env("200 ms", Map.of()));
        for (String strategy : new String[] {"conditional", "head"}) {
            String table = table("sql-" + strategy);
            t.executeSql("CREATE TABLE s_" + strategy + " (id BIGINT) WITH ('connector' = 'snapcommit', 'path' = '"
                         + table + "', 'commit.strategy' = '" + strategy + "')");
            ValidationException e = assertThrows(ValidationException.class,
                                                 () -> t.executeSql("INSERT INTO s_" + strategy + " VALUES (1)"));
            assertContains(messages(e), "Invalid options for snapcommit table", "commit.strategy " + strategy,
                           "needs S3 conditional writes", "use auto, rename or tracker", table);
            assertFalse(Files.exists(Paths.get(table)), "nothing may be created for a refused statement");
        }
        String table = table("sql-tracker");
        t.executeSql("CREATE TABLE s_tracker (id BIGINT) WITH ('connector' = 'snapcommit', 'path' = '" + table
                     + "', 'commit.strategy' = 'tracker')");
        t.executeSql("INSERT INTO s_tracker VALUES (1), (2)").await();
        assertEquals(2, TableContents.liveRows(table).size());
    }

    @Test
    void dataStreamWithCheckpointsOnAnUnboundedSourceRunsAndCommits() throws Exception {
        String table = table("valid");
        StreamExecutionEnvironment env = env("200 ms", Map.of());
        sink(table).uidPrefix("ok").build().sinkTo(rows(unboundedGenerate(env, "ok", 400, 1000)));
        env.execute(testName);
        assertExactlyOnce(table, "ok", 400);
        assertFalse(TableContents.log(table).isEmpty());
    }

    @Test
    void sqlWithoutCheckpointingOnAnUnboundedSourceFailsAtPlanning() {
        String table = table("sql-no-checkpoints");
        StreamTableEnvironment t = StreamTableEnvironment.create(env(null, Map.of()));
        t.executeSql("CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '10')");
        t.executeSql("CREATE TABLE s (id BIGINT) WITH ('connector' = 'snapcommit', 'path' = '" + table + "')");
        ValidationException e = assertThrows(ValidationException.class,
                                             () -> t.executeSql("INSERT INTO s SELECT id FROM gen"));
        assertContains(messages(e), "Cannot write to snapcommit table s", "checkpointing is disabled",
                       "execution.checkpointing.interval", "execution.runtime-mode = batch");
        assertFalse(Files.exists(Paths.get(table)), "nothing may be created for a refused statement");
    }

    @Test
    void sqlWithAtLeastOnceCheckpointsFailsAtPlanning() {
        StreamTableEnvironment t = StreamTableEnvironment.create(
            env("200 ms", Map.of("execution.checkpointing.mode", "AT_LEAST_ONCE")));
        t.executeSql("CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '10')");
        t.executeSql("CREATE TABLE s (id BIGINT) WITH ('connector' = 'snapcommit', 'path' = '" + table("alo") + "')");
        ValidationException e = assertThrows(ValidationException.class,
                                             () -> t.executeSql("INSERT INTO s SELECT id FROM gen"));
        assertContains(messages(e), "AT_LEAST_ONCE", "execution.checkpointing.mode = EXACTLY_ONCE");
    }

    @Test
    void sqlRelativePathFailsAtPlanning() {
        StreamTableEnvironment t = StreamTableEnvironment.create(env("200 ms", Map.of()));
        t.executeSql("CREATE TABLE r (id BIGINT) WITH ('connector' = 'snapcommit', 'path' = 'tables/r')");
        ValidationException e = assertThrows(ValidationException.class, () -> t.executeSql("INSERT INTO r VALUES (1)"));
        assertContains(messages(e), "'tables/r' is relative", "absolute path", "file:///");
        assertFalse(Files.exists(Paths.get("tables/r")), "nothing may be created for a refused statement");
    }

    /**
     * Checkpointing set in the table configuration only (as SQL's SET does), not on the environment:
     * the check sees it, the unbounded job runs and commits at checkpoints until cancelled.
     */
    @Test
    void sqlCheckpointingSetInTheTableConfigIsSeen() throws Exception {
        String table = table("sql-valid");
        StreamTableEnvironment t = StreamTableEnvironment.create(env(null, Map.of()));
        t.getConfig().set("execution.checkpointing.interval", "200 ms");
        t.executeSql("CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '50')");
        t.executeSql("CREATE TABLE s (id BIGINT) WITH ('connector' = 'snapcommit', 'path' = '" + table + "')");
        TableResult result = t.executeSql("INSERT INTO s SELECT id FROM gen");
        JobClient job = result.getJobClient().orElseThrow();
        try {
            waitUntil("two snapshots of the unbounded INSERT", 60_000, () -> {
                try {
                    return Files.exists(Paths.get(table, "snapshot")) && TableContents.log(table).size() >= 2;
                } catch (RuntimeException e) {
                    return false;
                }
            });
        } finally {
            cancelAndAwait(job); // before the test's temp dir is deleted
        }
        List<SnapshotInfo> log = TableContents.log(table);
        assertIdentifiersIncreasing(log);
    }
}

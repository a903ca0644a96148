package io.snapcommit.it;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.client.JobCancellationException;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

import io.snapcommit.demo.CollectingReporter;
import io.snapcommit.demo.CollectingReporterFactory;
import io.snapcommit.demo.PaimonReader;
import io.snapcommit.demo.TableContents;
import io.snapcommit.flink.SnapcommitSink;
import io.snapcommit.flink.paimon.PaimonTableSpec;
import io.snapcommit.jni.NativeTable;
import io.snapcommit.jni.SnapshotInfo;

/** A MiniCluster (1 task manager, 4 slots) per test class, with the collecting metric reporter. */
abstract class ITBase {
    static final int SLOTS = 4;

    @RegisterExtension
    static final MiniClusterExtension MINI = new MiniClusterExtension(() -> new MiniClusterResourceConfiguration.Builder()
        .setNumberTaskManagers(1)
        .setNumberSlotsPerTaskManager(SLOTS)
        .setConfiguration(Configuration.fromMap(Map.of(
            "metrics.reporter.collect.factory.class", CollectingReporterFactory.class.getName())))
        .build());

    @TempDir Path tmp;
    String testName;

    @BeforeEach
    void name(TestInfo info) {
        testName = getClass().getSimpleName() + "-" + info.getTestMethod().map(m -> m.getName()).orElse("test");
    }

    /** An environment on the MiniCluster: parallelism 2, checkpoints every interval, fixed-delay restarts. */
    static StreamExecutionEnvironment env(String checkpointInterval, Map<String, String> extra) {
        Map<String, String> s = new HashMap<>();
        if (checkpointInterval != null) s.put("execution.checkpointing.interval", checkpointInterval);
        s.put("restart-strategy.type", "fixed-delay");
        s.put("restart-strategy.fixed-delay.attempts", "3");
        s.put("restart-strategy.fixed-delay.delay", "200 ms");
        s.putAll(extra);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(Configuration.fromMap(s));
        env.setParallelism(2);
        return env;
    }

    /** Rows {"id":N,"tag":"T"} for N in [0, count), rate rows/s over all readers. */
    static DataStream<String> generate(StreamExecutionEnvironment env, String tag, long count, double rate) {
        DataGeneratorSource<String> src = new DataGeneratorSource<>(
            id -> "{\"id\":" + id + ",\"tag\":\"" + tag + "\"}", count, RateLimiterStrategy.perSecond(rate), Types.STRING);
        return env.fromSource(src, WatermarkStrategy.noWatermarks(), "generator-" + tag).uid("generator-" + tag);
    }

    /** The tables of the DataStream ITs: (id BIGINT, tag STRING, p BIGINT = id % 2). */
    static final RowType ROW = RowType.of(new LogicalType[] {new BigIntType(), new VarCharType(VarCharType.MAX_LENGTH),
                                                             new BigIntType()}, new String[] {"id", "tag", "p"});

    static SnapcommitSink.Builder sink(String table) {
        return SnapcommitSink.builder().path(table).rowType(ROW);
    }

    /** The generated {"id":N,"tag":"T"} lines as rows of ROW (one map, uid "to-rowdata"). */
    static DataStream<RowData> rows(DataStream<String> lines) {
        return lines.map(ITBase::toRow).returns(InternalTypeInfo.of(ROW)).uid("to-rowdata").name("to-rowdata");
    }

    static RowData toRow(String line) {
        long id = idOf(line);
        int at = line.indexOf("\"tag\":\"") + 7;
        String tag = line.substring(at, line.indexOf('"', at));
        return GenericRowData.of(id, StringData.fromString(tag), id % 2);
    }

    /** The table's Paimon schema, as the native library returns it. */
    static PaimonTableSpec spec(String table, io.snapcommit.jni.StoreConfig storage) {
        try (NativeTable t = NativeTable.openTable(table, storage)) {
            return PaimonTableSpec.fromJson(t.schemaJson());
        }
    }

    /** A Paimon data file name: data-<uuid>-<n>.<format>. */
    static final String DATA_FILE = "data-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-[0-9]+\\.";

    /**
     * A local table in Paimon's filesystem-catalog layout, {@code <tmp>/warehouse/db.db/<name>}, so
     * that Paimon's catalog finds it (PaimonReader).
     */
    String table(String name) {
        return tmp.resolve("warehouse/db.db/" + name).toString();
    }

    /** Paimon catalog options to read a table the tests wrote with storage (null: a local table). */
    static Map<String, String> paimonOptions(String table, io.snapcommit.jni.StoreConfig storage) {
        if (!table.startsWith("s3://")) return Map.of();
        assertNotNull(storage, "an s3:// table is read with the store settings it was written with");
        assertNotNull(storage.endpoint(), "an s3:// table of the tests names its endpoint");
        return PaimonReader.s3Options(storage.endpoint(), storage.accessKey(), storage.secretKey(),
                                      storage.region() == null ? "us-east-1" : storage.region());
    }

    /**
     * The table read by Paimon's own Java reader (PaimonReader: filesystem catalog, batch scan of
     * the latest snapshot, time travel to every snapshot, streaming read from the earliest), its
     * three read paths checked against each other and the snapshots' record counts; one summary
     * line with rows written vs rows Paimon read.
     */
    static PaimonReader.Check paimonCheck(String table, io.snapcommit.jni.StoreConfig storage, long written) {
        return paimonCheck(table, storage, written, null);
    }

    /** As above; with a tag, the rows written and read are those of that tag (a table several jobs write). */
    static PaimonReader.Check paimonCheck(String table, io.snapcommit.jni.StoreConfig storage, long written, String tag) {
        try (PaimonReader r = PaimonReader.open(table, paimonOptions(table, storage))) {
            PaimonReader.Check c = r.check(60_000);
            long read = tag == null ? c.rows.size()
                                    : c.rows.stream().filter(x -> x.contains("\"tag\":\"" + tag + "\"")).count();
            summary(String.format("  paimon-java %s (%s)%s: rows written %d, read %d; %s", r.name(),
                                  table.startsWith("s3://") ? "S3" : "local", tag == null ? "" : " tag " + tag,
                                  written, read, c.summary()));
            return c;
        }
    }

    /** Every id in [0, count) of tag exactly once among the live rows, nothing else of that tag. */
    static void assertExactlyOnce(String table, String tag, long count) {
        assertExactlyOnce(table, tag, count, null);
    }

    /** As above, reading the table with its store's own settings (null = environment). */
    static void assertExactlyOnce(String table, String tag, long count, io.snapcommit.jni.StoreConfig storage) {
        // The judge: Paimon's own reader (batch scan of the latest snapshot; time travel and the
        // streaming read checked against it in paimonCheck).
        assertExactlyOnce(paimonCheck(table, storage, count, tag).rows, tag, count);
        // And the live files of the native log, each read with Paimon's format reader.
        assertExactlyOnce(TableContents.liveRows(table, storage), tag, count);
    }

    /** Every id in [0, count) of tag exactly once among rows, nothing else of that tag. */
    static void assertExactlyOnce(List<String> rows, String tag, long count) {
        Set<Long> ids = new HashSet<>();
        long duplicates = 0, mine = 0;
        for (String r : rows) {
            if (!r.contains("\"tag\":\"" + tag + "\"")) continue;
            mine++;
            if (!ids.add(idOf(r))) duplicates++;
        }
        assertEquals(0, duplicates, "duplicate rows of " + tag);
        assertEquals(count, ids.size(), "distinct rows of " + tag);
        assertEquals(count, mine, "rows of " + tag);
        for (long i = 0; i < count; i++) assertTrue(ids.contains(i), "row " + i + " of " + tag + " missing");
    }

    static long idOf(String row) {
        int at = row.indexOf("\"id\":") + 5;
        int end = at;
        while (end < row.length() && Character.isDigit(row.charAt(end))) end++;
        return Long.parseLong(row.substring(at, end));
    }

    /** Per commit user, identifiers strictly increase with the snapshot id. */
    static void assertIdentifiersIncreasing(List<SnapshotInfo> log) {
        Map<String, Long> last = new HashMap<>();
        for (SnapshotInfo s : log) {
            Long prev = last.put(s.commitUser(), s.commitIdentifier());
            assertTrue(s.commitIdentifier() >= 1, "identifier " + s.commitIdentifier() + " is not a checkpoint id");
            if (prev != null) assertTrue(s.commitIdentifier() > prev, "identifiers not increasing: " + log);
        }
    }

    static void waitUntil(String what, long timeoutMs, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (!condition.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) fail("timed out waiting for " + what);
            Thread.sleep(50);
        }
    }

    /**
     * Cancels job and waits until it has ended. {@link JobClient#cancel()} completes as soon as the
     * cancellation is accepted, with the job still CANCELLING: its writers and committer go on for a
     * few milliseconds more, creating files in the test's {@code @TempDir}, whose clean-up (right
     * after the test method) then fails when a directory it is deleting gains an entry. The job's
     * result exists only once every task has ended; for a cancelled job it is a
     * JobCancellationException, and any other failure of the job is rethrown.
     */
    static void cancelAndAwait(JobClient job) throws Exception {
        job.cancel().get();
        try {
            job.getJobExecutionResult().get(120, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (ExceptionUtils.findThrowable(e, JobCancellationException.class).isEmpty()) throw e;
        }
    }

    /** A line for scripts/flink-test.sh's summary (target/.../snapcommit-it-summary.txt) and the test output. */
    static void summary(String line) {
        String full = "[flink " + System.getProperty("flink.line", "?") + "] " + line;
        System.out.println(full);
        Path out = Paths.get(System.getProperty("snapcommit.summary", "target/snapcommit-it-summary.txt"));
        try {
            Files.createDirectories(out.toAbsolutePath().getParent());
            Files.writeString(out, full + System.lineSeparator(), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            // the summary is a convenience
        }
    }

    static String metricsLine(String job) {
        long[] lat = CollectingReporter.histogram(job, "commitLatencyMs");
        return String.format("commits=%d lostClaims=%d retries=%d conflicts=%d filteredReplays=%d unknownOutcomes=%d "
                             + "commitLatencyMs{n=%d p50=%d p99=%d max=%d} expirations=%d expiredSnapshots=%d "
                             + "expiredFiles=%d expiredBytes=%d expireFailures=%d compactions=%d compactionConflicts=%d "
                             + "compactionFailures=%d compactedFiles=%d->%d lastCompactionDurationMs=%d",
                             CollectingReporter.counter(job, "commits"), CollectingReporter.counter(job, "lostClaims"),
                             CollectingReporter.counter(job, "retries"), CollectingReporter.counter(job, "conflicts"),
                             CollectingReporter.counter(job, "filteredReplays"),
                             CollectingReporter.counter(job, "unknownOutcomes"), lat[0], lat[1], lat[2], lat[3],
                             CollectingReporter.counter(job, "expirations"), CollectingReporter.counter(job, "expiredSnapshots"),
                             CollectingReporter.counter(job, "expiredFiles"), CollectingReporter.counter(job, "expiredBytes"),
                             CollectingReporter.counter(job, "expireFailures"), CollectingReporter.counter(job, "compactions"),
                             CollectingReporter.counter(job, "compactionConflicts"),
                             CollectingReporter.counter(job, "compactionFailures"),
                             CollectingReporter.counter(job, "compactedFilesBefore"),
                             CollectingReporter.counter(job, "compactedFilesAfter"),
                             CollectingReporter.gauge(job, "lastCompactionDurationMs"));
    }

    /**
     * The table read by pypaimon (PyPI, scripts/pypaimon-setup.sh; tests/paimon/pypaimon_read.py, a
     * batch scan of the latest snapshot): every id in [0, count) of tag exactly once. The python is
     * SC_PYPAIMON (scripts/flink-test.sh sets it); without it the check fails, saying so. S3 tables
     * are read with storage's endpoint and keys (AWS_* of the child process only).
     */
    static void assertPypaimonReads(String table, String tag, long count, io.snapcommit.jni.StoreConfig storage)
        throws Exception {
        String py = System.getProperty("SC_PYPAIMON");
        if (py == null || py.isBlank() || py.startsWith("${")) py = System.getenv("SC_PYPAIMON");
        assertTrue(py != null && !py.isBlank() && !py.startsWith("${"),
                   "SC_PYPAIMON is not set: run py=$(scripts/pypaimon-setup.sh) and export SC_PYPAIMON=$py "
                   + "(scripts/flink-test.sh does)");
        Path script = Paths.get(System.getProperty("snapcommit.root", ".."), "tests/paimon/pypaimon_read.py");
        assertTrue(Files.exists(script), script + " not found");
        ProcessBuilder pb = new ProcessBuilder(py, script.toString(), table).redirectErrorStream(false);
        if (table.startsWith("s3://")) {
            Map<String, String> e = pb.environment();
            e.put("AWS_ENDPOINT_URL_S3", storage.endpoint());
            e.put("AWS_ACCESS_KEY_ID", storage.accessKey());
            e.put("AWS_SECRET_ACCESS_KEY", storage.secretKey());
            e.put("AWS_REGION", storage.region() == null ? "us-east-1" : storage.region());
        }
        Path err = Files.createTempFile("pypaimon-", ".err");
        pb.redirectError(err.toFile());
        Process p = pb.start();
        List<String> lines;
        try (java.io.BufferedReader r = new java.io.BufferedReader(
                 new java.io.InputStreamReader(p.getInputStream(), java.nio.charset.StandardCharsets.UTF_8))) {
            lines = r.lines().collect(java.util.stream.Collectors.toList());
        }
        int rc = p.waitFor();
        String stderr = Files.readString(err);
        Files.deleteIfExists(err);
        assertEquals(0, rc, "pypaimon_read.py " + table + " exited " + rc + ": " + stderr);
        assertFalse(lines.isEmpty(), "pypaimon printed nothing");
        String last = lines.remove(lines.size() - 1);
        assertTrue(last.startsWith("{\"summary\""), last);
        assertTrue(last.contains("\"rows\":" + lines.size()), last + " vs " + lines.size() + " rows");
        assertExactlyOnce(lines, tag, count);
        summary(String.format("  pypaimon %s (%s) tag %s: rows written %d, read %d (%s)",
                              table.substring(table.lastIndexOf('/') + 1), table.startsWith("s3://") ? "S3" : "local",
                              tag, count, lines.stream().filter(x -> x.contains("\"tag\":\"" + tag + "\"")).count(), last));
    }

    /**
     * Each snapshot's identifier is a completed checkpoint, or a checkpoint that the committer took
     * its state for and that was then declined (e.g. "task is closing" at the end of a bounded
     * source): its messages stay pending under its own id and are committed with the next completed
     * checkpoint, as Paimon's committer does. So the last snapshot's identifier may be such a declined
     * one too, when the completed checkpoint after it brought nothing new (an empty checkpoint writes
     * no snapshot): it is then below that completed checkpoint, like any other.
     */
    static void assertIdentifiersAreCheckpoints(List<SnapshotInfo> log, java.util.Set<Long> completed) {
        for (SnapshotInfo s : log) {
            long id = s.commitIdentifier();
            assertTrue(completed.contains(id) || completed.stream().anyMatch(c -> c > id),
                       "snapshot " + s.id() + " has identifier " + id + ", below no completed checkpoint " + completed);
        }
    }

    /** Records the checkpoints each test's job saw completed (same JVM as the MiniCluster). */
    static final class CheckpointRecorder extends RichMapFunction<String, String> implements CheckpointListener {
        private static final long serialVersionUID = 1L;
        static final Map<String, Set<Long>> COMPLETED = new ConcurrentHashMap<>();
        private final String key;

        CheckpointRecorder(String key) {
            this.key = key;
        }

        static Set<Long> completed(String key) {
            return COMPLETED.computeIfAbsent(key, k -> new ConcurrentSkipListSet<>());
        }

        @Override
        public String map(String value) {
            return value;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            completed(key).add(checkpointId);
        }
    }

    /** Throws once, after `after` rows, in the first attempt of subtask 0. */
    static final class FailOnceMap extends RichMapFunction<String, String> {
        private static final long serialVersionUID = 1L;
        private final long after;
        private long seen;

        FailOnceMap(long after) {
            this.after = after;
        }

        @Override
        public String map(String value) {
            if (getRuntimeContext().getTaskInfo().getAttemptNumber() == 0
                && getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() == 0 && ++seen == after) {
                throw new IllegalStateException("injected failure after " + after + " rows");
            }
            return value;
        }
    }
}

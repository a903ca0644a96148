package io.snapcommit.it;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;

import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.table.data.RowData;
import org.apache.paimon.Snapshot;

import io.snapcommit.demo.CollectingReporter;
import io.snapcommit.demo.PaimonReader;
import io.snapcommit.demo.TableContents;
import io.snapcommit.demo.UpsertDemo;

/**
 * The primary-key ITs' job and judges: a streaming GROUP BY (count, sum per key) of a source that
 * fails once, upserted into a fixed-bucket table; Paimon's batch read, and its streaming read
 * folded by row kind.
 */
abstract class PrimaryKeyITBase extends ITBase {
    static final long ROWS = 600, KEYS = 7;

    StreamTableEnvironment tableEnv(StreamExecutionEnvironment env) {
        return StreamTableEnvironment.create(env);
    }

    String create(StreamTableEnvironment t, String name, String columns, String options) {
        String path = table(name);
        t.executeSql("CREATE TABLE " + name + " (" + columns + ") WITH ('connector' = 'snapcommit', 'path' = '" + path
                     + "'" + (options.isEmpty() ? "" : ", " + options) + ")");
        return path;
    }

    /** Rows (k = id % KEYS, v = id) of the generator, through a map that fails once after 150 rows. */
    static void failingSource(StreamExecutionEnvironment env, StreamTableEnvironment t, String tag) {
        DataStream<Row> src = generate(env, tag, ROWS, 300).map(new FailOnceMap(150)).uid("fail-once")
            .map(line -> Row.of(idOf(line) % KEYS, idOf(line)))
            .returns(Types.ROW_NAMED(new String[] {"k", "v"}, Types.LONG, Types.LONG)).uid("to-row");
        t.createTemporaryView("src", t.fromDataStream(src));
    }

    /** count and sum of v per k over the generated ids, as Paimon renders the rows of (k, cnt, total). */
    static List<String> model() {
        return UpsertDemo.model(ROWS, KEYS); // the demo's GROUP BY over the same ids (keys < 10: string order = key order)
    }

    static List<String> sorted(List<String> rows) {
        List<String> s = new ArrayList<>(rows);
        Collections.sort(s);
        return s;
    }

    static List<String> batch(String table) {
        try (PaimonReader r = PaimonReader.open(table, Map.of())) {
            return sorted(r.rows());
        }
    }

    /** Paimon's streaming read from snapshot 1 over every snapshot, folded by row kind into a state. */
    static List<String> streamFolded(String table) {
        try (PaimonReader r = PaimonReader.open(table, Map.of())) {
            List<String> state = new ArrayList<>();
            for (String row : r.changelog(1, 30_000)) {
                String kind = row.substring(0, 2), value = row.substring(3);
                if (kind.equals("+I") || kind.equals("+U")) state.add(value);
                else assertTrue(state.remove(value), "a " + kind + " of a row not in the state: " + row + " " + state);
            }
            return sorted(state);
        }
    }

    /** The aggregate (count, sum per key) of a failing source upserted into a fixed-bucket PK table. */
    String aggregateWithFailover(String name, String options) throws Exception {
        StreamExecutionEnvironment env = env("200 ms", Map.of());
        StreamTableEnvironment t = tableEnv(env);
        failingSource(env, t, name);
        String path = create(t, name, "k BIGINT, cnt BIGINT, total BIGINT, PRIMARY KEY (k) NOT ENFORCED",
                             "'bucket' = '2'" + (options.isEmpty() ? "" : ", " + options));
        t.executeSql("INSERT INTO " + name + " SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k").await();
        assertEquals(model(), batch(path), "Paimon's batch read of " + name);
        return path;
    }


    /** Distinct ids of rows ({"id":N,...}), sorted. */
    static List<Long> ids(List<String> rows) {
        List<Long> ids = new ArrayList<>();
        for (String r : rows) ids.add(idOf(r));
        Collections.sort(ids);
        return ids;
    }

    /** Whether any snapshot of the table carries changelog files. */
    static boolean anyChangelog(String table) {
        try (PaimonReader r = PaimonReader.open(table, Map.of())) {
            for (Snapshot s : r.snapshots()) if (s.changelogManifestList() != null) return true;
            return false;
        }
    }

    /** Job 1 of {@link #restoreWithoutNewRows}, or job 2 with its source dropping every row. */
    private static void restoreTopology(StreamExecutionEnvironment env, String table, String name,
                                        Map<String, String> options, boolean noRows) {
        DataStream<RowData> in = rows(generate(env, noRows ? name + "-none" : name, noRows ? 1 : 1_000_000, 200));
        if (noRows) in = in.filter(r -> false).uid("drop-all");
        io.snapcommit.flink.SnapcommitSink.Builder b = sink(table).primaryKeys("id").option("bucket", "2").uidPrefix(name);
        options.forEach(b::option);
        b.build().sinkTo(in);
    }

    /**
     * A primary-key table (id, tag, p; bucket 2) written by job 1 until it is stopped with a
     * savepoint (its only checkpoint, so its writers hold every row in memory until then and
     * commit one level-0 file per bucket); {@code afterFirst} then looks at the table. Job 2,
     * restored from the savepoint, writes no row and ends: what it commits comes from the writers'
     * restored state alone.
     */
    String restoreWithoutNewRows(MiniCluster cluster, String name, Map<String, String> options,
                                 java.util.function.Consumer<String> afterFirst) throws Exception {
        String table = table(name);
        StreamExecutionEnvironment first = env("1 h", Map.of());
        restoreTopology(first, table, name, options, false);
        JobClient job = first.executeAsync(testName + "-first");
        waitUntil("rows written", 60_000, () -> CollectingReporter.counter(testName + "-first", "rowsWritten") >= 40);
        String savepoint = null;
        for (int attempt = 0; savepoint == null; attempt++) {
            try {
                savepoint = cluster.stopWithSavepoint(job.getJobID(), tmp.resolve("savepoints").toUri().toString(),
                                                      false, SavepointFormatType.CANONICAL).get();
            } catch (java.util.concurrent.ExecutionException e) {
                // The sources may write before the last task of the job runs: no checkpoint until it does.
                if (attempt >= 50 || !String.valueOf(e.getMessage()).contains("Not all required tasks are currently running"))
                    throw e;
                Thread.sleep(100);
            }
        }
        job.getJobExecutionResult().get();
        assertFalse(TableContents.log(table).isEmpty(), "the savepoint committed nothing");
        afterFirst.accept(table);

        StreamExecutionEnvironment second = env("200 ms", Map.of(
            StateRecoveryOptions.SAVEPOINT_PATH.key(), savepoint,
            StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE.key(), "true"));
        restoreTopology(second, table, name, options, true);
        second.execute(testName + "-second");
        assertEquals(0, CollectingReporter.counter(testName + "-second", "rowsWritten"), "job 2 wrote rows");
        return table;
    }
}

package io.snapcommit.it;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.paimon.Snapshot;
import org.junit.jupiter.api.Test;

import io.snapcommit.demo.CollectingReporter;
import io.snapcommit.demo.PaimonReader;
import io.snapcommit.demo.TableContents;
import io.snapcommit.jni.NativeTable;
import io.snapcommit.jni.SnapshotInfo;

/**
 * Primary-key tables with fixed buckets: a streaming aggregate upserted through a failover, the
 * changelog producers lookup and input, deletion vectors, and the merge engines; every table read
 * back by Paimon 1.4.2's own reader (batch scan, and its streaming read folded by row kind).
 */
class PrimaryKeyITCase extends PrimaryKeyITBase {
    @Test
    void streamingAggregateUpsertedThroughAFailover() throws Exception {
        String path = aggregateWithFailover("agg", "");
        try (PaimonReader r = PaimonReader.open(path, Map.of())) {
            assertTrue(r.snapshots().size() > 1, "several checkpoints committed: " + r.snapshots().size());
        }
        summary("pk agg (GROUP BY upsert, map fails once): Paimon's batch read equals the model " + model());
    }

    @Test
    void lookupChangelogFoldsToTheTableState() throws Exception {
        String path = aggregateWithFailover("lk", "'changelog-producer' = 'lookup'");
        assertEquals(model(), streamFolded(path), "Paimon's streaming read (lookup changelog) folded by row kind");
        summary("pk lookup changelog: streaming read folded by row kind equals the batch read and the model");
    }

    @Test
    void inputChangelogFoldsToTheTableState() throws Exception {
        String path = aggregateWithFailover("inp", "'changelog-producer' = 'input'");
        assertEquals(model(), streamFolded(path), "Paimon's streaming read (input changelog) folded by row kind");
        summary("pk input changelog: streaming read folded by row kind equals the batch read and the model");
    }

    @Test
    void deletionVectorsApplyDeletes() throws Exception {
        String path = aggregateWithFailover("dv", "'deletion-vectors.enabled' = 'true'");
        // A second job deletes keys 1 and 3 of the files the first job wrote.
        StreamExecutionEnvironment env = env("200 ms", Map.of());
        StreamTableEnvironment t = tableEnv(env);
        // The source has no upsert key, so the planner would materialize; Paimon's sink (and ours) refuse that.
        t.getConfig().set("table.exec.sink.upsert-materialize", "NONE");
        DataStream<Row> deletes = env.fromData(Row.ofKind(RowKind.DELETE, 1L, 0L, 0L), Row.ofKind(RowKind.DELETE, 3L, 0L, 0L))
            .returns(Types.ROW_NAMED(new String[] {"k", "cnt", "total"}, Types.LONG, Types.LONG, Types.LONG));
        // A retract-mode changelog (an upsert source would go through ChangelogNormalize, which drops
        // deletes of keys it never saw): the DELETE rows reach the sink as they are.
        t.createTemporaryView("dels", t.fromChangelogStream(deletes, Schema.newBuilder().build(), ChangelogMode.all()));
        create(t, "dv", "k BIGINT, cnt BIGINT, total BIGINT, PRIMARY KEY (k) NOT ENFORCED",
               "'bucket' = '2', 'deletion-vectors.enabled' = 'true'");
        t.executeSql("INSERT INTO dv SELECT * FROM dels").await();
        List<String> want = new ArrayList<>(model());
        want.removeIf(r -> r.startsWith("{\"k\":1,") || r.startsWith("{\"k\":3,"));
        assertEquals(want, batch(path), "Paimon's batch read after the deletes");
        try (PaimonReader r = PaimonReader.open(path, Map.of())) {
            List<Snapshot> s = r.snapshots();
            assertNotNull(s.get(s.size() - 1).indexManifest(), "deletion vectors are in the index manifest: " + s);
        }
        summary("pk deletion vectors: a second job's DELETEs of keys 1 and 3 applied in Paimon's batch read");
    }

    private void run(StreamTableEnvironment t, String sql) throws Exception {
        t.executeSql(sql).await();
    }

    @Test
    void mergeEngines() throws Exception {
        StreamExecutionEnvironment env = env("200 ms", Map.of());
        StreamTableEnvironment t = tableEnv(env);

        String pu = create(t, "pu", "id BIGINT, a STRING, b STRING, PRIMARY KEY (id) NOT ENFORCED",
                           "'bucket' = '1', 'merge-engine' = 'partial-update'");
        run(t, "INSERT INTO pu (id, a) VALUES (1, 'a1'), (2, 'a2')");
        run(t, "INSERT INTO pu (id, b) VALUES (1, 'b1')");
        assertEquals(List.of("{\"id\":1,\"a\":\"a1\",\"b\":\"b1\"}", "{\"id\":2,\"a\":\"a2\",\"b\":null}"), batch(pu));

        String ag = create(t, "ag", "id BIGINT, v BIGINT, PRIMARY KEY (id) NOT ENFORCED",
                           "'bucket' = '2', 'merge-engine' = 'aggregation', 'fields.v.aggregate-function' = 'sum'");
        run(t, "INSERT INTO ag VALUES (1, 10), (2, 5)");
        run(t, "INSERT INTO ag VALUES (1, 7)");
        assertEquals(List.of("{\"id\":1,\"v\":17}", "{\"id\":2,\"v\":5}"), batch(ag));

        String fr = create(t, "fr", "id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED",
                           "'bucket' = '2', 'merge-engine' = 'first-row'");
        run(t, "INSERT INTO fr VALUES (1, 'x'), (2, 'y')");
        run(t, "INSERT INTO fr VALUES (1, 'later'), (3, 'z')");
        assertEquals(List.of("{\"id\":1,\"v\":\"x\"}", "{\"id\":2,\"v\":\"y\"}", "{\"id\":3,\"v\":\"z\"}"), batch(fr));

        String sq = create(t, "sq", "id BIGINT, v STRING, ts BIGINT, PRIMARY KEY (id) NOT ENFORCED",
                           "'bucket' = '2', 'sequence.field' = 'ts'");
        run(t, "INSERT INTO sq VALUES (1, 'new', 2), (1, 'old', 1), (2, 'two', 5)");
        run(t, "INSERT INTO sq VALUES (1, 'older', 0), (2, 'newer', 6)");
        assertEquals(List.of("{\"id\":1,\"v\":\"new\",\"ts\":2}", "{\"id\":2,\"v\":\"newer\",\"ts\":6}"), batch(sq));
        summary("pk merge engines: partial-update, aggregation (sum), first-row, sequence.field read back by Paimon");
    }

    @Test
    void sinkMaterializerIsRefusedAsPaimonRefusesIt() {
        StreamExecutionEnvironment env = env("200 ms", Map.of());
        StreamTableEnvironment t = tableEnv(env);
        t.getConfig().set("table.exec.sink.upsert-materialize", "FORCE");
        create(t, "mat", "id BIGINT, v BIGINT, PRIMARY KEY (id) NOT ENFORCED", "'bucket' = '2'");
        Throwable e = assertThrows(ValidationException.class,
            () -> t.executeSql("INSERT INTO mat SELECT v, COUNT(*) FROM (VALUES (1, 2), (3, 4)) AS s (id, v) GROUP BY v")
                   .await());
        StringBuilder m = new StringBuilder();
        for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) m.append(c.getMessage()).append('\n');
        assertTrue(m.toString().contains("set 'table.exec.sink.upsert-materialize' to 'NONE'"), m.toString());
    }

    /** The highest attempt number a task of the restored job ran with (0: it never restarted). */
    static final java.util.concurrent.atomic.AtomicInteger MAX_ATTEMPT = new java.util.concurrent.atomic.AtomicInteger(-1);

    static final class AttemptRecorder extends RichMapFunction<RowData, RowData> {
        private static final long serialVersionUID = 1L;

        @Override
        public RowData map(RowData row) {
            MAX_ATTEMPT.accumulateAndGet(getRuntimeContext().getTaskInfo().getAttemptNumber(), Math::max);
            return row;
        }
    }

    private void restoreFailTopology(StreamExecutionEnvironment env, String table) {
        DataStream<RowData> in = rows(generate(env, "rf", 1_000_000, 100)).map(new AttemptRecorder())
            .returns(InternalTypeInfo.of(ROW)).uid("attempts");
        sink(table).primaryKeys("id").option("bucket", "2").uidPrefix("rf").build().sinkTo(in);
    }

    /**
     * An intermediate savepoint is not committed (Flink notifies no task of it), so a job restored
     * from it finds the savepoint's checkpoint pending: its committer commits it on restore and then,
     * the table having a primary key, fails once on purpose (Paimon's
     * RestoreAndFailCommittableStateManager) so that the writers restart on the new snapshot; the
     * next restore finds it committed and the job goes on.
     */
    @Test
    void committingRestoredCheckpointsFailsOnceSoWritersRestart(@InjectMiniCluster MiniCluster cluster) throws Exception {
        String table = table("rf");
        StreamExecutionEnvironment first = env("1 h", Map.of()); // no checkpoint of its own: only the savepoint
        restoreFailTopology(first, table);
        JobClient job = first.executeAsync(testName + "-first");
        waitUntil("the committer opened the table and rows were written", 60_000, () -> {
            try (NativeTable t = NativeTable.openTable(table)) {
                return CollectingReporter.counter(testName + "-first", "rowsWritten") > 20;
            } catch (RuntimeException e) {
                return false;
            }
        });
        String savepoint = cluster.triggerSavepoint(job.getJobID(), tmp.resolve("savepoints").toUri().toString(),
                                                    false, SavepointFormatType.CANONICAL).get();
        job.cancel().get();
        assertEquals(List.of(), TableContents.log(table), "the intermediate savepoint committed nothing");

        MAX_ATTEMPT.set(-1);
        StreamExecutionEnvironment second = env("200 ms", Map.of(StateRecoveryOptions.SAVEPOINT_PATH.key(), savepoint));
        restoreFailTopology(second, table);
        JobClient restored = second.executeAsync(testName + "-second");
        waitUntil("the restored job committed the savepoint's checkpoint and two checkpoints of its own", 60_000,
                  () -> TableContents.log(table).size() >= 3);
        cancelAndAwait(restored);
        List<SnapshotInfo> log = TableContents.log(table);
        assertIdentifiersIncreasing(log);
        assertTrue(MAX_ATTEMPT.get() >= 1, "the restored job did not restart after committing the restored "
                                           + "checkpoint (max attempt " + MAX_ATTEMPT.get() + "): " + log);
        List<String> rows = batch(table);
        assertEquals(rows.size(), rows.stream().distinct().count(), "Paimon's batch read: " + rows);
        summary("pk restore-and-fail: the savepoint's checkpoint committed on restore, then one restart (max attempt "
                + MAX_ATTEMPT.get() + "), " + log.size() + " snapshots, " + rows.size() + " rows");
    }
}

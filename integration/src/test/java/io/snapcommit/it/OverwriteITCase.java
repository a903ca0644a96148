package io.snapcommit.it;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.junit.jupiter.api.Test;

import io.snapcommit.demo.PaimonReader;
import io.snapcommit.flink.CommitEvent;
import io.snapcommit.flink.CommitListener;
import io.snapcommit.flink.SnapcommitSink;
import io.snapcommit.demo.TableContents;
import io.snapcommit.jni.CommitKind;
import io.snapcommit.jni.SnapshotInfo;

/**
 * Batch INSERT OVERWRITE through the table sink, as Paimon's FlinkTableSinkBase and
 * FileStoreCommitImpl.overwritePartition do it: a static PARTITION of a primary-key table with
 * fixed buckets, a dynamic overwrite of an append table, a static overwrite with
 * dynamic-partition-overwrite off that empties its partition; read back by Paimon 1.4.2's reader.
 */
class OverwriteITCase extends ITBase {

    private static TableEnvironment batchEnv() {
        return TableEnvironment.create(EnvironmentSettings.inBatchMode());
    }

    private String create(TableEnvironment t, String name, String columns, String options) {
        String path = table(name);
        t.executeSql("CREATE TABLE " + name + " (" + columns + ") PARTITIONED BY (dt) WITH ('connector' = "
                     + "'snapcommit', 'path' = '" + path + "'" + (options.isEmpty() ? "" : ", " + options) + ")");
        return path;
    }

    private static List<String> paimonRows(String table) {
        try (PaimonReader r = PaimonReader.open(table, Map.of())) {
            List<String> rows = new ArrayList<>(r.rows());
            Collections.sort(rows);
            return rows;
        }
    }

    private static CommitKind lastKind(String table) {
        List<SnapshotInfo> log = TableContents.log(table);
        return log.get(log.size() - 1).commitKind();
    }

    @Test
    void staticPartitionOfAPrimaryKeyTable() throws Exception {
        TableEnvironment t = batchEnv();
        String pk = create(t, "pk", "id BIGINT, v STRING, dt STRING, PRIMARY KEY (id, dt) NOT ENFORCED",
                           "'bucket' = '2'");
        t.executeSql("INSERT INTO pk VALUES (1, 'a', '2024-01-01'), (2, 'b', '2024-01-01'), (3, 'c', '2024-01-02')")
            .await();
        t.executeSql("INSERT OVERWRITE pk PARTITION (dt = '2024-01-01') SELECT id * 10, v FROM "
                     + "(VALUES (CAST(1 AS BIGINT), 'x'), (CAST(2 AS BIGINT), 'y')) AS s (id, v) WHERE id = 1").await();
        assertEquals(List.of("{\"id\":10,\"v\":\"x\",\"dt\":\"2024-01-01\"}", "{\"id\":3,\"v\":\"c\",\"dt\":\"2024-01-02\"}"),
                     paimonRows(pk));
        assertEquals(CommitKind.OVERWRITE, lastKind(pk));
        summary("overwrite: static PARTITION of a fixed-bucket primary-key table read back by Paimon");
    }

    @Test
    void dynamicOverwriteOfAnAppendTable() throws Exception {
        TableEnvironment t = batchEnv();
        String ap = create(t, "ap", "id BIGINT, dt STRING", "");
        t.executeSql("INSERT INTO ap VALUES (1, 'd1'), (2, 'd1'), (3, 'd2')").await();
        t.executeSql("INSERT OVERWRITE ap VALUES (7, 'd1'), (8, 'd3')").await();
        assertEquals(List.of("{\"id\":3,\"dt\":\"d2\"}", "{\"id\":7,\"dt\":\"d1\"}", "{\"id\":8,\"dt\":\"d3\"}"),
                     paimonRows(ap));
        assertEquals(CommitKind.OVERWRITE, lastKind(ap));
        summary("overwrite: dynamic partitions of an append table read back by Paimon");
    }

    @Test
    void staticOverwriteWithoutDynamicModeEmptiesItsPartition() throws Exception {
        TableEnvironment t = batchEnv();
        String st = create(t, "st", "id BIGINT, dt STRING", "'dynamic-partition-overwrite' = 'false'");
        t.executeSql("INSERT INTO st VALUES (1, 'd1'), (2, 'd2')").await();
        t.executeSql("INSERT OVERWRITE st PARTITION (dt = 'd1') SELECT id FROM (VALUES (CAST(5 AS BIGINT))) AS s (id) "
                     + "WHERE id < 0").await();
        assertEquals(List.of("{\"id\":2,\"dt\":\"d2\"}"), paimonRows(st));
        assertEquals(CommitKind.OVERWRITE, lastKind(st));
    }

    /** Paimon overwrites a dynamic-bucket table with its SimpleHashBucketAssigner, which the sink lacks: refused. */
    @Test
    void anOverwriteOfADynamicBucketPrimaryKeyTableIsRefusedAtPlanning() throws Exception {
        TableEnvironment t = batchEnv();
        String dyn = create(t, "dyn", "id BIGINT, dt STRING, PRIMARY KEY (id, dt) NOT ENFORCED", "");
        t.executeSql("INSERT INTO dyn VALUES (1, 'd1')").await();
        Exception e = assertThrows(Exception.class, () -> t.executeSql("INSERT OVERWRITE dyn VALUES (2, 'd1')").await());
        StringBuilder messages = new StringBuilder();
        for (Throwable c = e; c != null; c = c.getCause()) messages.append(c.getMessage()).append('\n');
        assertTrue(messages.toString().contains("INSERT OVERWRITE of a dynamic-bucket primary-key table"), messages.toString());
        assertEquals(List.of("{\"id\":1,\"dt\":\"d1\"}"), paimonRows(dyn));
        assertEquals(1, TableContents.log(dyn).size(), "nothing committed by the refused statement");
    }

    @Test
    void streamingOverwriteIsRefusedAsPaimonRefusesIt() {
        StreamTableEnvironment t = StreamTableEnvironment.create(env("200 ms", Map.of()));
        String path = table("streaming");
        t.executeSql("CREATE TABLE s (id BIGINT, dt STRING) PARTITIONED BY (dt) WITH ('connector' = 'snapcommit', "
                     + "'path' = '" + path + "')");
        t.executeSql("CREATE TEMPORARY TABLE gen (id BIGINT, dt STRING) WITH ('connector' = 'datagen')");
        Exception e = assertThrows(Exception.class, () -> t.executeSql("INSERT OVERWRITE s SELECT * FROM gen").await());
        StringBuilder messages = new StringBuilder();
        for (Throwable c = e; c != null; c = c.getCause()) messages.append(c.getMessage()).append('\n');
        assertTrue(messages.toString().toLowerCase().contains("overwrite"), messages.toString());
    }

    /** Fails the committer once, right after its first commit to a table (the commit has landed). */
    static final class FailOnceAfterCommit implements CommitListener {
        private static final long serialVersionUID = 1L;
        static final Set<String> FAILED = ConcurrentHashMap.newKeySet();

        @Override
        public void onCommitted(CommitEvent event) {
            if (FAILED.add(event.table()))
                throw new IllegalStateException("injected failure after committing snapshot " + event.snapshotId());
        }
    }

    /**
     * A batch job restarts the committer's region after a failure, and the committer reads the
     * writers' results again: an overwrite that landed before the failure must be filtered, as
     * Paimon's committer filters its end-of-input commit, not applied a second time (which would
     * delete whatever others wrote into those partitions in between).
     */
    @Test
    void aBatchOverwriteThatLandedBeforeAFailureIsNotAppliedAgain() throws Exception {
        String table = table("replayed");
        StreamExecutionEnvironment env = env(null, Map.of("execution.runtime-mode", "BATCH"));
        SnapcommitSink sink = sink(table).partitionKeys("p").commitListener(new FailOnceAfterCommit()).build();
        SnapcommitSink.attachOverwrite(rows(generate(env, "ow", 100, 1000)), sink.config(), sink.tableSpec(), ROW,
                                       "ow", 2, Map.of());
        env.execute(testName);
        assertTrue(FailOnceAfterCommit.FAILED.contains(sink.config().location()), "the committer never failed");
        List<SnapshotInfo> log = TableContents.log(table);
        assertEquals(1, log.size(), "the overwrite was committed again after the restart: " + log);
        assertEquals(CommitKind.OVERWRITE, log.get(0).commitKind());
        assertExactlyOnce(paimonRows(table), "ow", 100);
    }
}

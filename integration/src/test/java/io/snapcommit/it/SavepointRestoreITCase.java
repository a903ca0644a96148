package io.snapcommit.it;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.Map;

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.junit.jupiter.api.Test;

import io.snapcommit.demo.CollectingReporter;
import io.snapcommit.demo.TableContents;
import io.snapcommit.jni.NativeTable;
import io.snapcommit.jni.SnapshotInfo;

/** Stop with a savepoint, restore as a new job: same commit user, nothing committed twice. */
class SavepointRestoreITCase extends ITBase {

    private static void topology(StreamExecutionEnvironment env, String table, long rows) {
        sink(table).uidPrefix("sp").build().sinkTo(rows(generate(env, "sp", rows, 150)));
    }

    @Test
    void stopWithSavepointAndRestoreAsNewJob(@InjectMiniCluster MiniCluster cluster) throws Exception {
        String table = table("savepoint");
        long rows = 1200;
        StreamExecutionEnvironment first = env("200 ms", Map.of());
        topology(first, table, rows);
        JobClient job = first.executeAsync(testName + "-first");
        waitUntil("two snapshots", 60_000, () -> {
            try (NativeTable t = NativeTable.openTable(table)) {
                return t.latestSnapshotId() >= 2;
            } catch (RuntimeException e) {
                return false;
            }
        });
        String savepoint = cluster.stopWithSavepoint(job.getJobID(), tmp.resolve("savepoints").toUri().toString(),
                                                     false, SavepointFormatType.CANONICAL).get();
        job.getJobExecutionResult().get();
        List<SnapshotInfo> before = TableContents.log(table);
        assertFalse(before.isEmpty());
        String user = before.get(0).commitUser();
        long rowsBefore = before.get(before.size() - 1).totalRecordCount();
        assertTrue(rowsBefore < rows, "the first job finished before the savepoint");

        StreamExecutionEnvironment second = env("200 ms", Map.of(StateRecoveryOptions.SAVEPOINT_PATH.key(), savepoint));
        topology(second, table, rows);
        second.execute(testName + "-second");

        List<SnapshotInfo> log = TableContents.log(table);
        assertTrue(log.size() > before.size(), "the restored job committed nothing");
        for (SnapshotInfo s : log) assertEquals(user, s.commitUser(), "commit user changed across the restore: " + log);
        assertIdentifiersIncreasing(log);
        assertExactlyOnce(table, "sp", rows);
        summary(String.format("savepoint restore: first job %d snapshots (%d rows) up to the savepoint, restored job "
                              + "%d more; one commit user %s; %d rows exactly once; restored job %s",
                              before.size(), rowsBefore, log.size() - before.size(), user, rows,
                              metricsLine(testName + "-second")));
        assertTrue(CollectingReporter.counter(testName + "-second", "commits") >= 1);
    }

    /**
     * The SQL job of the rename test: generated rows into a table named {@code name} at {@code table}.
     * The source and its map carry fixed uids, so the sink's uids alone decide whether the restore maps.
     */
    private static TableResult sqlJob(StreamExecutionEnvironment env, String name, String table, long rows) {
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        t.createTemporaryView("src", t.fromDataStream(
            generate(env, "sqlsp", rows, 150)
                .map(l -> Row.of(idOf(l), "sqlsp", idOf(l) % 2))
                .returns(Types.ROW_NAMED(new String[] {"id", "tag", "p"}, Types.LONG, Types.STRING, Types.LONG))
                .uid("to-row")));
        t.executeSql("CREATE TABLE " + name + " (id BIGINT, tag STRING, p BIGINT) WITH ('connector' = 'snapcommit', "
                     + "'path' = '" + table + "')");
        return t.executeSql("INSERT INTO " + name + " SELECT id, tag, p FROM src");
    }

    /**
     * Renaming the table in the DDL keeps the sink's state: the savepoint of a job writing table
     * "orders" restores into a job whose DDL calls the same path "orders_v2" (the operator uids come
     * from the path, not the name; a uid from the name fails the restore with "Cannot map
     * checkpoint/savepoint state").
     */
    @Test
    void sqlTableRenamedInTheDdlRestoresFromTheSavepoint(@InjectMiniCluster MiniCluster cluster) throws Exception {
        String table = table("renamed");
        long rows = 1200;
        TableResult first = sqlJob(env("200 ms", Map.of()), "orders", table, rows);
        JobClient job = first.getJobClient().orElseThrow();
        waitUntil("two snapshots", 60_000, () -> {
            try (NativeTable t = NativeTable.openTable(table)) {
                return t.latestSnapshotId() >= 2;
            } catch (RuntimeException e) {
                return false;
            }
        });
        String savepoint = cluster.stopWithSavepoint(job.getJobID(), tmp.resolve("savepoints-sql").toUri().toString(),
                                                     false, SavepointFormatType.CANONICAL).get();
        job.getJobExecutionResult().get();
        List<SnapshotInfo> before = TableContents.log(table);
        String user = before.get(0).commitUser();
        long rowsBefore = before.get(before.size() - 1).totalRecordCount();
        assertTrue(rowsBefore < rows, "the first job finished before the savepoint");

        sqlJob(env("200 ms", Map.of(StateRecoveryOptions.SAVEPOINT_PATH.key(), savepoint)), "orders_v2", table, rows)
            .await();

        List<SnapshotInfo> log = TableContents.log(table);
        assertTrue(log.size() > before.size(), "the restored job committed nothing");
        for (SnapshotInfo s : log) assertEquals(user, s.commitUser(), "commit user changed across the restore: " + log);
        assertIdentifiersIncreasing(log);
        assertExactlyOnce(table, "sqlsp", rows);
        summary(String.format("SQL table renamed across a savepoint: %d snapshots (%d rows) as orders, %d more as "
                              + "orders_v2; one commit user; %d rows exactly once",
                              before.size(), rowsBefore, log.size() - before.size(), rows));
    }
}

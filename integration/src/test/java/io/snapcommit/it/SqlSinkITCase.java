package io.snapcommit.it;

import static org.junit.jupiter.api.Assertions.*;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.junit.jupiter.api.Test;

import io.snapcommit.demo.TableContents;
import io.snapcommit.flink.paimon.PaimonTableSpec;
import io.snapcommit.jni.FileEntry;
import io.snapcommit.jni.SnapshotInfo;

/** CREATE TABLE ... WITH ('connector'='snapcommit', ...) + INSERT. */
class SqlSinkITCase extends ITBase {

    private StreamTableEnvironment tableEnv(String checkpointInterval) {
        StreamExecutionEnvironment env = env(checkpointInterval, Map.of());
        return StreamTableEnvironment.create(env);
    }

    private static Throwable root(Throwable t) {
        while (t.getCause() != null && t.getCause() != t) t = t.getCause();
        return t;
    }

    private static String messages(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) sb.append(c.getMessage()).append('\n');
        return sb.toString();
    }

    @Test
    void insertFindsTheFactoryAndCommitsAtTheFinalCheckpoint() throws Exception {
        String table = table("orders");
        StreamTableEnvironment t = tableEnv("200 ms");
        t.executeSql("CREATE TABLE orders (id BIGINT, customer STRING, amount DOUBLE, dt STRING) PARTITIONED BY (dt) "
                     + "WITH ('connector' = 'snapcommit', 'path' = '" + table + "')");
        t.executeSql("INSERT INTO orders VALUES (1, 'ann', 9.5, '2024-01-01'), (2, 'bob', 3.0, '2024-01-01'), "
                     + "(3, 'cy', 1.25, '2024-01-02')").await();
        List<SnapshotInfo> log = TableContents.log(table);
        // Usually one snapshot at the final checkpoint; a periodic checkpoint (200 ms) may fall between
        // the rows a slow start lets through, and then commits those first: each is an APPEND of its own
        // checkpoint, and the last holds all three rows.
        assertFalse(log.isEmpty(), "no snapshot");
        assertTrue(log.get(0).commitIdentifier() >= 1);
        assertIdentifiersIncreasing(log);
        assertEquals(3, log.get(log.size() - 1).totalRecordCount(), log.toString());
        List<String> rows = TableContents.liveRows(table);
        assertEquals(3, rows.size());
        // Paimon's reader (filesystem catalog, Parquet, partitions dt) reads the same rows.
        List<String> paimonRows = paimonCheck(table, null, 3).rows;
        assertEquals(3, paimonRows.size());
        assertEquals(new HashSet<>(rows), new HashSet<>(paimonRows));
        assertTrue(rows.contains("{\"id\":1,\"customer\":\"ann\",\"amount\":9.5,\"dt\":\"2024-01-01\"}"), rows.toString());
        Set<String> partitions = new HashSet<>();
        PaimonTableSpec spec = spec(table, null);
        for (FileEntry f : TableContents.liveFiles(table)) {
            String path = spec.dataFilePath(f);
            partitions.add(path.substring(0, path.indexOf('/')));
            assertTrue(path.matches("dt=2024-01-0[12]/bucket-0/" + DATA_FILE + "parquet"), path);
            assertEquals(-1, f.totalBuckets());
        }
        assertEquals(Set.of("dt=2024-01-01", "dt=2024-01-02"), partitions);
        // The schema the sink created from the DDL (Paimon's schema JSON, stored as schema-0).
        assertEquals(List.of("id", "customer", "amount", "dt"), spec.fieldNames());
        assertEquals("BIGINT", spec.schema().fields().get(0).type().toString());
        assertEquals("DOUBLE", spec.schema().fields().get(2).type().toString());
        assertEquals(List.of("dt"), spec.schema().partitionKeys());
        assertEquals(0, spec.schemaId());
    }

    @Test
    void orcFormatFixedBucketsAndSecondInsert() throws Exception {
        String table = table("orc");
        StreamTableEnvironment t = tableEnv("200 ms");
        t.executeSql("CREATE TABLE c (id INT, name STRING) WITH ('connector' = 'snapcommit', 'path' = 'file://" + table
                     + "', 'file.format' = 'orc', 'sink.parallelism' = '1', 'bucket' = '4', 'bucket-key' = 'id', 'commit.max-retries' = '3', "
                     + "'commit.min-retry-wait' = '5 ms', 'commit.max-retry-wait' = '1 s', 'commit.timeout' = '30 s')");
        t.executeSql("INSERT INTO c VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')").await();
        t.executeSql("INSERT INTO c VALUES (5, 'e')").await();
        List<String> rows = TableContents.liveRows(table);
        // Paimon's reader (ORC, 4 fixed buckets, two jobs' snapshots streamed in order) reads the same rows.
        List<String> paimonRows = paimonCheck(table, null, 5).rows;
        assertEquals(5, paimonRows.size());
        assertEquals(new HashSet<>(rows), new HashSet<>(paimonRows));
        assertEquals(Set.of("{\"id\":1,\"name\":\"a\"}", "{\"id\":2,\"name\":\"b\"}", "{\"id\":3,\"name\":\"c\"}",
                            "{\"id\":4,\"name\":\"d\"}", "{\"id\":5,\"name\":\"e\"}"), new HashSet<>(rows));
        // A checkpoint may complete while the first INSERT is still writing, so each job commits one
        // snapshot or more; what must hold is one commit user per job, the second job's after the first's.
        List<SnapshotInfo> log = TableContents.log(table);
        assertTrue(log.size() >= 2, "at least one snapshot per INSERT job: " + log.size());
        String first = log.get(0).commitUser(), last = log.get(log.size() - 1).commitUser();
        assertNotEquals(first, last, "each INSERT job has its own commit user");
        int switches = 0;
        for (int i = 1; i < log.size(); i++)
            if (!log.get(i).commitUser().equals(log.get(i - 1).commitUser())) switches++;
        assertEquals(1, switches, "the second job's snapshots all follow the first job's");
        PaimonTableSpec spec = spec(table, null);
        assertEquals(Map.of("bucket", "4", "bucket-key", "id", "file.format", "orc"), spec.schema().options());
        org.apache.paimon.table.sink.FixedBucketRowKeyExtractor paimonBuckets =
            new org.apache.paimon.table.sink.FixedBucketRowKeyExtractor(spec.schema());
        for (FileEntry f : TableContents.liveFiles(table)) {
            assertEquals(4, f.totalBuckets());
            assertTrue(f.bucket() >= 0 && f.bucket() < 4);
            String path = spec.dataFilePath(f);
            assertTrue(path.matches("bucket-" + f.bucket() + "/" + DATA_FILE + "orc"), path);
            // Every row of the file is in the bucket Paimon's own bucket function gives it.
            java.util.List<String> fileRows = TableContents.readDataFile(
                spec, path, java.nio.file.Files.readAllBytes(java.nio.file.Paths.get(table, path)));
            for (String r : fileRows) {
                int id = Integer.parseInt(r.substring(6, r.indexOf(',')));
                paimonBuckets.setRecord(org.apache.paimon.data.GenericRow.of(
                    id, org.apache.paimon.data.BinaryString.fromString(r.substring(r.lastIndexOf(':') + 2, r.length() - 2))));
                assertEquals(paimonBuckets.bucket(), f.bucket(), r);
            }
        }
    }

    @Test
    void batchModeCommitsAtEndOfInput() throws Exception {
        String table = table("batch");
        org.apache.flink.table.api.TableEnvironment t = org.apache.flink.table.api.TableEnvironment.create(
            org.apache.flink.table.api.EnvironmentSettings.inBatchMode());
        t.executeSql("CREATE TABLE b (id BIGINT) WITH ('connector' = 'snapcommit', 'path' = '" + table + "', "
                     + "'commit.user' = 'nightly-load')");
        t.executeSql("INSERT INTO b VALUES (1), (2)").await();
        List<SnapshotInfo> log = TableContents.log(table);
        assertEquals(1, log.size());
        assertEquals("nightly-load", log.get(0).commitUser());
        assertEquals(1, log.get(0).commitIdentifier());
        assertEquals(2, TableContents.liveRows(table).size());
    }

    @Test
    void theSchemaIsCheckedAgainstTheTableAtPlanning() throws Exception {
        String table = table("checked");
        StreamTableEnvironment t = tableEnv("200 ms");
        t.executeSql("CREATE TABLE a (id BIGINT, name STRING, dt STRING) PARTITIONED BY (dt) WITH ("
                     + "'connector' = 'snapcommit', 'path' = '" + table + "')");
        t.executeSql("INSERT INTO a VALUES (1, 'x', 'd1')").await();
        // Same columns and keys: accepted, appends.
        t.executeSql("CREATE TABLE same (id BIGINT, name STRING, dt STRING) PARTITIONED BY (dt) WITH ("
                     + "'connector' = 'snapcommit', 'path' = '" + table + "')");
        t.executeSql("INSERT INTO same VALUES (2, 'y', 'd2')").await();
        assertEquals(2, TableContents.liveRows(table).size());

        String[][] cases = {
            {"(id INT, name STRING, dt STRING) PARTITIONED BY (dt)", "column id is INT in the job but BIGINT in the table",
             "(1, 'a', 'd')"},
            {"(id BIGINT, label STRING, dt STRING) PARTITIONED BY (dt)", "field 1 is label in the job but name in the table",
             "(1, 'a', 'd')"},
            {"(id BIGINT, name STRING, dt STRING)", "partition keys are [] in the job but [dt] in the table", "(1, 'a', 'd')"},
            {"(id BIGINT, name STRING, dt STRING, extra INT) PARTITIONED BY (dt)",
             "the job writes a column extra INT that the table does not have (field 3)", "(1, 'a', 'd', 2)"},
        };
        int n = 0;
        for (String[] c : cases) {
            String name = "bad" + n++;
            t.executeSql("CREATE TABLE " + name + " " + c[0] + " WITH ('connector' = 'snapcommit', 'path' = '" + table + "')");
            Throwable e = assertThrows(ValidationException.class,
                                       () -> t.executeSql("INSERT INTO " + name + " VALUES " + c[2]).await());
            assertTrue(messages(e).contains("the schema of the job does not match the schema of table " + table + ": "
                                            + c[1]), messages(e));
        }
        assertEquals(2, TableContents.log(table).size(), "nothing was committed by the refused statements");

        // A key without the partition key: a cross-partition update (Paimon's global index), refused.
        t.executeSql("CREATE TABLE pkx (id BIGINT, dt STRING, PRIMARY KEY (id) NOT ENFORCED) PARTITIONED BY (dt) "
                     + "WITH ('connector' = 'snapcommit', 'bucket' = '2', 'path' = '" + table("pkx") + "')");
        Throwable e = assertThrows(ValidationException.class, () -> t.executeSql("INSERT INTO pkx VALUES (1, 'a')").await());
        assertTrue(messages(e).contains("PRIMARY KEY [id] does not contain partition key dt: a cross-partition update"),
                   messages(e));
        // The writers' global full compaction is ported for primary-key tables only.
        t.executeSql("CREATE TABLE pkfc (id BIGINT, v BIGINT) WITH ('connector' = 'snapcommit', "
                     + "'full-compaction.delta-commits' = '2', 'path' = '" + table("pkfc") + "')");
        e = assertThrows(ValidationException.class, () -> t.executeSql("INSERT INTO pkfc VALUES (1, 1)").await());
        assertTrue(messages(e).contains("full-compaction.delta-commits is supported on primary-key tables only"),
                   messages(e));
        assertFalse(java.nio.file.Files.exists(java.nio.file.Paths.get(table("pkx"))), "no table was created");
        assertFalse(java.nio.file.Files.exists(java.nio.file.Paths.get(table("pkfc"))), "no table was created");
    }

    @Test
    void missingAndUnknownOptionsFailValidation() {
        StreamTableEnvironment t = tableEnv("200 ms");
        t.executeSql("CREATE TABLE nopath (id INT) WITH ('connector' = 'snapcommit')");
        Throwable e = assertThrows(ValidationException.class,
                                   () -> t.executeSql("INSERT INTO nopath VALUES (1)").await());
        assertTrue(messages(e).contains("Missing required options are:") && messages(e).contains("path"), messages(e));

        t.executeSql("CREATE TABLE typo (id INT) WITH ('connector' = 'snapcommit', 'path' = '" + table("typo")
                     + "', 'commit.max-retrys' = '3')");
        e = assertThrows(ValidationException.class, () -> t.executeSql("INSERT INTO typo VALUES (1)").await());
        assertTrue(messages(e).contains("Unsupported options") && messages(e).contains("commit.max-retrys"), messages(e));

        t.executeSql("CREATE TABLE badstrategy (id INT) WITH ('connector' = 'snapcommit', 'path' = '" + table("bs")
                     + "', 'commit.strategy' = 'lock')");
        e = assertThrows(ValidationException.class, () -> t.executeSql("INSERT INTO badstrategy VALUES (1)").await());
        assertTrue(messages(e).contains("commit.strategy"), messages(e));
        assertNotNull(root(e));

        t.executeSql("CREATE TABLE emptyuid (id INT) WITH ('connector' = 'snapcommit', 'path' = '" + table("eu")
                     + "', 'sink.uid-prefix' = ' ')");
        e = assertThrows(ValidationException.class, () -> t.executeSql("INSERT INTO emptyuid VALUES (1)").await());
        assertTrue(messages(e).contains("sink.uid-prefix is empty"), messages(e));
    }

    /** Planning reads a local table (docs/flink.md, Storage for local paths): a path that cannot be one fails there. */
    @Test
    void planningReadsALocalTable() {
        StreamTableEnvironment t = tableEnv("200 ms");
        t.executeSql("CREATE TABLE notadir (id INT) WITH ('connector' = 'snapcommit', 'path' = '/etc/passwd/x')");
        Throwable e = assertThrows(ValidationException.class, () -> t.executeSql("EXPLAIN INSERT INTO notadir VALUES (1)"));
        assertTrue(messages(e).contains("cannot read the schema of table /etc/passwd/x"), messages(e));
    }
}

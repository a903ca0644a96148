package io.snapcommit.it;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.paimon.Snapshot;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.manifest.IndexManifestEntry;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.junit.jupiter.api.Test;

import io.snapcommit.demo.PaimonReader;

/**
 * Dynamic-bucket primary-key tables (bucket -1): Paimon's bucket assigner in the job. A streaming
 * aggregate upserted through a failover into a partitioned table whose buckets fill at 2 keys
 * (dynamic-bucket.target-row-num), read back by Paimon 1.4.2: every key exactly once with its
 * final aggregate, and the latest snapshot's index manifest holding the HASH index of every bucket.
 */
class DynamicBucketITCase extends ITBase {
    static final long ROWS = 600, KEYS = 7;

    /** (p = k % 2, k = id % KEYS, count, sum of ids) as Paimon renders the rows. */
    private static List<String> model() {
        TreeMap<Long, long[]> m = new TreeMap<>();
        for (long id = 0; id < ROWS; id++) {
            long[] a = m.computeIfAbsent(id % KEYS, k -> new long[2]);
            a[0]++;
            a[1] += id;
        }
        List<String> out = new ArrayList<>();
        m.forEach((k, a) -> out.add("{\"p\":" + (k % 2) + ",\"k\":" + k + ",\"cnt\":" + a[0] + ",\"total\":" + a[1] + "}"));
        Collections.sort(out);
        return out;
    }

    private static List<String> batch(String table) {
        try (PaimonReader r = PaimonReader.open(table, Map.of())) {
            List<String> rows = new ArrayList<>(r.rows());
            Collections.sort(rows);
            return rows;
        }
    }

    private String aggregateWithFailover(String name, String options) throws Exception {
        StreamExecutionEnvironment env = env("200 ms", Map.of());
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        // The upsert key of GROUP BY k % 2, k is (p, k) only after the projection; no materializer.
        t.getConfig().set("table.exec.sink.upsert-materialize", "NONE");
        DataStream<Row> src = generate(env, name, ROWS, 300).map(new FailOnceMap(150)).uid("fail-once")
            .map(line -> Row.of(idOf(line) % KEYS, idOf(line)))
            .returns(Types.ROW_NAMED(new String[] {"k", "v"}, Types.LONG, Types.LONG)).uid("to-row");
        t.createTemporaryView("src", t.fromDataStream(src));
        String path = table(name);
        t.executeSql("CREATE TABLE " + name + " (p BIGINT, k BIGINT, cnt BIGINT, total BIGINT, PRIMARY KEY (p, k) NOT "
                     + "ENFORCED) PARTITIONED BY (p) WITH ('connector' = 'snapcommit', 'path' = '" + path + "', "
                     + "'dynamic-bucket.target-row-num' = '2'" + options + ")");
        t.executeSql("INSERT INTO " + name + " SELECT k % 2, k, COUNT(*), SUM(v) FROM src GROUP BY k % 2, k").await();
        assertEquals(model(), batch(path), "Paimon's batch read of " + name);
        return path;
    }

    /** The index manifest entries of the latest snapshot, read by Paimon's IndexFileHandler. */
    private static List<IndexManifestEntry> latestIndex(String path) {
        FileStoreTable table = FileStoreTableFactory.create(LocalFileIO.create(), new Path(path));
        Snapshot s = table.snapshotManager().latestSnapshot();
        assertNotNull(s, "a snapshot");
        assertNotNull(s.indexManifest(), "the latest snapshot has an index manifest: " + s.toJson());
        return table.store().newIndexFileHandler().readManifest(s.indexManifest());
    }

    @Test
    void streamingAggregateUpsertedThroughAFailoverWithAssignedBuckets() throws Exception {
        String path = aggregateWithFailover("dyn", "");
        List<IndexManifestEntry> index = latestIndex(path);
        long hashRows = 0;
        Set<String> buckets = new TreeSet<>();
        for (IndexManifestEntry e : index) {
            assertEquals("HASH", e.indexFile().indexType(), "only HASH index files: " + index);
            hashRows += e.indexFile().rowCount();
            buckets.add(e.partition().getLong(0) + "/" + e.bucket());
        }
        // Each key hash once in one bucket's index; 2 keys per bucket at most.
        assertEquals(KEYS, hashRows, "HASH index rows = keys: " + index);
        assertTrue(buckets.size() >= 4, "buckets filled at 2 keys each (4 keys in p=0, 3 in p=1): " + buckets);
        try (PaimonReader r = PaimonReader.open(path, Map.of())) {
            assertTrue(r.snapshots().size() > 1, "several checkpoints committed: " + r.snapshots().size());
        }

        // A second job upserts every key and a new one: its assigners load the HASH index the first
        // job committed, so each old key stays in its bucket (read back once) and the new key fills
        // a bucket with room or a new one.
        StreamTableEnvironment t = StreamTableEnvironment.create(env("200 ms", Map.of()));
        t.executeSql("CREATE TABLE dyn2 (p BIGINT, k BIGINT, cnt BIGINT, total BIGINT, PRIMARY KEY (p, k) NOT ENFORCED) "
                     + "PARTITIONED BY (p) WITH ('connector' = 'snapcommit', 'path' = '" + path + "')");
        StringBuilder values = new StringBuilder();
        List<String> want = new ArrayList<>();
        for (long k = 0; k <= KEYS; k++) {
            values.append(k == 0 ? "" : ", ").append("(").append(k % 2).append(", ").append(k).append(", 0, ").append(k)
                  .append(")");
            want.add("{\"p\":" + (k % 2) + ",\"k\":" + k + ",\"cnt\":0,\"total\":" + k + "}");
        }
        Collections.sort(want);
        t.executeSql("INSERT INTO dyn2 VALUES " + values).await();
        assertEquals(want, batch(path), "Paimon's batch read after the second job");
        long rowsAfter = 0;
        Set<String> bucketsAfter = new TreeSet<>();
        for (IndexManifestEntry e : latestIndex(path)) {
            rowsAfter += e.indexFile().rowCount();
            bucketsAfter.add(e.partition().getLong(0) + "/" + e.bucket());
        }
        assertEquals(KEYS + 1, rowsAfter, "HASH index rows = keys after the second job");
        assertTrue(bucketsAfter.containsAll(buckets), "the first job's buckets kept: " + buckets + " " + bucketsAfter);
        summary("pk dynamic bucket (GROUP BY upsert, map fails once): Paimon's batch read equals the model; HASH index "
                + "of " + buckets.size() + " buckets " + buckets + " in the latest index manifest; a second job's upserts of "
                + "every key (and a new one) read back once each, buckets " + bucketsAfter);
    }

    @Test
    void deletionVectorsOnADynamicBucketTable() throws Exception {
        String path = aggregateWithFailover("dyndv", ", 'deletion-vectors.enabled' = 'true'");
        // A second job deletes keys 1 and 3 of the files the first job wrote (a retract-mode changelog,
        // so the DELETE rows reach the sink as they are): the writers' lookup compaction marks them
        // in deletion vectors.
        StreamExecutionEnvironment env = env("200 ms", Map.of());
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        t.getConfig().set("table.exec.sink.upsert-materialize", "NONE");
        DataStream<Row> deletes = env.fromData(Row.ofKind(RowKind.DELETE, 1L, 1L, 0L, 0L),
                                               Row.ofKind(RowKind.DELETE, 1L, 3L, 0L, 0L))
            .returns(Types.ROW_NAMED(new String[] {"p", "k", "cnt", "total"}, Types.LONG, Types.LONG, Types.LONG,
                                     Types.LONG));
        t.createTemporaryView("dels", t.fromChangelogStream(deletes, Schema.newBuilder().build(), ChangelogMode.all()));
        t.executeSql("CREATE TABLE dyndv2 (p BIGINT, k BIGINT, cnt BIGINT, total BIGINT, PRIMARY KEY (p, k) NOT "
                     + "ENFORCED) PARTITIONED BY (p) WITH ('connector' = 'snapcommit', 'path' = '" + path + "')");
        t.executeSql("INSERT INTO dyndv2 SELECT * FROM dels").await();
        List<String> want = new ArrayList<>(model());
        want.removeIf(r -> r.contains("\"k\":1,") || r.contains("\"k\":3,"));
        assertEquals(want, batch(path), "Paimon's batch read after the deletes");
        Set<String> types = new TreeSet<>();
        for (IndexManifestEntry e : latestIndex(path)) types.add(e.indexFile().indexType());
        assertEquals(Set.of("HASH", "DELETION_VECTORS"), types, "index types of the latest snapshot");
        summary("pk dynamic bucket + deletion vectors: Paimon's batch read equals the model, then a second job's "
                + "DELETEs of keys 1 and 3 applied; latest index types " + types);
    }
}

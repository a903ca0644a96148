package io.snapcommit.it;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.options.CatalogOptions;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.types.DataTypes;
import org.junit.jupiter.api.Test;

import io.snapcommit.demo.PaimonReader;
import io.snapcommit.demo.TableContents;
import io.snapcommit.flink.paimon.PaimonTableSpec;
import io.snapcommit.jni.CommitKind;
import io.snapcommit.jni.ConflictException;
import io.snapcommit.jni.FileEntry;
import io.snapcommit.jni.NativeChanges;
import io.snapcommit.jni.NativeStore;
import io.snapcommit.jni.NativeTable;
import io.snapcommit.jni.SnapshotInfo;
import io.snapcommit.jni.Strategy;

/**
 * A table Apache Paimon 1.4.2 created and committed to with its own Java committer is adopted by
 * the snapcommit sink (no metadata/table.json until then), which commits onto it; then Paimon's
 * committer commits again. Paimon's reader and snapcommit's library must agree on the one snapshot
 * chain: contiguous ids, each writer's commit user and identifiers in order, row counts, exactly
 * once, time travel, replay filtering for both users, fsck. Then a real conflict between the two
 * committers (Paimon's OVERWRITE deleted a file that a snapcommit COMPACT also deletes) is
 * detected on snapcommit's side, through the JNI API (a Flink job cannot be made to compact).
 */
class MixedPaimonITCase extends ITBase {
    static final String PAIMON_USER = "paimon-job";
    static final String SINK_USER = "flink-sink";

    private Catalog paimonCatalog() {
        Options o = new Options();
        o.set(CatalogOptions.WAREHOUSE.key(), tmp.resolve("warehouse").toString());
        return CatalogFactory.createCatalog(CatalogContext.create(o));
    }

    /** Paimon creates db.<name> (id BIGINT, tag STRING, p BIGINT) PARTITIONED BY (p), bucket-unaware append. */
    private Table paimonCreate(Catalog catalog, String name, Map<String, String> options) throws Exception {
        catalog.createDatabase("db", true);
        Schema.Builder b = Schema.newBuilder().column("id", DataTypes.BIGINT()).column("tag", DataTypes.STRING())
            .column("p", DataTypes.BIGINT()).partitionKeys("p");
        options.forEach(b::option);
        catalog.createTable(Identifier.create("db", name), b.build(), false);
        return catalog.getTable(Identifier.create("db", name));
    }

    /** Paimon's stream committer, user PAIMON_USER: identifier k commits ids [from + 10(k-first), +10) of tag. */
    private static void paimonCommits(Table table, String tag, long from, long firstIdentifier, int commits)
        throws Exception {
        StreamWriteBuilder wb = table.newStreamWriteBuilder().withCommitUser(PAIMON_USER);
        try (StreamTableWrite w = wb.newWrite(); StreamTableCommit c = wb.newCommit()) {
            for (int k = 0; k < commits; k++) {
                long ident = firstIdentifier + k;
                for (long id = from + 10L * k; id < from + 10L * (k + 1); id++)
                    w.write(GenericRow.of(id, BinaryString.fromString(tag), id % 2));
                c.commit(ident, w.prepareCommit(false, ident));
            }
        }
    }

    private static String row(long id, String tag) {
        return "{\"id\":" + id + ",\"tag\":\"" + tag + "\",\"p\":" + (id % 2) + "}";
    }

    private static Set<String> rows(String tag, long from, long to) {
        Set<String> out = new HashSet<>();
        for (long id = from; id < to; id++) out.add(row(id, tag));
        return out;
    }

    private StreamTableEnvironment sqlSink(String table, String extra) {
        StreamTableEnvironment t = StreamTableEnvironment.create(env("200 ms", Map.of()));
        t.executeSql("CREATE TABLE t (id BIGINT, tag STRING, p BIGINT) PARTITIONED BY (p) WITH ('connector' = "
                     + "'snapcommit', 'path' = '" + table + "', 'commit.user' = '" + SINK_USER + "'" + extra + ")");
        return t;
    }

    /** The CLI's stdout (exit code 0 asserted): build/snapcommit of the source tree. */
    private static String cli(String... args) throws Exception {
        Path bin = Paths.get(System.getProperty("snapcommit.root", ".."), "build/snapcommit");
        assertTrue(Files.isExecutable(bin), bin + " is not built (scripts/flink-test.sh builds it)");
        List<String> cmd = new ArrayList<>();
        cmd.add(bin.toString());
        cmd.addAll(Arrays.asList(args));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), String.join(" ", cmd) + ": " + out);
        return out;
    }

    @Test
    void paimonCommitsThenTheSinkAdoptsAndCommitsThenPaimonAgain() throws Exception {
        String table = table("t");
        long sinkRows = 300;
        // 1. Paimon: create the table and commit identifiers 1..3 of PAIMON_USER (ids 0..29, tag paimon).
        try (Catalog catalog = paimonCatalog()) {
            Table t = paimonCreate(catalog, "t", Map.of("bucket", "-1", "file.format", "parquet"));
            paimonCommits(t, "paimon", 0, 1, 3);
        }
        assertTrue(Files.exists(Paths.get(table, "schema/schema-0")));
        assertTrue(Files.exists(Paths.get(table, "snapshot/snapshot-3")));
        assertFalse(Files.exists(Paths.get(table, "metadata/table.json")), "Paimon wrote no snapcommit metadata");

        // 2. The snapcommit sink (SQL DDL of the same schema) adopts the table and commits ids 0..299 of tag flink
        //    over several checkpoints.
        StreamTableEnvironment env = sqlSink(table, "");
        env.executeSql("CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '100', "
                       + "'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '" + (sinkRows - 1)
                       + "')");
        env.executeSql("INSERT INTO t SELECT id, 'flink', MOD(id, 2) FROM gen").await();
        assertTrue(Files.exists(Paths.get(table, "metadata/table.json")), "adopted: metadata/table.json written");
        // Adoption keeps Paimon's schema (no schema-1, and the schema the library reports is Paimon's).
        assertEquals(List.of("schema/schema-0"), schemaKeys(table));
        PaimonTableSpec spec = spec(table, null);
        assertEquals(0, spec.schemaId());
        assertEquals(List.of("id", "tag", "p"), spec.fieldNames());
        assertEquals(List.of("p"), spec.schema().partitionKeys());
        assertEquals("-1", spec.schema().options().get("bucket"));

        List<SnapshotInfo> afterSink = TableContents.log(table);
        int sinkSnaps = afterSink.size() - 3;
        assertTrue(sinkSnaps >= 2, "the sink committed at several checkpoints: " + TableContents.formatLog(afterSink));
        long lastCheckpoint = afterSink.get(afterSink.size() - 1).commitIdentifier();
        try (NativeTable nt = NativeTable.openTable(table)) {
            // Paimon's commits count as committed for its user, read from Paimon's snapshots.
            assertEquals(3, nt.lastCommittedIdentifier(PAIMON_USER).getAsLong());
            assertArrayEquals(new long[] {4}, nt.filterUncommitted(PAIMON_USER, new long[] {1, 2, 3, 4}));
            assertEquals(lastCheckpoint, nt.lastCommittedIdentifier(SINK_USER).getAsLong());
        }

        // 3. Paimon's committer again, same user, identifiers 4..5 (ids 30..49, tag paimon).
        try (Catalog catalog = paimonCatalog()) {
            paimonCommits(catalog.getTable(Identifier.create("db", "t")), "paimon", 30, 4, 2);
        }

        // The one snapshot chain, as Paimon sees it and as the library sees it.
        int total = 3 + sinkSnaps + 2;
        List<SnapshotInfo> log = TableContents.log(table);
        assertEquals(total, log.size(), TableContents.formatLog(log));
        List<Snapshot> paimonSnaps;
        PaimonReader.Check check;
        try (PaimonReader r = PaimonReader.open(table, Map.of())) {
            check = r.check(60_000); // contiguous, streaming = time travel = batch scan, record counts
            paimonSnaps = check.snapshots;
            assertEquals(total, paimonSnaps.size());
            long prevCheckpoint = 0;
            for (int i = 0; i < total; i++) {
                Snapshot ps = paimonSnaps.get(i);
                SnapshotInfo ours = log.get(i);
                assertEquals(i + 1, ps.id());
                assertEquals(ps.id(), ours.id());
                assertEquals(ps.commitUser(), ours.commitUser(), "snapshot " + ps.id());
                assertEquals(ps.commitIdentifier(), ours.commitIdentifier(), "snapshot " + ps.id());
                assertEquals(ps.totalRecordCount(), ours.totalRecordCount(), "snapshot " + ps.id());
                assertEquals(ps.deltaRecordCount(), ours.deltaRecordCount(), "snapshot " + ps.id());
                assertEquals(Snapshot.CommitKind.APPEND, ps.commitKind());
                if (i < 3) { // Paimon's first commits
                    assertEquals(PAIMON_USER, ps.commitUser());
                    assertEquals(i + 1, ps.commitIdentifier());
                    assertEquals(rows("paimon", 10L * i, 10L * (i + 1)), new HashSet<>(check.stream.get(ps.id())));
                    assertEquals(rows("paimon", 0, 10L * (i + 1)), new HashSet<>(r.rowsAt(ps.id())));
                } else if (i < 3 + sinkSnaps) { // the sink's checkpoints, increasing
                    assertEquals(SINK_USER, ps.commitUser());
                    assertTrue(ps.commitIdentifier() > prevCheckpoint, "checkpoint ids increase: " + log);
                    prevCheckpoint = ps.commitIdentifier();
                    for (String x : check.stream.get(ps.id())) assertTrue(x.contains("\"tag\":\"flink\""), x);
                } else { // Paimon's commits after ours
                    int k = i - 3 - sinkSnaps;
                    assertEquals(PAIMON_USER, ps.commitUser());
                    assertEquals(4 + k, ps.commitIdentifier());
                    assertEquals(rows("paimon", 30 + 10L * k, 40 + 10L * k), new HashSet<>(check.stream.get(ps.id())));
                }
            }
            // Time travel to the sink's last snapshot: Paimon's first 30 rows and all the sink's rows.
            Set<String> both = rows("paimon", 0, 30);
            both.addAll(rows("flink", 0, sinkRows));
            List<String> atSink = r.rowsAt(3 + sinkSnaps);
            assertEquals(30 + sinkRows, atSink.size());
            assertEquals(both, new HashSet<>(atSink));
        }
        // The latest scan: every row of both writers exactly once.
        assertEquals(50 + sinkRows, check.rows.size());
        assertExactlyOnce(check.rows, "paimon", 50);
        assertExactlyOnce(check.rows, "flink", sinkRows);
        assertExactlyOnce(TableContents.liveRows(table), "paimon", 50);
        assertExactlyOnce(TableContents.liveRows(table), "flink", sinkRows);
        summary(String.format("  mixed db.t: Paimon %d + sink %d + Paimon %d snapshots; rows written %d, Paimon read %d",
                              3, sinkSnaps, 2, 50 + sinkRows, check.rows.size()));

        // Replay filtering for both users, through JNI and the CLI; fsck through both.
        try (NativeTable nt = NativeTable.openTable(table)) {
            assertEquals(5, nt.lastCommittedIdentifier(PAIMON_USER).getAsLong());
            assertArrayEquals(new long[] {6}, nt.filterUncommitted(PAIMON_USER, new long[] {1, 3, 4, 5, 6}));
            assertEquals(lastCheckpoint, nt.lastCommittedIdentifier(SINK_USER).getAsLong());
            assertArrayEquals(new long[] {lastCheckpoint + 1},
                              nt.filterUncommitted(SINK_USER, new long[] {1, lastCheckpoint, lastCheckpoint + 1}));
            nt.fsck();
        }
        assertEquals("5", cli("last-committed", table, "--user", PAIMON_USER).trim());
        assertEquals(Long.toString(lastCheckpoint), cli("last-committed", table, "--user", SINK_USER).trim());
        cli("fsck", table);

        // 4. A real conflict: Paimon overwrites partition p=0 (deleting its live files), while a
        //    snapcommit COMPACT based on the snapshot before deletes one of them too (rewriting it).
        long base;
        FileEntry victim;
        try (NativeTable nt = NativeTable.openTable(table)) {
            base = nt.latestSnapshotId();
            victim = nt.liveFiles(0).stream().filter(f -> spec.dataFilePath(f).startsWith("p=0/")).findFirst()
                .orElseThrow();
        }
        try (Catalog catalog = paimonCatalog()) {
            BatchWriteBuilder wb = catalog.getTable(Identifier.create("db", "t")).newBatchWriteBuilder()
                .withOverwrite(Map.of("p", "0"));
            try (BatchTableWrite w = wb.newWrite(); BatchTableCommit c = wb.newCommit()) {
                w.write(GenericRow.of(1000L, BinaryString.fromString("overwrite"), 0L));
                c.commit(w.prepareCommit());
            }
        }
        String copy = "data-" + java.util.UUID.randomUUID() + "-0.parquet";
        String dir = spec.dataFilePath(victim).substring(0, spec.dataFilePath(victim).lastIndexOf('/') + 1);
        try (NativeStore s = NativeStore.openStore(table)) {
            byte[] bytes = s.getObject(spec.dataFilePath(victim));
            s.putObject(dir + copy, bytes, 0, bytes.length);
        }
        try (NativeTable nt = NativeTable.openTable(table); NativeChanges c = new NativeChanges()) {
            assertEquals(base + 1, nt.latestSnapshotId(), "Paimon's OVERWRITE is the next snapshot");
            SnapshotInfo over = nt.snapshot(base + 1);
            assertEquals(CommitKind.OVERWRITE, over.commitKind());
            c.deleteFile(victim);
            c.addFile(victim.toBuilder().file(copy).fileSource(FileEntry.FILE_SOURCE_COMPACT).build());
            ConflictException e = assertThrows(ConflictException.class,
                                               () -> nt.commit(SINK_USER, lastCheckpoint + 1, CommitKind.COMPACT, base, c));
            assertTrue(e.getMessage().contains("File deletion conflict") && e.getMessage().contains(victim.file()),
                       e.getMessage());
            assertEquals(base + 1, nt.latestSnapshotId(), "the conflicting commit wrote nothing");
            assertEquals(lastCheckpoint, nt.lastCommittedIdentifier(SINK_USER).getAsLong());
            nt.fsck();
            summary("  mixed db.t: Paimon OVERWRITE vs snapcommit COMPACT of " + victim.file() + ": " + e.getMessage());
        }
        Files.delete(Paths.get(table, dir + copy));
        // Paimon reads the overwritten state: p=0 holds only the overwrite row.
        try (PaimonReader r = PaimonReader.open(table, Map.of())) {
            List<String> now = r.rows();
            assertTrue(now.contains(row(1000, "overwrite")), now.toString());
            for (String x : now)
                assertTrue(x.endsWith("\"p\":1}") || x.equals(row(1000, "overwrite")), x);
            assertEquals(1 + 25 + sinkRows / 2, now.size());
        }
        cli("fsck", table);
    }

    @Test
    void fixedBucketsPaimonThenSinkThenPaimon() throws Exception {
        String table = table("fb");
        Map<String, String> opts = Map.of("bucket", "2", "bucket-key", "id");
        try (Catalog catalog = paimonCatalog()) {
            paimonCommits(paimonCreate(catalog, "fb", opts), "paimon", 0, 1, 2);
        }
        StreamTableEnvironment t = StreamTableEnvironment.create(env("200 ms", Map.of()));
        t.executeSql("CREATE TABLE fb (id BIGINT, tag STRING, p BIGINT) PARTITIONED BY (p) WITH ('connector' = "
                     + "'snapcommit', 'path' = '" + table + "', 'commit.user' = '" + SINK_USER + "', 'bucket' = '2', "
                     + "'bucket-key' = 'id')");
        t.executeSql("CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence', "
                     + "'fields.id.start' = '0', 'fields.id.end' = '99')");
        t.executeSql("INSERT INTO fb SELECT id, 'flink', MOD(id, 2) FROM gen").await();
        try (Catalog catalog = paimonCatalog()) {
            paimonCommits(catalog.getTable(Identifier.create("db", "fb")), "paimon", 20, 3, 1);
        }
        List<SnapshotInfo> log = TableContents.log(table);
        try (PaimonReader r = PaimonReader.open(table, Map.of())) {
            PaimonReader.Check c = r.check(60_000);
            assertEquals(log.size(), c.snapshots.size());
            for (int i = 0; i < log.size(); i++) {
                assertEquals(c.snapshots.get(i).commitUser(), log.get(i).commitUser());
                assertEquals(c.snapshots.get(i).commitIdentifier(), log.get(i).commitIdentifier());
            }
            assertEquals(List.of(PAIMON_USER, PAIMON_USER), List.of(log.get(0).commitUser(), log.get(1).commitUser()));
            assertEquals(PAIMON_USER, log.get(log.size() - 1).commitUser());
            assertEquals(3, log.get(log.size() - 1).commitIdentifier());
            for (int i = 2; i < log.size() - 1; i++) assertEquals(SINK_USER, log.get(i).commitUser());
            assertEquals(130, c.rows.size());
            assertExactlyOnce(c.rows, "paimon", 30);
            assertExactlyOnce(c.rows, "flink", 100);
        }
        // Every live file, Paimon's and ours, in 2 buckets, each row in the bucket Paimon's function gives it.
        PaimonTableSpec spec = spec(table, null);
        org.apache.paimon.table.sink.FixedBucketRowKeyExtractor buckets =
            new org.apache.paimon.table.sink.FixedBucketRowKeyExtractor(spec.schema());
        int rowsChecked = 0;
        for (FileEntry f : TableContents.liveFiles(table)) {
            assertEquals(2, f.totalBuckets(), f.toString());
            String path = spec.dataFilePath(f);
            for (String x : TableContents.readDataFile(spec, path, Files.readAllBytes(Paths.get(table, path)))) {
                long id = idOf(x);
                buckets.setRecord(GenericRow.of(id, BinaryString.fromString(x.contains("flink") ? "flink" : "paimon"), id % 2));
                assertEquals(buckets.bucket(), f.bucket(), x + " in " + path);
                rowsChecked++;
            }
        }
        assertEquals(130, rowsChecked);
        try (NativeTable nt = NativeTable.openTable(table)) {
            assertEquals(3, nt.lastCommittedIdentifier(PAIMON_USER).getAsLong());
            nt.fsck();
        }
    }

    @Test
    void aDdlThatDoesNotMatchPaimonsSchemaFailsAtPlanningAndAdoptsNothing() throws Exception {
        String table = table("m");
        try (Catalog catalog = paimonCatalog()) {
            paimonCommits(paimonCreate(catalog, "m", Map.of()), "paimon", 0, 1, 1);
        }
        StreamTableEnvironment t = StreamTableEnvironment.create(env("200 ms", Map.of()));
        t.executeSql("CREATE TABLE m (id INT, tag STRING, p BIGINT) PARTITIONED BY (p) WITH ('connector' = "
                     + "'snapcommit', 'path' = '" + table + "')");
        ValidationException e = assertThrows(ValidationException.class,
                                             () -> t.executeSql("INSERT INTO m VALUES (1, 'x', 1)").await());
        String all = messages(e);
        assertTrue(all.contains("does not match the schema of table") && all.contains("column id is INT in the job but BIGINT"),
                   all);
        assertFalse(Files.exists(Paths.get(table, "metadata/table.json")), "nothing adopted");
        assertEquals(List.of("schema/schema-0"), schemaKeys(table));
        // Partition keys are checked too.
        StreamTableEnvironment t2 = StreamTableEnvironment.create(env("200 ms", Map.of()));
        t2.executeSql("CREATE TABLE m (id BIGINT, tag STRING, p BIGINT) WITH ('connector' = 'snapcommit', 'path' = '"
                      + table + "')");
        e = assertThrows(ValidationException.class, () -> t2.executeSql("INSERT INTO m VALUES (1, 'x', 1)").await());
        assertTrue(messages(e).contains("partition keys are [] in the job but [p] in the table"), messages(e));
        assertFalse(Files.exists(Paths.get(table, "metadata/table.json")), "nothing adopted");
    }

    @Test
    void concurrentAdoptersAllOpenTheOneAdoptedTable() throws Exception {
        String table = table("c");
        try (Catalog catalog = paimonCatalog()) {
            paimonCommits(paimonCreate(catalog, "c", Map.of("bucket", "-1")), "paimon", 0, 1, 2);
        }
        String derived = PaimonTableSpec.derive(ROW, List.of("p"), List.of(), Map.of()).json();
        int n = 6;
        CyclicBarrier start = new CyclicBarrier(n);
        ExecutorService pool = Executors.newFixedThreadPool(n);
        List<Future<String>> uuids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            uuids.add(pool.submit(() -> {
                start.await();
                try (NativeTable nt = NativeTable.openOrCreate(table, Strategy.AUTO, null, derived)) {
                    assertEquals(2, nt.latestSnapshotId());
                    return nt.tableUuid();
                }
            }));
        }
        Set<String> seen = new HashSet<>();
        for (Future<String> f : uuids) seen.add(f.get());
        pool.shutdown();
        assertEquals(1, seen.size(), "every adopter opens the same table: " + seen);
        assertEquals(List.of("schema/schema-0"), schemaKeys(table));
        try (NativeTable nt = NativeTable.openTable(table)) {
            assertEquals(seen.iterator().next(), nt.tableUuid());
            assertEquals(2, nt.lastCommittedIdentifier(PAIMON_USER).getAsLong());
            // Paimon's schema, not the one offered for a new table (ours would carry no 'bucket' option).
            assertEquals("-1", PaimonTableSpec.fromJson(nt.schemaJson()).schema().options().get("bucket"));
            nt.fsck();
        }
        // Nothing of the probes or of losing creators left behind under metadata/.
        try (NativeStore s = NativeStore.openStore(table)) {
            List<String> keys = s.listKeys("metadata/");
            assertTrue(keys.contains("metadata/table.json"), keys.toString());
            assertTrue(keys.stream().noneMatch(k -> k.startsWith("metadata/probe-")), keys.toString());
        }
    }

    /** Paimon's stream committer (PAIMON_USER) commits identifier ident on db.pk: upserts (k, v) and deletes of k. */
    private void paimonPk(long ident, Map<Long, String> upserts, List<Long> deletes) throws Exception {
        try (Catalog catalog = paimonCatalog()) {
            StreamWriteBuilder wb = catalog.getTable(Identifier.create("db", "pk")).newStreamWriteBuilder()
                .withCommitUser(PAIMON_USER);
            try (StreamTableWrite w = wb.newWrite(); StreamTableCommit c = wb.newCommit()) {
                for (Map.Entry<Long, String> e : upserts.entrySet())
                    w.write(GenericRow.of(e.getKey(), BinaryString.fromString(e.getValue())));
                for (long k : deletes)
                    w.write(GenericRow.ofKind(org.apache.paimon.types.RowKind.DELETE, k, BinaryString.fromString("")));
                c.commit(ident, w.prepareCommit(true, ident));
            }
        }
    }

    /** The sink (SQL, a retract changelog so the DELETEs reach it as they are) writes upserts and deletes of k. */
    private void sinkPk(String table, String user, Map<Long, String> upserts, List<Long> deletes) throws Exception {
        org.apache.flink.streaming.api.environment.StreamExecutionEnvironment env = env("200 ms", Map.of());
        StreamTableEnvironment t = StreamTableEnvironment.create(env);
        t.getConfig().set("table.exec.sink.upsert-materialize", "NONE");
        List<org.apache.flink.types.Row> rows = new ArrayList<>();
        upserts.forEach((k, v) -> rows.add(org.apache.flink.types.Row.ofKind(org.apache.flink.types.RowKind.INSERT, k, v)));
        for (long k : deletes) rows.add(org.apache.flink.types.Row.ofKind(org.apache.flink.types.RowKind.DELETE, k, ""));
        org.apache.flink.streaming.api.datastream.DataStream<org.apache.flink.types.Row> in = env.fromData(rows)
            .returns(org.apache.flink.api.common.typeinfo.Types.ROW_NAMED(new String[] {"k", "v"},
                org.apache.flink.api.common.typeinfo.Types.LONG, org.apache.flink.api.common.typeinfo.Types.STRING));
        t.createTemporaryView("changes", t.fromChangelogStream(in, org.apache.flink.table.api.Schema.newBuilder().build(),
                                                               org.apache.flink.table.connector.ChangelogMode.all()));
        t.executeSql("CREATE TABLE pk (k BIGINT, v STRING, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = "
                     + "'snapcommit', 'path' = '" + table + "', 'commit.user' = '" + user + "', 'bucket' = '2')");
        t.executeSql("INSERT INTO pk SELECT * FROM changes").await();
    }

    private static List<String> pkModel(java.util.TreeMap<Long, String> m) {
        List<String> out = new ArrayList<>();
        m.forEach((k, v) -> out.add("{\"k\":" + k + ",\"v\":\"" + v + "\"}"));
        java.util.Collections.sort(out);
        return out;
    }

    private static List<String> pkRead(String table) {
        try (PaimonReader r = PaimonReader.open(table, Map.of())) {
            List<String> rows = new ArrayList<>(r.rows());
            java.util.Collections.sort(rows);
            return rows;
        }
    }

    private static Map<Long, String> upserts(long from, long to, String tag) {
        Map<Long, String> m = new java.util.TreeMap<>();
        for (long k = from; k < to; k++) m.put(k, tag + "-" + k);
        return m;
    }

    /**
     * Paimon's own committer (TableWriteImpl + TableCommitImpl) and the sink take turns on one
     * primary-key table with two fixed buckets, both ways, each upserting keys the other wrote and
     * deleting some; after every turn Paimon's batch read equals the model, and the snapshot chain
     * holds both users' identifiers in order.
     */
    @Test
    void paimonAndTheSinkTakeTurnsOnAPrimaryKeyTable() throws Exception {
        String table = table("pk");
        try (Catalog catalog = paimonCatalog()) {
            catalog.createDatabase("db", true);
            catalog.createTable(Identifier.create("db", "pk"), Schema.newBuilder().column("k", DataTypes.BIGINT().notNull())
                .column("v", DataTypes.STRING()).primaryKey("k").option("bucket", "2").build(), false);
        }
        java.util.TreeMap<Long, String> model = new java.util.TreeMap<>();
        // 1. Paimon: keys 0..9.
        paimonPk(1, upserts(0, 10, "paimon1"), List.of());
        model.putAll(upserts(0, 10, "paimon1"));
        assertEquals(pkModel(model), pkRead(table), "after Paimon's first commit");
        // 2. The sink adopts the table: overwrites keys 5..14, deletes keys 0 and 1.
        sinkPk(table, SINK_USER, upserts(5, 15, "sink1"), List.of(0L, 1L));
        model.putAll(upserts(5, 15, "sink1"));
        model.remove(0L);
        model.remove(1L);
        assertEquals(pkModel(model), pkRead(table), "after the sink's first job");
        // 3. Paimon again: overwrites keys the sink wrote (12..16), deletes key 7 the sink wrote.
        paimonPk(2, upserts(12, 17, "paimon2"), List.of(7L));
        model.putAll(upserts(12, 17, "paimon2"));
        model.remove(7L);
        assertEquals(pkModel(model), pkRead(table), "after Paimon's second commit");
        // 4. The sink again: overwrites Paimon's key 2 and 14, deletes Paimon's key 16, re-inserts the deleted 0.
        Map<Long, String> up = new java.util.TreeMap<>(Map.of(0L, "sink2-0", 2L, "sink2-2", 14L, "sink2-14"));
        // A second job, so a user of its own: its checkpoint ids start at 1 again, which the first job's
        // user has committed (the table would filter them as replays).
        sinkPk(table, SINK_USER + "-2", up, List.of(16L));
        model.putAll(up);
        model.remove(16L);
        assertEquals(pkModel(model), pkRead(table), "after the sink's second job");

        List<SnapshotInfo> log = TableContents.log(table);
        List<String> users = new ArrayList<>();
        for (SnapshotInfo s : log)
            if (users.isEmpty() || !users.get(users.size() - 1).equals(s.commitUser())) users.add(s.commitUser());
        assertEquals(List.of(PAIMON_USER, SINK_USER, PAIMON_USER, SINK_USER + "-2"), users, TableContents.formatLog(log));
        try (PaimonReader r = PaimonReader.open(table, Map.of())) {
            assertEquals(log.size(), r.snapshots().size());
        }
        try (NativeTable nt = NativeTable.openTable(table)) {
            assertEquals(2, nt.lastCommittedIdentifier(PAIMON_USER).getAsLong());
            nt.fsck();
        }
        cli("fsck", table);
        summary("  mixed db.pk (primary key, bucket 2): Paimon, sink, Paimon, sink; " + log.size()
                + " snapshots; Paimon's batch read equals the model " + pkModel(model).size() + " rows after every turn");
    }

    private static List<String> schemaKeys(String table) {
        try (NativeStore s = NativeStore.openStore(table)) {
            return s.listKeys("schema/").stream().filter(k -> !k.contains("/.")).collect(Collectors.toList());
        }
    }

    private static String messages(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) sb.append(c.getMessage()).append('\n');
        return sb.toString();
    }
}

package io.snapcommit.jni;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryRowWriter;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.utils.SerializationUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/** The JNI binding against the real native library (run with -Xcheck:jni). */
class NativeTableTest {
    @TempDir Path dir;

    /** The tables of these tests: (dt STRING, v BIGINT) partitioned by dt, bucket-unaware. */
    static final String SCHEMA = "{\"fields\":[{\"name\":\"dt\",\"type\":\"STRING\"},"
                                 + "{\"name\":\"v\",\"type\":\"BIGINT\"}],\"partitionKeys\":[\"dt\"]}";

    private String table() {
        return dir.resolve("t").toString();
    }

    private NativeTable openOrCreate() {
        return NativeTable.openOrCreate(table(), Strategy.AUTO, null, SCHEMA);
    }

    /** Paimon's serialized BinaryRow of the partition dt = value. */
    static byte[] dt(String value) {
        BinaryRow row = new BinaryRow(1);
        BinaryRowWriter w = new BinaryRowWriter(row);
        w.writeString(0, BinaryString.fromString(value));
        w.complete();
        return SerializationUtils.serializeBinaryRow(row);
    }

    private static NativeChanges oneFile(String name, long rows) {
        NativeChanges c = new NativeChanges();
        c.addFile(FileEntry.appendFile(dt("1"), 0, 0, name, rows, rows * 10));
        return c;
    }

    /** The call fails with a SnapcommitException of code want. */
    private static SnapcommitException assertCode(ErrorCode want, Executable call) {
        SnapcommitException e = assertThrows(SnapcommitException.class, call);
        assertEquals(want, e.errorCode(), e.getMessage());
        return e;
    }

    @Test
    void loadsTheBundledLibrary() {
        NativeLoader.load();
        assertNotNull(NativeLoader.loadedFrom());
    }

    @Test
    void createOpenCommitAndInspect() {
        assertTrue(NativeTable.createTable(table(), Strategy.AUTO, null, SCHEMA));
        assertFalse(NativeTable.createTable(table(), Strategy.AUTO, null, SCHEMA), "second create finds the table");
        try (NativeTable t = NativeTable.openTable(table()); NativeChanges c = oneFile("data-f1.parquet", 5)) {
            assertEquals(Strategy.RENAME, t.strategy());
            assertEquals(36, t.tableUuid().length());
            assertEquals(0, t.latestSnapshotId());
            assertFalse(t.lastCommittedIdentifier("job-1").isPresent());
            CommitResult r = t.commit("job-1", 7, CommitKind.APPEND, 0, c);
            assertEquals(1, r.snapshotId());
            assertEquals(1, r.attempts());
            assertEquals(0, r.lostClaims());
            assertEquals(7, t.lastCommittedIdentifier("job-1").getAsLong());
            assertArrayEquals(new long[] {8, 9}, t.filterUncommitted("job-1", new long[] {6, 7, 8, 9}));
            assertArrayEquals(new long[] {1}, t.filterUncommitted("job-2", new long[] {1}));
            SnapshotInfo s = t.snapshot(1);
            assertEquals("job-1", s.commitUser());
            assertEquals(7, s.commitIdentifier());
            assertEquals(CommitKind.APPEND, s.commitKind());
            assertEquals(5, s.totalRecordCount());
            List<FileEntry> files = t.liveFiles(0);
            assertEquals(1, files.size());
            assertEquals("data-f1.parquet", files.get(0).file());
            assertArrayEquals(dt("1"), files.get(0).partition());
            assertEquals(0, files.get(0).bucket());
            assertEquals(-1, files.get(0).totalBuckets(), "a bucket-unaware table's files: total buckets -1");
            assertEquals(5, files.get(0).rows());
            t.fsck();
        }
    }

    @Test
    void replayIsAlreadyCommitted() {
        try (NativeTable t = openOrCreate()) {
            try (NativeChanges c = oneFile("a", 1)) {
                t.commit("u", 3, CommitKind.APPEND, 0, c);
            }
            try (NativeChanges c = oneFile("b", 1)) {
                AlreadyCommittedException e = assertThrows(AlreadyCommittedException.class,
                                                           () -> t.commit("u", 3, CommitKind.APPEND, 0, c));
                assertEquals("SC_ECOMMITTED", e.codeName());
                assertEquals(-10, e.code());
                assertEquals(1, e.existingSnapshot());
                assertTrue(e.detailMessage().contains("already committed"), e.getMessage());
            }
            assertEquals(1, t.latestSnapshotId());
        }
    }

    @Test
    void exceptionsCarryCodeAndMessage() {
        SnapcommitException nt = assertCode(ErrorCode.ENOTABLE, () -> NativeTable.openTable(table()));
        assertEquals("SC_ENOTABLE", nt.codeName());
        assertEquals(-15, nt.code());
        assertEquals(SnapcommitException.class, nt.getClass(), "no subclass for codes callers do not single out");
        try (NativeTable t = openOrCreate()) {
            try (NativeChanges c = new NativeChanges()) {
                SnapcommitException e = assertCode(ErrorCode.EINVAL,
                    () -> c.addFile(FileEntry.appendFile(dt("1"), 0, 0, "x", -1, 1)));
                assertTrue(e.getMessage().contains("rows"), e.getMessage());
            }
            // Checked against the table's schema at commit: a name with '/', a partition that is not a
            // BinaryRow of the partition fields, a bucket of a bucket-unaware table, a key range on a
            // table without primary key. Each names the entry and the field; nothing is committed.
            String[][] refused = {{"data/x", "1", "0", ""}, {"../escape", "1", "0", ""}, {"x", "text", "0", ""},
                                  {"x", "empty", "0", ""}, {"x", "1", "1", ""}, {"x", "1", "0", "key"}};
            String[] says = {"\"/\"", "\"/\"", "partition", "partition", "bucket", "min_key"};
            for (int i = 0; i < refused.length; i++) {
                String[] r = refused[i];
                byte[] part = r[1].equals("text") ? "dt=1".getBytes(StandardCharsets.UTF_8)
                    : r[1].equals("empty") ? SerializationUtils.serializeBinaryRow(BinaryRow.EMPTY_ROW) : dt(r[1]);
                byte[] key = r[3].isEmpty() ? null : dt("k");
                try (NativeChanges c = new NativeChanges()) {
                    try {
                        c.addFile(new FileEntry(part, Integer.parseInt(r[2]), 0, 0, r[0], 1, 1, key, key));
                    } catch (SnapcommitException early) {
                        assertEquals(ErrorCode.EINVAL, early.errorCode(), early.getMessage());
                        continue; // refused when added: as good
                    }
                    SnapcommitException e = assertCode(ErrorCode.EINVAL, () -> t.commit("u", 1, CommitKind.APPEND, 0, c));
                    assertTrue(e.getMessage().contains(says[i]), Arrays.toString(r) + ": " + e.getMessage());
                }
            }
            assertEquals(0, t.latestSnapshotId(), "refused entries commit nothing");
            try (NativeChanges c = oneFile("first", 1)) {
                t.commit("u", 1, CommitKind.APPEND, 0, c);
            }
            try (NativeChanges c = new NativeChanges()) {
                c.deleteFile(FileEntry.appendFile(dt("1"), 0, 0, "never-added", 1, 1));
                ConflictException e = assertThrows(ConflictException.class,
                                                   () -> t.commit("u", 2, CommitKind.COMPACT, 0, c));
                assertEquals(ErrorCode.ECONFLICT, e.errorCode());
                assertTrue(e.getMessage().contains("never-added"), e.getMessage());
            }
            assertCode(ErrorCode.ENOTFOUND, () -> t.snapshot(42));
        }
        // A posix store has no compare-and-swap: the head strategy cannot be used there.
        SnapcommitException head = assertCode(ErrorCode.EUNSUPPORTED,
                                              () -> NativeTable.createTable(dir.resolve("h").toString(), Strategy.HEAD));
        assertEquals("SC_EUNSUPPORTED", head.codeName());
        assertTrue(head.detailMessage().contains("head"), head.getMessage());
        assertCode(ErrorCode.EINVAL, () -> NativeStore.openStore("hdfs://nn/t"));
        assertThrows(IllegalArgumentException.class, () -> NativeTable.openTable("bad\u0000path"));
    }

    @Test
    void storeConfigurationIsPerStoreAndMasked() {
        SnapcommitException e = assertCode(ErrorCode.EINVAL,
            () -> NativeStore.openStore("s3://b/t", StoreConfig.builder().endpoint("ftp://nowhere").build()));
        assertTrue(e.getMessage().contains("the configured endpoint"), e.getMessage());
        StoreConfig secret = StoreConfig.builder().accessKey("AKIAJNI").secretKey("jni-secret-value")
            .sessionToken("jni-token-value").region("Not A Region").build();
        e = assertCode(ErrorCode.EINVAL, () -> NativeTable.openTable("s3://b/t", secret));
        assertTrue(e.getMessage().contains("the configured region"), e.getMessage());
        assertFalse(e.getMessage().contains("jni-secret-value") || e.getMessage().contains("jni-token-value"));
        // Out of libsnapcommit's bounds (1..3600000 ms): refused when the StoreConfig is built, naming
        // the option, before anything reaches the native open (which would refuse it too).
        IllegalArgumentException bounds = assertThrows(IllegalArgumentException.class,
            () -> StoreConfig.builder().connectTimeout(Duration.ofHours(2)).build());
        assertTrue(bounds.getMessage().contains("s3.connect-timeout"), bounds.getMessage());
        // Local stores take the configuration too (the tracker TTL applies to any backend).
        StoreConfig ttl = StoreConfig.builder().trackerTtl(Duration.ofSeconds(5)).build();
        assertTrue(NativeTable.createTable(table(), Strategy.TRACKER, ttl));
        try (NativeTable t = NativeTable.openTable(table(), ttl); NativeStore s = NativeStore.openStore(table(), ttl)) {
            assertEquals(Strategy.TRACKER, t.strategy());
            s.check();
        }
    }

    @Test
    void closedHandlesAreRejected() {
        NativeTable t = NativeTable.openOrCreate(table(), Strategy.AUTO);
        t.close();
        t.close(); // idempotent
        assertThrows(IllegalStateException.class, t::latestSnapshotId);
        NativeChanges c = new NativeChanges();
        c.close();
        assertThrows(IllegalStateException.class, c::addCount);
    }

    @Test
    void utf8RoundTrips() {
        String user = "jöb-\u6f22\u5b57-\ud83d\ude80"; // includes a supplementary character
        String file = "p\u00e4rt-\ud83d\ude80.parquet";
        try (NativeTable t = openOrCreate(); NativeChanges c = new NativeChanges()) {
            c.addFile(FileEntry.appendFile(dt("\u00fc"), 0, 0, file, 2, 20));
            t.commit(user, 1, CommitKind.APPEND, 0, c);
            assertEquals(user, t.snapshot(1).commitUser());
            assertEquals(file, t.liveFiles(1).get(0).file());
            assertArrayEquals(dt("\u00fc"), t.liveFiles(1).get(0).partition());
            assertEquals(1, t.lastCommittedIdentifier(user).getAsLong());
        }
    }

    @Test
    void storePutGetListDelete() throws Exception {
        try (NativeStore s = NativeStore.openStore(table())) {
            assertEquals("posix", s.backendName());
            byte[] data = "0123456789".getBytes(StandardCharsets.UTF_8);
            s.putObject("data/a.json", data, 2, 5);
            s.putObject("data/b.json", data, 0, 0);
            assertArrayEquals("23456".getBytes(StandardCharsets.UTF_8), s.getObject("data/a.json"));
            assertEquals(0, s.getObject("data/b.json").length);
            assertEquals(List.of("data/a.json", "data/b.json"), s.listKeys("data/"));
            assertEquals("23456", Files.readString(dir.resolve("t/data/a.json")));
            s.deleteObject("data/a.json");
            assertCode(ErrorCode.ENOTFOUND, () -> s.getObject("data/a.json"));
            assertThrows(IllegalArgumentException.class, () -> s.putObject("data/c", data, 8, 5));
            assertCode(ErrorCode.EINVAL, () -> s.putObject("../up", data, 0, 1));
        }
    }

    @Test
    void nativeLogLinesReachJava() {
        NativeLog.enable();
        long before = NativeLog.linesBridged();
        try (NativeTable t = openOrCreate(); NativeChanges c = oneFile("l", 1)) {
            t.commit("logger", 1, CommitKind.APPEND, 0, c); // logs "committed snapshot 1 ..." at INFO
        }
        assertTrue(NativeLog.linesBridged() > before, "no native log line was bridged");
    }

    @Test
    void concurrentHandlesCommitExactlyOnce() throws Exception {
        NativeTable.createTable(table(), Strategy.AUTO, null, SCHEMA);
        int threads = 4, commits = 15;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<int[]>> results = new ArrayList<>();
        for (int w = 0; w < threads; w++) {
            final int writer = w;
            results.add(pool.submit(() -> {
                int lost = 0;
                try (NativeTable t = NativeTable.openTable(table())) {
                    t.retryPolicy(100, Duration.ofMillis(1), Duration.ofMillis(20), null);
                    for (int i = 1; i <= commits; i++) {
                        try (NativeChanges c = oneFile("w" + writer + "-" + i, 1)) {
                            lost += t.commit("writer-" + writer, i, CommitKind.APPEND, 0, c).lostClaims();
                        }
                    }
                }
                return new int[] {lost};
            }));
        }
        int lost = 0;
        for (Future<int[]> f : results) lost += f.get()[0];
        pool.shutdown();
        try (NativeTable t = NativeTable.openTable(table())) {
            assertEquals(threads * commits, t.latestSnapshotId());
            Set<String> files = new HashSet<>();
            for (FileEntry e : t.liveFiles(0)) assertTrue(files.add(e.file()));
            assertEquals(threads * commits, files.size());
            for (int w = 0; w < threads; w++) assertEquals(commits, t.lastCommittedIdentifier("writer-" + w).getAsLong());
            t.fsck();
        }
        System.out.println("concurrent commits: " + threads * commits + " snapshots, " + lost + " lost claims");
    }
}

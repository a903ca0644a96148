package io.snapcommit.it;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.paimon.Snapshot;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.manifest.ManifestFileMeta;
import org.apache.paimon.manifest.ManifestList;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.junit.jupiter.api.Test;

import io.snapcommit.demo.CollectingReporter;
import io.snapcommit.demo.PaimonReader;
import io.snapcommit.demo.TableContents;
import io.snapcommit.flink.CommitListener;
import io.snapcommit.jni.FileEntry;
import io.snapcommit.jni.NativeTable;
import io.snapcommit.jni.SnapshotInfo;

/**
 * Upkeep by the sink's committer (issue 12): a streaming job of 2,000 commits with
 * snapshot.num-retained.max = 50 and small-file compaction on keeps the whole table (snapshots,
 * manifests and data files) bounded while it runs and leaves 50 snapshots.
 */
class ExpirationITCase extends ITBase {
    static final int COMMITS = 2000;
    static final int RETAIN_MAX = 50;
    static final int RETAIN_MIN = 10;
    /** The job's commits after which the listener counts the table's objects (while the job runs). */
    static final Set<Long> PROBES = Set.of(500L, 1000L, 1500L);
    static final Map<String, Map<Long, long[]>> COUNTS = new ConcurrentHashMap<>();
    static final Map<String, java.util.concurrent.atomic.AtomicLong> COMMITS_SEEN = new ConcurrentHashMap<>();

    /**
     * One row per checkpoint (RateLimiterStrategy.perCheckpoint, one source reader, one writer):
     * every checkpoint commits one snapshot with one data file, and the upkeep thread compacts the
     * small files (COMPACT snapshots of its own user) and expires. snapshot.time-retained stays at
     * Paimon's 1 h, so the maximum is what expires snapshots and the end state is exact: 50.
     * The expiration is asynchronous and may lag behind the last commits; at the end of input the
     * committer lets it catch up before it closes (bounded wait), so the finished job leaves the
     * table within retention. The test checks that state; it does not run an expiration itself.
     */
    @Test
    void twoThousandCommitsKeepFiftySnapshots() throws Exception {
        String table = table("expire");
        StreamExecutionEnvironment env = env("10 ms", Map.of());
        DataGeneratorSource<String> src = new DataGeneratorSource<>(
            id -> "{\"id\":" + id + ",\"tag\":\"x\"}", COMMITS, RateLimiterStrategy.perCheckpoint(1), Types.STRING);
        DataStream<String> lines = env.fromSource(src, WatermarkStrategy.noWatermarks(), "generator-x")
                                      .uid("generator-x").setParallelism(1);
        String key = testName;
        String location = table;
        // By the job's own commits (compaction rounds take snapshot ids too, so an id may be theirs).
        CommitListener probe = e -> {
            long n = COMMITS_SEEN.computeIfAbsent(key, k -> new java.util.concurrent.atomic.AtomicLong()).incrementAndGet();
            if (PROBES.contains(n)) COUNTS.computeIfAbsent(key, k -> new ConcurrentHashMap<>()).put(n, objects(location));
        };
        sink(table).uidPrefix("exp").writerParallelism(1).snapshotNumRetainedMax(RETAIN_MAX)
            .snapshotNumRetainedMin(RETAIN_MIN).compaction(true).commitListener(probe).build().sinkTo(rows(lines));
        long t0 = System.currentTimeMillis();
        env.execute(testName);
        long ms = System.currentTimeMillis() - t0;

        List<SnapshotInfo> log = TableContents.log(table);
        long latest = log.get(log.size() - 1).id();
        long earliest = log.get(0).id();
        long commits = CollectingReporter.counter(testName, "commits");
        long compactions = CollectingReporter.counter(testName, "compactions");
        assertEquals(latest, commits + compactions, "one snapshot per commit and per compaction round, all by this job");
        assertTrue(compactions > 0, "the small files were compacted");
        assertEquals(0, CollectingReporter.counter(testName, "compactionFailures"), "no compaction failed");
        assertEquals(0, CollectingReporter.counter(testName, "filteredReplays"), "no restart: one attempt wrote everything");
        assertTrue(commits >= COMMITS, "one row per checkpoint: at least " + COMMITS + " commits, got " + commits);
        assertEquals(RETAIN_MAX, log.size(), "snapshots " + earliest + ".." + latest + " retained");
        assertEquals(COMMITS, log.get(log.size() - 1).totalRecordCount());

        // Objects: snapshot files, manifest lists and manifests exactly those of the retained snapshots.
        long[] end = objects(table);
        Set<String> referenced = referencedMetadata(table);
        Set<String> present = listed(Paths.get(table, "manifest"));
        Set<String> missing = new TreeSet<>(referenced);
        missing.removeAll(present);
        assertEquals(Set.of(), missing, "manifest objects the retained snapshots name are all present");
        // Besides them only leftovers of claims lost to the compaction's commits (or the other way
        // round): garbage for remove-orphans, never named by a snapshot; a handful, not one per commit.
        Set<String> leftovers = new TreeSet<>(present);
        leftovers.removeAll(referenced);
        assertTrue(leftovers.size() <= 32, leftovers.size() + " unreferenced manifest objects: " + leftovers);
        assertEquals(RETAIN_MAX, end[0], "snapshot files (EARLIEST and LATEST hints not counted)");
        long lists = referenced.stream().filter(n -> n.startsWith("manifest-list-")).count();
        assertEquals(2L * RETAIN_MAX, lists, "each retained snapshot names a base and a delta manifest list");
        // Data files on storage: exactly those a retained snapshot names (compacted inputs go with
        // the snapshots that last held them; none left behind).
        Set<String> retainedData = new TreeSet<>();
        try (NativeTable t = NativeTable.openTable(table)) {
            for (long id = earliest; id <= latest; id++)
                for (FileEntry f : t.liveFiles(id)) retainedData.add(f.file());
        }
        assertEquals(retainedData, dataFiles(table), "data files on storage = the files of the retained snapshots");
        // Bounded: the whole table at the end is no more than while the job ran (1/4 of the way and
        // later), plus the small manifests a base list may hold before the next merge (32, commit.c)
        // and one compaction task's inputs (sink.compaction.max-file-num, 50); and far below one
        // data file per commit.
        Map<Long, long[]> mid = COUNTS.getOrDefault(testName, Map.of());
        assertEquals(PROBES.size(), mid.size(), "object counts while the job ran: " + mid.keySet());
        long midMax = mid.values().stream().mapToLong(c -> c[0] + c[1] + c[2]).max().getAsLong();
        long endTotal = end[0] + end[1] + end[2];
        assertTrue(endTotal <= midMax + 32 + 50, "objects grew with commits: " + endTotal + " at the end, " + midMax + " before");
        assertTrue(end[2] < COMMITS / 10, end[2] + " data files for " + COMMITS + " commits: compaction and expiration "
                                          + "should keep them bounded");

        // Readers: Paimon's Java reader (batch scan of the latest; time travel to the earliest
        // retained and to an expired one) and pypaimon; every row exactly once.
        try (PaimonReader r = PaimonReader.open(table, Map.of())) {
            List<Snapshot> snaps = r.snapshots();
            assertEquals(RETAIN_MAX, snaps.size(), "Paimon's snapshot manager lists the retained snapshots");
            assertEquals(earliest, snaps.get(0).id());
            assertExactlyOnce(r.rows(), "x", COMMITS);
            List<String> first = r.rowsAt(earliest);
            assertEquals(log.get(0).totalRecordCount(), first.size());
            // ids are generated in order, one per snapshot: snapshot `earliest` holds [0, its total)
            assertExactlyOnce(first, "x", log.get(0).totalRecordCount());
            assertThrows(RuntimeException.class, () -> r.rowsAt(earliest - 1), "snapshot " + (earliest - 1) + " expired");
        }
        assertPypaimonReads(table, "x", COMMITS, null);
        try (NativeTable t = NativeTable.openTable(table)) {
            t.fsck();
            assertEquals(earliest, t.earliestSnapshotId());
        }

        long expired = CollectingReporter.counter(testName, "expiredSnapshots");
        assertEquals(earliest - 1, expired, "every expired snapshot counted once");
        assertTrue(CollectingReporter.counter(testName, "expirations") > 0);
        StringBuilder probes = new StringBuilder();
        new TreeSet<>(mid.keySet()).forEach(k -> probes.append(String.format(" @%d: %d snapshots + %d manifest objects + %d data files;",
                                                                             k, mid.get(k)[0], mid.get(k)[1], mid.get(k)[2])));
        summary(String.format("upkeep: %d commits (1 row each) + %d compactions, retain max %d: %d snapshots left (%d..%d), "
                              + "objects at the end %d snapshots + %d manifest objects (%d lists, %d unreferenced leftovers "
                              + "of lost claims) + %d data files; while running:%s %d ms; %s",
                              commits, compactions, RETAIN_MAX, log.size(), earliest, latest, end[0], end[1], lists,
                              leftovers.size(), end[2], probes, ms, metricsLine(testName)));
    }

    /**
     * {snapshot files, objects under manifest/, data files} of a local table. Called while the
     * expiration deletes objects (the probe), so an object that vanishes during the walk is not counted.
     */
    static long[] objects(String table) {
        Path root = Paths.get(table);
        long snapshots = listed(root.resolve("snapshot")).stream().filter(n -> n.startsWith("snapshot-")).count();
        long manifests = listed(root.resolve("manifest")).size();
        long[] data = {0};
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<Path>() {
                @Override
                public FileVisitResult visitFile(Path p, BasicFileAttributes a) {
                    if (a.isRegularFile() && p.getFileName().toString().matches(DATA_FILE + ".*")) data[0]++;
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path p, IOException e) {
                    if (e instanceof NoSuchFileException) return FileVisitResult.CONTINUE; // deleted meanwhile
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new long[] {snapshots, manifests, data[0]};
    }

    /** Names of the data files of a local table (after the job: nothing is deleted meanwhile). */
    static Set<String> dataFiles(String table) throws IOException {
        Set<String> out = new TreeSet<>();
        try (java.util.stream.Stream<Path> s = Files.walk(Paths.get(table))) {
            s.filter(Files::isRegularFile).map(p -> p.getFileName().toString())
             .filter(n -> n.matches(DATA_FILE + ".*")).forEach(out::add);
        }
        return out;
    }

    /** Names of the regular files in dir; one deleted during the listing is left out. */
    static Set<String> listed(Path dir) {
        Set<String> out = new HashSet<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            for (Path p : s) out.add(p.getFileName().toString());
        } catch (NoSuchFileException e) {
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /** The manifest lists and manifests the retained snapshots name, as Paimon's own classes read them. */
    static Set<String> referencedMetadata(String table) throws IOException {
        FileStoreTable t = FileStoreTableFactory.create(LocalFileIO.create(), new org.apache.paimon.fs.Path(table));
        ManifestList lists = t.store().manifestListFactory().create();
        Set<String> out = new HashSet<>();
        java.util.Iterator<Snapshot> it = t.snapshotManager().snapshots();
        while (it.hasNext()) {
            Snapshot s = it.next();
            out.add(s.baseManifestList());
            out.add(s.deltaManifestList());
            if (s.changelogManifestList() != null) out.add(s.changelogManifestList());
            for (ManifestFileMeta m : lists.readAllManifests(s)) out.add(m.fileName());
        }
        return out;
    }
}

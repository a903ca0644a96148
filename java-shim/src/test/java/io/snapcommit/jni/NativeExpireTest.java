package io.snapcommit.jni;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** NativeTable.expire against the real native library (run with -Xcheck:jni). */
class NativeExpireTest {
    @TempDir Path dir;

    private Path table() {
        return dir.resolve("t");
    }

    /** A data file of partition dt=1, bucket 0, present on storage with `size` bytes. */
    private FileEntry file(String name, long size) throws IOException {
        Path p = table().resolve("dt=1").resolve("bucket-0").resolve(name);
        Files.createDirectories(p.getParent());
        Files.write(p, new byte[(int) size]);
        return FileEntry.appendFile(NativeTableTest.dt("1"), 0, -1, name, 1, size);
    }

    private long objects(String under) throws IOException {
        Path p = table().resolve(under);
        if (!Files.isDirectory(p)) return 0;
        try (Stream<Path> s = Files.walk(p)) {
            return s.filter(Files::isRegularFile).count();
        }
    }

    /**
     * Five appends (f1..f5), then a compaction replacing f1..f3 by c1: six snapshots. Keeping one
     * expires 1..5, their manifests and manifest lists, and f1..f3, which only expired snapshots
     * hold; a dry run before it counts the same and deletes nothing.
     */
    @Test
    void expiresSnapshotsManifestsAndReplacedFiles() throws IOException {
        List<FileEntry> appended = new ArrayList<>();
        try (NativeTable t = NativeTable.openOrCreate(table().toString(), Strategy.AUTO, null, NativeTableTest.SCHEMA)) {
            for (int i = 1; i <= 5; i++) {
                FileEntry f = file("data-f" + i + ".parquet", 100 + i);
                appended.add(f);
                try (NativeChanges c = new NativeChanges().addFile(f)) {
                    t.commit("u", i, CommitKind.APPEND, 0, c);
                }
            }
            try (NativeChanges c = new NativeChanges()) {
                for (int i = 0; i < 3; i++) c.deleteFile(appended.get(i));
                c.addFile(file("data-c1.parquet", 300));
                t.commit("u", 6, CommitKind.COMPACT, 0, c);
            }
            assertEquals(1, t.earliestSnapshotId());
            long manifestObjects = objects("manifest");
            ExpireOptions keepOne = ExpireOptions.FROM_TABLE.retainMin(1).retainMax(1).olderThan(Duration.ZERO);

            ExpireResult plan = t.expire(keepOne.dryRun(true));
            assertEquals(5, plan.snapshotsExpired(), plan.toString());
            assertEquals(1, t.earliestSnapshotId(), "a dry run moves nothing");
            assertEquals(manifestObjects, objects("manifest"), "a dry run deletes nothing");
            assertEquals(6, objects("dt=1"), "f1..f5 and c1");

            ExpireResult r = t.expire(keepOne);
            assertEquals(1, r.earliestBefore());
            assertEquals(6, r.earliestAfter());
            assertEquals(6, r.latest());
            assertEquals(5, r.snapshotsExpired());
            assertEquals(3, r.dataFilesDeleted(), r.toString());
            // each expired snapshot's base and delta manifest lists, which no retained snapshot names;
            // the manifests themselves stay (snapshot 6's base list still names them)
            assertEquals(10, r.manifestListsDeleted(), r.toString());
            // f1..f3 (306 bytes) plus the manifests and lists, at their recorded sizes
            assertTrue(r.bytesDeleted() > 101 + 102 + 103, r.toString());
            assertEquals(plan.snapshotsExpired(), r.snapshotsExpired());
            assertEquals(plan.filesDeleted(), r.filesDeleted(), "the dry run planned what the run did");
            assertEquals(0, r.alreadyGone());
            assertEquals(6, t.earliestSnapshotId());
            assertEquals(manifestObjects - r.manifestsDeleted() - r.manifestListsDeleted(), objects("manifest"));
            for (int i = 1; i <= 5; i++)
                assertFalse(Files.exists(table().resolve("snapshot/snapshot-" + i)), "snapshot-" + i);
            for (int i = 1; i <= 3; i++)
                assertFalse(Files.exists(table().resolve("dt=1/bucket-0/data-f" + i + ".parquet")), "f" + i);
            assertEquals(3, objects("dt=1"), "f4, f5 and c1 stay: the retained snapshot holds them");
            assertEquals(3, t.liveFiles(0).size());
            t.fsck();

            ExpireResult again = t.expire(keepOne);
            assertEquals(0, again.snapshotsExpired(), "nothing left to expire");
            assertEquals(0, again.filesDeleted());
        }
    }

    /**
     * Unset settings come from the table's own options: a schema with snapshot.num-retained.max = 2
     * (and 1 h time-retained, so the young snapshots stay up to the maximum).
     */
    @Test
    void unsetSettingsComeFromTheTable() throws IOException {
        String schema = "{\"fields\":[{\"name\":\"dt\",\"type\":\"STRING\"},{\"name\":\"v\",\"type\":\"BIGINT\"}],"
                        + "\"partitionKeys\":[\"dt\"],\"options\":{\"snapshot.num-retained.max\":\"2\","
                        + "\"snapshot.num-retained.min\":\"1\",\"snapshot.time-retained\":\"1 h\"}}";
        try (NativeTable t = NativeTable.openOrCreate(table().toString(), Strategy.AUTO, null, schema)) {
            for (int i = 1; i <= 5; i++)
                try (NativeChanges c = new NativeChanges().addFile(file("data-" + i + ".parquet", 10))) {
                    t.commit("u", i, CommitKind.APPEND, 0, c);
                }
            ExpireResult r = t.expire(ExpireOptions.FROM_TABLE);
            assertEquals(3, r.snapshotsExpired(), r.toString());
            assertEquals(4, t.earliestSnapshotId());
            // An explicit setting overrides the table's.
            r = t.expire(ExpireOptions.FROM_TABLE.retainMax(1));
            assertEquals(1, r.snapshotsExpired(), r.toString());
            assertEquals(5, t.earliestSnapshotId());
            assertEquals(0, r.dataFilesDeleted(), "appends only: every file is still live");
            t.fsck();
        }
    }

    @Test
    void outOfRangeSettingsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> ExpireOptions.FROM_TABLE.retainMin(0));
        assertThrows(IllegalArgumentException.class, () -> ExpireOptions.FROM_TABLE.olderThan(Duration.ofMillis(-1)));
        try (NativeTable t = NativeTable.openOrCreate(table().toString(), Strategy.AUTO, null, NativeTableTest.SCHEMA)) {
            // max below min: the library's range check, mapped like every native error
            SnapcommitException e = assertThrows(SnapcommitException.class,
                                                 () -> t.expire(ExpireOptions.FROM_TABLE.retainMin(5).retainMax(2)));
            assertEquals(ErrorCode.EINVAL, e.errorCode(), e.getMessage());
        }
    }

    @Test
    void closedTableIsRefused() {
        NativeTable t = NativeTable.openOrCreate(table().toString(), Strategy.AUTO, null, NativeTableTest.SCHEMA);
        t.close();
        assertThrows(IllegalStateException.class, () -> t.expire(ExpireOptions.FROM_TABLE));
    }
}

package io.snapcommit.flink.paimon;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.utils.SerializationUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.snapcommit.jni.CommitKind;
import io.snapcommit.jni.FileEntry;
import io.snapcommit.jni.NativeChanges;
import io.snapcommit.jni.NativeStore;
import io.snapcommit.jni.NativeTable;
import io.snapcommit.jni.SnapcommitException;
import io.snapcommit.jni.Strategy;

/**
 * Append compaction against the native library and Paimon 1.4.2: small files committed natively,
 * compacted, and read back with Paimon's own table reader, row for row.
 */
class AppendCompactorTest {
    @TempDir java.nio.file.Path dir;

    static final RowType ROW = RowType.of(
        new LogicalType[] {new VarCharType(VarCharType.MAX_LENGTH), new BigIntType(), new IntType(),
                           new VarCharType(VarCharType.MAX_LENGTH)},
        new String[] {"dt", "id", "k", "s"});
    static final String[] DAYS = {"2024-01-01", "2024-01-02", "a/b=c %"};

    static PaimonTableSpec spec(boolean partitioned, int bucket, String format) {
        return PaimonTableSpec.derive(ROW, partitioned ? List.of("dt") : List.of(), List.of(),
                                      bucket == -1 ? Map.of("file.format", format)
                                                   : Map.of("bucket", Integer.toString(bucket), "bucket-key", "k",
                                                            "file.format", format));
    }

    /** A table at dir/name with {@code commits} APPEND commits of user "writer", each of small files. */
    private String table(String name, PaimonTableSpec spec, int commits, int rowsPerCommit) throws Exception {
        String location = dir.resolve(name).toString();
        java.nio.file.Path tmp = Files.createDirectories(dir.resolve("w-" + name));
        RowConverter conv = new RowConverter(ROW);
        try (NativeTable t = NativeTable.openOrCreate(location, Strategy.AUTO, null, spec.json());
             NativeStore store = NativeStore.openStore(location)) {
            long id = 0;
            for (int c = 0; c < commits; c++) {
                List<PaimonDataWriter.Written> files = new ArrayList<>();
                try (PaimonDataWriter w = new PaimonDataWriter(spec, Long.MAX_VALUE, tmp)) {
                    for (int i = 0; i < rowsPerCommit; i++) {
                        long n = id++;
                        files.addAll(w.write(conv.convert(GenericRowData.of(
                            StringData.fromString(DAYS[(int) (n % DAYS.length)]), n, (int) (n * 7 % 11),
                            n % 5 == 0 ? null : StringData.fromString("row " + n)))));
                    }
                    files.addAll(w.flush());
                }
                try (NativeChanges ch = new NativeChanges()) {
                    for (PaimonDataWriter.Written f : files) {
                        store.putObject(f.path, f.bytes, 0, f.bytes.length);
                        ch.addFile(f.entry);
                    }
                    t.commit("writer", c + 1, CommitKind.APPEND, 0, ch);
                }
            }
        }
        return location;
    }

    /** Paimon's batch read of the latest snapshot (or of snapshot id), rows as text, sorted. */
    static List<String> paimonRows(String location, Long snapshot) throws Exception {
        Options o = new Options();
        o.set(CoreOptions.PATH, new java.io.File(location).toURI().toString());
        FileStoreTable t = FileStoreTableFactory.create(CatalogContext.create(o));
        if (snapshot != null)
            t = t.copy(Collections.singletonMap(CoreOptions.SCAN_SNAPSHOT_ID.key(), Long.toString(snapshot)));
        ReadBuilder rb = t.newReadBuilder();
        List<String> out = new ArrayList<>();
        org.apache.paimon.types.RowType type = rb.readType();
        try (RecordReader<InternalRow> r = rb.newRead().createReader(rb.newScan().plan().splits())) {
            r.forEachRemaining(row -> out.add(PaimonDataWriterTest.values(row, type).toString()));
        }
        Collections.sort(out);
        return out;
    }

    static Set<String> groups(List<FileEntry> files) {
        return files.stream().map(f -> PaimonDataWriterTest.key(f.partition(), f.bucket())).collect(Collectors.toSet());
    }

    private AppendCompactor compactor(PaimonTableSpec spec, NativeStore store, String tmpName) throws Exception {
        return new AppendCompactor(spec, AppendCompactor.Settings.of(spec), store,
                                   Files.createDirectories(dir.resolve(tmpName)));
    }

    void compactsAndReadsBack(String name, PaimonTableSpec spec) throws Exception {
        String location = table(name, spec, 7, 60);
        List<String> before = paimonRows(location, null);
        assertEquals(7 * 60, before.size());
        try (NativeTable t = NativeTable.openTable(location); NativeStore store = NativeStore.openStore(location)) {
            List<FileEntry> live = t.liveFiles(0);
            Set<String> groups = groups(live);
            for (String g : groups)
                assertEquals(7, live.stream().filter(f -> groups(List.of(f)).contains(g)).count(), "7 files in " + g);
            long bytes = live.stream().mapToLong(FileEntry::size).sum();

            AppendCompactor.Result r = compactor(spec, store, "c-" + name).compact(t, "compactor", 1);
            assertEquals(AppendCompactor.Outcome.COMPACTED, r.outcome, r.toString());
            assertEquals(7, r.baseSnapshot);
            assertEquals(8, r.snapshotId);
            assertEquals(groups.size(), r.tasks);
            assertEquals(live.size(), r.filesBefore);
            assertEquals(groups.size(), r.filesAfter, "one file per partition and bucket");
            assertEquals(7 * 60, r.rows);
            assertEquals(bytes, r.bytesBefore);
            assertTrue(r.bytesAfter > 0 && r.bytesAfter < bytes, r.toString());
            assertEquals(CommitKind.COMPACT, t.snapshot(8).commitKind());
            assertEquals(7 * 60, t.snapshot(8).totalRecordCount());

            List<FileEntry> after = t.liveFiles(0);
            assertEquals(groups, groups(after), "the same partitions and buckets");
            assertEquals(groups.size(), after.size());
            for (FileEntry f : after) {
                assertEquals(0, f.level());
                assertEquals(FileEntry.FILE_SOURCE_COMPACT, f.fileSource());
                long firstSeq = live.stream().filter(x -> groups(List.of(x)).equals(groups(List.of(f))))
                                    .mapToLong(FileEntry::minSequenceNumber).min().getAsLong();
                assertEquals(firstSeq, f.minSequenceNumber(), "numbered from the inputs' first sequence number");
                assertEquals(f.rows(), f.maxSequenceNumber() - f.minSequenceNumber() + 1);
                assertEquals(f.size(), store.getObject(spec.dataFilePath(f)).length);
            }
            t.fsck();

            assertEquals(before, paimonRows(location, null), "Paimon reads the same rows after compaction");
            assertEquals(before, paimonRows(location, 7L), "and the snapshot before it still reads");

            AppendCompactor.Result again = compactor(spec, store, "c2-" + name).compact(t, "compactor", 2);
            assertEquals(AppendCompactor.Outcome.NOTHING_TO_DO, again.outcome, "one file per bucket is not compacted");
            assertEquals(8, t.latestSnapshotId());
        }
    }

    @Test
    void compactsUnawarePartitionedTable() throws Exception {
        compactsAndReadsBack("unaware-part", spec(true, -1, "parquet"));
    }

    @Test
    void compactsFixedBucketPartitionedTable() throws Exception {
        compactsAndReadsBack("fixed-part", spec(true, 3, "parquet"));
    }

    @Test
    void compactsUnpartitionedTablesAndOrc() throws Exception {
        compactsAndReadsBack("unaware-flat", spec(false, -1, "parquet"));
        compactsAndReadsBack("fixed-flat-orc", spec(false, 2, "orc"));
        compactsAndReadsBack("unaware-flat-avro", spec(false, -1, "avro"));
    }

    @Test
    void appendsMeanwhileDoNotConflict() throws Exception {
        // The usual case: the job's writers keep appending to the partitions being compacted.
        PaimonTableSpec spec = spec(true, 2, "parquet");
        String location = table("appending", spec, 5, 30);
        try (NativeTable t = NativeTable.openTable(location); NativeStore store = NativeStore.openStore(location)) {
            AppendCompactor c = compactor(spec, store, "a");
            AppendCompactor.Prepared p = c.prepare(t);
            RowConverter conv = new RowConverter(ROW);
            List<PaimonDataWriter.Written> more;
            try (PaimonDataWriter w = new PaimonDataWriter(spec, Long.MAX_VALUE, Files.createDirectories(dir.resolve("more")))) {
                for (int i = 0; i < 30; i++)
                    w.write(conv.convert(GenericRowData.of(StringData.fromString(DAYS[i % DAYS.length]), 1000L + i, i,
                                                           StringData.fromString("late " + i))));
                more = w.flush();
            }
            try (NativeChanges ch = new NativeChanges()) {
                for (PaimonDataWriter.Written f : more) {
                    store.putObject(f.path, f.bytes, 0, f.bytes.length);
                    ch.addFile(f.entry);
                }
                t.commit("writer", 6, CommitKind.APPEND, 0, ch);
            }
            List<String> rows = paimonRows(location, null);
            assertEquals(6 * 30, rows.size());
            AppendCompactor.Result r = c.commit(t, p, "compactor", 1);
            assertEquals(AppendCompactor.Outcome.COMPACTED, r.outcome, r.toString());
            assertEquals(5, r.baseSnapshot);
            assertEquals(7, r.snapshotId);
            Set<String> live = t.liveFiles(0).stream().map(FileEntry::file).collect(Collectors.toSet());
            for (PaimonDataWriter.Written f : more) assertTrue(live.contains(f.entry.file()), "the late file stays live");
            assertEquals(rows, paimonRows(location, null));
            t.fsck();
        }
    }

    @Test
    void outputsRollAtTheTargetSizeAndRowsAddUp() throws Exception {
        PaimonTableSpec spec = spec(false, -1, "parquet");
        String location = table("roll", spec, 12, 400);
        List<String> before = paimonRows(location, null);
        try (NativeTable t = NativeTable.openTable(location); NativeStore store = NativeStore.openStore(location)) {
            List<FileEntry> live = t.liveFiles(0);
            long largest = live.stream().mapToLong(FileEntry::size).max().getAsLong();
            // Every input is small (below 7/10 of the target), but 12 of them hold about 6 targets' worth.
            AppendCompactor.Settings s = AppendCompactor.Settings.of(spec).withTargetFileSize(largest * 2)
                                                                 .withOpenFileCost(0).withMaxFileNum(12);
            AppendCompactor c = new AppendCompactor(spec, s, store, Files.createDirectories(dir.resolve("roll-tmp")));
            AppendCompactor.Result r = c.compact(t, "compactor", 1);
            assertEquals(AppendCompactor.Outcome.COMPACTED, r.outcome, r.toString());
            assertTrue(r.filesAfter > r.tasks, "outputs roll: " + r);
            List<FileEntry> after = t.liveFiles(0);
            assertEquals(live.stream().mapToLong(FileEntry::rows).sum(), after.stream().mapToLong(FileEntry::rows).sum());
            // Within a task (one writer: the outputs share its uuid), sequence numbers continue across
            // the rolled outputs from the inputs' first one, without gaps or overlaps.
            List<FileEntry> outs = new ArrayList<>(after);
            outs.removeAll(live);
            Map<String, List<FileEntry>> byTask = outs.stream().collect(Collectors.groupingBy(
                f -> f.file().substring(0, f.file().lastIndexOf('-'))));
            assertEquals(r.tasks, byTask.size());
            for (List<FileEntry> task : byTask.values()) {
                task.sort(java.util.Comparator.comparingLong(FileEntry::minSequenceNumber));
                assertEquals(0, task.get(0).minSequenceNumber(), "the inputs' first sequence number");
                for (int i = 1; i < task.size(); i++)
                    assertEquals(task.get(i - 1).maxSequenceNumber() + 1, task.get(i).minSequenceNumber(), task.toString());
            }
            t.fsck();
        }
        assertEquals(before, paimonRows(location, null));
    }

    @Test
    void concurrentCompactionMakesOursConflictAndLeavesNoFile() throws Exception {
        PaimonTableSpec spec = spec(true, 2, "parquet");
        String location = table("race", spec, 6, 30);
        List<String> rows = paimonRows(location, null);
        try (NativeTable t = NativeTable.openTable(location); NativeStore store = NativeStore.openStore(location);
             NativeTable other = NativeTable.openTable(location)) {
            AppendCompactor ours = compactor(spec, store, "ours");
            AppendCompactor.Prepared p = ours.prepare(t);
            assertNotNull(p);
            for (String path : p.paths) assertNotNull(store.getObject(path), "written before the commit");

            // Another compactor compacts the same files first.
            AppendCompactor.Result theirs = compactor(spec, store, "theirs").compact(other, "other-compactor", 1);
            assertEquals(AppendCompactor.Outcome.COMPACTED, theirs.outcome);
            List<FileEntry> live = t.liveFiles(0);

            AppendCompactor.Result r = ours.commit(t, p, "compactor", 1);
            assertEquals(AppendCompactor.Outcome.CONFLICT, r.outcome, r.toString());
            assertNotNull(r.conflict);
            assertEquals(0, r.snapshotId);
            assertEquals(theirs.snapshotId, t.latestSnapshotId(), "nothing committed");
            assertEquals(live, t.liveFiles(0), "no extra live file");
            for (String path : p.paths)
                assertThrows(SnapcommitException.class, () -> store.getObject(path), "our output is deleted: " + path);
            assertEquals(rows, paimonRows(location, null), "no row lost or doubled");
            t.fsck();
        }
    }

    @Test
    void concurrentOverwriteMakesOursConflict() throws Exception {
        PaimonTableSpec spec = spec(true, -1, "parquet");
        String location = table("overwrite", spec, 6, 30);
        try (NativeTable t = NativeTable.openTable(location); NativeStore store = NativeStore.openStore(location)) {
            AppendCompactor.Prepared p = compactor(spec, store, "ours").prepare(t);
            assertEquals(DAYS.length, p.tasks.size());

            // Someone overwrites partition DAYS[0] with one new row.
            RowConverter conv = new RowConverter(ROW);
            PaimonDataWriter.Written f;
            try (PaimonDataWriter w = new PaimonDataWriter(spec, Long.MAX_VALUE, Files.createDirectories(dir.resolve("ow")))) {
                w.write(conv.convert(GenericRowData.of(StringData.fromString(DAYS[0]), -1L, 0, StringData.fromString("new"))));
                f = w.flush().get(0);
            }
            store.putObject(f.path, f.bytes, 0, f.bytes.length);
            try (NativeChanges ch = new NativeChanges()) {
                ch.addFile(f.entry);
                t.commit("overwriter", 1, CommitKind.OVERWRITE, 0, ch);
            }
            List<FileEntry> live = t.liveFiles(0);
            List<String> rows = paimonRows(location, null);
            assertEquals(6 * 30 - 60 + 1, rows.size(), "the overwritten partition holds the new row only");

            AppendCompactor.Result r = new AppendCompactor(spec, AppendCompactor.Settings.of(spec), store,
                                                           dir.resolve("ours")).commit(t, p, "compactor", 1);
            assertEquals(AppendCompactor.Outcome.CONFLICT, r.outcome, r.toString());
            assertEquals(live, t.liveFiles(0), "no extra live file");
            for (String path : p.paths) assertThrows(SnapcommitException.class, () -> store.getObject(path));
            assertEquals(rows, paimonRows(location, null));

            // The next round plans against the new state and compacts the two other partitions.
            AppendCompactor.Result next = compactor(spec, store, "next").compact(t, "compactor", 2);
            assertEquals(AppendCompactor.Outcome.COMPACTED, next.outcome, next.toString());
            assertEquals(2, next.tasks);
            assertEquals(rows, paimonRows(location, null));
            t.fsck();
        }
    }

    @Test
    void aFailedRewriteDeletesWhatItWrote() throws Exception {
        PaimonTableSpec spec = spec(true, -1, "parquet");
        String location = table("missing", spec, 5, 30);
        try (NativeTable t = NativeTable.openTable(location); NativeStore store = NativeStore.openStore(location)) {
            List<String> keys = store.listKeys("dt=");
            // An input of the last task in plan order vanished (deleted behind the table's back).
            List<AppendCompactor.Task> tasks = AppendCompactor.plan(spec, AppendCompactor.Settings.of(spec), t.liveFiles(0));
            assertEquals(DAYS.length, tasks.size());
            AppendCompactor.Task last = tasks.get(tasks.size() - 1);
            String gone = spec.dataFilePath(last.files.get(last.files.size() - 1));
            store.deleteObject(gone);
            AppendCompactor c = compactor(spec, store, "m");
            assertThrows(SnapcommitException.class, () -> c.compact(t, "compactor", 1));
            List<String> left = new ArrayList<>(keys);
            left.remove(gone);
            assertEquals(left, store.listKeys("dt="), "the outputs of the tasks before it are deleted again");
            assertEquals(5, t.latestSnapshotId(), "nothing committed");
            assertEquals(0, Files.list(dir.resolve("m")).count(), "no temporary file left");
        }
    }

    @Test
    void aBacklogIsWorkedOffOverRounds() throws Exception {
        PaimonTableSpec spec = spec(true, -1, "parquet");
        String location = table("backlog", spec, 5, 30);
        List<String> rows = paimonRows(location, null);
        try (NativeTable t = NativeTable.openTable(location); NativeStore store = NativeStore.openStore(location)) {
            AppendCompactor c = compactor(spec, store, "b");
            for (int round = 1; round <= DAYS.length; round++) {
                AppendCompactor.Result r = c.compact(t, "compactor", round, 1);
                assertEquals(AppendCompactor.Outcome.COMPACTED, r.outcome, r.toString());
                assertEquals(1, r.tasks);
                assertEquals(5, r.filesBefore);
                assertEquals(rows, paimonRows(location, null), "after round " + round);
            }
            assertEquals(AppendCompactor.Outcome.NOTHING_TO_DO, c.compact(t, "compactor", 9, 1).outcome);
            assertEquals(DAYS.length, t.liveFiles(0).size());
        }
    }

    @Test
    void replayedIdentifierDeletesItsFiles() throws Exception {
        PaimonTableSpec spec = spec(false, -1, "parquet");
        String location = table("replay", spec, 5, 10);
        try (NativeTable t = NativeTable.openTable(location); NativeStore store = NativeStore.openStore(location)) {
            AppendCompactor.Prepared p = compactor(spec, store, "a").prepare(t);
            // The same user and identifier committed already (e.g. before a restart).
            PaimonDataWriter.Written f;
            try (PaimonDataWriter w = new PaimonDataWriter(spec, Long.MAX_VALUE, Files.createDirectories(dir.resolve("x")))) {
                w.write(new RowConverter(ROW).convert(GenericRowData.of(StringData.fromString("d"), 0L, 0, null)));
                f = w.flush().get(0);
            }
            store.putObject(f.path, f.bytes, 0, f.bytes.length);
            try (NativeChanges ch = new NativeChanges()) {
                ch.addFile(f.entry);
                t.commit("compactor", 4, CommitKind.APPEND, 0, ch);
            }
            List<FileEntry> live = t.liveFiles(0);
            AppendCompactor.Result r = compactor(spec, store, "b").commit(t, p, "compactor", 4);
            assertEquals(AppendCompactor.Outcome.ALREADY_COMMITTED, r.outcome);
            assertEquals(live, t.liveFiles(0));
            for (String path : p.paths) assertThrows(SnapcommitException.class, () -> store.getObject(path));
        }
    }

    @Test
    void refusesPrimaryKeyTables() {
        Schema s = Schema.newBuilder().column("id", DataTypes.BIGINT().notNull()).column("v", DataTypes.STRING())
                         .primaryKey("id").option("bucket", "2").build();
        PaimonTableSpec pk = PaimonTableSpec.fromJson(TableSchema.create(0, s).toString());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> new AppendCompactor(pk, AppendCompactor.Settings.of(pk), null, dir));
        assertTrue(e.getMessage().contains("refuses primary-key table (primary keys [id])"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                         () -> AppendCompactor.plan(pk, AppendCompactor.Settings.of(pk), List.of()));
        assertTrue(e.getMessage().contains("primary-key"), e.getMessage());

        Schema dv = Schema.newBuilder().column("v", DataTypes.STRING()).option("deletion-vectors.enabled", "true").build();
        PaimonTableSpec dvSpec = PaimonTableSpec.fromJson(TableSchema.create(0, dv).toString());
        e = assertThrows(IllegalArgumentException.class,
                         () -> AppendCompactor.plan(dvSpec, AppendCompactor.Settings.of(dvSpec), List.of()));
        assertTrue(e.getMessage().contains("deletion-vectors.enabled"), e.getMessage());
    }

    // ---- the picking rule, on file entries alone ----

    private static final byte[] P0 = SerializationUtils.serializeBinaryRow(BinaryRow.EMPTY_ROW);

    static FileEntry file(String name, int bucket, long size, long minSeq) {
        return FileEntry.builder("data-" + name + ".parquet").partition(P0).bucket(bucket).totalBuckets(-1).level(0)
                        .rows(1).size(size).sequenceNumbers(minSeq, minSeq).schemaId(0).build();
    }

    static List<FileEntry> files(int n, long size) {
        List<FileEntry> out = new ArrayList<>();
        for (int i = 0; i < n; i++) out.add(file(String.format("%03d", i), 0, size, i));
        return out;
    }

    static List<Integer> taskSizes(List<AppendCompactor.Task> tasks) {
        return tasks.stream().map(t -> t.files.size()).collect(Collectors.toList());
    }

    @Test
    void settingsArePaimonsOptionsAndDefaults() {
        PaimonTableSpec spec = spec(false, -1, "parquet");
        AppendCompactor.Settings s = AppendCompactor.Settings.of(spec);
        assertEquals(256L << 20, s.targetFileSize, "Paimon's target-file-size of an append table");
        assertEquals(5, s.minFileNum, "compaction.min.file-num");
        assertEquals(50, s.maxFileNum);
        assertEquals(4L << 20, s.openFileCost, "source.split.open-file-cost");
        assertEquals((256L << 20) / 10 * 7, s.compactionFileSize());
        assertEquals("compaction.min.file-num", CoreOptions.COMPACTION_MIN_FILE_NUM.key());
        Schema t = Schema.newBuilder().column("v", DataTypes.STRING()).option("target-file-size", "10 mb")
                         .option("compaction.min.file-num", "3").build();
        AppendCompactor.Settings o = AppendCompactor.Settings.of(PaimonTableSpec.fromJson(TableSchema.create(0, t).toString()));
        assertEquals(10L << 20, o.targetFileSize);
        assertEquals(3, o.minFileNum);
        assertThrows(IllegalArgumentException.class, () -> s.withMaxFileNum(4), "max below min");
        assertThrows(IllegalArgumentException.class, () -> s.withMinFileNum(51), "min above max");
        assertThrows(IllegalArgumentException.class, () -> s.withMinFileNum(0));
        Schema many = Schema.newBuilder().column("v", DataTypes.STRING()).option("compaction.min.file-num", "80").build();
        AppendCompactor.Settings m = AppendCompactor.Settings.of(PaimonTableSpec.fromJson(TableSchema.create(0, many).toString()));
        assertEquals(80, m.maxFileNum, "a table's minimum above the default maximum raises it");
    }

    @Test
    void belowMinFileNumNothingIsPicked() {
        PaimonTableSpec spec = spec(false, -1, "parquet");
        AppendCompactor.Settings s = AppendCompactor.Settings.of(spec);
        assertEquals(List.of(), taskSizes(AppendCompactor.plan(spec, s, files(4, 1000))));
        assertEquals(List.of(5), taskSizes(AppendCompactor.plan(spec, s, files(5, 1000))));
        // 3 + 3 in two buckets: each bucket is below the minimum.
        List<FileEntry> two = new ArrayList<>();
        for (int i = 0; i < 6; i++) two.add(file("b" + i, i % 2, 1000, i));
        assertEquals(List.of(), taskSizes(AppendCompactor.plan(spec, s, two)));
        assertEquals(List.of(3, 3), taskSizes(AppendCompactor.plan(spec, s.withMinFileNum(3), two)));
        // Files at or above the compaction file size are not small, whatever their number.
        List<FileEntry> mixed = new ArrayList<>(files(4, 1000));
        for (int i = 0; i < 6; i++) mixed.add(file("big" + i, 0, s.compactionFileSize(), 10 + i));
        assertEquals(List.of(), taskSizes(AppendCompactor.plan(spec, s, mixed)));
        mixed.add(file("fifth", 0, s.compactionFileSize() - 1, 99));
        List<AppendCompactor.Task> t = AppendCompactor.plan(spec, s, mixed);
        assertEquals(List.of(5), taskSizes(t));
        assertTrue(t.get(0).files.stream().allMatch(f -> f.size() < s.compactionFileSize()));
        // Level > 0, another schema, another format: not candidates.
        List<FileEntry> odd = new ArrayList<>(files(4, 1000));
        odd.add(odd.get(0).toBuilder().file("data-l1.parquet").level(1).build());
        odd.add(odd.get(0).toBuilder().file("data-s1.parquet").schemaId(1).build());
        odd.add(odd.get(0).toBuilder().file("data-orc.orc").build());
        assertEquals(List.of(), taskSizes(AppendCompactor.plan(spec, s, odd)));
    }

    @Test
    void maxFileNumBoundsATask() {
        PaimonTableSpec spec = spec(false, -1, "parquet");
        AppendCompactor.Settings s = AppendCompactor.Settings.of(spec).withMaxFileNum(5);
        // 12 small files: two full tasks of 5; the 2 left are below compaction.min.file-num.
        List<AppendCompactor.Task> t = AppendCompactor.plan(spec, s, files(12, 1000));
        assertEquals(List.of(5, 5), taskSizes(t));
        Set<String> picked = new HashSet<>();
        for (AppendCompactor.Task task : t) for (FileEntry f : task.files) assertTrue(picked.add(f.file()));
        assertEquals(List.of(50, 50, 20), taskSizes(AppendCompactor.plan(spec, AppendCompactor.Settings.of(spec), files(120, 1000))));
        // Paimon's "enough content": two files whose size plus open cost reach twice the target make a task.
        AppendCompactor.Settings tiny = s.withTargetFileSize(1000).withOpenFileCost(0);
        assertEquals(List.of(4), taskSizes(AppendCompactor.plan(spec, tiny, files(4, 600))), "4 x 600 >= 2 x 1000");
        assertEquals(List.of(), taskSizes(AppendCompactor.plan(spec, tiny, files(3, 600))), "3 x 600 < 2 x 1000");
        assertEquals(List.of(2, 2), taskSizes(AppendCompactor.plan(spec, tiny.withOpenFileCost(500), files(4, 600))));
    }

    @Test
    void fixedBucketsAreReadInSequenceOrderUnawareBySize() {
        PaimonTableSpec unaware = spec(false, -1, "parquet");
        PaimonTableSpec fixed = spec(false, 4, "parquet");
        List<FileEntry> in = new ArrayList<>();
        for (int i = 0; i < 5; i++) in.add(file("f" + i, 0, 5000 - i * 100, i * 10));
        List<String> bySeq = AppendCompactor.plan(fixed, AppendCompactor.Settings.of(fixed), in).get(0).files.stream()
                                            .map(FileEntry::file).collect(Collectors.toList());
        assertEquals(List.of("data-f0.parquet", "data-f1.parquet", "data-f2.parquet", "data-f3.parquet",
                             "data-f4.parquet"), bySeq);
        List<String> bySize = AppendCompactor.plan(unaware, AppendCompactor.Settings.of(unaware), in).get(0).files
                                             .stream().map(FileEntry::file).collect(Collectors.toList());
        List<String> reversed = new ArrayList<>(bySeq);
        Collections.reverse(reversed);
        assertEquals(reversed, bySize);
    }
}

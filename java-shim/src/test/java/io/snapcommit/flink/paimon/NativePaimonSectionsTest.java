package io.snapcommit.flink.paimon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.snapcommit.jni.AlreadyCommittedException;
import io.snapcommit.jni.CheckpointResult;
import io.snapcommit.jni.CommitKind;
import io.snapcommit.jni.ConflictException;
import io.snapcommit.jni.ErrorCode;
import io.snapcommit.jni.FileEntry;
import io.snapcommit.jni.NativeChanges;
import io.snapcommit.jni.NativeTable;
import io.snapcommit.jni.SnapcommitException;
import io.snapcommit.jni.StoreConfig;
import io.snapcommit.jni.Strategy;

/** The sections cross JNI as bytes (sc_changes_add_paimon) and land as the files Paimon's writer made. */
class NativePaimonSectionsTest {
    @TempDir Path dir;

    static final RowType ROW = RowType.of(new LogicalType[] {new VarCharType(VarCharType.MAX_LENGTH), new BigIntType()},
                                          new String[] {"dt", "id"});

    @Test
    void appendSectionCommitsPaimonsFiles() throws Exception {
        PaimonTableSpec spec = PaimonTableSpec.derive(ROW, List.of("dt"), List.of(), Map.of());
        String location = dir.resolve("t").toString();
        try (NativeTable t = NativeTable.openOrCreate(location, Strategy.AUTO, null, spec.json())) {
            FileStoreTable table = PaimonStoreTable.open(location, StoreConfig.DEFAULTS, spec, Map.of("write-only", "true"));
            RowConverter conv = new RowConverter(ROW);
            List<CommitMessage> messages;
            try (TableWriteImpl<?> w = table.newWrite("u", 0)) {
                for (int i = 0; i < 12; i++)
                    w.write(conv.convert(GenericRowData.of(StringData.fromString("d" + (i % 3)), (long) i)));
                messages = w.prepareCommit(false, 1);
            }
            PaimonSections s = PaimonSections.of(messages, -1, "zstd");
            try (NativeChanges c = s.append.toNative()) {
                assertEquals(3, c.addCount());
                assertEquals(0, c.deleteCount());
                assertEquals(0, c.changelogCount());
                t.commit("u", 1, CommitKind.APPEND, 0, c);
            }
            List<FileEntry> live = t.liveFiles(0);
            assertEquals(3, live.size());
            assertEquals(12, live.stream().mapToLong(FileEntry::rows).sum());
            assertEquals(-1, live.get(0).totalBuckets());
        }
    }

    /**
     * A fixed-bucket writer that compacts: the checkpoint commits as Paimon's does, an APPEND then a
     * COMPACT snapshot with one identifier, the watermark on both (read by Paimon's own snapshot
     * manager); the replay of the identifier is filtered whole.
     */
    @Test
    void checkpointWithCompactionIsTwoSnapshotsOfOneIdentifier() throws Exception {
        PaimonTableSpec spec = PaimonTableSpec.derive(ROW, List.of(), List.of(), Map.of("bucket", "1", "bucket-key", "id"));
        String location = dir.resolve("fb").toString();
        try (NativeTable t = NativeTable.openOrCreate(location, Strategy.AUTO, null, spec.json())) {
            FileStoreTable table = PaimonStoreTable.open(location, StoreConfig.DEFAULTS, spec,
                                                         Map.of("compaction.min.file-num", "2"));
            RowConverter conv = new RowConverter(ROW);
            PaimonSections second;
            try (TableWriteImpl<?> w = table.newWrite("u", 0)) {
                w.write(conv.convert(GenericRowData.of(StringData.fromString("a"), 1L)));
                PaimonSections first = PaimonSections.of(w.prepareCommit(false, 1), 1, "zstd");
                try (NativeChanges a = first.append.toNative()) {
                    CheckpointResult r = t.commitCheckpoint("u", 1, 0, null, a, first.compact.toNative());
                    assertEquals(1, r.append().snapshotId());
                    assertEquals(0, r.compact().snapshotId());
                }
                w.write(conv.convert(GenericRowData.of(StringData.fromString("b"), 2L)));
                second = PaimonSections.of(w.prepareCommit(true, 2), 1, "zstd");
            }
            assertEquals(1, second.append.addedDataFiles);
            try (NativeChanges a = second.append.toNative(); NativeChanges c = second.compact.toNative()) {
                CheckpointResult r = t.commitCheckpoint("u", 2, 0, 1234L, a, c);
                assertEquals(2, r.append().snapshotId());
                assertEquals(CommitKind.APPEND, r.appendKind());
                assertEquals(3, r.compact().snapshotId());
            }
            assertEquals(CommitKind.APPEND, t.snapshot(2).commitKind());
            assertEquals(CommitKind.COMPACT, t.snapshot(3).commitKind());
            assertEquals(2, t.snapshot(3).commitIdentifier());
            List<FileEntry> live = t.liveFiles(0);
            assertEquals(1, live.size(), "the two level-0 files compacted into one: " + live);
            assertEquals(2, live.get(0).rows());
            assertEquals(Long.valueOf(1234L), table.snapshotManager().snapshot(2).watermark());
            assertEquals(Long.valueOf(1234L), table.snapshotManager().latestSnapshot().watermark());
            try (NativeChanges a = second.append.toNative()) {
                assertThrows(AlreadyCommittedException.class, () -> t.commitCheckpoint("u", 2, 0, null, a, null));
            }
            // A replay of the compact part alone names the snapshot that committed the identifier.
            try (NativeChanges c = second.compact.toNative()) {
                AlreadyCommittedException e = assertThrows(AlreadyCommittedException.class,
                                                           () -> t.commitCheckpoint("u", 2, 0, null, null, c));
                assertEquals(3, e.existingSnapshot(), e.getMessage());
            }
            assertEquals(3, t.latestSnapshotId());
        }
    }

    /**
     * The COMPACT part fails after the APPEND part landed: the error names the landed snapshot
     * (SnapcommitException.landedSnapshot), and the replay of the identifier is filtered whole.
     */
    @Test
    void failedCompactPartNamesTheLandedAppend() throws Exception {
        PaimonTableSpec spec = PaimonTableSpec.derive(ROW, List.of("dt"), List.of(), Map.of());
        String location = dir.resolve("landed").toString();
        try (NativeTable t = NativeTable.openOrCreate(location, Strategy.AUTO, null, spec.json())) {
            FileStoreTable table = PaimonStoreTable.open(location, StoreConfig.DEFAULTS, spec, Map.of("write-only", "true"));
            RowConverter conv = new RowConverter(ROW);
            List<CommitMessage> messages;
            try (TableWriteImpl<?> w = table.newWrite("u", 0)) {
                w.write(conv.convert(GenericRowData.of(StringData.fromString("d"), 1L)));
                messages = w.prepareCommit(false, 1);
            }
            PaimonSections s = PaimonSections.of(messages, -1, "zstd");
            FileEntry live = FileEntry.appendFile(
                org.apache.paimon.utils.SerializationUtils.serializeBinaryRow(messages.get(0).partition()), 0, -1,
                "data-never-added.parquet", 1, 10);
            try (NativeChanges a = s.append.toNative(); NativeChanges c = new NativeChanges().deleteFile(live)) {
                ConflictException e = assertThrows(ConflictException.class,
                                                   () -> t.commitCheckpoint("u", 1, 0, null, a, c));
                assertEquals(1, e.landedSnapshot(), e.getMessage());
            }
            try (NativeChanges a = s.append.toNative()) {
                assertThrows(AlreadyCommittedException.class, () -> t.commitCheckpoint("u", 1, 0, null, a, null));
            }
            assertEquals(1, t.latestSnapshotId());
        }
    }

    @Test
    void damagedSectionIsRefusedAndAddsNothing() throws Exception {
        PaimonTableSpec spec = PaimonTableSpec.derive(ROW, List.of("dt"), List.of(), Map.of());
        FileStoreTable table = PaimonStoreTable.open(dir.toString(), StoreConfig.DEFAULTS, spec, Map.of("write-only", "true"));
        RowConverter conv = new RowConverter(ROW);
        List<CommitMessage> messages;
        try (TableWriteImpl<?> w = table.newWrite("u", 0)) {
            w.write(conv.convert(GenericRowData.of(StringData.fromString("d"), 1L)));
            messages = w.prepareCommit(false, 1);
        }
        byte[] avro = PaimonSections.of(messages, -1, "null").append.data;
        try (NativeChanges c = new NativeChanges()) {
            SnapcommitException e = assertThrows(SnapcommitException.class,
                () -> c.addPaimon(NativeChanges.SECTION_DATA, Arrays.copyOf(avro, avro.length - 7)));
            assertEquals(ErrorCode.ECORRUPT, e.errorCode(), e.getMessage());
            assertEquals(0, c.addCount());
            c.addPaimon(NativeChanges.SECTION_DATA, avro);
            assertEquals(1, c.addCount());
        }
    }
}

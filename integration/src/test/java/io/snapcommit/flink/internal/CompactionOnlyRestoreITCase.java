package io.snapcommit.flink.internal;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.options.CatalogOptions;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.types.DataTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.snapcommit.demo.PaimonReader;
import io.snapcommit.flink.SnapcommitSink;
import io.snapcommit.jni.ConflictException;
import io.snapcommit.jni.NativeTable;

/**
 * The committer restored with a pending checkpoint that is only a compaction (no APPEND part, so no
 * snapshot carries its identifier when its COMPACT fails). Paimon's streaming committer writes an
 * empty APPEND snapshot first, so its restore filters such a checkpoint; ours must not commit it
 * again and again when it conflicts (a restart loop), but abandon it, and commit it when it does not.
 * The table is Paimon's (a primary-key table, one bucket, two level-0 files); the compactions are
 * Paimon's writer's full compactions of that bucket; the committer runs in Flink's operator harness.
 */
class CompactionOnlyRestoreITCase {
    static final String USER = "job-a";
    static final RowType ROW = RowType.of(new LogicalType[] {new BigIntType(false), new VarCharType(VarCharType.MAX_LENGTH)},
                                          new String[] {"k", "v"});

    @TempDir Path tmp;

    private String table() {
        return tmp.resolve("warehouse/db.db/t").toString();
    }

    private Table paimonTable() throws Exception {
        Options o = new Options();
        o.set(CatalogOptions.WAREHOUSE.key(), tmp.resolve("warehouse").toString());
        try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(o))) {
            return catalog.getTable(Identifier.create("db", "t"));
        }
    }

    /** Paimon creates db.t (k BIGINT primary key, v STRING, bucket 1) and commits two level-0 files. */
    private void createWithTwoFiles() throws Exception {
        Options o = new Options();
        o.set(CatalogOptions.WAREHOUSE.key(), tmp.resolve("warehouse").toString());
        try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(o))) {
            catalog.createDatabase("db", true);
            catalog.createTable(Identifier.create("db", "t"), Schema.newBuilder().column("k", DataTypes.BIGINT().notNull())
                .column("v", DataTypes.STRING()).primaryKey("k").option(CoreOptions.BUCKET.key(), "1").build(), false);
        }
        StreamWriteBuilder wb = paimonTable().newStreamWriteBuilder().withCommitUser("paimon-job");
        try (StreamTableWrite w = wb.newWrite(); StreamTableCommit c = wb.newCommit()) {
            for (long ident = 1; ident <= 2; ident++) {
                for (long k = 5 * (ident - 1); k < 5 * (ident - 1) + 10; k++)
                    w.write(GenericRow.of(k, BinaryString.fromString("v" + ident + "-" + k)));
                c.commit(ident, w.prepareCommit(false, ident));
            }
        }
    }

    /** Paimon's writer (its own commit user) fully compacts the bucket: compactBefore = both live files. */
    private List<CommitMessage> fullCompaction(String user) throws Exception {
        StreamWriteBuilder wb = paimonTable().newStreamWriteBuilder().withCommitUser(user);
        try (StreamTableWrite w = wb.newWrite()) {
            w.compact(BinaryRow.EMPTY_ROW, 0, true);
            List<CommitMessage> m = w.prepareCommit(true, 1);
            assertEquals(1, m.size(), m.toString());
            CommitMessageImpl c = (CommitMessageImpl) m.get(0);
            assertTrue(c.newFilesIncrement().isEmpty(), "only a compaction: " + c);
            assertEquals(2, c.compactIncrement().compactBefore().size(), c.toString());
            assertEquals(1, c.compactIncrement().compactAfter().size(), c.toString());
            return m;
        }
    }

    private OneInputStreamOperatorTestHarness<byte[], Void> committer() throws Exception {
        SnapcommitSink sink = SnapcommitSink.builder().path(table()).rowType(ROW).primaryKeys("k").bucket(1)
            .writeOnly(true).commitUser(USER).build();
        return new OneInputStreamOperatorTestHarness<>(
            new SnapcommitCommitterOperator(sink.config(), sink.tableSpec(), USER));
    }

    /** A committer that receives messages as checkpoint id's only content and snapshots it (no notification). */
    private OperatorSubtaskState pendingCheckpoint(long id, List<CommitMessage> messages) throws Exception {
        try (OneInputStreamOperatorTestHarness<byte[], Void> h = committer()) {
            h.open();
            h.processElement(new StreamRecord<>(new WriterCommittable(id, messages).encode()));
            return h.snapshot(id, id);
        }
    }

    private List<String> rows() {
        try (PaimonReader r = PaimonReader.open(table(), Map.of())) {
            List<String> rows = new ArrayList<>(r.rows());
            Collections.sort(rows);
            return rows;
        }
    }

    private List<Snapshot> snapshots() {
        try (PaimonReader r = PaimonReader.open(table(), Map.of())) {
            return r.snapshots();
        }
    }

    private static boolean causedBy(Throwable t, Class<? extends Throwable> c) {
        for (; t != null; t = t.getCause()) if (c.isInstance(t)) return true;
        return false;
    }

    @Test
    void aRestoredCompactionThatConflictsIsAbandonedNotCommittedAgainOnEveryRestore() throws Exception {
        createWithTwoFiles();
        List<CommitMessage> a = fullCompaction(USER);
        List<CommitMessage> b = fullCompaction("job-b");
        // Another job's compaction of the same files lands first.
        try (StreamTableCommit c = paimonTable().newStreamWriteBuilder().withCommitUser("job-b").newCommit()) {
            c.commit(1, b);
        }
        // What our restore must come to: Paimon's streaming committer wrote an empty APPEND with the
        // identifier before the COMPACT, so that its own restore would filter the checkpoint.
        List<Snapshot> paimonLog = snapshots();
        Snapshot emptyAppend = paimonLog.get(paimonLog.size() - 2);
        assertEquals(List.of(Snapshot.CommitKind.APPEND, "job-b", 1L, 0L),
                     List.of(emptyAppend.commitKind(), emptyAppend.commitUser(), emptyAppend.commitIdentifier(),
                             emptyAppend.deltaRecordCount()), paimonLog.toString());
        List<String> rows = rows();
        assertEquals(15, rows.size(), rows.toString());
        int snapshots = paimonLog.size();

        // Checkpoint 5 holds only compaction a; its first commit conflicts and fails the task (the writers restart).
        OperatorSubtaskState state;
        try (OneInputStreamOperatorTestHarness<byte[], Void> h = committer()) {
            h.open();
            h.processElement(new StreamRecord<>(new WriterCommittable(5, a).encode()));
            state = h.snapshot(5, 5);
            Exception e = assertThrows(Exception.class, () -> h.notifyOfCompletedCheckpoint(5));
            assertTrue(causedBy(e, ConflictException.class), e.toString());
        }
        // Every restore from that checkpoint abandons it: no failure, nothing written.
        for (int restore = 1; restore <= 2; restore++) {
            OperatorSubtaskState next;
            try (OneInputStreamOperatorTestHarness<byte[], Void> h = committer()) {
                h.initializeState(state);
                h.open();
                next = h.snapshot(6, 6);
            }
            assertEquals(snapshots, snapshots().size(), "restore " + restore + " wrote a snapshot: " + snapshots());
            assertEquals(rows, rows(), "restore " + restore);
            try (NativeTable t = NativeTable.openTable(table())) {
                assertFalse(t.lastCommittedIdentifier(USER).isPresent(), "restore " + restore);
            }
            // The state after the restore no longer holds checkpoint 5: restoring it commits nothing and fails not.
            try (OneInputStreamOperatorTestHarness<byte[], Void> h = committer()) {
                h.initializeState(next);
                h.open();
            }
        }
        try (NativeTable t = NativeTable.openTable(table())) {
            t.fsck();
        }
    }

    /** Paimon's writer (user) upserts keys [from, to) as new level-0 files, no compaction. */
    private List<CommitMessage> upserts(String user, long from, long to) throws Exception {
        StreamWriteBuilder wb = paimonTable().newStreamWriteBuilder().withCommitUser(user);
        try (StreamTableWrite w = wb.newWrite()) {
            for (long k = from; k < to; k++) w.write(GenericRow.of(k, BinaryString.fromString("u-" + k)));
            return w.prepareCommit(false, 1);
        }
    }

    @Test
    void anAbandonedCompactionBeforeADataCheckpointStillFailsThePrimaryKeyRestoreOnce() throws Exception {
        createWithTwoFiles();
        List<CommitMessage> a = fullCompaction(USER);
        List<CommitMessage> b = fullCompaction("job-b");
        try (StreamTableCommit c = paimonTable().newStreamWriteBuilder().withCommitUser("job-b").newCommit()) {
            c.commit(1, b);
        }
        List<CommitMessage> data = upserts(USER, 100, 103);
        // Checkpoint 5: only the compaction that conflicts; checkpoint 6: new files. Both pending.
        OperatorSubtaskState state;
        try (OneInputStreamOperatorTestHarness<byte[], Void> h = committer()) {
            h.open();
            h.processElement(new StreamRecord<>(new WriterCommittable(5, a).encode()));
            h.snapshot(5, 5);
            h.processElement(new StreamRecord<>(new WriterCommittable(6, data).encode()));
            state = h.snapshot(6, 6);
        }
        int snapshots = snapshots().size();
        // The restore abandons 5, commits 6 and then fails once so that the writers restart on it.
        try (OneInputStreamOperatorTestHarness<byte[], Void> h = committer()) {
            h.initializeState(state);
            Exception e = assertThrows(Exception.class, h::open);
            assertTrue(causedBy(e, SnapcommitCommitterOperator.RestoredCommitsException.class), e.toString());
        }
        List<Snapshot> log = snapshots();
        assertEquals(snapshots + 1, log.size(), log.toString());
        Snapshot last = log.get(log.size() - 1);
        assertEquals(List.of(Snapshot.CommitKind.APPEND, USER, 6L), List.of(last.commitKind(), last.commitUser(),
                                                                            last.commitIdentifier()));
        assertEquals(18, rows().size());
        // The next restore filters both (6 is the user's watermark) and does not fail.
        try (OneInputStreamOperatorTestHarness<byte[], Void> h = committer()) {
            h.initializeState(state);
            h.open();
        }
        assertEquals(snapshots + 1, snapshots().size());
        try (NativeTable t = NativeTable.openTable(table())) {
            t.fsck();
        }
    }

    @Test
    void aRestoredCompactionWithoutConflictIsCommitted() throws Exception {
        createWithTwoFiles();
        List<String> rows = rows();
        int snapshots = snapshots().size();
        List<CommitMessage> a = fullCompaction(USER);
        OperatorSubtaskState state = pendingCheckpoint(5, a);

        // Restored (the failure came before the notification): committed, then the task fails once
        // on purpose so that the writers of this primary-key table restart on the new snapshot.
        try (OneInputStreamOperatorTestHarness<byte[], Void> h = committer()) {
            h.initializeState(state);
            Exception e = assertThrows(Exception.class, h::open);
            assertTrue(causedBy(e, SnapcommitCommitterOperator.RestoredCommitsException.class), e.toString());
        }
        List<Snapshot> log = snapshots();
        assertEquals(snapshots + 1, log.size(), log.toString());
        Snapshot last = log.get(log.size() - 1);
        assertEquals(Snapshot.CommitKind.COMPACT, last.commitKind());
        assertEquals(USER, last.commitUser());
        assertEquals(5, last.commitIdentifier());
        assertEquals(rows, rows());
        // The next restore filters it.
        try (OneInputStreamOperatorTestHarness<byte[], Void> h = committer()) {
            h.initializeState(state);
            h.open();
        }
        assertEquals(snapshots + 1, snapshots().size());
        assertEquals(rows, rows());
        try (NativeTable t = NativeTable.openTable(table())) {
            t.fsck();
        }
    }
}

package io.snapcommit.flink.internal;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.options.CatalogOptions;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.types.DataTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.snapcommit.demo.PaimonReader;
import io.snapcommit.flink.SnapcommitSink;
import io.snapcommit.jni.NativeTable;

/**
 * A fixed-bucket writer's compactions across a checkpoint that aborted between the writer and the
 * committer (it expired, or a closing task declined it): the writer sent checkpoint 3's messages
 * before its barrier, the committer never took its state for 3, so they arrive in the committer's
 * snapshot of checkpoint 5 together with those of 4 and 5. Checkpoint 3 compacted the bucket into a
 * file C that checkpoint 5 compacts again. Committed as one identifier, the COMPACT part would add C
 * and delete it — a delete of a file that is not live (SC_ECONFLICT), the rare failure of
 * CompactionITCase.fixedBucketWritersCompactInTheirCheckpoint at the end of its bounded input.
 * The committer commits each writer checkpoint under its own identifier, as Paimon's committer does.
 * The writes and compactions are Paimon's writer's (an append table, one bucket); the committer runs
 * in Flink's operator harness.
 */
class AbortedCheckpointCompactionITCase {
    static final String USER = "job-a";
    static final RowType ROW = RowType.of(new LogicalType[] {new BigIntType(false), new VarCharType(VarCharType.MAX_LENGTH)},
                                          new String[] {"k", "v"});

    @TempDir Path tmp;

    private String table() {
        return tmp.resolve("warehouse/db.db/t").toString();
    }

    private Catalog catalog() {
        Options o = new Options();
        o.set(CatalogOptions.WAREHOUSE.key(), tmp.resolve("warehouse").toString());
        return CatalogFactory.createCatalog(CatalogContext.create(o));
    }

    /** Paimon creates db.t: (k BIGINT, v STRING), an append table with one bucket on k. */
    private Table create() throws Exception {
        try (Catalog catalog = catalog()) {
            catalog.createDatabase("db", true);
            catalog.createTable(Identifier.create("db", "t"), Schema.newBuilder().column("k", DataTypes.BIGINT().notNull())
                .column("v", DataTypes.STRING()).option(CoreOptions.BUCKET.key(), "1")
                .option(CoreOptions.BUCKET_KEY.key(), "k").build(), false);
            return catalog.getTable(Identifier.create("db", "t"));
        }
    }

    private OneInputStreamOperatorTestHarness<byte[], Void> committer() throws Exception {
        SnapcommitSink sink = SnapcommitSink.builder().path(table()).rowType(ROW).bucket(1, "k").writeOnly(true)
            .commitUser(USER).build();
        return new OneInputStreamOperatorTestHarness<>(new SnapcommitCommitterOperator(sink.config(), sink.tableSpec(), USER));
    }

    private static void write(StreamTableWrite w, long k) throws Exception {
        w.write(GenericRow.of(k, BinaryString.fromString("v" + k)));
    }

    private static CommitMessageImpl only(List<CommitMessage> m) {
        assertEquals(1, m.size(), m.toString());
        return (CommitMessageImpl) m.get(0);
    }

    private static StreamRecord<byte[]> sent(long checkpoint, List<CommitMessage> m) throws Exception {
        return new StreamRecord<>(new WriterCommittable(checkpoint, m).encode());
    }

    @Test
    void aCompactionOfTheOutputOfAnAbortedCheckpointsCompactionCommits() throws Exception {
        Table paimon = create();
        try (StreamTableWrite w = paimon.newStreamWriteBuilder().withCommitUser(USER).newWrite();
             OneInputStreamOperatorTestHarness<byte[], Void> h = committer()) {
            h.open();
            // Checkpoints 1 and 2: one file each, committed.
            for (long c = 1; c <= 2; c++) {
                write(w, c);
                h.processElement(sent(c, w.prepareCommit(false, c)));
                h.snapshot(c, c);
                h.notifyOfCompletedCheckpoint(c);
            }
            // Checkpoint 3: a third file and the bucket's full compaction (3 files -> C). The checkpoint
            // aborts before its barrier reaches the committer: no snapshot of 3 there.
            write(w, 3);
            w.compact(BinaryRow.EMPTY_ROW, 0, true);
            List<CommitMessage> m3 = w.prepareCommit(true, 3);
            List<DataFileMeta> c3 = only(m3).compactIncrement().compactAfter();
            assertEquals(3, only(m3).compactIncrement().compactBefore().size(), m3.toString());
            assertEquals(1, c3.size(), m3.toString());
            h.processElement(sent(3, m3));
            // Checkpoint 4: a file (aborted as well); checkpoint 5: a file and a full compaction of C
            // and the two new files.
            write(w, 4);
            List<CommitMessage> m4 = w.prepareCommit(false, 4);
            h.processElement(sent(4, m4));
            write(w, 5);
            w.compact(BinaryRow.EMPTY_ROW, 0, true);
            List<CommitMessage> m5 = w.prepareCommit(true, 5);
            assertTrue(only(m5).compactIncrement().compactBefore().contains(c3.get(0)),
                       "checkpoint 5 compacts the output of checkpoint 3's compaction: " + m5);
            h.processElement(sent(5, m5));
            h.snapshot(5, 5);
            h.notifyOfCompletedCheckpoint(5);
        }

        List<Snapshot> log;
        List<String> rows;
        try (PaimonReader r = PaimonReader.open(table(), Map.of())) {
            log = r.snapshots();
            rows = new ArrayList<>(r.rows());
        }
        assertEquals(5, rows.size(), rows.toString());
        // Each writer checkpoint under its own identifier: APPEND 1, 2, 3, COMPACT 3, APPEND 4, 5, COMPACT 5.
        List<String> kinds = new ArrayList<>();
        for (Snapshot s : log) kinds.add(s.commitKind() + " " + s.commitIdentifier());
        assertEquals(List.of("APPEND 1", "APPEND 2", "APPEND 3", "COMPACT 3", "APPEND 4", "APPEND 5", "COMPACT 5"), kinds);
        assertEquals(1, io.snapcommit.demo.TableContents.liveFiles(table()).size(), "the bucket compacted into one file");
        try (NativeTable t = NativeTable.openTable(table())) {
            t.fsck();
            
        }
    }

    /**
     * Where a writer's messages go: its own checkpoint; the committer's snapshot for end of input and
     * for a message tagged at or below a checkpoint whose state the committer took already (in flight
     * during an unaligned checkpoint, or restored from its channel state).
     */
    @Test
    void messagesArePendingUnderTheWritersCheckpoint() {
        assertEquals(5, SnapcommitCommitterOperator.pendingIdOf(5, 5, 4));
        assertEquals(3, SnapcommitCommitterOperator.pendingIdOf(3, 5, 2));
        assertEquals(3, SnapcommitCommitterOperator.pendingIdOf(3, 5, Long.MIN_VALUE));
        assertEquals(5, SnapcommitCommitterOperator.pendingIdOf(WriterCommittable.END_OF_INPUT, 5, 4));
        assertEquals(5, SnapcommitCommitterOperator.pendingIdOf(4, 5, 4));
        assertEquals(5, SnapcommitCommitterOperator.pendingIdOf(2, 5, 4));
    }
}

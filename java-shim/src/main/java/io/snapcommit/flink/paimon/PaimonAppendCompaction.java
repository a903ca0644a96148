package io.snapcommit.flink.paimon;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.paimon.append.AppendCompactCoordinator;
import org.apache.paimon.append.AppendCompactTask;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.io.DataFilePathFactory;
import org.apache.paimon.operation.BaseAppendFileStoreWrite;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;

import io.snapcommit.jni.AlreadyCommittedException;
import io.snapcommit.jni.CommitKind;
import io.snapcommit.jni.CommitResult;
import io.snapcommit.jni.ConflictException;
import io.snapcommit.jni.NativeChanges;
import io.snapcommit.jni.NativeTable;
import io.snapcommit.jni.StoreConfig;

/**
 * Compaction of a bucket-unaware append table by Paimon's own code: {@link AppendCompactCoordinator}
 * (batch: plans over the latest snapshot with the table's compaction.min.file-num, target file size
 * and delete ratio) and {@link AppendCompactTask#doCompact}, which rewrites each task's files with
 * Paimon's append writer; the result is committed through the native library as the COMPACT part
 * of a commit of its own: one COMPACT snapshot (compactBefore deleted, compactAfter added).
 */
public final class PaimonAppendCompaction implements AutoCloseable {
    public enum Outcome { NOTHING_TO_DO, COMPACTED, CONFLICT, ALREADY_COMMITTED }

    /** What one round did. */
    public static final class Result {
        public final Outcome outcome;
        public final int tasks;
        public final int filesBefore;
        public final int filesAfter;
        public final long snapshotId;

        Result(Outcome outcome, int tasks, int filesBefore, int filesAfter, long snapshotId) {
            this.outcome = outcome;
            this.tasks = tasks;
            this.filesBefore = filesBefore;
            this.filesAfter = filesAfter;
            this.snapshotId = snapshotId;
        }

        @Override
        public String toString() {
            return outcome + ": " + tasks + " task(s), " + filesBefore + " file(s) -> " + filesAfter
                   + (snapshotId != 0 ? ", snapshot " + snapshotId : "");
        }
    }

    private final FileStoreTable table;
    private final IOManager ioManager;

    public PaimonAppendCompaction(String location, StoreConfig storage, PaimonTableSpec spec,
                                  Map<String, String> options) {
        if (!spec.schema().primaryKeys().isEmpty() || spec.coreOptions().bucket() != -1)
            throw new IllegalArgumentException("only bucket-unaware append tables are compacted here");
        this.table = PaimonStoreTable.open(location, storage, spec, options);
        this.ioManager = IOManager.create(System.getProperty("java.io.tmpdir"));
    }

    /** One round: plan, rewrite at most maxTasks tasks, commit them as user/identifier. */
    public Result compact(NativeTable t, String user, long identifier, int maxTasks) throws Exception {
        List<AppendCompactTask> tasks = new AppendCompactCoordinator(table, false).run();
        if (tasks.isEmpty()) return new Result(Outcome.NOTHING_TO_DO, 0, 0, 0, 0);
        if (tasks.size() > maxTasks) tasks = new ArrayList<>(tasks.subList(0, maxTasks));
        List<CommitMessage> messages = new ArrayList<>(tasks.size());
        int before = 0, after = 0;
        BaseAppendFileStoreWrite write = (BaseAppendFileStoreWrite) table.store().newWrite(user);
        write.withIOManager(ioManager);
        try {
            for (AppendCompactTask task : tasks) {
                CommitMessage m = task.doCompact(table, write);
                messages.add(m);
                before += ((CommitMessageImpl) m).compactIncrement().compactBefore().size();
                after += ((CommitMessageImpl) m).compactIncrement().compactAfter().size();
            }
        } catch (Exception e) {
            deleteWritten(messages);
            throw e;
        } finally {
            write.close();
        }
        PaimonSections sections = PaimonSections.of(messages, -1, table.coreOptions().manifestCompression());
        try (NativeChanges compact = sections.compact.toNative()) {
            // The COMPACT part alone: one snapshot of kind COMPACT, as sc_table_commit makes it.
            CommitResult r = t.commit(user, identifier, CommitKind.COMPACT, 0, compact);
            return new Result(Outcome.COMPACTED, tasks.size(), before, after, r.snapshotId());
        } catch (ConflictException e) {
            deleteWritten(messages);
            return new Result(Outcome.CONFLICT, tasks.size(), before, after, 0);
        } catch (AlreadyCommittedException e) {
            // Not deleted: the library also says "already committed" when a claim of this
            // round landed below EARLIEST and a later snapshot may name its files
            // (docs/protocols.md §13); what no snapshot names is remove-orphans' to delete.
            return new Result(Outcome.ALREADY_COMMITTED, tasks.size(), before, after, 0);
        }
    }

    /** The rewritten files of a round that will not be published (unknown outcomes keep theirs). */
    private void deleteWritten(List<CommitMessage> messages) {
        for (CommitMessage m : messages) {
            CommitMessageImpl c = (CommitMessageImpl) m;
            DataFilePathFactory paths = table.store().pathFactory().createDataFilePathFactory(c.partition(), c.bucket());
            for (DataFileMeta f : c.compactIncrement().compactAfter()) table.fileIO().deleteQuietly(paths.toPath(f));
        }
    }

    @Override
    public void close() throws Exception {
        ioManager.close();
    }
}

package io.snapcommit.flink.paimon;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.format.FileFormat;
import org.apache.paimon.format.FormatReaderContext;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.manifest.FileSource;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.types.RowType;

import io.snapcommit.jni.AlreadyCommittedException;
import io.snapcommit.jni.CommitKind;
import io.snapcommit.jni.CommitResult;
import io.snapcommit.jni.ConflictException;
import io.snapcommit.jni.RetriesExhaustedException;
import io.snapcommit.jni.FileEntry;
import io.snapcommit.jni.NativeChanges;
import io.snapcommit.jni.NativeStore;
import io.snapcommit.jni.NativeTable;

/**
 * Small-file compaction of an append table (no primary key), with Paimon 1.4.2's append-table
 * semantics: in each (partition, bucket), data files smaller than Paimon's compaction file size
 * ({@code target-file-size} / 10 * 7) are packed into tasks; each task's rows are read with Paimon's
 * format reader and written again with Paimon's data file writer as {@link FileSource#COMPACT}
 * files rolling at the target size; one {@link CommitKind#COMPACT} commit deletes the inputs
 * (their entries exactly as committed) and adds the outputs.
 *
 * <p><b>Picking</b> ({@link #plan}): the candidates of a (partition, bucket) are its level-0 files
 * below the compaction file size, written with the table's current schema and format, with no
 * extra files and no external path. They are taken in Paimon's order — by size for a
 * bucket-unaware table (Paimon's AppendCompactCoordinator), by minimum sequence number for a
 * fixed-bucket one (BucketedAppendCompactManager) — into a bin that counts each file's size plus
 * {@code source.split.open-file-cost}. A bin becomes a task when it holds
 * {@code sink.compaction.max-file-num} files, or at least two files whose counted size reaches
 * twice the target size (Paimon's "enough content"); what is left at the end becomes a task only
 * when it holds at least {@code compaction.min.file-num} files. Fewer small files than that are
 * left alone.
 *
 * <p><b>Memory</b>: one input file's bytes at a time (inputs are small files by definition), rows
 * streamed from Paimon's reader into Paimon's writer; a partition is never loaded whole.
 *
 * <p><b>Safety</b>: the commit is conflict-checked by the native engine against every snapshot
 * after the planned one: if any input was deleted meanwhile (another compaction, an overwrite),
 * the commit fails with a conflict, the files this round wrote are deleted again, and
 * {@link Outcome#CONFLICT} is returned. Rows are counted on the way: a task whose outputs do not
 * hold exactly its inputs' rows, or whose rows would land in another partition or bucket, is not
 * committed. When the outcome of the commit is unknown (or any other error), the written files are
 * left in place — they may be live — and the error is thrown; orphan removal takes them if not.
 *
 * <p>Not thread-safe; give it its own {@link NativeTable} and {@link NativeStore} handles when it
 * runs beside other work (handles serialize their calls).
 */
public final class AppendCompactor {
    /**
     * The most files one task rewrites. Paimon 1.4.2 has no such option (it removed
     * {@code compaction.max.file-num} in 1.2; its coordinator bounds a task by
     * {@code source.split.open-file-cost} alone), so this is the connector's own, named after it.
     */
    public static final String MAX_FILE_NUM_KEY = "sink.compaction.max-file-num";
    /** The default of {@link #MAX_FILE_NUM_KEY}: Paimon's last default of compaction.max.file-num for append tables. */
    public static final int DEFAULT_MAX_FILE_NUM = 50;

    /** What to pick; {@link #of} takes Paimon's options (and defaults) from the table's schema. */
    public static final class Settings {
        public final long targetFileSize;
        public final int minFileNum;
        public final int maxFileNum;
        public final long openFileCost;

        private Settings(long targetFileSize, int minFileNum, int maxFileNum, long openFileCost) {
            if (targetFileSize <= 0) throw new IllegalArgumentException("target-file-size must be > 0, not " + targetFileSize);
            if (minFileNum < 1) throw new IllegalArgumentException(CoreOptions.COMPACTION_MIN_FILE_NUM.key()
                                                                   + " must be >= 1, not " + minFileNum);
            if (maxFileNum < Math.max(2, minFileNum))
                throw new IllegalArgumentException(MAX_FILE_NUM_KEY + " (" + maxFileNum + ") must be >= 2 and >= "
                                                   + CoreOptions.COMPACTION_MIN_FILE_NUM.key() + " (" + minFileNum + ")");
            if (openFileCost < 0) throw new IllegalArgumentException("open file cost must be >= 0, not " + openFileCost);
            this.targetFileSize = targetFileSize;
            this.minFileNum = minFileNum;
            this.maxFileNum = maxFileNum;
            this.openFileCost = openFileCost;
        }

        /**
         * Paimon's {@code target-file-size} (256 MB for an append table when unset),
         * {@code compaction.min.file-num} (5) and {@code source.split.open-file-cost} (4 MB) of the
         * table, and {@link #DEFAULT_MAX_FILE_NUM} (raised to the minimum when that is higher).
         */
        public static Settings of(PaimonTableSpec spec) {
            CoreOptions o = spec.coreOptions();
            int min = o.compactionMinFileNum();
            return new Settings(o.targetFileSize(false), min, Math.max(DEFAULT_MAX_FILE_NUM, min), o.splitOpenFileCost());
        }

        /** Files below this size are small (Paimon's compactionFileSize: target / 10 * 7). */
        public long compactionFileSize() {
            return targetFileSize / 10 * 7;
        }

        public Settings withTargetFileSize(long bytes) {
            return new Settings(bytes, minFileNum, maxFileNum, openFileCost);
        }

        public Settings withMinFileNum(int n) {
            return new Settings(targetFileSize, n, maxFileNum, openFileCost);
        }

        public Settings withMaxFileNum(int n) {
            return new Settings(targetFileSize, minFileNum, n, openFileCost);
        }

        public Settings withOpenFileCost(long bytes) {
            return new Settings(targetFileSize, minFileNum, maxFileNum, bytes);
        }

        @Override
        public String toString() {
            return "target-file-size=" + targetFileSize + ", " + CoreOptions.COMPACTION_MIN_FILE_NUM.key() + "="
                   + minFileNum + ", " + MAX_FILE_NUM_KEY + "=" + maxFileNum + ", "
                   + CoreOptions.SOURCE_SPLIT_OPEN_FILE_COST.key() + "=" + openFileCost;
        }
    }

    /** The files of one (partition, bucket) that one rewrite merges, in reading order. */
    public static final class Task {
        public final byte[] partition;
        public final int bucket;
        public final List<FileEntry> files;

        Task(byte[] partition, int bucket, List<FileEntry> files) {
            this.partition = partition;
            this.bucket = bucket;
            this.files = Collections.unmodifiableList(new ArrayList<>(files));
        }

        public long rows() {
            return files.stream().mapToLong(FileEntry::rows).sum();
        }

        public long bytes() {
            return files.stream().mapToLong(FileEntry::size).sum();
        }

        @Override
        public String toString() {
            return "task of " + files.size() + " files (" + rows() + " rows, " + bytes() + " bytes) in bucket " + bucket;
        }
    }

    /** Files written for a round and the change set they make; not committed yet. */
    public static final class Prepared {
        public final long baseSnapshot;
        public final List<Task> tasks;
        /** The entries to delete: the inputs, exactly as the base snapshot lists them. */
        public final List<FileEntry> deletes;
        /** The entries to add: the outputs. */
        public final List<FileEntry> adds;
        /** Where the outputs were put, relative to the table root. */
        public final List<String> paths;

        Prepared(long baseSnapshot, List<Task> tasks, List<FileEntry> deletes, List<FileEntry> adds, List<String> paths) {
            this.baseSnapshot = baseSnapshot;
            this.tasks = Collections.unmodifiableList(tasks);
            this.deletes = Collections.unmodifiableList(deletes);
            this.adds = Collections.unmodifiableList(adds);
            this.paths = Collections.unmodifiableList(paths);
        }
    }

    public enum Outcome {
        /** A COMPACT snapshot was committed. */
        COMPACTED,
        /** Too few small files anywhere: nothing written, nothing committed. */
        NOTHING_TO_DO,
        /** Another commit deleted some input meanwhile: our files were deleted again, nothing committed. */
        CONFLICT,
        /** The identifier was already committed by this user: our files were deleted again. */
        ALREADY_COMMITTED
    }

    /** What one round did. Counts are of the committed (or, for a conflict, the attempted) change set. */
    public static final class Result {
        public final Outcome outcome;
        public final long baseSnapshot;
        /** The COMPACT snapshot; 0 unless {@link Outcome#COMPACTED}. */
        public final long snapshotId;
        public final int tasks;
        public final int filesBefore;
        public final int filesAfter;
        public final long rows;
        public final long bytesBefore;
        public final long bytesAfter;
        /** The conflict's message for {@link Outcome#CONFLICT}, else null. */
        public final String conflict;

        Result(Outcome outcome, long baseSnapshot, long snapshotId, Prepared p, String conflict) {
            this.outcome = outcome;
            this.baseSnapshot = baseSnapshot;
            this.snapshotId = snapshotId;
            this.tasks = p == null ? 0 : p.tasks.size();
            this.filesBefore = p == null ? 0 : p.deletes.size();
            this.filesAfter = p == null ? 0 : p.adds.size();
            this.rows = p == null ? 0 : p.deletes.stream().mapToLong(FileEntry::rows).sum();
            this.bytesBefore = p == null ? 0 : p.deletes.stream().mapToLong(FileEntry::size).sum();
            this.bytesAfter = p == null ? 0 : p.adds.stream().mapToLong(FileEntry::size).sum();
            this.conflict = conflict;
        }

        @Override
        public String toString() {
            String s = outcome.name().toLowerCase(Locale.ROOT) + " (base snapshot " + baseSnapshot
                       + (snapshotId > 0 ? ", snapshot " + snapshotId : "") + "): " + tasks + " task(s), "
                       + filesBefore + " -> " + filesAfter + " file(s), " + rows + " rows, " + bytesBefore + " -> "
                       + bytesAfter + " bytes";
            return conflict == null ? s : s + "; " + conflict;
        }
    }

    private final PaimonTableSpec spec;
    private final Settings settings;
    private final NativeStore store;
    private final java.nio.file.Path tmpDir;
    private final RowType rowType;
    private final FileFormat format;

    /**
     * @param store the table's store (the caller's handle, not closed here): inputs are read and
     *     outputs put through it
     * @param tmpDir a local directory of this compactor's own for one file at a time
     * @throws IllegalArgumentException for a table this compactor must not rewrite (primary keys,
     *     deletion vectors, row tracking, data evolution)
     */
    public AppendCompactor(PaimonTableSpec spec, Settings settings, NativeStore store, java.nio.file.Path tmpDir) {
        checkAppendTable(spec);
        this.spec = spec;
        this.settings = Objects.requireNonNull(settings);
        this.store = Objects.requireNonNull(store);
        this.tmpDir = Objects.requireNonNull(tmpDir);
        this.rowType = spec.schema().logicalRowType();
        this.format = FileFormat.fileFormat(spec.coreOptions());
    }

    /** Refuses tables whose files an append compaction would rewrite wrongly. */
    static void checkAppendTable(PaimonTableSpec spec) {
        TableSchema s = spec.schema();
        if (!s.primaryKeys().isEmpty())
            throw new IllegalArgumentException("append compaction refuses primary-key table (primary keys "
                + s.primaryKeys() + "): its files are LSM levels merged by key, which only a primary-key "
                + "compaction may rewrite");
        CoreOptions o = spec.coreOptions();
        if (o.deletionVectorsEnabled())
            throw new IllegalArgumentException("append compaction refuses a table with deletion-vectors.enabled: "
                                               + "its deletion vectors would have to be rewritten too");
        if (o.rowTrackingEnabled() || o.dataEvolutionEnabled())
            throw new IllegalArgumentException("append compaction refuses a table with row-tracking.enabled or "
                                               + "data-evolution.enabled: row ids would have to be kept");
        if (o.bucket() != -1 && o.bucket() <= 0)
            throw new IllegalArgumentException("append compaction supports bucket -1 or N > 0, not " + o.bucket());
    }

    /** The tasks of live files (of one snapshot), in partition/bucket order of first appearance. */
    public static List<Task> plan(PaimonTableSpec spec, Settings settings, List<FileEntry> live) {
        checkAppendTable(spec);
        boolean unaware = spec.coreOptions().bucket() == -1;
        String suffix = "." + spec.coreOptions().fileFormatString();
        long schemaId = spec.schemaId();
        long small = settings.compactionFileSize();
        Map<String, List<FileEntry>> groups = new LinkedHashMap<>();
        for (FileEntry e : live) {
            if (e.level() != 0 || e.size() >= small || e.schemaId() != schemaId || !e.extraFiles().isEmpty()
                || e.externalPath() != null || !e.file().endsWith(suffix) || (e.hasDeleteRowCount() && e.deleteRowCount() > 0))
                continue;
            groups.computeIfAbsent(Arrays.toString(e.partition()) + "/" + e.bucket(), k -> new ArrayList<>()).add(e);
        }
        Comparator<FileEntry> order = unaware
            ? Comparator.comparingLong(FileEntry::size).thenComparing(FileEntry::file)
            : Comparator.comparingLong(FileEntry::minSequenceNumber).thenComparing(FileEntry::file);
        int min = Math.max(2, settings.minFileNum);
        List<Task> tasks = new ArrayList<>();
        for (List<FileEntry> files : groups.values()) {
            if (files.size() < 2) continue;
            files.sort(order);
            List<FileEntry> bin = new ArrayList<>();
            long counted = 0;
            for (FileEntry f : files) {
                bin.add(f);
                counted += f.size() + settings.openFileCost;
                if (bin.size() >= settings.maxFileNum || (bin.size() > 1 && counted >= settings.targetFileSize * 2)) {
                    tasks.add(new Task(f.partition(), f.bucket(), bin));
                    bin.clear();
                    counted = 0;
                }
            }
            if (bin.size() >= min) tasks.add(new Task(bin.get(0).partition(), bin.get(0).bucket(), bin));
        }
        return tasks;
    }

    /**
     * Plans against the latest snapshot and writes the outputs of every task (put into the store,
     * not committed). Null when there is nothing to compact. On an error the outputs already put are
     * deleted again.
     */
    public Prepared prepare(NativeTable table) throws IOException {
        return prepare(table, Integer.MAX_VALUE);
    }

    /**
     * As {@link #prepare(NativeTable)}, rewriting at most the first {@code maxTasks} tasks of the
     * plan (a backlog is then worked off over several rounds, each a short commit).
     */
    public Prepared prepare(NativeTable table, int maxTasks) throws IOException {
        if (maxTasks < 1) throw new IllegalArgumentException("maxTasks must be >= 1, not " + maxTasks);
        long base = table.latestSnapshotId();
        if (base == 0) return null;
        List<Task> tasks = plan(spec, settings, table.liveFiles(base));
        if (tasks.isEmpty()) return null;
        if (tasks.size() > maxTasks) tasks = new ArrayList<>(tasks.subList(0, maxTasks));
        List<FileEntry> deletes = new ArrayList<>();
        List<FileEntry> adds = new ArrayList<>();
        List<String> paths = new ArrayList<>();
        boolean ok = false;
        try {
            for (Task t : tasks) {
                List<PaimonDataWriter.Written> out = rewrite(t, paths);
                deletes.addAll(t.files);
                for (PaimonDataWriter.Written w : out) adds.add(w.entry);
            }
            ok = true;
        } finally {
            if (!ok) deleteQuietly(paths, null);
        }
        return new Prepared(base, tasks, deletes, adds, paths);
    }

    /**
     * Commits a prepared round as a COMPACT by {@code user} with {@code identifier}, planned against
     * {@link Prepared#baseSnapshot}. A conflict or an already committed identifier deletes the
     * outputs again and is reported, not thrown.
     *
     * @throws io.snapcommit.jni.SnapcommitException any other failure of the commit: after
     *     RetriesExhaustedException (nothing committed) the outputs are deleted, otherwise they are
     *     left (after an unknown outcome they may be live)
     */
    public Result commit(NativeTable table, Prepared p, String user, long identifier) {
        CommitResult r;
        try (NativeChanges changes = new NativeChanges()) {
            for (FileEntry e : p.deletes) changes.deleteFile(e);
            for (FileEntry e : p.adds) changes.addFile(e);
            r = table.commit(user, identifier, CommitKind.COMPACT, p.baseSnapshot, changes);
        } catch (ConflictException e) {
            deleteQuietly(p.paths, e);
            return new Result(Outcome.CONFLICT, p.baseSnapshot, 0, p, e.getMessage());
        } catch (AlreadyCommittedException e) {
            deleteQuietly(p.paths, e);
            return new Result(Outcome.ALREADY_COMMITTED, p.baseSnapshot, 0, p, null);
        } catch (RetriesExhaustedException e) {
            // Every claim was lost (the count or the budget ran out): nothing names the outputs.
            deleteQuietly(p.paths, e);
            throw e;
        }
        return new Result(Outcome.COMPACTED, p.baseSnapshot, r.snapshotId(), p, null);
    }

    /** One round over every task: {@link #prepare}, then {@link #commit}. */
    public Result compact(NativeTable table, String user, long identifier) throws IOException {
        return compact(table, user, identifier, Integer.MAX_VALUE);
    }

    /** One round over at most {@code maxTasks} tasks: {@link #prepare(NativeTable, int)}, then {@link #commit}. */
    public Result compact(NativeTable table, String user, long identifier, int maxTasks) throws IOException {
        Prepared p = prepare(table, maxTasks);
        if (p == null) return new Result(Outcome.NOTHING_TO_DO, table.latestSnapshotId(), 0, null, null);
        return commit(table, p, user, identifier);
    }

    /** Reads the task's files in order into one writer; the outputs are put and their paths added to {@code paths}. */
    private List<PaimonDataWriter.Written> rewrite(Task t, List<String> paths) throws IOException {
        long firstSeq = t.files.stream().mapToLong(FileEntry::minSequenceNumber).min().orElse(0);
        List<PaimonDataWriter.Written> out = new ArrayList<>();
        java.nio.file.Path local = tmpDir.resolve("compact-input");
        try (PaimonDataWriter w = new PaimonDataWriter(spec, settings.targetFileSize, tmpDir, FileSource.COMPACT, firstSeq)) {
            for (FileEntry f : t.files) {
                String key = spec.dataFilePath(f);
                byte[] bytes = store.getObject(key);
                if (bytes.length != f.size())
                    throw new IOException("data file " + key + " has " + bytes.length + " bytes, its entry says " + f.size());
                Files.write(local, bytes);
                bytes = null; // one input in memory at a time
                long read = 0;
                try (RecordReader<InternalRow> r = format.createReaderFactory(rowType, rowType, null)
                         .createReader(new FormatReaderContext(LocalFileIO.create(), new Path(local.toUri()), f.size()))) {
                    RecordReader.RecordIterator<InternalRow> batch;
                    while ((batch = r.readBatch()) != null) {
                        try {
                            InternalRow row;
                            while ((row = batch.next()) != null) {
                                for (PaimonDataWriter.Written done : w.write(row)) put(t, done, out, paths);
                                read++;
                            }
                        } finally {
                            batch.releaseBatch();
                        }
                    }
                } finally {
                    Files.deleteIfExists(local);
                }
                if (read != f.rows())
                    throw new IOException("data file " + key + " holds " + read + " rows, its entry says " + f.rows());
            }
            for (PaimonDataWriter.Written done : w.flush()) put(t, done, out, paths);
        }
        long written = out.stream().mapToLong(x -> x.entry.rows()).sum();
        if (written != t.rows())
            throw new IOException("compaction wrote " + written + " rows for " + t.rows() + " read: not committed");
        return out;
    }

    /**
     * The inputs hold rows Paimon would put in another partition or bucket: permanent for these
     * files, so a caller running rounds repeatedly should stop compacting this table.
     */
    public static final class MisplacedRowsException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        MisplacedRowsException(String message) {
            super(message);
        }
    }

    private void put(Task t, PaimonDataWriter.Written w, List<PaimonDataWriter.Written> out, List<String> paths) {
        // A row Paimon would route elsewhere (a file in the wrong bucket) must not be moved by a compaction.
        if (!Arrays.equals(w.entry.partition(), t.partition) || w.entry.bucket() != t.bucket)
            throw new MisplacedRowsException("compaction of bucket " + t.bucket + " produced rows of bucket "
                                            + w.entry.bucket() + " or another partition: the inputs are not "
                                            + "where Paimon would put their rows; not compacted");
        store.putObject(w.path, w.bytes, 0, w.bytes.length);
        paths.add(w.path);
        out.add(w);
    }

    private void deleteQuietly(List<String> paths, Exception cause) {
        for (String p : paths) {
            try {
                store.deleteObject(p);
            } catch (RuntimeException e) {
                // Left for orphan removal: nothing references it.
                if (cause != null) cause.addSuppressed(e);
            }
        }
    }
}

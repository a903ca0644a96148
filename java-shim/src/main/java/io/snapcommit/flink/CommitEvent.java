package io.snapcommit.flink;

import io.snapcommit.jni.CheckpointResult;
import io.snapcommit.jni.CommitResult;

/**
 * One checkpoint committed by the sink's committer (see {@link CommitListener}): its APPEND
 * snapshot and, when its writers compacted, its COMPACT snapshot.
 */
public final class CommitEvent {
    private final String table;
    private final String commitUser;
    private final long checkpointId;
    private final int fileCount;
    private final CheckpointResult result;

    /** Built by the committer for each committed checkpoint that published a snapshot. */
    public CommitEvent(String table, String commitUser, long checkpointId, int fileCount, CheckpointResult result) {
        this.table = table;
        this.commitUser = commitUser;
        this.checkpointId = checkpointId;
        this.fileCount = fileCount;
        this.result = result;
    }

    /** The table location, as configured (normalized). */
    public String table() { return table; }
    /** The commit user of this job (kept in checkpoint state). */
    public String commitUser() { return commitUser; }
    /** The checkpoint whose files the snapshot holds: the commit identifier. */
    public long checkpointId() { return checkpointId; }
    /** The last snapshot the checkpoint published (its COMPACT snapshot when it has one). */
    public long snapshotId() { return result.lastSnapshotId(); }
    /** Data files the APPEND part added. */
    public int fileCount() { return fileCount; }
    /** What the native commit did, per part (attempts, lost claims, elapsed time, store operations). */
    public CheckpointResult checkpointResult() { return result; }
    /** The first part that published a snapshot (APPEND, else COMPACT) as a single commit's result. */
    public CommitResult result() { return result.firstWritten(); }

    @Override
    public String toString() {
        return "checkpoint " + checkpointId + " of " + commitUser + " -> snapshot " + snapshotId() + " of " + table
               + " (" + fileCount + " files)";
    }
}

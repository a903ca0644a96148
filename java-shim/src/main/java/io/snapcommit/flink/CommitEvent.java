package io.snapcommit.flink;

import io.snapcommit.jni.CommitResult;

/** One snapshot published by the sink's committer (see {@link CommitListener}). */
public final class CommitEvent {
    private final String table;
    private final String commitUser;
    private final long checkpointId;
    private final int fileCount;
    private final CommitResult result;

    /** Built by the committer for each published snapshot. */
    public CommitEvent(String table, String commitUser, long checkpointId, int fileCount, CommitResult result) {
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
    /** The id of the new snapshot. */
    public long snapshotId() { return result.snapshotId(); }
    /** Data files the snapshot added. */
    public int fileCount() { return fileCount; }
    /** What the native commit did (attempts, lost claims, elapsed time, store operations). */
    public CommitResult result() { return result; }

    @Override
    public String toString() {
        return "checkpoint " + checkpointId + " of " + commitUser + " -> snapshot " + snapshotId() + " of " + table
               + " (" + fileCount + " files)";
    }
}

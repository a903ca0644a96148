package io.snapcommit.jni;

import java.nio.charset.StandardCharsets;

/** Summary of one snapshot: who committed it, with which identifier, and what it holds. */
public final class SnapshotInfo {
    private final long id;
    private final String commitUser;
    private final long commitIdentifier;
    private final CommitKind commitKind;
    private final long timeMillis;
    private final long totalRecordCount;
    private final long deltaRecordCount;
    private final long fileCount;
    private final String parentHash;

    /** Called by the native library. */
    SnapshotInfo(long id, byte[] commitUser, long commitIdentifier, int commitKind, long timeMillis,
                 long totalRecordCount, long deltaRecordCount, long fileCount, String parentHash) {
        this.id = id;
        this.commitUser = new String(commitUser, StandardCharsets.UTF_8);
        this.commitIdentifier = commitIdentifier;
        this.commitKind = CommitKind.ofCode(commitKind);
        this.timeMillis = timeMillis;
        this.totalRecordCount = totalRecordCount;
        this.deltaRecordCount = deltaRecordCount;
        this.fileCount = fileCount;
        this.parentHash = parentHash;
    }

    public long id() { return id; }
    public String commitUser() { return commitUser; }
    public long commitIdentifier() { return commitIdentifier; }
    public CommitKind commitKind() { return commitKind; }
    public long timeMillis() { return timeMillis; }
    public long totalRecordCount() { return totalRecordCount; }
    public long deltaRecordCount() { return deltaRecordCount; }
    public long fileCount() { return fileCount; }
    /** Hex SHA-256 of the previous snapshot, "" for the first. */
    public String parentHash() { return parentHash; }

    @Override
    public String toString() {
        return "snapshot " + id + " " + commitKind + " user=" + commitUser + " identifier=" + commitIdentifier
               + " records=+" + deltaRecordCount + " (total " + totalRecordCount + ") files=" + fileCount;
    }
}

package io.snapcommit.jni;

/** What one {@link NativeTable#expire(ExpireOptions)} run did (sc_expire_result; with a dry run: would do). */
public final class ExpireResult {
    /** The number of fields of sc_expire_result, in the order jni_table.c writes them. */
    static final int FIELDS = 10;

    private final long earliestBefore;
    private final long earliestAfter;
    private final long latest;
    private final long snapshotsExpired;
    private final long dataFilesDeleted;
    private final long manifestsDeleted;
    private final long manifestListsDeleted;
    private final long bytesDeleted;
    private final long alreadyGone;
    private final long skipped;

    ExpireResult(long[] r) {
        if (r.length != FIELDS) throw new IllegalStateException("expire returned " + r.length + " fields, not " + FIELDS);
        earliestBefore = r[0];
        earliestAfter = r[1];
        latest = r[2];
        snapshotsExpired = r[3];
        dataFilesDeleted = r[4];
        manifestsDeleted = r[5];
        manifestListsDeleted = r[6];
        bytesDeleted = r[7];
        alreadyGone = r[8];
        skipped = r[9];
    }

    /** The first retained snapshot before the run (0: empty table). */
    public long earliestBefore() { return earliestBefore; }
    /** The first retained snapshot after the run. */
    public long earliestAfter() { return earliestAfter; }
    /** The latest snapshot (never expired). */
    public long latest() { return latest; }
    public long snapshotsExpired() { return snapshotsExpired; }
    /** Data files (with their extra files) no retained snapshot references any more. */
    public long dataFilesDeleted() { return dataFilesDeleted; }
    public long manifestsDeleted() { return manifestsDeleted; }
    public long manifestListsDeleted() { return manifestListsDeleted; }
    /** Data files, manifests and manifest lists together. */
    public long filesDeleted() { return dataFilesDeleted + manifestsDeleted + manifestListsDeleted; }
    /** Sizes as the metadata records them. */
    public long bytesDeleted() { return bytesDeleted; }
    /** Objects to delete that were already absent (a re-run after an interrupted one). */
    public long alreadyGone() { return alreadyGone; }
    /** Objects left alone because this build does not follow them (external paths, changelog, index files). */
    public long skipped() { return skipped; }

    @Override
    public String toString() {
        return "expired " + snapshotsExpired + " snapshot(s) (earliest " + earliestBefore + " -> " + earliestAfter
               + ", latest " + latest + "): deleted " + dataFilesDeleted + " data file(s), " + manifestsDeleted
               + " manifest(s), " + manifestListsDeleted + " manifest list(s), " + bytesDeleted + " bytes"
               + (alreadyGone > 0 ? ", " + alreadyGone + " already gone" : "")
               + (skipped > 0 ? ", " + skipped + " skipped" : "");
    }
}

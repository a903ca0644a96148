package io.snapcommit.jni;

/** What one successful sc_table_commit did. */
public final class CommitResult {
    private final long snapshotId;
    private final int attempts;
    private final int lostClaims;
    private final int unknownOutcomes;
    private final long elapsedMillis;
    private final long storeOperations;

    /** The layout of jni_table.c commit: the snapshot, then the five counters. */
    CommitResult(long[] raw) {
        this(raw[0], raw, 1);
    }

    /** Snapshot {@code snapshotId}, its counters at {@code raw[at..at+4]} (attempts, lost claims,
     *  unknown outcomes, elapsed ms, store operations): one layout for commits and checkpoint parts. */
    CommitResult(long snapshotId, long[] raw, int at) {
        this.snapshotId = snapshotId;
        this.attempts = (int) raw[at];
        this.lostClaims = (int) raw[at + 1];
        this.unknownOutcomes = (int) raw[at + 2];
        this.elapsedMillis = raw[at + 3];
        this.storeOperations = raw[at + 4];
    }

    /** The new snapshot. */
    public long snapshotId() { return snapshotId; }
    /** Claims tried (1 when uncontended). */
    public int attempts() { return attempts; }
    /** Claims another writer won. */
    public int lostClaims() { return lostClaims; }
    /** Claims whose answer was lost and reconciled. */
    public int unknownOutcomes() { return unknownOutcomes; }
    public long elapsedMillis() { return elapsedMillis; }
    /** Store operations the commit spent. */
    public long storeOperations() { return storeOperations; }

    @Override
    public String toString() {
        return "snapshot " + snapshotId + " in " + elapsedMillis + " ms (" + attempts + " attempt(s), " + lostClaims
               + " lost claim(s), " + unknownOutcomes + " unknown outcome(s), " + storeOperations + " store ops)";
    }
}

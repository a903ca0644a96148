package io.snapcommit.jni;

/** What one successful sc_table_commit did. */
public final class CommitResult {
    private final long snapshotId;
    private final int attempts;
    private final int lostClaims;
    private final int unknownOutcomes;
    private final long elapsedMillis;
    private final long storeOperations;

    CommitResult(long[] raw) {
        this.snapshotId = raw[0];
        this.attempts = (int) raw[1];
        this.lostClaims = (int) raw[2];
        this.unknownOutcomes = (int) raw[3];
        this.elapsedMillis = raw[4];
        this.storeOperations = raw[5];
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

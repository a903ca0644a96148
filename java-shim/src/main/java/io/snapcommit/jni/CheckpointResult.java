package io.snapcommit.jni;

/** What one successful sc_table_commit_checkpoint did: its APPEND part and its COMPACT part. */
public final class CheckpointResult {
    /** One part: snapshot 0 when that part wrote nothing. */
    public static final class Part {
        private final long snapshotId;
        private final int attempts;
        private final int lostClaims;
        private final int unknownOutcomes;
        private final long elapsedMillis;
        private final long storeOperations;

        Part(long snapshotId, long[] raw, int at) {
            this.snapshotId = snapshotId;
            this.attempts = (int) raw[at];
            this.lostClaims = (int) raw[at + 1];
            this.unknownOutcomes = (int) raw[at + 2];
            this.elapsedMillis = raw[at + 3];
            this.storeOperations = raw[at + 4];
        }

        public long snapshotId() { return snapshotId; }

        /** As one commit's result. */
        public CommitResult toCommitResult() {
            return new CommitResult(new long[] {snapshotId, attempts, lostClaims, unknownOutcomes, elapsedMillis,
                                                storeOperations});
        }
        public boolean written() { return snapshotId != 0; }
        public int attempts() { return attempts; }
        public int lostClaims() { return lostClaims; }
        public int unknownOutcomes() { return unknownOutcomes; }
        public long elapsedMillis() { return elapsedMillis; }
        public long storeOperations() { return storeOperations; }

        @Override
        public String toString() {
            if (snapshotId == 0) return "nothing";
            return "snapshot " + snapshotId + " in " + elapsedMillis + " ms (" + attempts + " attempt(s), " + lostClaims
                   + " lost claim(s), " + unknownOutcomes + " unknown outcome(s), " + storeOperations + " store ops)";
        }
    }

    private final Part append;
    private final CommitKind appendKind;
    private final Part compact;

    /** The layout of jni_table.c commitCheckpoint. */
    CheckpointResult(long[] raw) {
        this.append = new Part(raw[0], raw, 2);
        this.appendKind = CommitKind.ofCode((int) raw[1]);
        this.compact = new Part(raw[7], raw, 8);
    }

    public Part append() { return append; }
    /** APPEND, or OVERWRITE when the append part deletes data files or deletion vectors. */
    public CommitKind appendKind() { return appendKind; }
    public Part compact() { return compact; }

    /** The APPEND part's result when it wrote a snapshot, else the COMPACT part's. */
    public CommitResult firstWritten() {
        return (append.written() ? append : compact).toCommitResult();
    }

    /** The last snapshot this checkpoint wrote, 0 for none. */
    public long lastSnapshotId() {
        return compact.written() ? compact.snapshotId() : append.snapshotId();
    }

    @Override
    public String toString() {
        return "append " + appendKind + " " + append + ", compact " + compact;
    }
}

package io.snapcommit.jni;

/** What one successful sc_table_commit_checkpoint did: its APPEND part and its COMPACT part. */
public final class CheckpointResult {
    /** One part: snapshot 0 when that part wrote nothing. */
    public static final class Part {
        private final CommitResult result;

        Part(long snapshotId, long[] raw, int at) {
            this.result = new CommitResult(snapshotId, raw, at);
        }

        public long snapshotId() { return result.snapshotId(); }

        /** As one commit's result. */
        public CommitResult toCommitResult() { return result; }
        public boolean written() { return result.snapshotId() != 0; }
        public int attempts() { return result.attempts(); }
        public int lostClaims() { return result.lostClaims(); }
        public int unknownOutcomes() { return result.unknownOutcomes(); }
        public long elapsedMillis() { return result.elapsedMillis(); }
        public long storeOperations() { return result.storeOperations(); }

        @Override
        public String toString() {
            return written() ? result.toString() : "nothing";
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

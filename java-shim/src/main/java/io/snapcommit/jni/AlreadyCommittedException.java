package io.snapcommit.jni;

/**
 * SC_ECOMMITTED: the (commit user, identifier) pair is at or below the user's
 * watermark, so the commit was a replay and nothing was written. A committer
 * treats it as success.
 */
public class AlreadyCommittedException extends SnapcommitException {
    private static final long serialVersionUID = 1L;

    AlreadyCommittedException(int code, String message, long detail) {
        super(code, message, detail);
    }

    /** The snapshot that holds the identifier, 0 when unknown (the identifier was below the watermark). */
    public long existingSnapshot() {
        return detail();
    }
}

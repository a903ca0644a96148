package io.snapcommit.jni;

/** SC_ERETRIES: claims of the next snapshot kept being lost (commit.max-retries). */
public class RetriesExhaustedException extends SnapcommitException {
    private static final long serialVersionUID = 1L;

    RetriesExhaustedException(int code, String message, long detail) {
        super(code, message, detail);
    }
}

package io.snapcommit.jni;

/** SC_ERETRIES or SC_ETIMEOUT: claims of the next snapshot kept being lost until commit.max-retries or the commit.timeout budget ran out. */
public class RetriesExhaustedException extends SnapcommitException {
    private static final long serialVersionUID = 1L;

    RetriesExhaustedException(int code, String message, long detail) {
        super(code, message, detail);
    }
}

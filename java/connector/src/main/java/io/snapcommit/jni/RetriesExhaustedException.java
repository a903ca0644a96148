package io.snapcommit.jni;

/** SC_ERETRIES: claims of the next snapshot kept being lost (commit.max-retries). */
public class RetriesExhaustedException extends SnapcommitException {
    private static final long serialVersionUID = 1L;

    public RetriesExhaustedException(int code, String codeName, byte[] message, long detail) {
        super(code, codeName, message, detail);
    }
}

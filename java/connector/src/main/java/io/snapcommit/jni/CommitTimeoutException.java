package io.snapcommit.jni;

/** SC_ETIMEOUT: claims kept being lost until commit.timeout passed. */
public class CommitTimeoutException extends RetriesExhaustedException {
    private static final long serialVersionUID = 1L;

    public CommitTimeoutException(int code, String codeName, byte[] message, long detail) {
        super(code, codeName, message, detail);
    }
}

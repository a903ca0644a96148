package io.snapcommit.jni;

/** SC_ELIMIT: a configured limit was exceeded. */
public class LimitExceededException extends SnapcommitException {
    private static final long serialVersionUID = 1L;

    public LimitExceededException(int code, String codeName, byte[] message, long detail) {
        super(code, codeName, message, detail);
    }
}

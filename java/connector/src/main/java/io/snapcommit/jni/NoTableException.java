package io.snapcommit.jni;

/** SC_ENOTABLE: no table at this location. */
public class NoTableException extends SnapcommitException {
    private static final long serialVersionUID = 1L;

    public NoTableException(int code, String codeName, byte[] message, long detail) {
        super(code, codeName, message, detail);
    }
}

package io.snapcommit.jni;

/** SC_ENOTFOUND: an object or snapshot does not exist. */
public class NotFoundException extends SnapcommitException {
    private static final long serialVersionUID = 1L;

    public NotFoundException(int code, String codeName, byte[] message, long detail) {
        super(code, codeName, message, detail);
    }
}

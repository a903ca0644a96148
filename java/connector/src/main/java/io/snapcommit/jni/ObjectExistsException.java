package io.snapcommit.jni;

/** SC_EEXISTS: a conditional create found the object present (nothing written). */
public class ObjectExistsException extends SnapcommitException {
    private static final long serialVersionUID = 1L;

    public ObjectExistsException(int code, String codeName, byte[] message, long detail) {
        super(code, codeName, message, detail);
    }
}

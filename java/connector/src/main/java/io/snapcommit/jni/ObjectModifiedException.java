package io.snapcommit.jni;

/** SC_EMODIFIED: a compare-and-swap found a different version (nothing written). */
public class ObjectModifiedException extends SnapcommitException {
    private static final long serialVersionUID = 1L;

    public ObjectModifiedException(int code, String codeName, byte[] message, long detail) {
        super(code, codeName, message, detail);
    }
}

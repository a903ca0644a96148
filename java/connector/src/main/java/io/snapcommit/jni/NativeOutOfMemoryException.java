package io.snapcommit.jni;

/** SC_ENOMEM: the native library ran out of memory. */
public class NativeOutOfMemoryException extends SnapcommitException {
    private static final long serialVersionUID = 1L;

    public NativeOutOfMemoryException(int code, String codeName, byte[] message, long detail) {
        super(code, codeName, message, detail);
    }
}

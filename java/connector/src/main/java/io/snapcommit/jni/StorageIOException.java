package io.snapcommit.jni;

/** SC_EIO: a storage operation failed. */
public class StorageIOException extends SnapcommitException {
    private static final long serialVersionUID = 1L;

    public StorageIOException(int code, String codeName, byte[] message, long detail) {
        super(code, codeName, message, detail);
    }
}

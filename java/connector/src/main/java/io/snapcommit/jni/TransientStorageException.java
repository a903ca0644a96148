package io.snapcommit.jni;

/** SC_ETRANSIENT: storage throttled or was unavailable; retrying later may succeed. */
public class TransientStorageException extends StorageIOException {
    private static final long serialVersionUID = 1L;

    public TransientStorageException(int code, String codeName, byte[] message, long detail) {
        super(code, codeName, message, detail);
    }
}

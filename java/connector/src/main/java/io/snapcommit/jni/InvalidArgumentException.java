package io.snapcommit.jni;

/** SC_EINVAL: an argument was rejected by the native library; the message names the field. */
public class InvalidArgumentException extends SnapcommitException {
    private static final long serialVersionUID = 1L;

    public InvalidArgumentException(int code, String codeName, byte[] message, long detail) {
        super(code, codeName, message, detail);
    }
}

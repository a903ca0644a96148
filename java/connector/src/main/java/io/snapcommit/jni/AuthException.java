package io.snapcommit.jni;

/** SC_EAUTH: storage refused the credentials. */
public class AuthException extends SnapcommitException {
    private static final long serialVersionUID = 1L;

    public AuthException(int code, String codeName, byte[] message, long detail) {
        super(code, codeName, message, detail);
    }
}

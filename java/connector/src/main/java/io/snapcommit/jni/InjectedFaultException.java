package io.snapcommit.jni;

/** SC_EFAULT: a fault injected by a test hook. */
public class InjectedFaultException extends SnapcommitException {
    private static final long serialVersionUID = 1L;

    public InjectedFaultException(int code, String codeName, byte[] message, long detail) {
        super(code, codeName, message, detail);
    }
}

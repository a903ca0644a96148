package io.snapcommit.jni;

/** SC_EUNKNOWN: the request may or may not have been applied. Never assume failure: reconcile (replay the same identifier; the watermark decides). */
public class UnknownOutcomeException extends SnapcommitException {
    private static final long serialVersionUID = 1L;

    UnknownOutcomeException(int code, String message, long detail) {
        super(code, message, detail);
    }
}

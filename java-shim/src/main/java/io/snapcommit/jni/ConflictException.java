package io.snapcommit.jni;

/** SC_ECONFLICT: a real commit conflict (file deleted twice, re-added, LSM overlap, bucket count change). Never retried. */
public class ConflictException extends SnapcommitException {
    private static final long serialVersionUID = 1L;

    ConflictException(int code, String message, long detail) {
        super(code, message, detail);
    }
}

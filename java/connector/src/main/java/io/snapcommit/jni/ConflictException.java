package io.snapcommit.jni;

/** SC_ECONFLICT: a real commit conflict (file deleted twice, re-added, LSM overlap, bucket count change). Never retried. */
public class ConflictException extends SnapcommitException {
    private static final long serialVersionUID = 1L;

    public ConflictException(int code, String codeName, byte[] message, long detail) {
        super(code, codeName, message, detail);
    }
}

package io.snapcommit.jni;

import java.nio.charset.StandardCharsets;

/**
 * Base of the exceptions thrown by the snapcommit JNI binding. Each native
 * error code (error.h) maps to one subclass; the exception carries the code,
 * its symbolic name ({@code SC_ECONFLICT}) and the detailed message of the
 * failure as the native library recorded it (sc_error_message()).
 */
public class SnapcommitException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int code;
    private final String codeName;
    private final String detailMessage;
    private final long detail;

    /** Called by the native library; {@code message} is UTF-8. */
    public SnapcommitException(int code, String codeName, byte[] message, long detail) {
        this(code, codeName, message == null ? "" : new String(message, StandardCharsets.UTF_8), detail);
    }

    protected SnapcommitException(int code, String codeName, String detailMessage, long detail) {
        super(codeName + ": " + detailMessage);
        this.code = code;
        this.codeName = codeName;
        this.detailMessage = detailMessage;
        this.detail = detail;
    }

    /** The native code (negative), e.g. -9 for SC_ECONFLICT. */
    public int code() {
        return code;
    }

    /** The symbolic name of the code, e.g. "SC_ECONFLICT". */
    public String codeName() {
        return codeName;
    }

    /** The native detailed message without the code name. */
    public String detailMessage() {
        return detailMessage;
    }

    /** A code-specific number (the existing snapshot for SC_ECOMMITTED), else 0. */
    protected long detail() {
        return detail;
    }
}

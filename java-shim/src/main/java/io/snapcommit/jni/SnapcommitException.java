package io.snapcommit.jni;

import java.nio.charset.StandardCharsets;

/**
 * A failure reported by the native library: the {@link ErrorCode} of error.h and the detailed
 * message of the failure as the library recorded it (sc_error_message()).
 *
 * <p>Every native failure is thrown through {@link #fromNative}, the one place where codes map to
 * classes. Most codes are this class itself (test {@link #errorCode()}); a subclass exists only
 * where the connector handles the case differently: {@link AlreadyCommittedException} (a filtered
 * replay, success), {@link ConflictException}, {@link UnknownOutcomeException} and
 * {@link RetriesExhaustedException} (each counted in its own metric before the task fails).
 */
public class SnapcommitException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int code;
    private final ErrorCode errorCode;
    private final String detailMessage;
    private final long detail;

    SnapcommitException(int code, String detailMessage, long detail) {
        super(name(code) + ": " + detailMessage);
        this.code = code;
        this.errorCode = ErrorCode.ofCode(code);
        this.detailMessage = detailMessage;
        this.detail = detail;
    }

    /**
     * The exception for native {@code code}: called by the JNI binding (jni_errors.c) for every
     * failure. {@code message} is the UTF-8 detail message; {@code detail} a code-specific number
     * (the existing snapshot for SC_ECOMMITTED).
     */
    static SnapcommitException fromNative(int code, byte[] message, long detail) {
        String text = message == null ? "" : new String(message, StandardCharsets.UTF_8);
        ErrorCode c = ErrorCode.ofCode(code);
        if (c == null) return new SnapcommitException(code, text, detail);
        switch (c) {
            case ECOMMITTED: return new AlreadyCommittedException(code, text, detail);
            case ECONFLICT: return new ConflictException(code, text, detail);
            case EUNKNOWN: return new UnknownOutcomeException(code, text, detail);
            case ERETRIES: // a count limit (commit.max-retries) or the budget (commit.timeout) ran out
            case ETIMEOUT: return new RetriesExhaustedException(code, text, detail);
            default: return new SnapcommitException(code, text, detail);
        }
    }

    private static String name(int code) {
        ErrorCode c = ErrorCode.ofCode(code);
        return c != null ? c.cName() : "SC_E?(" + code + ")";
    }

    /** The native code (negative), e.g. -9 for SC_ECONFLICT. */
    public int code() {
        return code;
    }

    /** The code as a constant; null only for a code newer than this jar (a library/jar mismatch). */
    public ErrorCode errorCode() {
        return errorCode;
    }

    /** The symbolic name of the code, e.g. "SC_ECONFLICT". */
    public String codeName() {
        return name(code);
    }

    /** The native detailed message without the code name. */
    public String detailMessage() {
        return detailMessage;
    }

    /** A code-specific number (the existing snapshot for SC_ECOMMITTED), else 0. */
    /**
     * For a failed checkpoint commit: the APPEND snapshot that landed before its COMPACT part
     * failed, 0 when none did (meaningless for other calls and for ECOMMITTED).
     */
    public long landedSnapshot() {
        return errorCode() == ErrorCode.ECOMMITTED ? 0 : detail;
    }

    protected long detail() {
        return detail;
    }
}

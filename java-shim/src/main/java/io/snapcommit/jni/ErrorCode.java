package io.snapcommit.jni;

/**
 * The native error codes of native/include/snapcommit/error.h (its SC_ERROR_TABLE), one constant
 * per code: the constant's name is the C name without "SC_", with the same value and one-line
 * message. SC_OK is not here: it is never thrown.
 *
 * <p>Kept equal to the header by ErrorCodeTableTest (parses error.h: a code added, renumbered or
 * reworded in C without the same change here fails the build) and, at load time, by
 * {@link NativeLoader} (the loaded library must name every code as this jar does).
 */
public enum ErrorCode {
    EINVAL(-1, "invalid argument"),
    ENOMEM(-2, "out of memory"),
    EIO(-3, "storage I/O error"),
    ENOTFOUND(-4, "object not found"),
    EEXISTS(-5, "object already exists (conditional create lost)"),
    EMODIFIED(-6, "object changed since it was read (compare-and-swap lost)"),
    EUNKNOWN(-7, "outcome unknown: the request may or may not have been applied"),
    ECORRUPT(-8, "corrupt or truncated metadata"),
    ECONFLICT(-9, "commit conflict: changes are no longer valid, not retried"),
    ECOMMITTED(-10, "already committed: nothing written"),
    ERETRIES(-11, "commit retries exhausted"),
    ETIMEOUT(-12, "commit timeout exceeded"),
    EUNSUPPORTED(-13, "the store cannot honour this operation or strategy"),
    ETABLEEXISTS(-14, "a table already exists at this location"),
    ENOTABLE(-15, "no table at this location"),
    ELIMIT(-16, "a configured limit was exceeded"),
    EAUTH(-17, "storage refused the credentials"),
    ETRANSIENT(-18, "transient storage error (throttled or unavailable)"),
    EFAULT(-19, "injected fault");

    private static final ErrorCode[] BY_CODE = new ErrorCode[values().length + 1];

    static {
        for (ErrorCode c : values()) BY_CODE[-c.code] = c;
    }

    private final int code;
    private final String description;

    ErrorCode(int code, String description) {
        this.code = code;
        this.description = description;
    }

    /** The native value (negative), e.g. -9 for SC_ECONFLICT. */
    public int code() {
        return code;
    }

    /** The C name, e.g. "SC_ECONFLICT". */
    public String cName() {
        return "SC_" + name();
    }

    /** The one-line message of the code (sc_strerror). */
    public String description() {
        return description;
    }

    /** The constant of a native code, or null for a code this jar does not know (0 included). */
    public static ErrorCode ofCode(int code) {
        return code < 0 && -code < BY_CODE.length ? BY_CODE[-code] : null;
    }
}

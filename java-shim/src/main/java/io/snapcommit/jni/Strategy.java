package io.snapcommit.jni;

import java.util.Locale;

/**
 * How a table claims its next snapshot (sc_strategy_kind), chosen when the table is created.
 * Crosses JNI as {@link #code()}, the value of the C enum member; {@link #configName()} is the
 * name used in configuration ({@code commit.strategy}) and by the CLI. The loaded library is
 * checked to name each code as this enum does (NativeLoader).
 */
public enum Strategy {
    /** Pick from the store's capabilities when the table is created. */
    AUTO(0, "auto"),
    /** Atomic no-replace rename (POSIX file systems). */
    RENAME(1, "rename"),
    /** Conditional create (S3 If-None-Match). */
    CONDITIONAL(2, "conditional"),
    /** Compare-and-swap of a fixed-size head record. */
    HEAD(3, "head"),
    /** List-based tracker protocol (PUT/GET/LIST only). */
    TRACKER(4, "tracker");

    private final int code;
    private final String configName;

    Strategy(int code, String configName) {
        this.code = code;
        this.configName = configName;
    }

    /** The value of SC_STRATEGY_&lt;name&gt;. */
    public int code() {
        return code;
    }

    /** The lower-case name of configuration and the CLI, e.g. "tracker" (sc_strategy_name). */
    public String configName() {
        return configName;
    }

    /** The strategy named {@code name} (case-insensitive, trimmed; null = AUTO). */
    public static Strategy parse(String name) {
        String v = name == null ? "auto" : name.trim().toLowerCase(Locale.ROOT);
        for (Strategy s : values()) if (s.configName.equals(v)) return s;
        throw new IllegalArgumentException("commit.strategy must be one of auto, rename, conditional, head, tracker: "
                                           + name);
    }

    /** The strategy of native code {@code code}; IllegalArgumentException for an unknown one. */
    public static Strategy ofCode(int code) {
        for (Strategy s : values()) if (s.code == code) return s;
        throw new IllegalArgumentException("unknown strategy code " + code);
    }

    @Override
    public String toString() {
        return configName;
    }
}

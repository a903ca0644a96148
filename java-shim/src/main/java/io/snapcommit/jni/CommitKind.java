package io.snapcommit.jni;

/**
 * The kind of a commit (sc_commit_kind). Crosses JNI as {@link #code()}, the value of the C enum
 * member; the loaded library is checked to name each code as this enum does (NativeLoader).
 */
public enum CommitKind {
    /** New files only. */
    APPEND(0),
    /** Files rewritten: deletions and additions of the same rows. */
    COMPACT(1),
    /** Replace the table's (or a partition's) contents. */
    OVERWRITE(2),
    /** Paimon's statistics snapshot: seen in tables Paimon also commits to; the library refuses to commit one. */
    ANALYZE(3);

    private final int code;

    CommitKind(int code) {
        this.code = code;
    }

    /** The value of SC_KIND_&lt;name&gt;. */
    public int code() {
        return code;
    }

    /** The kind of native code {@code code}; IllegalArgumentException for an unknown one. */
    public static CommitKind ofCode(int code) {
        for (CommitKind k : values()) if (k.code == code) return k;
        throw new IllegalArgumentException("unknown commit kind code " + code);
    }
}

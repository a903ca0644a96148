package io.snapcommit.jni;

/**
 * Process-wide settings libsnapcommit reads from its environment. The native
 * API has no per-store configuration yet, so S3 settings are handed over as
 * the AWS environment variables it is to read (AWS_ACCESS_KEY_ID, ...). Only
 * those names are accepted; values are never logged.
 */
public final class NativeConfig {
    static {
        NativeLoader.load();
    }

    /** What this class loader set: System.getenv() is a snapshot taken at JVM start and never sees it. */
    private static final java.util.Map<String, String> APPLIED = new java.util.HashMap<>();

    private NativeConfig() {}

    /**
     * Set (or, with value null, unset) one of the AWS_* / SNAPCOMMIT_S3_* variables
     * for the native library. Setting the value already applied is a no-op, so
     * that the process environment is only changed before the first store opens.
     */
    public static synchronized void setEnv(String name, String value) {
        if (APPLIED.containsKey(name) && java.util.Objects.equals(APPLIED.get(name), value)) return;
        setEnv(Utf8.z(name), Utf8.z(value));
        APPLIED.put(name, value);
    }

    private static native void setEnv(byte[] name, byte[] value);
}

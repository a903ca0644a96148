package io.snapcommit.jni;

import java.nio.charset.StandardCharsets;

/** Strings cross the JNI boundary as NUL-terminated UTF-8 (not Java's modified UTF-8). */
final class Utf8 {
    private Utf8() {}

    /** UTF-8 bytes of s followed by one NUL; null stays null. */
    static byte[] z(String s) {
        if (s == null) return null;
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[b.length + 1];
        System.arraycopy(b, 0, out, 0, b.length);
        return out;
    }

    static String str(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }
}

package io.snapcommit.flink.internal;

import java.nio.charset.StandardCharsets;

/** Hive-style partition paths whose segments are always valid store keys. */
public final class PartitionPath {
    public static final String DEFAULT_PARTITION = "__DEFAULT_PARTITION__";

    private PartitionPath() {}

    /** Percent-encode everything but [A-Za-z0-9_.-] (so no '/', '=' or "..", and never empty). */
    public static String escape(String value) {
        if (value == null) return DEFAULT_PARTITION;
        if (value.isEmpty()) return "%";  // distinct from null; escaped form of nothing
        StringBuilder sb = new StringBuilder(value.length());
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            boolean safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'
                           || c == '-' || c == '.';
            if (safe) sb.append((char) c);
            else sb.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                    .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
        }
        String s = sb.toString();
        return s.equals(".") ? "%2E" : s.equals("..") ? "%2E%2E" : s;
    }
}

package io.snapcommit.paimon;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A deliberately tiny JSON writer whose output is byte-for-byte what tests/paimon/pypaimon_read.py
 * prints for the same values: compact separators, keys in insertion order, non-ASCII characters
 * written as UTF-8, and the escapes of Python's json.dumps(ensure_ascii=False) (short escapes for
 * quote, backslash, \b \f \n \r \t; {@code \}u00xx in lower-case hex for the other control
 * characters). Numbers are written from their exact text ({@link Num}).
 */
final class Json {
    private Json() {}

    /** A JSON number written verbatim (already canonical text). */
    record Num(String text) {}

    static Map<String, Object> obj() {
        return new LinkedHashMap<>();
    }

    static List<Object> arr() {
        return new ArrayList<>();
    }

    /** Canonical text of a double: plain decimal, no exponent, no trailing zeros ("1.5", "100"). */
    static Object dbl(double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            return Double.toString(d); // as a string: JSON has no NaN/Infinity
        }
        if (d == 0.0) {
            return new Num("0");
        }
        return new Num(new BigDecimal(Double.toString(d)).stripTrailingZeros().toPlainString());
    }

    static String write(Object v) {
        StringBuilder sb = new StringBuilder();
        write(sb, v, -1, 0);
        return sb.toString();
    }

    static String pretty(Object v) {
        StringBuilder sb = new StringBuilder();
        write(sb, v, 2, 0);
        return sb.toString();
    }

    private static void newline(StringBuilder sb, int indent, int depth) {
        if (indent < 0) {
            return;
        }
        sb.append('\n');
        for (int i = 0; i < indent * depth; i++) {
            sb.append(' ');
        }
    }

    @SuppressWarnings("unchecked")
    private static void write(StringBuilder sb, Object v, int indent, int depth) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof Num n) {
            sb.append(n.text());
        } else if (v instanceof Boolean || v instanceof Integer || v instanceof Long
                || v instanceof Short || v instanceof Byte) {
            sb.append(v);
        } else if (v instanceof Double d) {
            write(sb, dbl(d), indent, depth);
        } else if (v instanceof Float f) {
            write(sb, dbl(f.doubleValue()), indent, depth);
        } else if (v instanceof BigDecimal bd) {
            sb.append(bd.toPlainString());
        } else if (v instanceof Map) {
            Map<String, Object> m = (Map<String, Object>) v;
            sb.append('{');
            boolean first = true;
            for (Map.Entry<String, Object> e : m.entrySet()) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                newline(sb, indent, depth + 1);
                string(sb, e.getKey());
                sb.append(indent < 0 ? ":" : ": ");
                write(sb, e.getValue(), indent, depth + 1);
            }
            if (!m.isEmpty()) {
                newline(sb, indent, depth);
            }
            sb.append('}');
        } else if (v instanceof List) {
            List<Object> l = (List<Object>) v;
            sb.append('[');
            boolean first = true;
            for (Object o : l) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                newline(sb, indent, depth + 1);
                write(sb, o, indent, depth + 1);
            }
            if (!l.isEmpty()) {
                newline(sb, indent, depth);
            }
            sb.append(']');
        } else {
            string(sb, v.toString());
        }
    }

    private static void string(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }

    static String hex(byte[] b) {
        if (b == null) {
            return null;
        }
        StringBuilder sb = new StringBuilder(b.length * 2);
        for (byte x : b) {
            sb.append(Character.forDigit((x >> 4) & 0xf, 16)).append(Character.forDigit(x & 0xf, 16));
        }
        return sb.toString();
    }

    /** Sorts lines by their UTF-8 bytes (what Python's sorted() on str does for BMP text). */
    static void sortUtf8(List<String> lines) {
        lines.sort((a, b) -> java.util.Arrays.compareUnsigned(
                a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8)));
    }
}

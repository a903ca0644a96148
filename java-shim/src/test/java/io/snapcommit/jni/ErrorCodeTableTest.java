package io.snapcommit.jni;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * ErrorCode is the Java copy of error.h's SC_ERROR_TABLE: this test reads the header (its path
 * comes from the build, java-shim/pom.xml) and requires the same codes, names and one-line
 * messages, so a code added, renumbered or reworded on one side only fails the build. It also pins
 * the one code -> class mapping (SnapcommitException.fromNative).
 */
class ErrorCodeTableTest {
    /** X(SC_NAME, value, "message") entries of SC_ERROR_TABLE. */
    private static final Pattern ENTRY = Pattern.compile("X\\((SC_[A-Z0-9_]+),\\s*(-?[0-9]+),\\s*\"((?:[^\"\\\\]|\\\\.)*)\"\\)");

    private static Map<String, String[]> headerTable() throws IOException {
        String where = System.getProperty("snapcommit.error.header");
        assertNotNull(where, "system property snapcommit.error.header not set (java-shim/pom.xml)");
        Path header = Paths.get(where);
        assertTrue(Files.isRegularFile(header), "error.h not found at " + header.toAbsolutePath());
        String text = Files.readString(header, StandardCharsets.UTF_8);
        int start = text.indexOf("#define SC_ERROR_TABLE(X)");
        assertTrue(start >= 0, "no SC_ERROR_TABLE in " + header);
        Map<String, String[]> table = new LinkedHashMap<>();
        Matcher m = ENTRY.matcher(text.substring(start));
        while (m.find()) table.put(m.group(1), new String[] {m.group(2), m.group(3)});
        return table;
    }

    @Test
    void everyCodeOfErrorHeaderHasTheSameConstant() throws IOException {
        Map<String, String[]> header = headerTable();
        assertTrue(header.size() >= 19, "parsed only " + header.size() + " entries of SC_ERROR_TABLE: " + header.keySet());
        assertEquals("0", header.remove("SC_OK")[0], "SC_OK");
        List<String> diff = new ArrayList<>();
        for (Map.Entry<String, String[]> e : header.entrySet()) {
            int value = Integer.parseInt(e.getValue()[0]);
            ErrorCode c = ErrorCode.ofCode(value);
            if (c == null) {
                diff.add(e.getKey() + " (" + value + ") has no ErrorCode constant");
            } else if (!c.cName().equals(e.getKey())) {
                diff.add(e.getKey() + " (" + value + ") is ErrorCode." + c.name() + " in Java");
            } else if (!c.description().equals(e.getValue()[1])) {
                diff.add(e.getKey() + ": message \"" + e.getValue()[1] + "\" in C, \"" + c.description() + "\" in Java");
            }
        }
        for (ErrorCode c : ErrorCode.values())
            if (!header.containsKey(c.cName())) diff.add("ErrorCode." + c.name() + " is not in error.h");
        assertEquals(List.of(), diff);
    }

    @Test
    void ofCodeIsTheInverseOfCode() {
        for (ErrorCode c : ErrorCode.values()) assertSame(c, ErrorCode.ofCode(c.code()));
        assertNull(ErrorCode.ofCode(0));
        assertNull(ErrorCode.ofCode(1));
        assertNull(ErrorCode.ofCode(-(ErrorCode.values().length + 1)));
    }

    @Test
    void oneMappingFromCodeToClass() {
        byte[] msg = "table /t: details".getBytes(StandardCharsets.UTF_8);
        Map<ErrorCode, Class<?>> special = Map.of(ErrorCode.ECOMMITTED, AlreadyCommittedException.class,
                                                  ErrorCode.ECONFLICT, ConflictException.class,
                                                  ErrorCode.EUNKNOWN, UnknownOutcomeException.class,
                                                  ErrorCode.ERETRIES, RetriesExhaustedException.class,
                                                  ErrorCode.ETIMEOUT, RetriesExhaustedException.class);
        for (ErrorCode c : ErrorCode.values()) {
            SnapcommitException e = SnapcommitException.fromNative(c.code(), msg, 7);
            assertEquals(special.getOrDefault(c, SnapcommitException.class), e.getClass(), c.name());
            assertSame(c, e.errorCode());
            assertEquals(c.code(), e.code());
            assertEquals(c.cName(), e.codeName());
            assertEquals(c.cName() + ": table /t: details", e.getMessage());
            assertEquals("table /t: details", e.detailMessage());
        }
        assertEquals(7, ((AlreadyCommittedException) SnapcommitException.fromNative(-10, msg, 7)).existingSnapshot());
        // A code newer than this jar still throws, named by its number.
        SnapcommitException unknown = SnapcommitException.fromNative(-99, null, 0);
        assertEquals(SnapcommitException.class, unknown.getClass());
        assertNull(unknown.errorCode());
        assertEquals("SC_E?(-99): ", unknown.getMessage());
    }
}

package io.snapcommit.jni;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NativeStore.putIfAbsent on a posix store: the first create wins, a later one is refused and
 * leaves the winner's bytes. (Racing processes: tests/paimon/race_paimon_fileio.sh.)
 */
class NativeStorePutIfAbsentTest {
    @TempDir Path dir;

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void firstCreateWinsAndIsNeverReplaced() throws Exception {
        try (NativeStore store = NativeStore.openStore(dir.toString())) {
            byte[] first = utf8("xx{\"commitUser\":\"a\"}yy");
            assertTrue(store.putIfAbsent("snapshot/snapshot-1", first, 2, first.length - 4));
            assertFalse(store.putIfAbsent("snapshot/snapshot-1", utf8("{\"commitUser\":\"b\"}"), 0, 18));
            // Refused even when the bytes are the same: "created" means this call created it.
            assertFalse(store.putIfAbsent("snapshot/snapshot-1", first, 2, first.length - 4));
            assertEquals("{\"commitUser\":\"a\"}",
                         new String(Files.readAllBytes(dir.resolve("snapshot/snapshot-1")), StandardCharsets.UTF_8));
        }
    }

    @Test
    void badArgumentsAreRefusedBeforeAnyWrite() {
        try (NativeStore store = NativeStore.openStore(dir.toString())) {
            assertThrows(IllegalArgumentException.class, () -> store.putIfAbsent("k", utf8("abc"), 2, 2));
            assertThrows(IllegalArgumentException.class, () -> store.putIfAbsent("k", null, 0, 0));
            SnapcommitException e = assertThrows(SnapcommitException.class,
                                                 () -> store.putIfAbsent("/abs", utf8("abc"), 0, 3));
            assertEquals(ErrorCode.EINVAL, e.errorCode());
            assertFalse(Files.exists(dir.resolve("k")));
        }
    }
}

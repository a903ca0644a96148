package io.snapcommit.paimon.fileio;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;

import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.FileStatus;
import org.apache.paimon.fs.Path;
import org.apache.paimon.options.Options;
import org.apache.paimon.utils.InstantiationUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The FileIO as Paimon finds it (FileIO.get by scheme, through META-INF/services) on a local
 * directory. Separate processes racing: tests/paimon/race_paimon_fileio.sh.
 */
class SnapcommitFileIOTest {
    @TempDir java.nio.file.Path dir;

    private FileIO open() throws Exception {
        return FileIO.get(new Path("snapcommit+file://" + dir), CatalogContext.create(new Options()));
    }

    @Test
    void paimonsDiscoveryFindsItByScheme() throws Exception {
        try (FileIO io = open()) {
            assertInstanceOf(SnapcommitFileIO.class, io);
            assertFalse(io.isObjectStore());
        }
    }

    @Test
    void aClaimNeverReplacesWhatIsThere() throws Exception {
        try (FileIO io = open()) {
            Path snapshot = new Path("snapcommit+file://" + dir + "/t/snapshot/snapshot-1");
            io.mkdirs(snapshot.getParent());
            assertTrue(io.tryToWriteAtomic(snapshot, "{\"commitUser\":\"a\"}"));
            assertFalse(io.tryToWriteAtomic(snapshot, "{\"commitUser\":\"b\"}"));
            assertEquals("{\"commitUser\":\"a\"}", io.readFileUtf8(snapshot));
            assertEquals("{\"commitUser\":\"a\"}",
                         Files.readString(dir.resolve("t/snapshot/snapshot-1"), StandardCharsets.UTF_8));
            // Paimon's own LocalFileIO, for comparison, is the same file.
            assertTrue(FileIO.get(new Path("file://" + dir + "/t/snapshot/snapshot-1"),
                                  CatalogContext.create(new Options())).exists(new Path(dir + "/t/snapshot/snapshot-1")));
        }
    }

    @Test
    void pathsGoBackToPaimonInTheUsersScheme() throws Exception {
        try (FileIO io = open()) {
            Path base = new Path("snapcommit+file://" + dir + "/t");
            io.writeFile(new Path(base, "a"), "1", false);
            io.writeFile(new Path(base, "b"), "22", false);
            FileStatus[] listed = io.listStatus(base);
            assertEquals(2, listed.length);
            for (FileStatus s : listed) {
                assertEquals("snapcommit+file", s.getPath().toUri().getScheme(), s.getPath().toString());
                assertTrue(io.exists(s.getPath()));
            }
            assertEquals("snapcommit+file", io.getFileStatus(new Path(base, "b")).getPath().toUri().getScheme());
            assertEquals(2, io.getFileSize(new Path(base, "b")));
            assertTrue(io.rename(new Path(base, "b"), new Path(base, "c")));
            assertEquals("22", io.readFileUtf8(new Path(base, "c")));
        }
    }

    @Test
    void survivesSerializationAndClaimsAfterIt() throws Exception {
        try (FileIO io = open()) {
            FileIO copy = InstantiationUtil.clone(io);
            Path p = new Path("snapcommit+file://" + dir + "/s/schema-0");
            assertTrue(copy.tryToWriteAtomic(p, "x"));
            assertFalse(io.tryToWriteAtomic(p, "y"));
            copy.close();
        }
    }

    /** Descriptors of this process open on a file or directory under {@code under}. */
    private static long openUnder(java.nio.file.Path under) throws Exception {
        String prefix = under.toRealPath().toString();
        try (var fds = Files.list(java.nio.file.Path.of("/proc/self/fd"))) {
            return fds.filter(fd -> {
                try {
                    return Files.readSymbolicLink(fd).toString().startsWith(prefix);
                } catch (Exception gone) { // closed while listed
                    return false;
                }
            }).count();
        }
    }

    /**
     * Paimon never closes a FileIO (a table's, a catalog's, a deserialized operator's copy), so a
     * native store kept open by one would stay open for the life of the JVM, one more with every
     * job or failover that claims. A claim holds nothing once it returned.
     */
    @Test
    void aClaimHoldsNoNativeStoreOpenAfterItReturns() throws Exception {
        FileIO io = open(); // deliberately never closed, as Paimon does
        long before = openUnder(dir);
        for (int i = 1; i <= 3; i++) {
            Path p = new Path("snapcommit+file://" + dir + "/t" + i + "/snapshot/snapshot-1");
            assertTrue(io.tryToWriteAtomic(p, "{\"id\":" + i + "}"));
            assertFalse(io.tryToWriteAtomic(p, "{}"));
        }
        assertEquals(before, openUnder(dir), "descriptors left open under " + dir);
    }

    @Test
    void s3OptionsBecomeTheNativeStoresSettings() {
        Map<String, String> o = new HashMap<>();
        o.put("s3.endpoint", "127.0.0.1:9000");
        o.put("s3.connection.ssl.enabled", "false");
        o.put("s3.access-key", "ak");
        o.put("s3.secret-key", "sk");
        o.put("s3.path.style.access", "true");
        o.put("s3.endpoint.region", "eu-west-1");
        var c = NativeS3Settings.storeConfig(o);
        assertEquals("http://127.0.0.1:9000", c.endpoint());
        assertEquals("eu-west-1", c.region());
        assertEquals("ak", c.accessKey());
        assertEquals("sk", c.secretKey());
        assertEquals(Boolean.TRUE, c.pathStyle());
        // Nothing set: every field unset, so the native store takes its environment.
        assertTrue(NativeS3Settings.storeConfig(new HashMap<>()).isDefault());
        // A key without its secret is not half-applied.
        assertNull(NativeS3Settings.storeConfig(Map.of("s3.access-key", "ak")).accessKey());
    }
}

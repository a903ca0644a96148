package io.snapcommit.flink.paimon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Map;

import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.snapcommit.jni.StoreConfig;

/** The S3 FileIO settings follow the native store's per-table settings and fallbacks. */
class PaimonStoreTableTest {
    @Test
    void tableSettingsWin() {
        StoreConfig c = StoreConfig.builder().endpoint("http://127.0.0.1:9000").region("eu-west-1").accessKey("ak")
                                   .secretKey("sk").build();
        Map<String, String> o = PaimonStoreTable.s3Options(c, Map.of("AWS_ENDPOINT_URL", "http://other"));
        assertEquals("http://127.0.0.1:9000", o.get("s3.endpoint"));
        assertEquals("false", o.get("s3.connection.ssl.enabled"));
        assertEquals("eu-west-1", o.get("s3.endpoint.region"));
        assertEquals("true", o.get("s3.path.style.access"), "path style with an endpoint, as the native store");
        assertEquals("ak", o.get("s3.access-key"));
        assertEquals("sk", o.get("s3.secret-key"));
    }

    @Test
    void environmentFallbacks() {
        Map<String, String> o = PaimonStoreTable.s3Options(StoreConfig.DEFAULTS,
                                                           Map.of("AWS_ENDPOINT_URL_S3", "https://s3.example",
                                                                  "AWS_REGION", "us-west-2"));
        assertEquals("https://s3.example", o.get("s3.endpoint"));
        assertFalse(o.containsKey("s3.connection.ssl.enabled"));
        assertEquals("us-west-2", o.get("s3.endpoint.region"));
        assertFalse(o.containsKey("s3.access-key"), "no credentials anywhere: S3A's own chain");
        Map<String, String> env = PaimonStoreTable.s3Options(StoreConfig.DEFAULTS,
                                                             Map.of("AWS_ACCESS_KEY_ID", "eak", "AWS_SECRET_ACCESS_KEY", "esk",
                                                                    "AWS_SESSION_TOKEN", "tok"));
        assertEquals("eak", env.get("s3.access-key"));
        assertEquals("esk", env.get("s3.secret-key"));
        assertEquals("tok", env.get("s3.session.token"));
        Map<String, String> aws = PaimonStoreTable.s3Options(StoreConfig.builder().pathStyle(false).build(), Map.of());
        assertEquals("false", aws.get("s3.path.style.access"));
        assertEquals("us-east-1", aws.get("s3.endpoint.region"));
    }

    /**
     * Paimon's catalog claims schema-N (and its committer snapshot-N) with tryToWriteAtomic: through
     * the connector's FileIO that create never replaces what another writer created (LocalFileIO's own
     * guard is a lock inside one JVM; on S3, S3A's rename is a copy).
     */
    @Test
    void createOnlyWritesNeverReplace(@TempDir java.nio.file.Path dir) throws Exception {
        Path schema = new Path(dir.toUri().toString(), "schema/schema-1");
        FileIO io = PaimonStoreTable.fileIO(schema, StoreConfig.DEFAULTS);
        assertTrue(io.tryToWriteAtomic(schema, "{\"mine\":1}"), "the first create wins");
        assertFalse(io.tryToWriteAtomic(schema, "{\"theirs\":2}"), "a second create of the same name loses");
        assertEquals("{\"mine\":1}", Files.readString(dir.resolve("schema/schema-1"), StandardCharsets.UTF_8));
        try (java.util.stream.Stream<java.nio.file.Path> left = Files.list(dir.resolve("schema"))) {
            assertEquals(1, left.count(), "no temporary file left behind");
        }
    }
}

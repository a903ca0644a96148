package io.snapcommit.flink;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Paths;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.snapcommit.jni.StoreConfig;
import io.snapcommit.jni.Strategy;

class SinkConfigTest {
    private static SinkConfig config(String path, String strategy) {
        return SinkConfigs.of(path, strategy, null, 10, Duration.ofMillis(10), Duration.ofSeconds(10), null,
                              1 << 20, "json", 0, null);
    }

    @Test
    void locations() {
        assertEquals("/data/t", config("/data/./x/../t", "auto").location());
        assertEquals("file:///data/t", config("file:///data/t", "auto").location());
        assertTrue(config("s3://bucket/t", "auto").isS3());
        assertThrows(IllegalArgumentException.class, () -> config("hdfs://nn/t", "auto"));
        assertThrows(IllegalArgumentException.class, () -> config("file://host/t", "auto"));
        assertThrows(IllegalArgumentException.class, () -> config(" ", "auto"));
    }

    @Test
    void relativePathsAreRefused() {
        // Resolved by every TaskManager in its own working directory, a relative path names a
        // different directory per process: refused, asking for an absolute path or a file:/// URI.
        for (String rel : new String[] {"rel/t", "t", "./t", "../t", "~/t", "file:rel/t"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> config(rel, "auto"), rel);
            assertTrue(e.getMessage().contains("'" + rel + "' is relative"), e.getMessage());
            assertTrue(e.getMessage().contains("absolute path") && e.getMessage().contains("file:///"), e.getMessage());
        }
        assertEquals(Paths.get("/t").toString(), config("/t", "auto").location());
    }

    @Test
    void strategiesAndRetries() {
        assertEquals(Strategy.TRACKER, config("/t", "TRACKER").strategy());
        assertThrows(IllegalArgumentException.class, () -> config("/t", "lock"));
        assertThrows(IllegalArgumentException.class, () -> SinkConfigs.of("/t", "auto", null, 1, Duration.ofSeconds(2),
                                                                          Duration.ofSeconds(1), null, 1, "json", 0, null));
        assertThrows(IllegalArgumentException.class, () -> SinkConfigs.of("/t", "auto", "x".repeat(256), 1,
            Duration.ofMillis(1), Duration.ofSeconds(1), null, 1, "json", 0, null));
    }

    @Test
    void renameOnS3IsRefusedWhenTheSinkIsBuilt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> config("s3://b/t", "rename"));
        assertTrue(e.getMessage().contains("S3 has no rename"), e.getMessage());
        assertEquals(Strategy.RENAME, config("/t", "rename").strategy());
        assertEquals(Strategy.CONDITIONAL, config("s3://b/t", "conditional").strategy());
    }

    @Test
    void storeSettingsArePerTableAndSecretsMasked() {
        StoreConfig c = StoreConfig.builder().endpoint("http://h:1").accessKey("AKIAPUBLIC")
            .secretKey("very-secret-value").sessionToken("session-token-value").pathStyle(true).build();
        SinkConfig sc = SinkConfigs.of("s3://b/t", "auto", null, 10, Duration.ofMillis(10), Duration.ofSeconds(10),
                                       null, 1 << 20, "json", 0, c);
        assertSame(c, sc.storeConfig());
        for (String text : new String[] {c.toString(), sc.toString()}) {
            assertFalse(text.contains("very-secret-value"), text);
            assertFalse(text.contains("session-token-value"), text);
            assertTrue(text.contains("AKIAPUBLIC") && text.contains("secretKey=****"), text);
        }
        assertEquals("cannot: **** and ****", sc.mask("cannot: very-secret-value and session-token-value"));
        assertTrue(config("/t", "auto").storeConfig().isDefault());
        // Keys come in pairs; a token needs them.
        assertThrows(IllegalArgumentException.class, () -> StoreConfig.builder().accessKey("a").build());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                                                  () -> StoreConfig.builder().secretKey("lonely-secret").build());
        assertFalse(e.getMessage().contains("lonely-secret"));
        assertThrows(IllegalArgumentException.class, () -> StoreConfig.builder().sessionToken("t").build());
        assertThrows(IllegalArgumentException.class,
                     () -> StoreConfig.builder().requestTimeout(Duration.ofSeconds(-1)).build());
    }
}

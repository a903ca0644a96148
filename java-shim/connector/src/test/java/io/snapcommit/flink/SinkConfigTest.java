package io.snapcommit.flink;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Paths;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.snapcommit.jni.NativeConfig;

class SinkConfigTest {
    private static SinkConfig config(String path, String strategy) {
        return SinkConfigs.of(path, strategy, null, 10, Duration.ofMillis(10), Duration.ofSeconds(10), null,
                              1 << 20, "json", 0, Map.of());
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
        assertEquals("tracker", config("/t", "TRACKER").strategy());
        assertThrows(IllegalArgumentException.class, () -> config("/t", "lock"));
        assertThrows(IllegalArgumentException.class, () -> SinkConfigs.of("/t", "auto", null, 1, Duration.ofSeconds(2),
                                                                          Duration.ofSeconds(1), null, 1, "json", 0, Map.of()));
        assertThrows(IllegalArgumentException.class, () -> SinkConfigs.of("/t", "auto", "x".repeat(256), 1,
            Duration.ofMillis(1), Duration.ofSeconds(1), null, 1, "json", 0, Map.of()));
    }

    @Test
    void storageSettingsOnlyAcceptAwsNames() {
        NativeConfig.setEnv("AWS_REGION", "eu-west-1");
        NativeConfig.setEnv("AWS_REGION", null);
        assertThrows(IllegalArgumentException.class, () -> NativeConfig.setEnv("LD_PRELOAD", "/tmp/x.so"));
    }
}

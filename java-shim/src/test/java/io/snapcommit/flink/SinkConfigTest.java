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
                              1 << 20, null);
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

    /** sink.compaction.*: off by default, kept through withExpiration, bad counts refused at planning. */
    @Test
    void compactionOptions() {
        SinkConfig c = config("/t", "auto");
        assertFalse(c.compactionEnabled());
        assertNull(c.compactionMinFileNum());
        SinkConfig on = c.withCompaction(true, 3, null).withExpiration(null, null);
        assertTrue(on.compactionEnabled());
        assertEquals(3, on.compactionMinFileNum());
        assertNull(on.compactionMaxFileNum());
        assertTrue(on.toString().contains("compaction=on"), on.toString());
        assertEquals(7, c.withCompaction(true, null, 7).compactionMaxFileNum());
        assertThrows(IllegalArgumentException.class, () -> c.withCompaction(true, 0, null));
        assertThrows(IllegalArgumentException.class, () -> c.withCompaction(true, null, 1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.withCompaction(true, 6, 5));
        assertTrue(e.getMessage().contains("sink.compaction.max-file-num"), e.getMessage());
    }

    @Test
    void strategiesAndRetries() {
        assertEquals(Strategy.TRACKER, config("/t", "TRACKER").strategy());
        assertThrows(IllegalArgumentException.class, () -> config("/t", "lock"));
        assertThrows(IllegalArgumentException.class, () -> SinkConfigs.of("/t", "auto", null, 1, Duration.ofSeconds(2),
                                                                          Duration.ofSeconds(1), null, 1, null));
        assertThrows(IllegalArgumentException.class, () -> SinkConfigs.of("/t", "auto", "x".repeat(256), 1,
            Duration.ofMillis(1), Duration.ofSeconds(1), null, 1, null));
    }

    @Test
    void renameOnS3IsRefusedWhenTheSinkIsBuilt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> config("s3://b/t", "rename"));
        assertTrue(e.getMessage().contains("S3 has no rename"), e.getMessage());
        assertEquals(Strategy.RENAME, config("/t", "rename").strategy());
        assertEquals(Strategy.CONDITIONAL, config("s3://b/t", "conditional").strategy());
    }

    private static SinkConfig config(String path, String strategy, StoreConfig storage) {
        return SinkConfigs.of(path, strategy, null, 10, Duration.ofMillis(10), Duration.ofSeconds(10), null,
                              1 << 20, storage);
    }

    /**
     * Every (scheme, strategy) pair is decided from the location alone when the config is built: a
     * strategy the store cannot honour would otherwise fail each commit with SC_EUNSUPPORTED and
     * restart the job forever. The refusal names the option and the values allowed for the scheme.
     */
    @Test
    void strategyMustSuitTheScheme() {
        String[] local = {"/data/t", "file:///data/t"};
        for (String l : local) {
            for (String ok : new String[] {"auto", "rename", "tracker"})
                assertEquals(ok, config(l, ok).strategy().configName(), l + " " + ok);
            for (String bad : new String[] {"conditional", "head"}) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> config(l, bad), l + " " + bad);
                assertTrue(e.getMessage().contains("commit.strategy " + bad + " needs S3 conditional writes"), e.getMessage());
                assertTrue(e.getMessage().contains("use auto, rename or tracker"), e.getMessage());
                assertTrue(e.getMessage().contains(l), e.getMessage());
            }
        }
        for (String ok : new String[] {"auto", "conditional", "head", "tracker"})
            assertEquals(ok, config("s3://b/t", ok).strategy().configName(), ok);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> config("S3://b/t", "rename"));
        assertTrue(e.getMessage().contains("commit.strategy rename") && e.getMessage().contains("S3 has no rename")
                   && e.getMessage().contains("use auto, conditional, head or tracker"), e.getMessage());
        // Conditional writes switched off for this table: only tracker (or auto, which picks it) is left.
        StoreConfig noConditional = StoreConfig.builder().conditionalWrites(false).build();
        for (String ok : new String[] {"auto", "tracker"})
            assertEquals(ok, config("s3://b/t", ok, noConditional).strategy().configName(), ok);
        for (String bad : new String[] {"conditional", "head", "rename"}) {
            e = assertThrows(IllegalArgumentException.class, () -> config("s3://b/t", bad, noConditional), bad);
            assertTrue(e.getMessage().contains("commit.strategy " + bad) && e.getMessage().contains("use auto or tracker"),
                       e.getMessage());
        }
        // mem:// (tests) offers every capability.
        for (String ok : new String[] {"auto", "rename", "conditional", "head", "tracker"})
            assertEquals(ok, config("mem://t", ok).strategy().configName(), ok);
    }

    /**
     * Durations cross to libsnapcommit as whole milliseconds, 0 meaning unset: a value under 1 ms, a
     * fraction of a millisecond, and values outside the native bounds (timeouts 1..3600000 ms,
     * tracker TTL > 1 ms) are refused here, naming the option, instead of silently falling back to
     * the environment or failing only when a TaskManager opens the store.
     */
    @Test
    void storeDurationsAreWholeMillisecondsWithinTheNativeBounds() {
        java.util.function.Function<Duration, StoreConfig> connect = d -> StoreConfig.builder().connectTimeout(d).build();
        java.util.function.Function<Duration, StoreConfig> request = d -> StoreConfig.builder().requestTimeout(d).build();
        java.util.function.Function<Duration, StoreConfig> ttl = d -> StoreConfig.builder().trackerTtl(d).build();
        Duration[] bad = {Duration.ZERO, Duration.ofNanos(1), Duration.ofNanos(999_999), Duration.ofMillis(-5),
                          Duration.ofNanos(1_500_000), Duration.ofMillis(3_600_001), Duration.ofHours(2)};
        for (Duration d : bad) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> connect.apply(d), d.toString());
            assertTrue(e.getMessage().startsWith("s3.connect-timeout must be whole milliseconds, 1 ms..3600000 ms"),
                       e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> request.apply(d), d.toString());
            assertTrue(e.getMessage().startsWith("s3.request-timeout must be whole milliseconds, 1 ms..3600000 ms"),
                       e.getMessage());
        }
        assertEquals(Duration.ofMillis(1), connect.apply(Duration.ofMillis(1)).connectTimeout());
        assertEquals(Duration.ofHours(1), request.apply(Duration.ofHours(1)).requestTimeout());
        assertEquals(Duration.ofSeconds(5), request.apply(Duration.ofSeconds(5)).requestTimeout());
        assertNull(StoreConfig.builder().connectTimeout(null).build().connectTimeout());

        for (Duration d : new Duration[] {Duration.ZERO, Duration.ofMillis(1), Duration.ofNanos(1), Duration.ofNanos(2_500_000),
                                          Duration.ofMillis(-2), Duration.ofSeconds(Long.MAX_VALUE)}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ttl.apply(d), d.toString());
            assertTrue(e.getMessage().startsWith("tracker TTL (StoreConfig.trackerTtl) must be whole milliseconds, "
                                                 + "at least 2 ms"), e.getMessage());
        }
        assertEquals(Duration.ofMillis(2), ttl.apply(Duration.ofMillis(2)).trackerTtl());
        assertEquals(Duration.ofDays(2), ttl.apply(Duration.ofDays(2)).trackerTtl());
    }

    @Test
    void storeSettingsArePerTableAndSecretsMasked() {
        StoreConfig c = StoreConfig.builder().endpoint("http://h:1").accessKey("AKIAPUBLIC")
            .secretKey("very-secret-value").sessionToken("session-token-value").pathStyle(true).build();
        SinkConfig sc = SinkConfigs.of("s3://b/t", "auto", null, 10, Duration.ofMillis(10), Duration.ofSeconds(10),
                                       null, 1 << 20, c);
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

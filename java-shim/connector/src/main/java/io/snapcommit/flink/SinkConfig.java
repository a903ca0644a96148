package io.snapcommit.flink;

import java.io.Serializable;
import java.net.URI;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import io.snapcommit.jni.NativeConfig;

/**
 * Everything the writer and committer operators need to know about the
 * table, the commit and storage. Immutable and serializable (shipped with
 * the job graph). Built by {@link SnapcommitSink.Builder} or the table factory.
 */
public final class SinkConfig implements Serializable {
    private static final long serialVersionUID = 1L;

    public static final String[] STRATEGIES = {"auto", "rename", "conditional", "head", "tracker"};

    private final String location;
    private final String strategy;
    private final String commitUser;
    private final int maxRetries;
    private final Duration minRetryWait;
    private final Duration maxRetryWait;
    private final Duration commitTimeout;
    private final long targetFileSize;
    private final String fileExtension;
    private final int buckets;
    private final Map<String, String> storageEnv;

    SinkConfig(String location, String strategy, String commitUser, int maxRetries, Duration minRetryWait,
               Duration maxRetryWait, Duration commitTimeout, long targetFileSize, String fileExtension, int buckets,
               Map<String, String> storageEnv) {
        this.location = normalizeLocation(location);
        this.strategy = checkStrategy(strategy);
        this.commitUser = commitUser == null || commitUser.isEmpty() ? null : commitUser;
        if (this.commitUser != null && this.commitUser.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 255)
            throw new IllegalArgumentException("commit.user is longer than 255 bytes");
        if (maxRetries < 0) throw new IllegalArgumentException("commit.max-retries must be >= 0");
        this.maxRetries = maxRetries;
        this.minRetryWait = Objects.requireNonNull(minRetryWait);
        this.maxRetryWait = Objects.requireNonNull(maxRetryWait);
        if (minRetryWait.isNegative() || maxRetryWait.compareTo(minRetryWait) < 0)
            throw new IllegalArgumentException("need 0 <= commit.min-retry-wait <= commit.max-retry-wait");
        this.commitTimeout = commitTimeout == null || commitTimeout.isZero() ? null : commitTimeout;
        if (targetFileSize <= 0) throw new IllegalArgumentException("sink.target-file-size must be > 0");
        this.targetFileSize = targetFileSize;
        this.fileExtension = fileExtension;
        if (buckets < 0) throw new IllegalArgumentException("bucket must be >= 0");
        this.buckets = buckets;
        this.storageEnv = Collections.unmodifiableMap(new LinkedHashMap<>(storageEnv));
    }

    /**
     * Local paths must be absolute: the location is resolved by every TaskManager (writers) and by the
     * committer, each in its own working directory, so a relative path would name a different
     * directory per process (or per host). Absolute paths are normalized; URIs stay as given.
     */
    static String normalizeLocation(String location) {
        if (location == null || location.trim().isEmpty()) throw new IllegalArgumentException("path is required");
        String l = location.trim();
        int colon = l.indexOf("://");
        if (colon > 0) {
            String scheme = l.substring(0, colon).toLowerCase(Locale.ROOT);
            if (scheme.equals("file")) {
                URI uri = URI.create(l);
                if (uri.getAuthority() != null && !uri.getAuthority().isEmpty())
                    throw new IllegalArgumentException("file locations need an absolute path (file:///dir): " + l);
            } else if (!scheme.equals("s3") && !scheme.equals("mem")) {
                throw new IllegalArgumentException("unsupported location scheme " + scheme + ":// in " + l
                                                   + " (use a directory, file:///dir or s3://bucket/prefix)");
            }
            return l;
        }
        if (!Paths.get(l).isAbsolute()) {
            throw new IllegalArgumentException("path '" + l + "' is relative; it would resolve against each "
                + "TaskManager's working directory. Use an absolute path (/data/tables/t) or a file:///data/tables/t "
                + "URI on storage that every TaskManager and the JobManager mount at the same place");
        }
        return Paths.get(l).normalize().toString();
    }

    static String checkStrategy(String s) {
        String v = s == null ? "auto" : s.trim().toLowerCase(Locale.ROOT);
        for (String known : STRATEGIES) if (known.equals(v)) return v;
        throw new IllegalArgumentException("commit.strategy must be one of auto, rename, conditional, head, tracker: " + s);
    }

    public String location() { return location; }
    public String strategy() { return strategy; }
    /** The configured commit user, or null to generate one (kept in checkpoint state). */
    public String commitUser() { return commitUser; }
    public int maxRetries() { return maxRetries; }
    public Duration minRetryWait() { return minRetryWait; }
    public Duration maxRetryWait() { return maxRetryWait; }
    /** null = no timeout. */
    public Duration commitTimeout() { return commitTimeout; }
    public long targetFileSize() { return targetFileSize; }
    public String fileExtension() { return fileExtension; }
    /** 0 = not bucketed (every file in bucket 0, total buckets unknown). */
    public int buckets() { return buckets; }
    /** AWS_* variables to hand to the native S3 store (names only appear in logs, never values). */
    public Map<String, String> storageEnv() { return storageEnv; }

    public boolean isS3() {
        return location.regionMatches(true, 0, "s3://", 0, 5);
    }

    /** Apply storage settings to the native library before opening a store (s3:// only; process-wide). */
    public void applyStorageEnv() {
        if (!isS3()) return;
        for (Map.Entry<String, String> e : storageEnv.entrySet()) NativeConfig.setEnv(e.getKey(), e.getValue());
    }

    @Override
    public String toString() {
        return "SinkConfig{location=" + location + ", strategy=" + strategy + ", commitUser=" + commitUser
               + ", maxRetries=" + maxRetries + ", retryWait=" + minRetryWait.toMillis() + ".."
               + maxRetryWait.toMillis() + "ms, timeout=" + (commitTimeout == null ? "none" : commitTimeout)
               + ", targetFileSize=" + targetFileSize + ", buckets=" + buckets + ", storage settings="
               + storageEnv.keySet() + "}";
    }
}

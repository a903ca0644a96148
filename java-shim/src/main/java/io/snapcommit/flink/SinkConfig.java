package io.snapcommit.flink;

import java.io.Serializable;
import java.net.URI;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.snapcommit.jni.ErrorCode;
import io.snapcommit.jni.ExpireOptions;
import io.snapcommit.jni.NativeLoader;
import io.snapcommit.jni.NativeStore;
import io.snapcommit.jni.SnapcommitException;
import io.snapcommit.jni.StoreConfig;
import io.snapcommit.jni.Strategy;

/**
 * Everything the writer and committer operators need to know about the
 * table, the commit and storage. Immutable and serializable (shipped with
 * the job graph). Built by {@link SnapcommitSink.Builder} or the table factory.
 */
public final class SinkConfig implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(SinkConfig.class);

    private final String location;
    private final Strategy strategy;
    private final String commitUser;
    /** commit.max-retries unset: no count limit; the commit's budget (commit.timeout) decides (SC_RETRY_UNBOUNDED). */
    public static final int UNBOUNDED_RETRIES = -1;
    /** commit.timeout unset: the library's default budget. */
    public static final Duration DEFAULT_COMMIT_TIMEOUT = Duration.ofSeconds(60);
    private final int maxRetries;
    private final Duration minRetryWait;
    private final Duration maxRetryWait;
    private final Duration commitTimeout;
    private final long targetFileSize;
    private final StoreConfig storeConfig;
    private final CommitListener commitListener;
    /** Snapshot expiration after commits: settings given explicitly; the rest from the table. */
    private final ExpireOptions expireOptions;
    /** Paimon's write-only given explicitly (true: no expiration), null: the table's option (default false). */
    private final Boolean writeOnly;
    /** Small-file compaction of an append table by the committer's upkeep thread (sink.compaction.enabled). */
    private final boolean compactionEnabled;
    /** compaction.min.file-num / sink.compaction.max-file-num given explicitly, else null (the defaults). */
    private final Integer compactionMinFileNum;
    private final Integer compactionMaxFileNum;

    SinkConfig(String location, Strategy strategy, String commitUser, int maxRetries, Duration minRetryWait,
               Duration maxRetryWait, Duration commitTimeout, long targetFileSize,
               StoreConfig storeConfig, CommitListener commitListener) {
        this.location = normalizeLocation(location);
        this.strategy = strategy == null ? Strategy.AUTO : strategy;
        this.storeConfig = storeConfig == null ? StoreConfig.DEFAULTS : storeConfig;
        checkStrategy(this.location, this.strategy, this.storeConfig);
        this.commitUser = commitUser == null || commitUser.isEmpty() ? null : commitUser;
        if (this.commitUser != null && this.commitUser.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 255)
            throw new IllegalArgumentException("commit.user is longer than 255 bytes");
        if (maxRetries < UNBOUNDED_RETRIES)
            throw new IllegalArgumentException("commit.max-retries must be >= 0 (unset: no count limit, commit.timeout decides)");
        this.maxRetries = maxRetries;
        this.minRetryWait = Objects.requireNonNull(minRetryWait);
        this.maxRetryWait = Objects.requireNonNull(maxRetryWait);
        if (minRetryWait.isNegative() || maxRetryWait.compareTo(minRetryWait) < 0)
            throw new IllegalArgumentException("need 0 <= commit.min-retry-wait <= commit.max-retry-wait");
        this.commitTimeout = commitTimeout == null || commitTimeout.isZero() ? null : commitTimeout;
        if (targetFileSize <= 0) throw new IllegalArgumentException("sink.target-file-size must be > 0");
        this.targetFileSize = targetFileSize;
        this.commitListener = commitListener;
        this.expireOptions = ExpireOptions.FROM_TABLE;
        this.writeOnly = null;
        this.compactionEnabled = false;
        this.compactionMinFileNum = null;
        this.compactionMaxFileNum = null;
    }

    private SinkConfig(SinkConfig base, ExpireOptions expireOptions, Boolean writeOnly, boolean compactionEnabled,
                       Integer compactionMinFileNum, Integer compactionMaxFileNum) {
        this.location = base.location;
        this.strategy = base.strategy;
        this.commitUser = base.commitUser;
        this.maxRetries = base.maxRetries;
        this.minRetryWait = base.minRetryWait;
        this.maxRetryWait = base.maxRetryWait;
        this.commitTimeout = base.commitTimeout;
        this.targetFileSize = base.targetFileSize;
        this.storeConfig = base.storeConfig;
        this.commitListener = base.commitListener;
        this.expireOptions = Objects.requireNonNull(expireOptions);
        this.writeOnly = writeOnly;
        this.compactionEnabled = compactionEnabled;
        this.compactionMinFileNum = compactionMinFileNum;
        this.compactionMaxFileNum = compactionMaxFileNum;
    }

    /**
     * This configuration with snapshot expiration settings: those {@code options} sets override the
     * table's own Paimon options ({@code snapshot.num-retained.min}, {@code .max},
     * {@code snapshot.time-retained}, {@code snapshot.expire.limit}), the others come from the table,
     * else Paimon's defaults. {@code writeOnly} true turns expiration off, false on, null = the
     * table's {@code write-only} (default false). A dry run is refused: the committer deletes or does nothing.
     */
    public SinkConfig withExpiration(ExpireOptions options, Boolean writeOnly) {
        if (options != null && options.dryRun())
            throw new IllegalArgumentException("the sink's snapshot expiration cannot be a dry run");
        return new SinkConfig(this, options == null ? ExpireOptions.FROM_TABLE : options, writeOnly,
                              compactionEnabled, compactionMinFileNum, compactionMaxFileNum);
    }

    /**
     * This configuration with small-file compaction of an append table ({@code sink.compaction.enabled},
     * off by default), with Paimon's own code: a fixed-bucket table's writers compact their buckets,
     * a bucket-unaware table is compacted after commits by the committer's upkeep thread.
     * {@code minFileNum} ({@code compaction.min.file-num}) overrides the table's option when not
     * null; {@code maxFileNum} ({@code sink.compaction.max-file-num}) is checked and otherwise
     * ignored (Paimon's compaction decides). Paimon's {@code write-only} = true turns it off.
     */
    public SinkConfig withCompaction(boolean enabled, Integer minFileNum, Integer maxFileNum) {
        if (minFileNum != null && minFileNum < 1)
            throw new IllegalArgumentException("compaction.min.file-num must be >= 1, not " + minFileNum);
        if (maxFileNum != null && maxFileNum < 2)
            throw new IllegalArgumentException("sink.compaction.max-file-num must be >= 2, not " + maxFileNum);
        if (minFileNum != null && maxFileNum != null && maxFileNum < minFileNum)
            throw new IllegalArgumentException("sink.compaction.max-file-num (" + maxFileNum
                                               + ") must be >= compaction.min.file-num (" + minFileNum + ")");
        return new SinkConfig(this, expireOptions, writeOnly, enabled, minFileNum, maxFileNum);
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

    /**
     * The strategy must be one the location's store can honour, checked here from the scheme alone (no
     * native call, no I/O) so that a mismatch fails the job submission instead of failing every
     * commit with SC_EUNSUPPORTED in a restart loop. What each store offers (native/src/store,
     * native/src/s3/store_s3.c) and what each strategy needs (native/src/strategy):
     * <ul>
     *   <li>local paths and file:// (POSIX): atomic no-replace rename, listing; no conditional writes.
     *       rename and tracker work, conditional and head do not; auto picks rename.</li>
     *   <li>s3://: conditional create and compare-and-swap, listing; no rename. conditional, head and
     *       tracker work; auto picks conditional. With conditional writes switched off in this
     *       table's configuration only tracker is left (and auto picks it). When they are switched off
     *       through the TaskManagers' environment (SNAPCOMMIT_S3_CONDITIONAL_WRITES=0) the client
     *       cannot see it, and conditional/head fail at the first commit.</li>
     *   <li>mem:// (tests): every strategy.</li>
     * </ul>
     */
    static void checkStrategy(String location, Strategy strategy, StoreConfig storeConfig) {
        String l = location.toLowerCase(Locale.ROOT);
        if (l.startsWith("mem://") || strategy == Strategy.AUTO || strategy == Strategy.TRACKER) return;
        if (l.startsWith("s3://")) {
            if (strategy == Strategy.RENAME)
                throw new IllegalArgumentException("commit.strategy rename needs a file system with an atomic "
                    + "no-replace rename, and S3 has no rename: for " + location + " use "
                    + (Boolean.FALSE.equals(storeConfig.conditionalWrites()) ? "auto or tracker"
                                                                            : "auto, conditional, head or tracker"));
            if (Boolean.FALSE.equals(storeConfig.conditionalWrites()))
                throw new IllegalArgumentException("commit.strategy " + strategy + " needs S3 conditional writes, "
                    + "which this table's configuration switches off: for " + location + " use auto or tracker");
            return;
        }
        if (strategy == Strategy.CONDITIONAL || strategy == Strategy.HEAD)
            throw new IllegalArgumentException("commit.strategy " + strategy + " needs S3 conditional writes "
                + "(If-None-Match / If-Match), which a local file system does not offer: for " + location
                + " use auto, rename or tracker");
    }

    public String location() { return location; }
    /** The claim strategy for a new table; AUTO accepts an existing table's, any other must match it. */
    public Strategy strategy() { return strategy; }
    /** The configured commit user, or null to generate one (kept in checkpoint state). */
    public String commitUser() { return commitUser; }
    public int maxRetries() { return maxRetries; }
    public Duration minRetryWait() { return minRetryWait; }
    public Duration maxRetryWait() { return maxRetryWait; }
    /** null = no timeout. */
    public Duration commitTimeout() { return commitTimeout; }
    public long targetFileSize() { return targetFileSize; }
    /** This table's own storage settings (s3.* options); unset fields fall back to the environment. */
    public StoreConfig storeConfig() { return storeConfig; }
    /** Told about each published snapshot, or null (see {@link CommitListener}). */
    public CommitListener commitListener() { return commitListener; }
    /** Expiration settings given explicitly (unset ones: the table's options, else Paimon's defaults). */
    public ExpireOptions expireOptions() { return expireOptions; }
    /** Paimon's write-only given explicitly, or null to follow the table's option. */
    public Boolean writeOnly() { return writeOnly; }
    /** sink.compaction.enabled (default false); write-only = true still turns compaction off. */
    public boolean compactionEnabled() { return compactionEnabled; }
    /** compaction.min.file-num given explicitly, or null (the table's option, else 5). */
    public Integer compactionMinFileNum() { return compactionMinFileNum; }
    /** sink.compaction.max-file-num given explicitly, or null (50). */
    public Integer compactionMaxFileNum() { return compactionMaxFileNum; }

    public boolean isS3() {
        return location.regionMatches(true, 0, "s3://", 0, 5);
    }

    /**
     * Planning-time check that the table's storage is reachable with these settings: for s3://,
     * one authenticated ListObjectsV2 (max-keys=1) under the table's prefix, so a wrong secret or
     * a missing bucket fails the job submission with a clear message instead of restarting the
     * job forever. Local paths are not checked here (the planner may run on another machine).
     *
     * <p>The check runs libsnapcommit on the client, which may be unable to load it (a macOS laptop,
     * another architecture, missing system libraries) although the TaskManagers can. When
     * {@code required} is false (the check was left at its default) such a client skips the check
     * with a WARN naming why, and the TaskManagers make the same request when they open the table;
     * the job stays submittable. When {@code required} is true (the user asked for the check) the
     * load failure is an error that says how to turn the check off.
     *
     * @param required whether the user asked for the check explicitly
     * @return true when the storage was checked, false when it is not s3:// or the check was skipped
     * @throws IllegalArgumentException naming the location and the cause; secrets are masked
     */
    public boolean checkStorage(boolean required) {
        if (!isS3()) return false;
        try {
            // Load first: NativeLoader rethrows its cached failure with the full list of attempts,
            // where a second touch of NativeStore would only say "Could not initialize class".
            NativeLoader.load();
        } catch (LinkageError e) {
            if (required)
                throw new IllegalArgumentException("cannot check " + location + " at planning time: this client "
                    + "cannot load libsnapcommit_jni (" + e.getMessage() + "). Run the client where the library "
                    + "loads, or turn the check off: 's3.check-on-plan' = 'false' (SQL) or "
                    + "SnapcommitSink.Builder.checkStorage(false) (DataStream); the TaskManagers check the "
                    + "storage when they open the table", null);
            LOG.warn("snapcommit: skipping the planning-time storage check of {}: this client cannot load "
                     + "libsnapcommit_jni ({}). The TaskManagers check the storage when they open the table; "
                     + "set 's3.check-on-plan' = 'false' (SQL) or checkStorage(false) (DataStream) to silence "
                     + "this warning", location, e.getMessage());
            return false;
        }
        try (NativeStore store = NativeStore.openStore(location, storeConfig)) {
            store.check();
        } catch (SnapcommitException e) {
            if (e.errorCode() == ErrorCode.EAUTH)
                throw new IllegalArgumentException("S3 refused the credentials for " + location + ": "
                                                   + mask(e.getMessage()) + " (set s3.access-key / s3.secret-key, or "
                                                   + "AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY on every TaskManager)",
                                                   null);
            throw new IllegalArgumentException("cannot use " + location + ": " + mask(e.getMessage()), null);
        }
        return true;
    }

    /** {@link #checkStorage(boolean) checkStorage(false)}: the default, best-effort check. */
    public boolean checkStorage() {
        return checkStorage(false);
    }

    /** Belt and braces: the native messages are already scrubbed of the secret and the token. */
    String mask(String message) {
        if (message == null) return null;
        String m = message;
        if (storeConfig.secretKey() != null) m = m.replace(storeConfig.secretKey(), "****");
        if (storeConfig.sessionToken() != null) m = m.replace(storeConfig.sessionToken(), "****");
        return m;
    }

    @Override
    public String toString() {
        return "SinkConfig{location=" + location + ", strategy=" + strategy + ", commitUser=" + commitUser
               + ", maxRetries=" + (maxRetries == UNBOUNDED_RETRIES ? "unbounded" : maxRetries) + ", retryWait=" + minRetryWait.toMillis() + ".."
               + maxRetryWait.toMillis() + "ms, timeout=" + (commitTimeout == null ? "none" : commitTimeout)
               + ", targetFileSize=" + targetFileSize + ", storage=" + storeConfig
               + ", expire=" + expireOptions + (writeOnly == null ? "" : ", writeOnly=" + writeOnly)
               + (compactionEnabled ? ", compaction=on" + (compactionMinFileNum == null ? "" : ", minFileNum="
                   + compactionMinFileNum) + (compactionMaxFileNum == null ? "" : ", maxFileNum=" + compactionMaxFileNum) : "")
               + (commitListener == null ? "" : ", commitListener=" + commitListener.getClass().getName()) + "}";
    }
}

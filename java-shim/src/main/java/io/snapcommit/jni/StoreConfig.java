package io.snapcommit.jni;

import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;

/**
 * Per-store settings handed to libsnapcommit when a store or table is opened
 * (sc_store_config): endpoint, region, credentials, path style, TLS,
 * timeouts, tracker TTL. Each store gets its own copy, so two tables (two
 * jobs) in one JVM can use different endpoints and credentials at once;
 * nothing is written to the process environment.
 *
 * <p>Precedence, field by field: a set field wins; an unset field (null)
 * falls back to the environment variable the native library reads
 * (AWS_ENDPOINT_URL_S3, AWS_REGION, ...), then to the built-in default.
 * Credentials are one unit: when an access key or secret key is set, both
 * must be, and the session token comes from this object only.
 *
 * <p>Immutable and serializable (it travels with the job graph). The secret
 * key and session token never appear in {@link #toString()}, in exception
 * messages or in logs.
 */
public final class StoreConfig implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Every field unset: environment, then defaults (what {@code sc_store_open} does). */
    public static final StoreConfig DEFAULTS = builder().build();

    private final String endpoint;
    private final String region;
    private final String accessKey;
    private final String secretKey;
    private final String sessionToken;
    private final Boolean pathStyle;
    private final Boolean tlsVerify;
    private final String caBundle;
    private final Boolean conditionalWrites;
    private final Duration connectTimeout;
    private final Duration requestTimeout;
    private final Duration trackerTtl;
    private final boolean anonymous;

    private StoreConfig(Builder b) {
        this.endpoint = blankToNull(b.endpoint);
        this.region = blankToNull(b.region);
        this.accessKey = blankToNull(b.accessKey);
        this.secretKey = blankToNull(b.secretKey);
        this.sessionToken = blankToNull(b.sessionToken);
        this.pathStyle = b.pathStyle;
        this.tlsVerify = b.tlsVerify;
        this.caBundle = blankToNull(b.caBundle);
        this.conditionalWrites = b.conditionalWrites;
        this.connectTimeout = millis(b.connectTimeout, "s3.connect-timeout", 1, MAX_TIMEOUT_MS);
        this.requestTimeout = millis(b.requestTimeout, "s3.request-timeout", 1, MAX_TIMEOUT_MS);
        this.trackerTtl = millis(b.trackerTtl, "tracker TTL (StoreConfig.trackerTtl)", MIN_TRACKER_TTL_MS, Long.MAX_VALUE);
        this.anonymous = b.anonymous;
        if ((accessKey == null) != (secretKey == null))
            throw new IllegalArgumentException(accessKey == null
                ? "an S3 secret key is set without an access key"
                : "an S3 access key is set without a secret key");
        if (sessionToken != null && accessKey == null)
            throw new IllegalArgumentException("an S3 session token is set without an access key and secret key");
    }

    private static String blankToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }

    /**
     * The bounds libsnapcommit applies at open (native/src/s3/s3_config.c cfg_ms: connect and request
     * timeouts 1..3600000 ms; native/src/store/store.c: a tracker TTL of 0 is unset, 1 is refused).
     * Checked here, with the option's name, so that a bad value fails when the sink is built instead
     * of at the first open on a TaskManager.
     */
    public static final long MAX_TIMEOUT_MS = 3_600_000L;
    public static final long MIN_TRACKER_TTL_MS = 2L;

    /**
     * null stays unset. Everything else must be whole milliseconds within [min, max]: the native
     * field is an integer count of milliseconds in which 0 means "unset", so a value under 1 ms
     * (or 0) would silently fall back to the environment, and a fraction would be cut off.
     */
    private static Duration millis(Duration d, String what, long min, long max) {
        if (d == null) return null;
        String range = max == Long.MAX_VALUE ? "at least " + min + " ms" : min + " ms.." + max + " ms";
        long ms;
        try {
            ms = d.toMillis();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(what + " must be whole milliseconds, " + range + ": " + d
                                               + " is too long");
        }
        if (d.isNegative() || d.isZero() || ms < min || ms > max)
            throw new IllegalArgumentException(what + " must be whole milliseconds, " + range + ": " + d
                                               + (d.isZero() ? " (leave it unset for the default)" : ""));
        if (!Duration.ofMillis(ms).equals(d))
            throw new IllegalArgumentException(what + " must be whole milliseconds, " + range + ": " + d
                                               + " has a fraction of a millisecond");
        return d;
    }

    public static Builder builder() {
        return new Builder();
    }

    public String endpoint() { return endpoint; }
    public String region() { return region; }
    public String accessKey() { return accessKey; }
    /** The secret key; never log it. */
    public String secretKey() { return secretKey; }
    /** The session token; never log it. */
    public String sessionToken() { return sessionToken; }
    public Boolean pathStyle() { return pathStyle; }
    public Boolean tlsVerify() { return tlsVerify; }
    public String caBundle() { return caBundle; }
    public Boolean conditionalWrites() { return conditionalWrites; }
    public Duration connectTimeout() { return connectTimeout; }
    public Duration requestTimeout() { return requestTimeout; }
    public Duration trackerTtl() { return trackerTtl; }
    public boolean anonymous() { return anonymous; }

    /** True when no field is set. */
    public boolean isDefault() {
        return equals(DEFAULTS);
    }

    /** The fields in the order jni_internal.h's SCJ_CFG_* expects; null = unset. */
    byte[][] toNative() {
        return new byte[][] {
            Utf8.z(endpoint), Utf8.z(region), Utf8.z(accessKey), Utf8.z(secretKey), Utf8.z(sessionToken),
            flag(pathStyle), flag(tlsVerify), Utf8.z(caBundle), flag(conditionalWrites),
            millis(connectTimeout), millis(requestTimeout), millis(trackerTtl), anonymous ? Utf8.z("1") : null,
        };
    }

    private static byte[] flag(Boolean b) {
        return b == null ? null : Utf8.z(b ? "1" : "0");
    }

    private static byte[] millis(Duration d) {
        return d == null ? null : Utf8.z(Long.toString(d.toMillis()));
    }

    /** Secrets masked: only whether they are set shows. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("StoreConfig{");
        append(sb, "endpoint", endpoint);
        append(sb, "region", region);
        append(sb, "accessKey", accessKey);
        append(sb, "secretKey", secretKey == null ? null : "****");
        append(sb, "sessionToken", sessionToken == null ? null : "****");
        append(sb, "pathStyle", pathStyle);
        append(sb, "tlsVerify", tlsVerify);
        append(sb, "caBundle", caBundle);
        append(sb, "conditionalWrites", conditionalWrites);
        append(sb, "connectTimeout", connectTimeout);
        append(sb, "requestTimeout", requestTimeout);
        append(sb, "trackerTtl", trackerTtl);
        if (anonymous) append(sb, "anonymous", true);
        if (sb.charAt(sb.length() - 1) == ' ') sb.setLength(sb.length() - 2);
        return sb.append('}').toString();
    }

    private static void append(StringBuilder sb, String name, Object value) {
        if (value != null) sb.append(name).append('=').append(value).append(", ");
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof StoreConfig)) return false;
        StoreConfig c = (StoreConfig) o;
        return Objects.equals(endpoint, c.endpoint) && Objects.equals(region, c.region)
               && Objects.equals(accessKey, c.accessKey) && Objects.equals(secretKey, c.secretKey)
               && Objects.equals(sessionToken, c.sessionToken) && Objects.equals(pathStyle, c.pathStyle)
               && Objects.equals(tlsVerify, c.tlsVerify) && Objects.equals(caBundle, c.caBundle)
               && Objects.equals(conditionalWrites, c.conditionalWrites)
               && Objects.equals(connectTimeout, c.connectTimeout) && Objects.equals(requestTimeout, c.requestTimeout)
               && Objects.equals(trackerTtl, c.trackerTtl) && anonymous == c.anonymous;
    }

    @Override
    public int hashCode() {
        return Objects.hash(endpoint, region, accessKey, pathStyle, tlsVerify, caBundle, conditionalWrites,
                            connectTimeout, requestTimeout, trackerTtl, anonymous);
    }

    /** Unset fields stay null. */
    public static final class Builder {
        private String endpoint, region, accessKey, secretKey, sessionToken, caBundle;
        private Boolean pathStyle, tlsVerify, conditionalWrites;
        private Duration connectTimeout, requestTimeout, trackerTtl;
        private boolean anonymous;

        private Builder() {}

        /** http(s)://host[:port][/path]; default $AWS_ENDPOINT_URL_S3 / $AWS_ENDPOINT_URL / AWS. */
        public Builder endpoint(String v) { endpoint = v; return this; }
        public Builder region(String v) { region = v; return this; }
        public Builder accessKey(String v) { accessKey = v; return this; }
        public Builder secretKey(String v) { secretKey = v; return this; }
        public Builder sessionToken(String v) { sessionToken = v; return this; }
        public Builder pathStyle(Boolean v) { pathStyle = v; return this; }
        /** false is for throwaway test servers only. */
        public Builder tlsVerify(Boolean v) { tlsVerify = v; return this; }
        public Builder caBundle(String v) { caBundle = v; return this; }
        public Builder conditionalWrites(Boolean v) { conditionalWrites = v; return this; }
        public Builder connectTimeout(Duration v) { connectTimeout = v; return this; }
        public Builder requestTimeout(Duration v) { requestTimeout = v; return this; }
        public Builder trackerTtl(Duration v) { trackerTtl = v; return this; }
        /** Unsigned requests (public buckets); credentials of any source are ignored. */
        public Builder anonymous(boolean v) { anonymous = v; return this; }

        public StoreConfig build() {
            return new StoreConfig(this);
        }
    }
}

package io.snapcommit.paimon.fileio;

import java.util.Locale;
import java.util.Map;

import io.snapcommit.jni.StoreConfig;

/**
 * The native S3 store's settings from the catalog's {@code s3.*} options, read as Paimon's S3
 * FileIO (paimon-s3, S3A underneath) reads them, so that the claim goes to the same endpoint,
 * bucket region and credentials as the data files. An option that is absent stays unset: the
 * native store then falls back to its environment (docs/s3.md, "Configuration").
 */
final class NativeS3Settings {
    private NativeS3Settings() {}

    static StoreConfig storeConfig(Map<String, String> options) {
        StoreConfig.Builder b = StoreConfig.builder();
        String endpoint = first(options, "s3.endpoint", "fs.s3a.endpoint");
        if (endpoint != null) b.endpoint(withScheme(endpoint, options));
        String region = first(options, "s3.endpoint.region", "s3.region", "fs.s3a.endpoint.region");
        if (region != null) b.region(region);
        String access = first(options, "s3.access-key", "s3.access.key", "fs.s3a.access.key");
        String secret = first(options, "s3.secret-key", "s3.secret.key", "fs.s3a.secret.key");
        if (access != null && secret != null) {
            b.accessKey(access).secretKey(secret);
            String token = first(options, "s3.session.token", "s3.session-token", "fs.s3a.session.token");
            if (token != null) b.sessionToken(token);
        }
        String pathStyle = first(options, "s3.path.style.access", "s3.path-style-access", "s3.path-style",
                                 "fs.s3a.path.style.access");
        if (pathStyle != null) b.pathStyle(Boolean.parseBoolean(pathStyle.trim()));
        return b.build();
    }

    /** S3A takes a bare host and picks the scheme from s3.connection.ssl.enabled; the native store wants a URL. */
    private static String withScheme(String endpoint, Map<String, String> options) {
        String lower = endpoint.toLowerCase(Locale.ROOT);
        if (lower.startsWith("http://") || lower.startsWith("https://")) return endpoint;
        String ssl = first(options, "s3.connection.ssl.enabled", "fs.s3a.connection.ssl.enabled");
        return (ssl != null && !Boolean.parseBoolean(ssl.trim()) ? "http://" : "https://") + endpoint;
    }

    private static String first(Map<String, String> options, String... keys) {
        for (String k : keys) {
            String v = options.get(k);
            if (v != null && !v.isEmpty()) return v;
        }
        return null;
    }
}

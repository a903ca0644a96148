package io.snapcommit.flink.paimon;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.options.Options;
import org.apache.paimon.s3.S3Loader;
import org.apache.paimon.table.CatalogEnvironment;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;

import io.snapcommit.jni.StoreConfig;

/**
 * The table as Paimon's own {@link FileStoreTable} over the sink's location, for Paimon's write
 * path (TableWriteImpl, append compaction): its data files are written by Paimon's FileIO
 * straight to the table's storage — a local directory through {@link LocalFileIO}, {@code s3://}
 * through paimon-s3's S3 FileIO configured from the same per-table {@code s3.*} settings the
 * native store uses ({@link #s3Options}). Commits never go through Paimon: the committer hands
 * the resulting commit messages to the native library.
 *
 * <p>The schema is the one the job writes with (checked against the table's by the committer),
 * so opening needs no read of {@code schema/}.
 */
public final class PaimonStoreTable {
    private PaimonStoreTable() {}

    /**
     * @param dynamic table options of this job only (Paimon's dynamic options, e.g. write-only,
     *     target-file-size); not stored in the schema
     */
    public static FileStoreTable open(String location, StoreConfig storage, PaimonTableSpec spec,
                                      Map<String, String> dynamic) {
        Path path = new Path(location);
        FileIO io = fileIO(path, storage);
        FileStoreTable t = FileStoreTableFactory.create(io, path, spec.schema(), new Options(),
                                                        CatalogEnvironment.empty());
        return dynamic.isEmpty() ? t : t.copy(dynamic);
    }

    public static FileIO fileIO(Path path, StoreConfig storage) {
        String scheme = path.toUri().getScheme();
        if (scheme == null || scheme.equalsIgnoreCase("file")) return new NoReplaceLocalFileIO();
        if (!scheme.toLowerCase(Locale.ROOT).equals("s3"))
            throw new IllegalArgumentException("no Paimon FileIO for " + path + " (local paths and s3:// only)");
        // paimon-s3's loader directly, not FileIO.get: its discovery insists on keys in the options,
        // and a table may rely on S3A's own credential chain (instance profile, anonymous).
        FileIO io = new S3Loader().load(path);
        try {
            io.configure(CatalogContext.create(Options.fromMap(s3Options(storage, System.getenv()))));
        } catch (RuntimeException e) {
            throw new IllegalStateException("cannot configure Paimon's S3 FileIO for " + path + ": " + e.getMessage(), e);
        }
        return new StableLoaderFileIO(io, storage);
    }

    /**
     * The S3 FileIO options (paimon-s3's {@code s3.*} keys, S3A underneath) for the native store's
     * settings, with the same fallbacks the native store applies when a setting is unset:
     * endpoint from $AWS_ENDPOINT_URL_S3 / $AWS_ENDPOINT_URL, region from $AWS_REGION /
     * $AWS_DEFAULT_REGION, path-style addressing on when there is an endpoint
     * ($SNAPCOMMIT_S3_PATH_STYLE otherwise), the table's keys, else $AWS_ACCESS_KEY_ID /
     * $AWS_SECRET_ACCESS_KEY / $AWS_SESSION_TOKEN, else S3A's own chain (profile, instance).
     */
    public static Map<String, String> s3Options(StoreConfig c, Map<String, String> env) {
        Map<String, String> o = new HashMap<>();
        String endpoint = first(c.endpoint(), env.get("AWS_ENDPOINT_URL_S3"), env.get("AWS_ENDPOINT_URL"));
        if (endpoint != null) {
            o.put("s3.endpoint", endpoint);
            if (endpoint.regionMatches(true, 0, "http://", 0, 7)) o.put("s3.connection.ssl.enabled", "false");
        }
        String region = first(c.region(), env.get("AWS_REGION"), env.get("AWS_DEFAULT_REGION"), "us-east-1");
        o.put("s3.endpoint.region", region);
        Boolean pathStyle = c.pathStyle();
        if (pathStyle == null && env.get("SNAPCOMMIT_S3_PATH_STYLE") != null)
            pathStyle = !env.get("SNAPCOMMIT_S3_PATH_STYLE").equals("0");
        if (pathStyle == null) pathStyle = endpoint != null;
        o.put("s3.path.style.access", pathStyle.toString());
        if (c.anonymous()) {
            o.put("s3.aws.credentials.provider", "org.apache.hadoop.fs.s3a.AnonymousAWSCredentialsProvider");
        } else if (c.accessKey() != null || env.get("AWS_ACCESS_KEY_ID") != null) {
            // The table's keys, else the environment's, as the native store takes them.
            boolean own = c.accessKey() != null;
            o.put("s3.access-key", own ? c.accessKey() : env.get("AWS_ACCESS_KEY_ID"));
            String secret = own ? c.secretKey() : env.get("AWS_SECRET_ACCESS_KEY");
            if (secret != null) o.put("s3.secret-key", secret);
            String token = own ? c.sessionToken() : env.get("AWS_SESSION_TOKEN");
            if (token != null) {
                o.put("s3.session.token", token);
                o.put("s3.aws.credentials.provider", "org.apache.hadoop.fs.s3a.TemporaryAWSCredentialsProvider");
            }
        }
        return o;
    }

    private static String first(String... values) {
        for (String v : values) if (v != null && !v.isEmpty()) return v;
        return null;
    }
}

package io.snapcommit.paimon.fileio;

import java.io.Serializable;
import java.net.URI;

import org.apache.paimon.fs.Path;

/**
 * Our scheme (snapcommit+s3) to the underlying one (s3) and back. Only the scheme changes:
 * bucket, path and everything else stay as the user wrote them. A path of any other scheme
 * passes unchanged in both directions.
 */
final class SchemeMapping implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String ours;
    private final String underlying;

    SchemeMapping(String ours, String underlying) {
        this.ours = ours;
        this.underlying = underlying;
    }

    String ours() {
        return ours;
    }

    Path toUnderlying(Path p) {
        return swap(p, ours, underlying);
    }

    Path toOurs(Path p) {
        return swap(p, underlying, ours);
    }

    private static Path swap(Path p, String from, String to) {
        URI u = p.toUri();
        if (!from.equalsIgnoreCase(u.getScheme())) return p;
        // A bucket's root ('snapcommit+s3://bucket', a warehouse there) has an empty path, which Path refuses.
        String path = u.getPath() == null || u.getPath().isEmpty() ? "/" : u.getPath();
        return new Path(to, u.getAuthority(), path);
    }
}

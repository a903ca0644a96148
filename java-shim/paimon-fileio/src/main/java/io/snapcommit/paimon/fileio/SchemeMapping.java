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
        URI u = p.toUri();
        return ours.equalsIgnoreCase(u.getScheme()) ? new Path(underlying, u.getAuthority(), u.getPath()) : p;
    }

    Path toOurs(Path p) {
        URI u = p.toUri();
        return underlying.equalsIgnoreCase(u.getScheme()) ? new Path(ours, u.getAuthority(), u.getPath()) : p;
    }
}

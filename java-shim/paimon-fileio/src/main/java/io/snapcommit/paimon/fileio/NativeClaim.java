package io.snapcommit.paimon.fileio;

import java.net.URI;

import io.snapcommit.jni.NativeStore;
import io.snapcommit.jni.StoreConfig;
import org.apache.paimon.fs.Path;

/**
 * One claim through libsnapcommit: a native store rooted at the claimed file's directory (s3://
 * bucket/prefix or the directory's absolute path), the file's name as its key, so the same code
 * serves S3 and a local file system. The store is opened for the claim and closed before it
 * returns: Paimon never closes its FileIOs, so a store kept open across claims would stay open
 * for the life of the JVM (a connection on S3, a descriptor locally), another with every FileIO
 * copy that claims. Opening makes no request; a claim is one commit's single create.
 */
final class NativeClaim {
    private NativeClaim() {}

    /**
     * Create {@code path} (of the underlying scheme: s3 or file) holding {@code bytes} only where
     * nothing is. True when this call created it.
     */
    static boolean claim(Path path, byte[] bytes, StoreConfig s3Config) {
        Path dir = path.getParent();
        if (dir == null) throw new IllegalArgumentException("nothing to claim at the root: " + path);
        String location = location(dir);
        return NativeStore.createOnce(location, location.startsWith("s3://") ? s3Config : null, path.getName(), bytes);
    }

    private static String location(Path dir) {
        URI u = dir.toUri();
        String scheme = u.getScheme();
        if ("s3".equalsIgnoreCase(scheme)) {
            if (u.getAuthority() == null) throw new IllegalArgumentException("an s3 path needs a bucket: " + dir);
            return "s3://" + u.getAuthority() + u.getPath();
        }
        if (scheme == null || "file".equalsIgnoreCase(scheme)) return u.getPath();
        throw new IllegalArgumentException("snapcommit claims only on s3:// and local paths, not " + dir);
    }
}

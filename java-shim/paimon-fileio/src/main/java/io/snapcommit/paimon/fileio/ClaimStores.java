package io.snapcommit.paimon.fileio;

import java.net.URI;
import java.util.HashMap;
import java.util.Map;

import io.snapcommit.jni.NativeStore;
import io.snapcommit.jni.StoreConfig;
import org.apache.paimon.fs.Path;

/**
 * The native stores a FileIO claims through, one per directory claimed in (a table's snapshot/
 * and schema/ directories), opened on first use and kept until close. The store is rooted at
 * the directory and the claimed file's name is its key, so the same code serves S3 (s3://bucket/
 * prefix) and a local file system (the directory's absolute path).
 */
final class ClaimStores implements AutoCloseable {
    private final StoreConfig s3Config;
    private final Map<String, NativeStore> open = new HashMap<>();

    ClaimStores(StoreConfig s3Config) {
        this.s3Config = s3Config;
    }

    /**
     * Create {@code path} (of the underlying scheme: s3 or file) holding {@code bytes} only where
     * nothing is. True when this call created it.
     */
    boolean claim(Path path, byte[] bytes) {
        Path dir = path.getParent();
        if (dir == null) throw new IllegalArgumentException("nothing to claim at the root: " + path);
        return store(dir).putIfAbsent(path.getName(), bytes, 0, bytes.length);
    }

    private synchronized NativeStore store(Path dir) {
        String location = location(dir);
        NativeStore s = open.get(location);
        if (s == null) {
            s = NativeStore.openStore(location, location.startsWith("s3://") ? s3Config : null);
            open.put(location, s);
        }
        return s;
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

    @Override
    public synchronized void close() {
        for (NativeStore s : open.values()) s.close();
        open.clear();
    }
}

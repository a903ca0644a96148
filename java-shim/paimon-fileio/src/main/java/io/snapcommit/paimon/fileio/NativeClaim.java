package io.snapcommit.paimon.fileio;

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
        return NativeStore.createOnce(path.toUri(), s3Config, bytes);
    }
}

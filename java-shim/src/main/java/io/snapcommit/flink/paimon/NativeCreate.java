package io.snapcommit.flink.paimon;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import org.apache.paimon.fs.Path;

import io.snapcommit.jni.NativeStore;
import io.snapcommit.jni.SnapcommitException;
import io.snapcommit.jni.StoreConfig;
import io.snapcommit.jni.UnknownOutcomeException;

/**
 * Paimon's {@code FileIO.tryToWriteAtomic} (how its catalog claims {@code schema-N}, and its
 * committer {@code snapshot-N}) as one create-only write through libsnapcommit: a rename that never
 * replaces on a local disk, a PUT with {@code If-None-Match: *} on S3. Paimon's own versions check
 * then act (LocalFileIO under a lock inside one JVM; S3A's rename is a copy), so two processes
 * altering one table at once could both be told they wrote the same schema id.
 */
final class NativeCreate {
    private NativeCreate() {}

    /** True when this call created {@code path}; false when something was already there. */
    static boolean tryToWriteAtomic(Path path, String content, StoreConfig s3) throws IOException {
        try {
            return NativeStore.createOnce(path.toUri(), s3, content.getBytes(StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            throw new IOException(e.getMessage(), e);
        } catch (UnknownOutcomeException e) {
            throw new IOException("the outcome of creating " + path + " is unknown: " + e.getMessage(), e);
        } catch (SnapcommitException e) {
            throw new IOException("creating " + path + ": " + e.getMessage(), e);
        }
    }
}

package io.snapcommit.jni;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A storage location opened through libsnapcommit's store layer (posix for
 * local paths and file://; s3:// once the native S3 backend exists). Writers
 * put data files through it. One thread at a time per handle.
 */
public final class NativeStore implements AutoCloseable {
    static {
        NativeLoader.load();
    }

    private long handle;
    private final String location;

    private NativeStore(long handle, String location) {
        this.handle = handle;
        this.location = location;
    }

    /** Open with settings from the environment (as {@code sc_store_open}). */
    public static NativeStore openStore(String location) {
        return openStore(location, null);
    }

    /** Open with this store's own settings; null = environment and defaults. No request is made. */
    public static NativeStore openStore(String location, StoreConfig config) {
        return new NativeStore(open(Utf8.z(location), config == null ? null : config.toNative()), location);
    }

    /**
     * One cheap request proving the location is usable (for s3: the bucket exists and
     * the credentials are accepted; a ListObjectsV2 of at most one key).
     *
     * @throws SnapcommitException {@link ErrorCode#EAUTH}: the credentials were refused;
     *         {@link ErrorCode#EIO}: e.g. the bucket does not exist (the message names it)
     */
    public synchronized void check() {
        check(live());
    }

    public String location() {
        return location;
    }

    public synchronized String backendName() {
        return backend(live());
    }

    /**
     * One create-only write of the file at {@code file} ({@link #putIfAbsent}) on a store opened
     * for its directory and closed before returning. For callers that claim rarely and are never
     * closed themselves (Paimon's FileIOs): a store kept open across claims would hold a connection
     * or a descriptor for the life of the JVM. Opening makes no request.
     *
     * @param file {@code s3://bucket/key} or a local path ({@code file:} or no scheme)
     * @param s3 settings for an {@code s3://} file; null = environment and defaults
     * @return true when this call created the object
     * @throws IllegalArgumentException another scheme, an s3 URI without a bucket, or no file name
     */
    public static boolean createOnce(java.net.URI file, StoreConfig s3, byte[] data) {
        String path = file.getPath();
        int slash = path == null ? -1 : path.lastIndexOf('/');
        if (slash < 0 || slash == path.length() - 1)
            throw new IllegalArgumentException("no file name to create in " + file);
        String dir = slash == 0 ? "/" : path.substring(0, slash), name = path.substring(slash + 1);
        String scheme = file.getScheme();
        String location;
        if (scheme == null || scheme.equalsIgnoreCase("file")) {
            location = dir;
            s3 = null;
        } else if (scheme.equalsIgnoreCase("s3") && file.getAuthority() != null) {
            location = "s3://" + file.getAuthority() + dir;
        } else {
            throw new IllegalArgumentException("create-only writes go through libsnapcommit on local and s3:// paths "
                                               + "only, not " + file);
        }
        try (NativeStore store = openStore(location, s3)) {
            return store.putIfAbsent(name, data, 0, data.length);
        }
    }

    /** Write (overwrite) an object atomically; the bytes are copied before any I/O. */
    public synchronized void putObject(String key, byte[] data, int offset, int length) {
        put(live(), Utf8.z(key), data, offset, length);
    }

    /**
     * Create an object only where none is: {@code sc_store_put_if_absent} (posix: a rename that
     * never replaces; S3: a PUT with {@code If-None-Match: *}).
     *
     * <p>A lost answer (the request may or may not have landed) is settled, never guessed, by
     * reading the object back: holding exactly these bytes means this call created it (a caller
     * that needs "mine" to be provable writes bytes no other writer writes, as a Paimon snapshot
     * naming its commit user and identifier is); other bytes mean another writer's create won.
     *
     * @return true when this call created the object, false when one was already there
     * @throws UnknownOutcomeException the answer was lost and the object cannot be read back
     *         (absent: the request may still land; or the read failed)
     */
    public synchronized boolean putIfAbsent(String key, byte[] data, int offset, int length) {
        byte[] k = Utf8.z(key);
        try {
            return putIfAbsent(live(), k, data, offset, length);
        } catch (UnknownOutcomeException lost) {
            return settleLostCreate(k, key, data, offset, length, lost);
        }
    }

    private boolean settleLostCreate(byte[] k, String key, byte[] data, int offset, int length,
                                     UnknownOutcomeException lost) {
        byte[] have;
        try {
            have = get(live(), k);
        } catch (SnapcommitException e) {
            UnknownOutcomeException still = new UnknownOutcomeException(
                ErrorCode.EUNKNOWN.code(), "creating " + key + ": the answer was lost (" + lost.getMessage()
                + ") and reading it back failed (" + e.getMessage() + ")", 0);
            still.addSuppressed(e);
            throw still;
        }
        return Arrays.equals(have, 0, have.length, data, offset, offset + length);
    }

    public synchronized byte[] getObject(String key) {
        return get(live(), Utf8.z(key));
    }

    public synchronized void deleteObject(String key) {
        delete(live(), Utf8.z(key));
    }

    /** Every key under prefix, ascending. */
    public synchronized List<String> listKeys(String prefix) {
        byte[][] raw = list(live(), Utf8.z(prefix));
        List<String> keys = new ArrayList<>(raw.length);
        for (byte[] k : raw) keys.add(Utf8.str(k));
        return keys;
    }

    private long live() {
        if (handle == 0) throw new IllegalStateException("store " + location + " is closed");
        return handle;
    }

    @Override
    public synchronized void close() {
        long h = handle;
        handle = 0;
        if (h != 0) free(h);
    }

    private static native long open(byte[] location, byte[][] config);

    private static native void check(long handle);

    private static native void free(long handle);

    private static native String backend(long handle);

    private static native void put(long handle, byte[] key, byte[] data, int offset, int length);

    private static native boolean putIfAbsent(long handle, byte[] key, byte[] data, int offset, int length);

    private static native byte[] get(long handle, byte[] key);

    private static native void delete(long handle, byte[] key);

    private static native byte[][] list(long handle, byte[] prefix);
}

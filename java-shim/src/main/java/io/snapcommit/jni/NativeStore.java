package io.snapcommit.jni;

import java.util.ArrayList;
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

    /** Write (overwrite) an object atomically; the bytes are copied before any I/O. */
    public synchronized void putObject(String key, byte[] data, int offset, int length) {
        put(live(), Utf8.z(key), data, offset, length);
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

    private static native byte[] get(long handle, byte[] key);

    private static native void delete(long handle, byte[] key);

    private static native byte[][] list(long handle, byte[] prefix);
}

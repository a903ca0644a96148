package io.snapcommit.jni;

/** A change set (files added and deleted by one commit), held natively. Not thread-safe. */
public final class NativeChanges implements AutoCloseable {
    static {
        NativeLoader.load();
    }

    private long handle;

    public NativeChanges() {
        handle = create();
    }

    public NativeChanges addFile(FileEntry e) {
        add(live(), false, e.partitionRaw(), e.bucket(), e.totalBuckets(), e.level(), Utf8.z(e.file()), e.rows(),
            e.size(), e.minKeyRaw(), e.maxKeyRaw());
        return this;
    }

    public NativeChanges deleteFile(FileEntry e) {
        add(live(), true, e.partitionRaw(), e.bucket(), e.totalBuckets(), e.level(), Utf8.z(e.file()), e.rows(),
            e.size(), e.minKeyRaw(), e.maxKeyRaw());
        return this;
    }

    public long addCount() {
        return addCount(live());
    }

    public long deleteCount() {
        return deleteCount(live());
    }

    long live() {
        if (handle == 0) throw new IllegalStateException("changes are closed");
        return handle;
    }

    @Override
    public void close() {
        long h = handle;
        handle = 0;
        if (h != 0) free(h);
    }

    private static native long create();

    private static native void free(long handle);

    private static native void add(long handle, boolean delete, byte[] partition, int bucket, int totalBuckets,
                                   int level, byte[] file, long rows, long size, byte[] minKey, byte[] maxKey);

    private static native long addCount(long handle);

    private static native long deleteCount(long handle);
}

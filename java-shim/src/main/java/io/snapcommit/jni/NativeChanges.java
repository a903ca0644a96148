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
        return add(false, e);
    }

    public NativeChanges deleteFile(FileEntry e) {
        return add(true, e);
    }

    private NativeChanges add(boolean delete, FileEntry e) {
        Object[] n = e.toNative();
        add(live(), delete, (long[]) n[0], (byte[][]) n[1], (byte[][]) n[2], (byte[][]) n[3], (byte[][]) n[4],
            (long[]) n[5], (long[]) n[6]);
        return this;
    }

    /** The entry converted to the native sc_file_entry and back (no table involved): for tests of the binding. */
    static FileEntry echo(FileEntry e) {
        Object[] n = e.toNative();
        return echo((long[]) n[0], (byte[][]) n[1], (byte[][]) n[2], (byte[][]) n[3], (byte[][]) n[4],
                    (long[]) n[5], (long[]) n[6]);
    }

    /** The raw native call, for tests of the binding's input checks. */
    static FileEntry echoRaw(long[] nums, byte[][] bytes, byte[][] extraFiles, byte[][] valueStatsCols,
                             byte[][] writeCols, long[] keyNullCounts, long[] valueNullCounts) {
        return echo(nums, bytes, extraFiles, valueStatsCols, writeCols, keyNullCounts, valueNullCounts);
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

    private static native void add(long handle, boolean delete, long[] nums, byte[][] bytes, byte[][] extraFiles,
                                   byte[][] valueStatsCols, byte[][] writeCols, long[] keyNullCounts,
                                   long[] valueNullCounts);

    private static native FileEntry echo(long[] nums, byte[][] bytes, byte[][] extraFiles, byte[][] valueStatsCols,
                                         byte[][] writeCols, long[] keyNullCounts, long[] valueNullCounts);

    private static native long addCount(long handle);

    private static native long deleteCount(long handle);
}

package io.snapcommit.jni;

/**
 * A change set (one commit, or one part of a checkpoint commit), held natively: data files added
 * and deleted, changelog files, index files. Filled either entry by entry ({@link #addFile}) or
 * with Paimon's own manifest records ({@link #addPaimon}). Not thread-safe.
 */
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

    /** Sections of {@link #addPaimon}: sc_paimon_section. */
    public static final int SECTION_DATA = 0;
    public static final int SECTION_CHANGELOG = 1;
    public static final int SECTION_INDEX = 2;

    /**
     * Add every record of a Paimon manifest-format Avro container (sc_changes_add_paimon):
     * {@link #SECTION_DATA} and {@link #SECTION_CHANGELOG} hold ManifestEntry records (ADD → added,
     * DELETE → deleted; a DELETE is refused in the changelog), {@link #SECTION_INDEX} holds
     * IndexManifestEntry records. Decoded with the limits of manifests read from storage; nothing
     * is added when it fails.
     *
     * @throws SnapcommitException ECORRUPT naming the record and field, ELIMIT, EINVAL, EUNSUPPORTED
     */
    public NativeChanges addPaimon(int section, byte[] avro) {
        addPaimon(live(), section, java.util.Objects.requireNonNull(avro));
        return this;
    }

    public long changelogCount() {
        return changelogCount(live());
    }

    public long indexAddCount() {
        return indexAddCount(live());
    }

    public long indexDeleteCount() {
        return indexDeleteCount(live());
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

    private static native void addPaimon(long handle, int section, byte[] avro);

    private static native long changelogCount(long handle);

    private static native long indexAddCount(long handle);

    private static native long indexDeleteCount(long handle);

    private static native long addCount(long handle);

    private static native long deleteCount(long handle);
}

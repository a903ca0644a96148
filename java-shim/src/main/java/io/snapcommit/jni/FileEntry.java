package io.snapcommit.jni;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/** One data file as recorded in manifests (partition, bucket, level, name, rows, size, key range). */
public final class FileEntry {
    private final byte[] partition;
    private final int bucket;
    private final int totalBuckets;
    private final int level;
    private final String file;
    private final long rows;
    private final long size;
    private final byte[] minKey;
    private final byte[] maxKey;

    public FileEntry(byte[] partition, int bucket, int totalBuckets, int level, String file, long rows,
                     long size, byte[] minKey, byte[] maxKey) {
        this.partition = partition == null ? new byte[0] : partition;
        this.bucket = bucket;
        this.totalBuckets = totalBuckets;
        this.level = level;
        this.file = Objects.requireNonNull(file, "file");
        this.rows = rows;
        this.size = size;
        this.minKey = minKey;
        this.maxKey = maxKey;
    }

    /** Called by the native library: the file name arrives as UTF-8 bytes. */
    FileEntry(byte[] partition, int bucket, int totalBuckets, int level, byte[] file, long rows, long size,
              byte[] minKey, byte[] maxKey) {
        this(partition, bucket, totalBuckets, level, new String(file, StandardCharsets.UTF_8), rows, size,
             minKey, maxKey);
    }

    /** An append-only file at level 0 without a key range. */
    public static FileEntry appendFile(String partition, int bucket, int totalBuckets, String file, long rows, long size) {
        return new FileEntry(partition.getBytes(StandardCharsets.UTF_8), bucket, totalBuckets, 0, file, rows, size,
                             null, null);
    }

    public byte[] partition() { return partition.clone(); }
    public String partitionString() { return new String(partition, StandardCharsets.UTF_8); }
    public int bucket() { return bucket; }
    public int totalBuckets() { return totalBuckets; }
    public int level() { return level; }
    public String file() { return file; }
    public long rows() { return rows; }
    public long size() { return size; }
    public byte[] minKey() { return minKey == null ? null : minKey.clone(); }
    public byte[] maxKey() { return maxKey == null ? null : maxKey.clone(); }

    byte[] partitionRaw() { return partition; }
    byte[] minKeyRaw() { return minKey; }
    byte[] maxKeyRaw() { return maxKey; }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof FileEntry)) return false;
        FileEntry e = (FileEntry) o;
        return bucket == e.bucket && totalBuckets == e.totalBuckets && level == e.level && rows == e.rows
               && size == e.size && file.equals(e.file) && Arrays.equals(partition, e.partition)
               && Arrays.equals(minKey, e.minKey) && Arrays.equals(maxKey, e.maxKey);
    }

    @Override
    public int hashCode() {
        return Objects.hash(file, bucket, level, rows, size, Arrays.hashCode(partition));
    }

    @Override
    public String toString() {
        return "FileEntry{" + file + ", partition=" + partitionString() + ", bucket=" + bucket + "/" + totalBuckets
               + ", level=" + level + ", rows=" + rows + ", size=" + size + "}";
    }
}

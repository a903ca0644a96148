package io.snapcommit.flink.internal;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

import io.snapcommit.jni.FileEntry;

/** One data file a writer put into storage, on its way to the committer. */
public final class DataFile {
    public final String key;        // relative to the table root: data/...
    public final String partition;  // "" when unpartitioned
    public final int bucket;
    public final int totalBuckets;  // 0 = not bucketed
    public final long rows;
    public final long size;

    public DataFile(String key, String partition, int bucket, int totalBuckets, long rows, long size) {
        this.key = Objects.requireNonNull(key);
        this.partition = Objects.requireNonNull(partition);
        this.bucket = bucket;
        this.totalBuckets = totalBuckets;
        this.rows = rows;
        this.size = size;
    }

    public FileEntry toEntry() {
        return new FileEntry(partition.getBytes(StandardCharsets.UTF_8), bucket, totalBuckets, 0, key, rows, size,
                             null, null);
    }

    void write(DataOutputStream out) throws IOException {
        out.writeUTF(key);
        out.writeUTF(partition);
        out.writeInt(bucket);
        out.writeInt(totalBuckets);
        out.writeLong(rows);
        out.writeLong(size);
    }

    static DataFile read(DataInputStream in) throws IOException {
        return new DataFile(in.readUTF(), in.readUTF(), in.readInt(), in.readInt(), in.readLong(), in.readLong());
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof DataFile)) return false;
        DataFile d = (DataFile) o;
        return key.equals(d.key) && partition.equals(d.partition) && bucket == d.bucket
               && totalBuckets == d.totalBuckets && rows == d.rows && size == d.size;
    }

    @Override
    public int hashCode() {
        return key.hashCode();
    }

    @Override
    public String toString() {
        return key + " (" + rows + " rows, " + size + " bytes)";
    }
}

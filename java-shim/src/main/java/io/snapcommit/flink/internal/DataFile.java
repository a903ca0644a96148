package io.snapcommit.flink.internal;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import io.snapcommit.jni.FileEntry;

/**
 * One data file a writer put into storage, on its way to the committer: its path relative to the
 * table root ({@code <partition path>/bucket-<b>/<file>}) and its complete manifest entry.
 */
public final class DataFile {
    private static final int MAX_LIST = 1 << 16;
    private static final int MAX_BYTES = 64 << 20;

    public final String path;
    public final FileEntry entry;

    public DataFile(String path, FileEntry entry) {
        this.path = Objects.requireNonNull(path);
        this.entry = Objects.requireNonNull(entry);
    }

    public long rows() {
        return entry.rows();
    }

    public FileEntry toEntry() {
        return entry;
    }

    void write(DataOutputStream out) throws IOException {
        out.writeUTF(path);
        FileEntry e = entry;
        out.writeUTF(e.file());
        writeBytes(out, e.partition());
        out.writeInt(e.bucket());
        out.writeInt(e.totalBuckets());
        out.writeInt(e.level());
        out.writeLong(e.rows());
        out.writeLong(e.size());
        writeBytes(out, e.minKey());
        writeBytes(out, e.maxKey());
        writeBytes(out, e.keyStatsMin());
        writeBytes(out, e.keyStatsMax());
        writeLongs(out, e.keyNullCounts());
        writeBytes(out, e.valueStatsMin());
        writeBytes(out, e.valueStatsMax());
        writeLongs(out, e.valueNullCounts());
        out.writeLong(e.minSequenceNumber());
        out.writeLong(e.maxSequenceNumber());
        out.writeLong(e.schemaId());
        writeStrings(out, e.extraFiles());
        writeOptionalLong(out, e.hasCreationTime(), e.creationTimeMillis());
        writeOptionalLong(out, e.hasDeleteRowCount(), e.deleteRowCount());
        writeOptionalLong(out, e.hasFileSource(), e.fileSource());
        writeStrings(out, e.valueStatsCols());
        writeBytes(out, e.embeddedIndex());
        out.writeBoolean(e.externalPath() != null);
        if (e.externalPath() != null) out.writeUTF(e.externalPath());
        writeOptionalLong(out, e.hasFirstRowId(), e.firstRowId());
        writeStrings(out, e.writeCols());
    }

    static DataFile read(DataInputStream in) throws IOException {
        String path = in.readUTF();
        FileEntry.Builder b = FileEntry.builder(in.readUTF());
        b.partition(readBytes(in)).bucket(in.readInt()).totalBuckets(in.readInt()).level(in.readInt())
         .rows(in.readLong()).size(in.readLong()).keys(readBytes(in), readBytes(in))
         .keyStats(readBytes(in), readBytes(in), readLongs(in))
         .valueStats(readBytes(in), readBytes(in), readLongs(in))
         .sequenceNumbers(in.readLong(), in.readLong()).schemaId(in.readLong());
        List<String> extra = readStrings(in);
        if (extra == null) throw new IOException("extra files missing");
        b.extraFiles(extra);
        if (in.readBoolean()) b.creationTimeMillis(in.readLong());
        if (in.readBoolean()) b.deleteRowCount(in.readLong());
        if (in.readBoolean()) b.fileSource((int) in.readLong());
        b.valueStatsCols(readStrings(in)).embeddedIndex(readBytes(in));
        if (in.readBoolean()) b.externalPath(in.readUTF());
        if (in.readBoolean()) b.firstRowId(in.readLong());
        b.writeCols(readStrings(in));
        return new DataFile(path, b.build());
    }

    private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
        out.writeInt(b == null ? -1 : b.length);
        if (b != null) out.write(b);
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n == -1) return null;
        if (n < 0 || n > MAX_BYTES) throw new IOException("bad byte field length " + n);
        byte[] b = new byte[n];
        in.readFully(b);
        return b;
    }

    private static void writeLongs(DataOutputStream out, long[] v) throws IOException {
        out.writeInt(v == null ? -1 : v.length);
        if (v != null) for (long x : v) out.writeLong(x);
    }

    private static long[] readLongs(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n == -1) return null;
        if (n < 0 || n > MAX_LIST) throw new IOException("bad null count length " + n);
        long[] v = new long[n];
        for (int i = 0; i < n; i++) v[i] = in.readLong();
        return v;
    }

    private static void writeStrings(DataOutputStream out, List<String> l) throws IOException {
        out.writeInt(l == null ? -1 : l.size());
        if (l != null) for (String s : l) out.writeUTF(s);
    }

    private static List<String> readStrings(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n == -1) return null;
        if (n < 0 || n > MAX_LIST) throw new IOException("bad list length " + n);
        List<String> l = new ArrayList<>(n);
        for (int i = 0; i < n; i++) l.add(in.readUTF());
        return l;
    }

    private static void writeOptionalLong(DataOutputStream out, boolean present, long v) throws IOException {
        out.writeBoolean(present);
        if (present) out.writeLong(v);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DataFile && path.equals(((DataFile) o).path) && entry.equals(((DataFile) o).entry);
    }

    @Override
    public int hashCode() {
        return path.hashCode();
    }

    @Override
    public String toString() {
        return path + " (" + entry.rows() + " rows, " + entry.size() + " bytes)";
    }
}

package io.snapcommit.jni;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * One data file as Paimon's manifests record it: the entry's partition and bucket plus the whole
 * DataFileMeta (sc_file_entry v2 of {@code snapcommit/types.h}). Byte fields hold Paimon's
 * serialized BinaryRows ({@code SerializationUtils.serializeBinaryRow}: 4-byte big-endian arity,
 * then the row). Immutable; getters return copies.
 *
 * <p>Absent optional fields are {@code null} (byte fields, {@link #valueStatsCols()},
 * {@link #writeCols()}, {@link #externalPath()}) or have their {@code has...()} flag false.
 * A null count of {@code -1} stands for Paimon's null (unknown).
 */
public final class FileEntry {
    // Indexes of the native form (jni/jni_internal.h, SCJ_FE_*): keep in step.
    static final int NUMS = 16, BYTES = 10;
    private static final int BUCKET = 0, TOTAL_BUCKETS = 1, LEVEL = 2, ROWS = 3, SIZE = 4, MIN_SEQ = 5,
        MAX_SEQ = 6, SCHEMA_ID = 7, HAS_CREATION_TIME = 8, CREATION_TIME = 9, HAS_DELETE_ROW_COUNT = 10,
        DELETE_ROW_COUNT = 11, HAS_FILE_SOURCE = 12, FILE_SOURCE = 13, HAS_FIRST_ROW_ID = 14, FIRST_ROW_ID = 15;
    private static final int PARTITION = 0, FILE = 1, MIN_KEY = 2, MAX_KEY = 3, KEY_MIN = 4, KEY_MAX = 5,
        VALUE_MIN = 6, VALUE_MAX = 7, EMBEDDED_INDEX = 8, EXTERNAL_PATH = 9;

    /** Paimon's FileSource codes. */
    public static final int FILE_SOURCE_APPEND = 0, FILE_SOURCE_COMPACT = 1;

    private final long[] nums;
    private final byte[][] bytes;       // FILE and EXTERNAL_PATH as plain UTF-8 (no terminator)
    private final List<String> extraFiles;
    private final List<String> valueStatsCols; // null = every column
    private final List<String> writeCols;      // null = absent
    private final long[] keyNullCounts;        // null = absent
    private final long[] valueNullCounts;

    private FileEntry(Builder b) {
        Objects.requireNonNull(b.file, "file");
        nums = b.nums.clone();
        bytes = new byte[BYTES][];
        for (int i = 0; i < BYTES; i++) bytes[i] = b.bytes[i] == null ? null : b.bytes[i].clone();
        bytes[FILE] = b.file.getBytes(StandardCharsets.UTF_8);
        bytes[EXTERNAL_PATH] = b.externalPath == null ? null : b.externalPath.getBytes(StandardCharsets.UTF_8);
        extraFiles = Collections.unmodifiableList(new ArrayList<>(b.extraFiles));
        valueStatsCols = b.valueStatsCols == null ? null : Collections.unmodifiableList(new ArrayList<>(b.valueStatsCols));
        writeCols = b.writeCols == null ? null : Collections.unmodifiableList(new ArrayList<>(b.writeCols));
        keyNullCounts = b.keyNullCounts == null ? null : b.keyNullCounts.clone();
        valueNullCounts = b.valueNullCounts == null ? null : b.valueNullCounts.clone();
    }

    /** The basic fields of an entry; every other field absent (v1-style; tests and simple callers). */
    public FileEntry(byte[] partition, int bucket, int totalBuckets, int level, String file, long rows,
                     long size, byte[] minKey, byte[] maxKey) {
        this(builder(file).partition(partition).bucket(bucket).totalBuckets(totalBuckets).level(level).rows(rows)
                 .size(size).keys(minKey, maxKey));
    }

    /** Called by the native library with the native form (jni/jni_entry.c). */
    FileEntry(long[] nums, byte[][] bytes, byte[][] extraFiles, byte[][] valueStatsCols, byte[][] writeCols,
              long[] keyNullCounts, long[] valueNullCounts) {
        this(fromNative(nums, bytes, extraFiles, valueStatsCols, writeCols, keyNullCounts, valueNullCounts));
    }

    private static Builder fromNative(long[] nums, byte[][] bytes, byte[][] extraFiles, byte[][] valueStatsCols,
                                      byte[][] writeCols, long[] keyNullCounts, long[] valueNullCounts) {
        if (nums.length != NUMS || bytes.length != BYTES) throw new IllegalStateException("bad native file entry");
        Builder b = builder(new String(bytes[FILE], StandardCharsets.UTF_8));
        System.arraycopy(nums, 0, b.nums, 0, NUMS);
        for (int i = 0; i < BYTES; i++) if (i != FILE && i != EXTERNAL_PATH) b.bytes[i] = bytes[i];
        b.externalPath = bytes[EXTERNAL_PATH] == null ? null : new String(bytes[EXTERNAL_PATH], StandardCharsets.UTF_8);
        b.extraFiles = strings(extraFiles);
        b.valueStatsCols = valueStatsCols == null ? null : strings(valueStatsCols);
        b.writeCols = writeCols == null ? null : strings(writeCols);
        b.keyNullCounts = keyNullCounts;
        b.valueNullCounts = valueNullCounts;
        return b;
    }

    private static List<String> strings(byte[][] arr) {
        List<String> l = new ArrayList<>(arr.length);
        for (byte[] s : arr) l.add(new String(s, StandardCharsets.UTF_8));
        return l;
    }

    private static byte[][] zStrings(List<String> l) {
        if (l == null) return null;
        byte[][] out = new byte[l.size()][];
        for (int i = 0; i < out.length; i++) out[i] = Utf8.z(l.get(i));
        return out;
    }

    /** An append-only file at level 0 without a key range or statistics. */
    public static FileEntry appendFile(byte[] partition, int bucket, int totalBuckets, String file, long rows,
                                       long size) {
        return new FileEntry(partition, bucket, totalBuckets, 0, file, rows, size, null, null);
    }

    /** As {@link #appendFile(byte[], int, int, String, long, long)} with the partition's bytes as UTF-8 text. */
    public static FileEntry appendFile(String partition, int bucket, int totalBuckets, String file, long rows,
                                       long size) {
        return appendFile(partition.getBytes(StandardCharsets.UTF_8), bucket, totalBuckets, file, rows, size);
    }

    public static Builder builder(String file) {
        return new Builder(file);
    }

    /** A builder holding this entry's fields. */
    public Builder toBuilder() {
        return fromNative(nums, bytes, zStripped(extraFiles), zStripped(valueStatsCols), zStripped(writeCols),
                          keyNullCounts, valueNullCounts);
    }

    private static byte[][] zStripped(List<String> l) {
        if (l == null) return null;
        byte[][] out = new byte[l.size()][];
        for (int i = 0; i < out.length; i++) out[i] = l.get(i).getBytes(StandardCharsets.UTF_8);
        return out;
    }

    /** Arguments of the native calls, in jni/jni_entry.c's order. */
    Object[] toNative() {
        byte[][] b = new byte[BYTES][];
        for (int i = 0; i < BYTES; i++) b[i] = bytes[i];
        b[FILE] = Utf8.z(file());
        b[EXTERNAL_PATH] = externalPath() == null ? null : Utf8.z(externalPath());
        return new Object[] {nums.clone(), b, zStrings(extraFiles), zStrings(valueStatsCols), zStrings(writeCols),
                             keyNullCounts, valueNullCounts};
    }

    private static byte[] copy(byte[] b) { return b == null ? null : b.clone(); }

    /** Serialized BinaryRow of the partition fields (empty array when absent). */
    public byte[] partition() { return bytes[PARTITION] == null ? new byte[0] : bytes[PARTITION].clone(); }
    /** The partition bytes as UTF-8 text (for v1-style text partitions in tests). */
    public String partitionString() { return new String(partition(), StandardCharsets.UTF_8); }
    public int bucket() { return (int) nums[BUCKET]; }
    public int totalBuckets() { return (int) nums[TOTAL_BUCKETS]; }
    public int level() { return (int) nums[LEVEL]; }
    /** File name only; the file lives at {@code <partition path>/bucket-<b>/<file>}. */
    public String file() { return new String(bytes[FILE], StandardCharsets.UTF_8); }
    public long rows() { return nums[ROWS]; }
    public long size() { return nums[SIZE]; }
    public byte[] minKey() { return copy(bytes[MIN_KEY]); }
    public byte[] maxKey() { return copy(bytes[MAX_KEY]); }
    public byte[] keyStatsMin() { return copy(bytes[KEY_MIN]); }
    public byte[] keyStatsMax() { return copy(bytes[KEY_MAX]); }
    public long[] keyNullCounts() { return keyNullCounts == null ? null : keyNullCounts.clone(); }
    public byte[] valueStatsMin() { return copy(bytes[VALUE_MIN]); }
    public byte[] valueStatsMax() { return copy(bytes[VALUE_MAX]); }
    public long[] valueNullCounts() { return valueNullCounts == null ? null : valueNullCounts.clone(); }
    public long minSequenceNumber() { return nums[MIN_SEQ]; }
    public long maxSequenceNumber() { return nums[MAX_SEQ]; }
    public long schemaId() { return nums[SCHEMA_ID]; }
    public List<String> extraFiles() { return extraFiles; }
    public boolean hasCreationTime() { return nums[HAS_CREATION_TIME] != 0; }
    /** Local wall-clock millis, as Paimon writes them. */
    public long creationTimeMillis() { return nums[CREATION_TIME]; }
    public boolean hasDeleteRowCount() { return nums[HAS_DELETE_ROW_COUNT] != 0; }
    public long deleteRowCount() { return nums[DELETE_ROW_COUNT]; }
    public boolean hasFileSource() { return nums[HAS_FILE_SOURCE] != 0; }
    public int fileSource() { return (int) nums[FILE_SOURCE]; }
    /** Columns the value stats cover; null = every column of the schema. */
    public List<String> valueStatsCols() { return valueStatsCols; }
    public byte[] embeddedIndex() { return copy(bytes[EMBEDDED_INDEX]); }
    public String externalPath() {
        return bytes[EXTERNAL_PATH] == null ? null : new String(bytes[EXTERNAL_PATH], StandardCharsets.UTF_8);
    }
    public boolean hasFirstRowId() { return nums[HAS_FIRST_ROW_ID] != 0; }
    public long firstRowId() { return nums[FIRST_ROW_ID]; }
    public List<String> writeCols() { return writeCols; }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof FileEntry)) return false;
        FileEntry e = (FileEntry) o;
        return Arrays.equals(nums, e.nums) && Arrays.deepEquals(bytes, e.bytes) && extraFiles.equals(e.extraFiles)
               && Objects.equals(valueStatsCols, e.valueStatsCols) && Objects.equals(writeCols, e.writeCols)
               && Arrays.equals(keyNullCounts, e.keyNullCounts) && Arrays.equals(valueNullCounts, e.valueNullCounts);
    }

    @Override
    public int hashCode() {
        return Objects.hash(file(), bucket(), level(), rows(), size(), Arrays.hashCode(bytes[PARTITION]));
    }

    @Override
    public String toString() {
        return "FileEntry{" + file() + ", partition=" + hex(bytes[PARTITION]) + ", bucket=" + bucket() + "/"
               + totalBuckets() + ", level=" + level() + ", rows=" + rows() + ", size=" + size() + ", seq="
               + minSequenceNumber() + ".." + maxSequenceNumber() + ", schema=" + schemaId() + "}";
    }

    private static String hex(byte[] b) {
        if (b == null) return "absent";
        StringBuilder sb = new StringBuilder();
        for (byte x : b) sb.append(String.format("%02x", x & 0xff));
        return sb.toString();
    }

    /** Builds a FileEntry; every field but the file name is optional. */
    public static final class Builder {
        private final long[] nums = new long[NUMS];
        private final byte[][] bytes = new byte[BYTES][];
        private String file;
        private String externalPath;
        private List<String> extraFiles = Collections.emptyList();
        private List<String> valueStatsCols;
        private List<String> writeCols;
        private long[] keyNullCounts;
        private long[] valueNullCounts;

        private Builder(String file) { this.file = Objects.requireNonNull(file, "file"); }

        public Builder file(String f) { this.file = Objects.requireNonNull(f, "file"); return this; }
        public Builder partition(byte[] p) { bytes[PARTITION] = p; return this; }
        public Builder bucket(int b) { nums[BUCKET] = b; return this; }
        public Builder totalBuckets(int n) { nums[TOTAL_BUCKETS] = n; return this; }
        public Builder level(int l) { nums[LEVEL] = l; return this; }
        public Builder rows(long r) { nums[ROWS] = r; return this; }
        public Builder size(long s) { nums[SIZE] = s; return this; }
        public Builder keys(byte[] min, byte[] max) { bytes[MIN_KEY] = min; bytes[MAX_KEY] = max; return this; }
        public Builder keyStats(byte[] min, byte[] max, long[] nullCounts) {
            bytes[KEY_MIN] = min; bytes[KEY_MAX] = max; keyNullCounts = nullCounts; return this;
        }
        public Builder valueStats(byte[] min, byte[] max, long[] nullCounts) {
            bytes[VALUE_MIN] = min; bytes[VALUE_MAX] = max; valueNullCounts = nullCounts; return this;
        }
        public Builder sequenceNumbers(long min, long max) { nums[MIN_SEQ] = min; nums[MAX_SEQ] = max; return this; }
        public Builder schemaId(long id) { nums[SCHEMA_ID] = id; return this; }
        public Builder extraFiles(List<String> f) { extraFiles = Objects.requireNonNull(f, "extraFiles"); return this; }
        public Builder creationTimeMillis(long t) { nums[HAS_CREATION_TIME] = 1; nums[CREATION_TIME] = t; return this; }
        public Builder deleteRowCount(long n) { nums[HAS_DELETE_ROW_COUNT] = 1; nums[DELETE_ROW_COUNT] = n; return this; }
        public Builder fileSource(int s) { nums[HAS_FILE_SOURCE] = 1; nums[FILE_SOURCE] = s; return this; }
        public Builder valueStatsCols(List<String> c) { valueStatsCols = c; return this; }
        public Builder embeddedIndex(byte[] i) { bytes[EMBEDDED_INDEX] = i; return this; }
        public Builder externalPath(String p) { externalPath = p; return this; }
        public Builder firstRowId(long id) { nums[HAS_FIRST_ROW_ID] = 1; nums[FIRST_ROW_ID] = id; return this; }
        public Builder writeCols(List<String> c) { writeCols = c; return this; }

        public FileEntry build() { return new FileEntry(this); }
    }
}

package io.snapcommit.flink.paimon;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.data.BinaryArray;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fileindex.FileIndexOptions;
import org.apache.paimon.format.FileFormat;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.io.RollingFileWriter;
import org.apache.paimon.io.RowDataFileWriter;
import org.apache.paimon.manifest.FileSource;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.stats.SimpleStats;
import org.apache.paimon.table.sink.AppendTableRowKeyExtractor;
import org.apache.paimon.table.sink.FixedBucketRowKeyExtractor;
import org.apache.paimon.table.sink.RowKeyExtractor;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.LongCounter;
import org.apache.paimon.utils.SerializationUtils;
import org.apache.paimon.utils.StatsCollectorFactories;

import io.snapcommit.jni.FileEntry;

/**
 * The data plane of one writer subtask: Paimon rows in, Paimon data files out, each described by
 * the DataFileMeta that Paimon's own writer computes.
 *
 * <p>Rows are routed as Paimon routes them: the partition BinaryRow and the bucket come from
 * Paimon's row key extractors ({@link AppendTableRowKeyExtractor} for bucket-unaware append tables,
 * bucket 0 of total -1; {@link FixedBucketRowKeyExtractor} with Paimon's bucket function for
 * 'bucket' = N), so a Paimon writer would put every row in the same bucket. Each (partition,
 * bucket) gets a {@link RowDataFileWriter} — Paimon's writer of append data files, with the table's
 * format, compression and per-column stats collectors (truncate(16) by default) — writing into a
 * local temporary file; the finished file's bytes go to the caller, which stores them through the
 * native store. Sequence numbers count the rows of each (partition, bucket) in this subtask from 0,
 * as a Paimon append writer that restored no files does.
 */
public final class PaimonDataWriter implements AutoCloseable {
    /** A finished data file: its bytes, its path relative to the table root, and its manifest entry. */
    public static final class Written {
        public final String path;
        public final byte[] bytes;
        public final FileEntry entry;

        Written(String path, byte[] bytes, FileEntry entry) {
            this.path = path;
            this.bytes = bytes;
            this.entry = entry;
        }
    }

    private final PaimonTableSpec spec;
    private final TableSchema schema;
    private final CoreOptions options;
    private final RowType rowType;
    private final FileFormat format;
    private final String formatName;
    private final RowKeyExtractor extractor;
    private final int totalBuckets;
    private final long targetFileSize;
    private final java.nio.file.Path tmpDir;
    private final FileSource fileSource;
    private final long firstSequence;
    private final Map<Key, BucketWriter> open = new LinkedHashMap<>();
    private final Map<Key, LongCounter> sequence = new LinkedHashMap<>();
    private final Map<Key, String> uuids = new LinkedHashMap<>();
    private final Map<Key, Integer> fileCounters = new LinkedHashMap<>();

    private static final class Key {
        final BinaryRow partition;
        final int bucket;

        Key(BinaryRow partition, int bucket) {
            this.partition = partition;
            this.bucket = bucket;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key && ((Key) o).bucket == bucket && ((Key) o).partition.equals(partition);
        }

        @Override
        public int hashCode() {
            return partition.hashCode() * 31 + bucket;
        }
    }

    private final class BucketWriter {
        final Key key;
        final String path;
        final java.nio.file.Path tmp;
        final RowDataFileWriter writer;

        BucketWriter(Key key) throws IOException {
            this.key = key;
            String uuid = uuids.computeIfAbsent(key, k -> UUID.randomUUID().toString());
            int n = fileCounters.merge(key, 1, Integer::sum) - 1;
            String name = options.dataFilePrefix() + uuid + "-" + n + "." + formatName;
            String dir = partitionPath(key.partition);
            this.path = (dir.isEmpty() ? "" : dir + "/") + "bucket-" + key.bucket + "/" + name;
            // Named as the data file: Paimon's writer takes the file name of DataFileMeta from this path.
            // Names are unique (a fresh uuid per partition/bucket and writer), and the directory is this
            // writer's own.
            this.tmp = tmpDir.resolve(name);
            LongCounter seq = sequence.computeIfAbsent(key, k -> new LongCounter(firstSequence));
            this.writer = new RowDataFileWriter(
                LocalFileIO.create(),
                RollingFileWriter.createFileWriterContext(
                    format, rowType,
                    StatsCollectorFactories.createStatsFactories(options.statsMode(), options, rowType.getFieldNames()),
                    options.fileCompression()),
                new Path(tmp.toUri()), rowType, schema.id(), () -> seq, new FileIndexOptions(options),
                fileSource, false, options.statsDenseStore(), false, null);
        }
    }

    public PaimonDataWriter(PaimonTableSpec spec, long targetFileSize, java.nio.file.Path tmpDir) {
        this(spec, targetFileSize, tmpDir, FileSource.APPEND, 0);
    }

    /**
     * A writer whose files record {@code fileSource} and whose sequence numbers start at
     * {@code firstSequence} in each (partition, bucket): an append compaction writes
     * {@link FileSource#COMPACT} files numbered from its first input's minimum sequence number, as
     * Paimon's compaction rewrite does.
     */
    PaimonDataWriter(PaimonTableSpec spec, long targetFileSize, java.nio.file.Path tmpDir, FileSource fileSource,
                     long firstSequence) {
        this.fileSource = Objects.requireNonNull(fileSource);
        this.firstSequence = firstSequence;
        this.spec = spec;
        this.schema = spec.schema();
        this.options = new CoreOptions(schema.options());
        this.rowType = schema.logicalRowType();
        this.formatName = options.fileFormatString();
        this.format = FileFormat.fileFormat(options);
        if (!schema.primaryKeys().isEmpty())
            throw new IllegalArgumentException("primary-key tables are not written by the snapcommit sink yet");
        int bucket = options.bucket();
        if (bucket == -1) {
            extractor = new AppendTableRowKeyExtractor(schema);
            totalBuckets = -1;
        } else if (bucket > 0) {
            extractor = new FixedBucketRowKeyExtractor(schema);
            totalBuckets = bucket;
        } else {
            throw new IllegalArgumentException("bucket " + bucket + " is not supported (use -1 or N > 0)");
        }
        this.targetFileSize = targetFileSize;
        this.tmpDir = Objects.requireNonNull(tmpDir);
    }

    /** Hive-style partition path of a partition row, escaped as Paimon escapes it ("" when unpartitioned). */
    public String partitionPath(BinaryRow partition) {
        return spec.partitionPath(partition);
    }

    /** The partition row and bucket Paimon assigns to a row. */
    public BinaryRow partitionOf(InternalRow row) {
        extractor.setRecord(row);
        return extractor.partition().copy();
    }

    public int bucketOf(InternalRow row) {
        extractor.setRecord(row);
        return extractor.bucket();
    }

    /** Writes a row; returns the files that reached the target size and were finished. */
    public List<Written> write(InternalRow row) throws IOException {
        extractor.setRecord(row);
        BinaryRow partition = extractor.partition();
        int bucket = extractor.bucket();
        Key probe = new Key(partition, bucket);
        BucketWriter w = open.get(probe);
        if (w == null) {
            Key key = new Key(partition.copy(), bucket);
            w = new BucketWriter(key);
            open.put(key, w);
        }
        w.writer.write(row);
        if (w.writer.reachTargetSize(true, targetFileSize)) {
            open.remove(w.key);
            List<Written> done = new ArrayList<>(1);
            done.add(finish(w));
            return done;
        }
        return List.of();
    }

    /** Finishes every open file. */
    public List<Written> flush() throws IOException {
        List<Written> done = new ArrayList<>(open.size());
        try {
            for (BucketWriter w : open.values()) done.add(finish(w));
        } finally {
            open.clear();
        }
        return done;
    }

    private Written finish(BucketWriter w) throws IOException {
        try {
            w.writer.close();
            DataFileMeta meta = w.writer.result();
            byte[] bytes = Files.readAllBytes(w.tmp);
            if (meta.fileSize() != bytes.length)
                throw new IOException("data file " + w.path + ": Paimon reported " + meta.fileSize() + " bytes, the file has "
                                      + bytes.length);
            if (!meta.extraFiles().isEmpty())
                throw new IOException("data file " + w.path + " has extra files " + meta.extraFiles()
                                      + " (file indexes are not supported by the snapcommit sink)");
            return new Written(w.path, bytes, entry(w.key, meta));
        } finally {
            Files.deleteIfExists(w.tmp);
        }
    }

    private FileEntry entry(Key key, DataFileMeta m) {
        FileEntry.Builder b = FileEntry.builder(m.fileName())
            .partition(SerializationUtils.serializeBinaryRow(key.partition))
            .bucket(key.bucket).totalBuckets(totalBuckets).level(m.level())
            .rows(m.rowCount()).size(m.fileSize())
            .keys(SerializationUtils.serializeBinaryRow(m.minKey()), SerializationUtils.serializeBinaryRow(m.maxKey()))
            .keyStats(min(m.keyStats()), max(m.keyStats()), nullCounts(m.keyStats()))
            .valueStats(min(m.valueStats()), max(m.valueStats()), nullCounts(m.valueStats()))
            .sequenceNumbers(m.minSequenceNumber(), m.maxSequenceNumber())
            .schemaId(m.schemaId())
            .extraFiles(m.extraFiles())
            .creationTimeMillis(m.creationTime().getMillisecond())
            .valueStatsCols(m.valueStatsCols())
            .embeddedIndex(m.embeddedIndex())
            .externalPath(m.externalPath().orElse(null))
            .writeCols(m.writeCols());
        m.deleteRowCount().ifPresent(b::deleteRowCount);
        m.fileSource().ifPresent(s -> b.fileSource(s.toByteValue()));
        if (m.firstRowId() != null) b.firstRowId(m.firstRowId());
        return b.build();
    }

    private static byte[] min(SimpleStats s) { return SerializationUtils.serializeBinaryRow(s.minValues()); }

    private static byte[] max(SimpleStats s) { return SerializationUtils.serializeBinaryRow(s.maxValues()); }

    /** Paimon's null counts; a null element (unknown) becomes -1. */
    public static long[] nullCounts(SimpleStats s) {
        BinaryArray a = s.nullCounts();
        long[] out = new long[a.size()];
        for (int i = 0; i < out.length; i++) out[i] = a.isNullAt(i) ? -1 : a.getLong(i);
        return out;
    }

    /** Drops unfinished files (their temporary files are deleted). */
    @Override
    public void close() {
        for (BucketWriter w : open.values()) {
            w.writer.abort();
            try {
                Files.deleteIfExists(w.tmp);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        open.clear();
    }
}

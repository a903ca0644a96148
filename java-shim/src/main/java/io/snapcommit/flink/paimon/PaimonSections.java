package io.snapcommit.flink.paimon;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;

import org.apache.paimon.format.FileFormat;
import org.apache.paimon.format.FormatWriter;
import org.apache.paimon.format.FormatWriterFactory;
import org.apache.paimon.fs.PositionOutputStream;
import org.apache.paimon.manifest.IndexManifestEntry;
import org.apache.paimon.manifest.IndexManifestEntrySerializer;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.manifest.ManifestEntrySerializer;
import org.apache.paimon.operation.commit.ManifestEntryChanges;
import org.apache.paimon.options.Options;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.utils.ObjectSerializer;
import org.apache.paimon.utils.VersionedObjectSerializer;

import io.snapcommit.jni.NativeChanges;

/**
 * One checkpoint's CommitMessages as the sections the native commit takes: split by Paimon's own
 * {@link ManifestEntryChanges} (as FileStoreCommitImpl splits them) into the APPEND part (new and
 * deleted data files, changelog, index files of the data increment) and the COMPACT part
 * (compactBefore as deletes, compactAfter as adds, its changelog and index files), each section
 * encoded in memory as a Paimon manifest-format Avro container with Paimon's own serializers and
 * Avro writer — the bytes of a manifest file, never written to storage.
 */
public final class PaimonSections {
    /** One part of a checkpoint: its three sections, null where the part has no record. */
    public static final class Part {
        public final byte[] data;
        public final byte[] changelog;
        public final byte[] index;
        public final int dataRecords;
        public final int changelogRecords;
        public final int indexRecords;
        /** Data files this part adds (ADD records of its data section). */
        public final int addedDataFiles;

        Part(List<ManifestEntry> data, List<ManifestEntry> changelog, List<IndexManifestEntry> index,
             String compression) throws IOException {
            this.data = data.isEmpty() ? null : manifestEntries(data, compression);
            this.changelog = changelog.isEmpty() ? null : manifestEntries(changelog, compression);
            this.index = index.isEmpty() ? null : indexEntries(index, compression);
            this.dataRecords = data.size();
            this.changelogRecords = changelog.size();
            this.indexRecords = index.size();
            this.addedDataFiles = (int) data.stream().filter(e -> e.kind() == org.apache.paimon.manifest.FileKind.ADD).count();
        }

        public boolean isEmpty() {
            return data == null && changelog == null && index == null;
        }

        /** This part as a native change set, or null when it is empty. */
        public NativeChanges toNative() {
            if (isEmpty()) return null;
            NativeChanges c = new NativeChanges();
            try {
                if (data != null) c.addPaimon(NativeChanges.SECTION_DATA, data);
                if (changelog != null) c.addPaimon(NativeChanges.SECTION_CHANGELOG, changelog);
                if (index != null) c.addPaimon(NativeChanges.SECTION_INDEX, index);
                return c;
            } catch (RuntimeException e) {
                c.close();
                throw e;
            }
        }

        @Override
        public String toString() {
            return dataRecords + " data, " + changelogRecords + " changelog, " + indexRecords + " index record(s)";
        }
    }

    public final Part append;
    public final Part compact;

    private PaimonSections(Part append, Part compact) {
        this.append = append;
        this.compact = compact;
    }

    /**
     * @param defaultBuckets the table's bucket option: the total buckets of an entry whose message
     *     does not say (Paimon's ManifestEntryChanges rule)
     * @param compression the Avro codec (the table's manifest.compression)
     */
    public static PaimonSections of(List<CommitMessage> messages, int defaultBuckets, String compression)
            throws IOException {
        ManifestEntryChanges c = new ManifestEntryChanges(defaultBuckets);
        for (CommitMessage m : messages) c.collect(m);
        return new PaimonSections(new Part(c.appendTableFiles, c.appendChangelog, c.appendIndexFiles, compression),
                                  new Part(c.compactTableFiles, c.compactChangelog, c.compactIndexFiles, compression));
    }

    static byte[] manifestEntries(List<ManifestEntry> entries, String compression) throws IOException {
        return avro(VersionedObjectSerializer.versionType(ManifestEntry.SCHEMA), new ManifestEntrySerializer(),
                    entries, compression);
    }

    static byte[] indexEntries(List<IndexManifestEntry> entries, String compression) throws IOException {
        return avro(VersionedObjectSerializer.versionType(IndexManifestEntry.SCHEMA), new IndexManifestEntrySerializer(),
                    entries, compression);
    }

    /** Paimon's ObjectsFile write path (writer factory of the avro format, serializer.toRow) into memory. */
    private static <T> byte[] avro(org.apache.paimon.types.RowType type, ObjectSerializer<T> serializer,
                                   List<T> records, String compression) throws IOException {
        FormatWriterFactory factory = FileFormat.fromIdentifier("avro", new Options()).createWriterFactory(type);
        BytesOutput out = new BytesOutput();
        try (FormatWriter writer = factory.create(out, compression)) {
            for (T r : records) writer.addElement(serializer.toRow(r));
        }
        return out.bytes.toByteArray();
    }

    /** A PositionOutputStream over a byte array: where Paimon's writer puts the container. */
    static final class BytesOutput extends PositionOutputStream {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        @Override
        public long getPos() {
            return bytes.size();
        }

        @Override
        public void write(int b) {
            bytes.write(b);
        }

        @Override
        public void write(byte[] b) {
            bytes.write(b, 0, b.length);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            bytes.write(b, off, len);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    }
}

package io.snapcommit.flink.paimon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.format.FileFormat;
import org.apache.paimon.format.FormatReaderContext;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.FileKind;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.manifest.ManifestEntrySerializer;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.utils.VersionedObjectSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.snapcommit.jni.StoreConfig;

/**
 * Paimon's own write path over a local table and the sections the committer makes of its
 * CommitMessages, judged by Paimon's own Avro reader (no native library involved).
 */
class PaimonSectionsTest {
    @TempDir Path dir;

    static final RowType ROW = RowType.of(new LogicalType[] {new VarCharType(VarCharType.MAX_LENGTH), new BigIntType()},
                                          new String[] {"dt", "id"});

    private List<CommitMessage> write(PaimonTableSpec spec, Map<String, String> options, int rows) throws Exception {
        FileStoreTable table = PaimonStoreTable.open(dir.toString(), StoreConfig.DEFAULTS, spec, options);
        RowConverter conv = new RowConverter(ROW);
        try (TableWriteImpl<?> w = table.newWrite("u", 0)) {
            for (int i = 0; i < rows; i++)
                w.write(conv.convert(GenericRowData.of(StringData.fromString("d" + (i % 2)), (long) i)));
            return w.prepareCommit(false, 1);
        }
    }

    /** The data files are written by Paimon's FileIO straight under the table, where the messages say. */
    @Test
    void writerPutsDataFilesUnderTheTable() throws Exception {
        PaimonTableSpec spec = PaimonTableSpec.derive(ROW, List.of("dt"), List.of(), Map.of());
        List<CommitMessage> messages = write(spec, Map.of("write-only", "true"), 10);
        assertEquals(2, messages.size(), "one message per partition (bucket 0 of an unaware table)");
        List<String> onDisk;
        try (Stream<Path> s = Files.walk(dir)) {
            onDisk = s.filter(p -> p.getFileName().toString().startsWith("data-"))
                      .map(p -> dir.relativize(p).toString()).sorted().collect(Collectors.toList());
        }
        List<String> named = new ArrayList<>();
        for (CommitMessage m : messages)
            for (DataFileMeta f : ((CommitMessageImpl) m).newFilesIncrement().newFiles())
                named.add(spec.partitionPath(m.partition()) + "/bucket-0/" + f.fileName());
        named.sort(null);
        assertEquals(named, onDisk);
    }

    /** The APPEND data section reads back with Paimon's Avro reader as Paimon's own ManifestEntries. */
    @Test
    void appendSectionIsPaimonManifestAvro() throws Exception {
        PaimonTableSpec spec = PaimonTableSpec.derive(ROW, List.of("dt"), List.of(), Map.of("bucket", "2",
                                                                                            "bucket-key", "id"));
        List<CommitMessage> messages = write(spec, Map.of("write-only", "true"), 20);
        PaimonSections s = PaimonSections.of(messages, 2, "zstd");
        assertTrue(s.compact.isEmpty(), "write-only: nothing compacted");
        assertNull(s.append.changelog);
        assertNull(s.append.index);
        List<ManifestEntry> back = read(s.append.data);
        int files = 0;
        for (CommitMessage m : messages) files += ((CommitMessageImpl) m).newFilesIncrement().newFiles().size();
        assertEquals(files, back.size());
        assertEquals(files, s.append.addedDataFiles);
        long rows = 0;
        for (ManifestEntry e : back) {
            assertEquals(FileKind.ADD, e.kind());
            assertEquals(2, e.totalBuckets());
            assertTrue(e.bucket() == 0 || e.bucket() == 1);
            rows += e.file().rowCount();
        }
        assertEquals(20, rows);
    }

    /** Compacted files of a fixed-bucket writer go to the COMPACT part: before as DELETE, after as ADD. */
    @Test
    void compactionGoesToTheCompactPart() throws Exception {
        PaimonTableSpec spec = PaimonTableSpec.derive(ROW, List.of(), List.of(), Map.of("bucket", "1",
                                                                                       "bucket-key", "id"));
        FileStoreTable table = PaimonStoreTable.open(dir.toString(), StoreConfig.DEFAULTS, spec,
                                                     Map.of("compaction.min.file-num", "2"));
        RowConverter conv = new RowConverter(ROW);
        List<CommitMessage> all = new ArrayList<>();
        try (TableWriteImpl<?> w = table.newWrite("u", 0)) {
            for (int c = 1; c <= 3; c++) {
                w.write(conv.convert(GenericRowData.of(StringData.fromString("x"), (long) c)));
                all.addAll(w.prepareCommit(c == 3, c));
            }
        }
        PaimonSections s = PaimonSections.of(all, 1, "zstd");
        assertEquals(3, s.append.addedDataFiles);
        List<ManifestEntry> compact = read(s.compact.data);
        long deletes = compact.stream().filter(e -> e.kind() == FileKind.DELETE).count();
        long adds = compact.stream().filter(e -> e.kind() == FileKind.ADD).count();
        assertTrue(deletes >= 2, "compactBefore as DELETE: " + compact);
        assertEquals(1, adds, "compactAfter as ADD: " + compact);
    }

    static List<ManifestEntry> read(byte[] avro) throws Exception {
        Path f = Files.createTempFile("section", ".avro");
        try {
            Files.write(f, avro);
            FileFormat format = FileFormat.fromIdentifier("avro", new Options());
            org.apache.paimon.types.RowType type = VersionedObjectSerializer.versionType(ManifestEntry.SCHEMA);
            ManifestEntrySerializer ser = new ManifestEntrySerializer();
            List<ManifestEntry> out = new ArrayList<>();
            org.apache.paimon.fs.Path path = new org.apache.paimon.fs.Path(f.toUri());
            LocalFileIO io = LocalFileIO.create();
            try (RecordReader<InternalRow> r = format.createReaderFactory(type, type, List.of())
                     .createReader(new FormatReaderContext(io, path, io.getFileSize(path)))) {
                r.forEachRemaining(row -> out.add(ser.fromRow(row)));
            }
            return out;
        } finally {
            Files.deleteIfExists(f);
        }
    }
}

package io.snapcommit.demo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.text.SimpleDateFormat;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;

import org.apache.paimon.data.InternalRow;
import org.apache.paimon.format.FileFormat;
import org.apache.paimon.format.FormatReaderContext;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.RowType;

import io.snapcommit.flink.paimon.PaimonTableSpec;
import io.snapcommit.jni.FileEntry;
import io.snapcommit.jni.NativeStore;
import io.snapcommit.jni.NativeTable;
import io.snapcommit.jni.SnapshotInfo;
import io.snapcommit.jni.StoreConfig;

/** Reads a snapcommit table back: the snapshot log and the rows of the live files (with Paimon's format readers). */
public final class TableContents {
    private TableContents() {}

    /** Every retained snapshot, oldest first. */
    public static List<SnapshotInfo> log(String location) {
        return log(location, null);
    }

    /** As {@link #log(String)}, reading with the store's own settings (null = environment). */
    public static List<SnapshotInfo> log(String location, StoreConfig storage) {
        List<SnapshotInfo> out = new ArrayList<>();
        try (NativeTable t = NativeTable.openTable(location, storage)) {
            long latest = t.latestSnapshotId();
            for (long id = Math.max(1, t.earliestSnapshotId()); id <= latest; id++) out.add(t.snapshot(id));
        }
        return out;
    }

    /**
     * The rows of every live file of the latest snapshot, each as a JSON-like line
     * {@code {"col":value,...}} (strings quoted, numbers bare, in schema order). The data files are
     * read with Apache Paimon's own format reader (Parquet, ORC or Avro, as the table's schema says),
     * each fetched through the native store (so S3 tables work) into a temporary file; a file whose
     * row count differs from its manifest entry fails.
     */
    public static List<String> liveRows(String location) {
        return liveRows(location, null);
    }

    public static List<String> liveRows(String location, StoreConfig storage) {
        List<String> rows = new ArrayList<>();
        try (NativeTable t = NativeTable.openTable(location, storage);
             NativeStore s = NativeStore.openStore(location, storage)) {
            PaimonTableSpec spec = PaimonTableSpec.fromJson(t.schemaJson());
            for (FileEntry f : t.liveFiles(0)) {
                List<String> fileRows = readDataFile(spec, spec.dataFilePath(f), s.getObject(spec.dataFilePath(f)));
                if (fileRows.size() != f.rows())
                    throw new IllegalStateException(f.file() + " holds " + fileRows.size() + " rows, the manifest says "
                                                    + f.rows());
                rows.addAll(fileRows);
            }
        }
        return rows;
    }

    /** The rows of one data file of the table, read with Paimon's format reader. */
    public static List<String> readDataFile(PaimonTableSpec spec, String name, byte[] bytes) {
        RowType type = spec.schema().logicalRowType();
        List<String> out = new ArrayList<>();
        java.nio.file.Path tmp = null;
        try {
            tmp = Files.createTempFile("snapcommit-read-", "-" + name.replace('/', '_'));
            Files.write(tmp, bytes);
            FileFormat format = FileFormat.fileFormat(spec.coreOptions());
            try (RecordReader<InternalRow> r = format.createReaderFactory(type, type, null).createReader(
                     new FormatReaderContext(LocalFileIO.create(), new Path(tmp.toUri()), bytes.length))) {
                r.forEachRemaining(row -> out.add(render(row, type)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading data file " + name, e);
        } finally {
            if (tmp != null) tmp.toFile().delete();
        }
        return out;
    }

    static String render(InternalRow row, RowType type) {
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i < type.getFieldCount(); i++) {
            if (i > 0) sb.append(',');
            DataField f = type.getFields().get(i);
            Object v = InternalRow.createFieldGetter(f.type(), i).getFieldOrNull(row);
            sb.append('"').append(f.name()).append("\":");
            if (v == null) sb.append("null");
            else if (v instanceof Number || v instanceof Boolean) sb.append(v);
            else if (v instanceof byte[]) sb.append('"').append(java.util.Base64.getEncoder().encodeToString((byte[]) v)).append('"');
            else sb.append('"').append(v.toString().replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
        }
        return sb.append('}').toString();
    }

    public static List<FileEntry> liveFiles(String location) {
        return liveFiles(location, null);
    }

    public static List<FileEntry> liveFiles(String location, StoreConfig storage) {
        try (NativeTable t = NativeTable.openTable(location, storage)) {
            return t.liveFiles(0);
        }
    }

    /** The log as a table, like `snapcommit log`. */
    public static String formatLog(List<SnapshotInfo> log) {
        StringBuilder sb = new StringBuilder();
        SimpleDateFormat time = new SimpleDateFormat("HH:mm:ss.SSS");
        sb.append(String.format("%-9s %-10s %-8s %-44s %9s %9s %6s %s%n", "snapshot", "checkpoint", "kind",
                                "commit user", "+rows", "rows", "files", "time"));
        for (SnapshotInfo s : log) {
            sb.append(String.format("%-9d %-10d %-8s %-44s %9d %9d %6d %s%n", s.id(), s.commitIdentifier(),
                                    s.commitKind(), s.commitUser(), s.deltaRecordCount(), s.totalRecordCount(),
                                    s.fileCount(), time.format(new Date(s.timeMillis()))));
        }
        return sb.toString();
    }
}

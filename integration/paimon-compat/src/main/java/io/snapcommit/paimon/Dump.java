package io.snapcommit.paimon;

import org.apache.paimon.AppendOnlyFileStore;
import org.apache.paimon.FileStore;
import org.apache.paimon.KeyValueFileStore;
import org.apache.paimon.Snapshot;
import org.apache.paimon.data.BinaryArray;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.Path;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.manifest.ManifestFile;
import org.apache.paimon.manifest.ManifestFileMeta;
import org.apache.paimon.manifest.ManifestList;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.shade.org.apache.avro.Schema;
import org.apache.paimon.shade.org.apache.avro.file.DataFileReader;
import org.apache.paimon.shade.org.apache.avro.file.SeekableByteArrayInput;
import org.apache.paimon.shade.org.apache.avro.generic.GenericDatumReader;
import org.apache.paimon.shade.org.apache.avro.generic.GenericRecord;
import org.apache.paimon.stats.SimpleStats;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.FileStorePathFactory;
import org.apache.paimon.utils.SerializationUtils;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * dump-manifests: everything a reader needs from one snapshot, field by field, in two views per
 * Avro file:
 *
 * <ul>
 *   <li>"avro": the container as stored — codec, the writer schema from the header, and every
 *       record as the generic Avro reader sees it (bytes as lower-case hex, timestamps as the raw
 *       long). This is what a C decoder reading the same file must reproduce.
 *   <li>"paimon": the same records as Paimon's own classes decode them (ManifestFileMeta,
 *       ManifestEntry, DataFileMeta), with every BinaryRow (partition, min/max key, stats) given as
 *       hex of Paimon's serialized form (4-byte big-endian arity + row bytes) and decoded with the
 *       types Paimon uses for it.
 * </ul>
 */
final class Dump {
    private Dump() {}

    static Map<String, Object> dump(FileStoreTable table, Long snapshotId) throws Exception {
        FileStore<?> store = table.store();
        Snapshot snap = snapshotId == null
                ? table.snapshotManager().latestSnapshot()
                : table.snapshotManager().snapshot(snapshotId);
        if (snap == null) {
            throw new IllegalStateException("table has no snapshot");
        }
        FileIO io = table.fileIO();
        TableSchema schema = table.schemaManager().schema(snap.schemaId());
        FileStorePathFactory pf = store.pathFactory();
        // AbstractFileStore is package-private: reach its factories through the public subclasses.
        ManifestList manifestList;
        ManifestFile manifestFile;
        if (store instanceof AppendOnlyFileStore s) {
            manifestList = s.manifestListFactory().create();
            manifestFile = s.manifestFileFactory().create();
        } else if (store instanceof KeyValueFileStore s) {
            manifestList = s.manifestListFactory().create();
            manifestFile = s.manifestFileFactory().create();
        } else {
            throw new IllegalStateException("unknown file store " + store.getClass());
        }

        Map<String, Object> out = Json.obj();
        out.put("table", table.location().getName()); // the name only: dumps are kept as test vectors
        out.put("snapshotId", snap.id());
        try (var in = io.newInputStream(table.snapshotManager().snapshotPath(snap.id()))) {
            // the exact bytes (FileIO#readFileUtf8 drops the line breaks)
            out.put("snapshotFile", new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
        }
        out.put("schemaId", schema.id());
        Map<String, Object> types = Json.obj();
        types.put("partition", rowTypeJson(schema.logicalPartitionType()));
        types.put("trimmedPrimaryKey", rowTypeJson(schema.logicalTrimmedPrimaryKeysType()));
        types.put("row", rowTypeJson(schema.logicalRowType()));
        out.put("types", types);

        Map<String, String> lists = new LinkedHashMap<>();
        lists.put("base", snap.baseManifestList());
        lists.put("delta", snap.deltaManifestList());
        if (snap.changelogManifestList() != null) {
            lists.put("changelog", snap.changelogManifestList());
        }
        Map<String, Object> listsOut = Json.obj();
        Map<String, ManifestFileMeta> manifests = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : lists.entrySet()) {
            String name = e.getValue();
            Path p = pf.toManifestListPath(name);
            Map<String, Object> l = Json.obj();
            l.put("file", name);
            l.put("size", io.getFileSize(p));
            l.put("avro", avro(io, p));
            List<Object> metas = Json.arr();
            for (ManifestFileMeta m : manifestList.read(name)) {
                metas.add(manifestFileMeta(m, schema.logicalPartitionType()));
                manifests.putIfAbsent(m.fileName(), m);
            }
            l.put("paimon", metas);
            listsOut.put(e.getKey(), l);
        }
        out.put("manifestLists", listsOut);

        List<Object> mOut = Json.arr();
        for (ManifestFileMeta m : manifests.values()) {
            Path p = pf.toManifestFilePath(m.fileName());
            Map<String, Object> mf = Json.obj();
            mf.put("file", m.fileName());
            mf.put("size", io.getFileSize(p));
            mf.put("avro", avro(io, p));
            List<Object> entries = Json.arr();
            for (ManifestEntry entry : manifestFile.read(m.fileName(), m.fileSize())) {
                entries.add(manifestEntry(entry, schema));
            }
            mf.put("paimon", entries);
            mOut.add(mf);
        }
        out.put("manifests", mOut);
        return out;
    }

    static List<Object> rowTypeJson(RowType t) {
        List<Object> l = Json.arr();
        for (DataField f : t.getFields()) {
            Map<String, Object> m = Json.obj();
            m.put("id", f.id());
            m.put("name", f.name());
            m.put("type", f.type().toString());
            l.add(m);
        }
        return l;
    }

    // ---- the raw Avro view ----

    static Map<String, Object> avro(FileIO io, Path p) throws Exception {
        byte[] bytes;
        try (var in = io.newInputStream(p)) {
            bytes = in.readAllBytes();
        }
        Map<String, Object> a = Json.obj();
        try (DataFileReader<GenericRecord> r =
                new DataFileReader<>(new SeekableByteArrayInput(bytes), new GenericDatumReader<>())) {
            a.put("codec", r.getMetaString("avro.codec"));
            Map<String, Object> meta = Json.obj();
            for (String k : r.getMetaKeys()) {
                if (!k.equals("avro.schema") && !k.equals("avro.codec")) {
                    meta.put(k, r.getMetaString(k));
                }
            }
            a.put("meta", meta);
            a.put("schema", r.getSchema().toString());
            List<Object> recs = Json.arr();
            for (GenericRecord rec : (Iterable<GenericRecord>) r) {
                recs.add(avroValue(rec));
            }
            a.put("records", recs);
        }
        return a;
    }

    static Object avroValue(Object v) {
        if (v == null || v instanceof Boolean || v instanceof Integer || v instanceof Long) {
            return v;
        }
        if (v instanceof Float f) {
            return Json.dbl(f.doubleValue());
        }
        if (v instanceof Double d) {
            return Json.dbl(d);
        }
        if (v instanceof CharSequence cs) {
            return cs.toString();
        }
        if (v instanceof ByteBuffer bb) {
            ByteBuffer d = bb.duplicate();
            byte[] b = new byte[d.remaining()];
            d.get(b);
            return Json.hex(b);
        }
        if (v instanceof GenericRecord rec) {
            Map<String, Object> m = Json.obj();
            for (Schema.Field f : rec.getSchema().getFields()) {
                m.put(f.name(), avroValue(rec.get(f.pos())));
            }
            return m;
        }
        if (v instanceof Collection<?> c) {
            List<Object> l = Json.arr();
            for (Object o : c) {
                l.add(avroValue(o));
            }
            return l;
        }
        return "<" + v.getClass().getName() + ">";
    }

    // ---- Paimon's view ----

    static Map<String, Object> binaryRow(BinaryRow row, RowType type) {
        Map<String, Object> m = Json.obj();
        m.put("hex", Json.hex(SerializationUtils.serializeBinaryRow(row)));
        m.put("arity", row.getFieldCount());
        m.put("values", type == null ? null : Values.binaryRow(row, type));
        return m;
    }

    static Map<String, Object> stats(SimpleStats s, RowType type) {
        Map<String, Object> m = Json.obj();
        m.put("min", binaryRow(s.minValues(), type));
        m.put("max", binaryRow(s.maxValues(), type));
        BinaryArray nc = s.nullCounts();
        List<Object> counts = Json.arr();
        for (int i = 0; i < nc.size(); i++) {
            counts.add(nc.isNullAt(i) ? null : nc.getLong(i));
        }
        m.put("nullCounts", counts);
        return m;
    }

    static Map<String, Object> manifestFileMeta(ManifestFileMeta m, RowType partitionType) {
        Map<String, Object> o = Json.obj();
        o.put("fileName", m.fileName());
        o.put("fileSize", m.fileSize());
        o.put("numAddedFiles", m.numAddedFiles());
        o.put("numDeletedFiles", m.numDeletedFiles());
        o.put("partitionStats", stats(m.partitionStats(), partitionType));
        o.put("schemaId", m.schemaId());
        o.put("minBucket", m.minBucket());
        o.put("maxBucket", m.maxBucket());
        o.put("minLevel", m.minLevel());
        o.put("maxLevel", m.maxLevel());
        o.put("minRowId", m.minRowId());
        o.put("maxRowId", m.maxRowId());
        return o;
    }

    static Map<String, Object> manifestEntry(ManifestEntry e, TableSchema schema) {
        Map<String, Object> o = Json.obj();
        o.put("kind", e.kind().name());
        o.put("kindByte", (int) e.kind().toByteValue());
        o.put("partition", binaryRow(e.partition(), schema.logicalPartitionType()));
        o.put("bucket", e.bucket());
        o.put("totalBuckets", e.totalBuckets());
        o.put("file", dataFileMeta(e.file(), schema));
        return o;
    }

    static Map<String, Object> dataFileMeta(DataFileMeta f, TableSchema schema) {
        RowType keyType = schema.logicalTrimmedPrimaryKeysType();
        RowType valueStatsType = f.valueStatsCols() == null
                ? schema.logicalRowType()
                : schema.logicalRowType().project(f.valueStatsCols());
        Map<String, Object> o = Json.obj();
        o.put("fileName", f.fileName());
        o.put("fileSize", f.fileSize());
        o.put("rowCount", f.rowCount());
        o.put("minKey", binaryRow(f.minKey(), f.minKey().getFieldCount() == 0 ? RowType.of() : keyType));
        o.put("maxKey", binaryRow(f.maxKey(), f.maxKey().getFieldCount() == 0 ? RowType.of() : keyType));
        o.put("keyStats", stats(f.keyStats(), f.keyStats().minValues().getFieldCount() == 0 ? RowType.of() : keyType));
        o.put("valueStats", stats(f.valueStats(), valueStatsType));
        o.put("minSequenceNumber", f.minSequenceNumber());
        o.put("maxSequenceNumber", f.maxSequenceNumber());
        o.put("schemaId", f.schemaId());
        o.put("level", f.level());
        o.put("extraFiles", new ArrayList<Object>(f.extraFiles()));
        o.put("creationTime", f.creationTime().toString());
        o.put("creationTimeMillis", f.creationTime().getMillisecond());
        o.put("deleteRowCount", f.deleteRowCount().orElse(null));
        o.put("embeddedIndex", Json.hex(f.embeddedIndex()));
        o.put("fileSource", f.fileSource().map(Enum::name).orElse(null));
        o.put("valueStatsCols", f.valueStatsCols() == null ? null : new ArrayList<Object>(f.valueStatsCols()));
        o.put("externalPath", f.externalPath().orElse(null));
        o.put("firstRowId", f.firstRowId());
        o.put("writeCols", f.writeCols() == null ? null : new ArrayList<Object>(f.writeCols()));
        return o;
    }
}

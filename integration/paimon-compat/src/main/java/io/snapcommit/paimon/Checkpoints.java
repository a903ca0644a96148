package io.snapcommit.paimon;

import org.apache.paimon.CoreOptions;
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.Path;
import org.apache.paimon.index.DeletionVectorMeta;
import org.apache.paimon.index.HashBucketAssigner;
import org.apache.paimon.index.IndexFileMeta;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.io.DataInputViewStreamWrapper;
import org.apache.paimon.io.DataOutputViewStreamWrapper;
import org.apache.paimon.manifest.FileKind;
import org.apache.paimon.manifest.IndexManifestEntry;
import org.apache.paimon.manifest.ManifestCommittable;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.operation.commit.ManifestEntryChanges;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaManager;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.table.BucketMode;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageSerializer;
import org.apache.paimon.table.sink.RowPartitionKeyExtractor;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.table.source.ScanMode;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataTypeJsonParser;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.JsonSerdeUtil;
import org.apache.paimon.utils.Pair;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One checkpoint of Paimon's own writer, split from its commit, for the twin-table check
 * (tests/paimon/twin_commit.sh): `create` makes a table from a schema JSON, `prepare` writes rows with
 * a fresh TableWriteImpl (restored from the table's latest snapshot, as a restarted Flink writer is)
 * and stops at prepareCommit, `commit-messages` commits its messages with Paimon's TableCommitImpl,
 * and `snapshots --detail true` lists what each snapshot holds as Paimon's readers see it.
 */
final class Checkpoints {
    private Checkpoints() {}

    /**
     * create TABLE --schema-json F: {"fields":[{"name":"id","type":"INT NOT NULL"}],
     * "partitionKeys":[], "primaryKeys":[], "options":{}} (the form `snapcommit init --schema` takes),
     * written as schema-0 by Paimon's SchemaManager.
     */
    static int create(String path, String schemaJson) throws Exception {
        JsonNode root = JsonSerdeUtil.OBJECT_MAPPER_INSTANCE.readTree(Files.readString(Paths.get(schemaJson)));
        Schema.Builder b = Schema.newBuilder();
        for (JsonNode f : Commits.iter(root.get("fields"))) {
            b.column(f.get("name").asText(), DataTypeJsonParser.parseAtomicTypeSQLString(f.get("type").asText()));
        }
        b.partitionKeys(strings(root.get("partitionKeys")));
        b.primaryKey(strings(root.get("primaryKeys")));
        if (root.has("options")) {
            root.get("options").fields().forEachRemaining(e -> b.option(e.getKey(), e.getValue().asText()));
        }
        Options o = new Options();
        if (path.startsWith("s3://")) {
            PaimonTool.s3Options(System.getenv()).forEach(o::set);
        }
        Path p = new Path(path);
        FileIO io = FileIO.get(p, CatalogContext.create(o));
        new SchemaManager(io, p).createTable(b.build());
        return 0;
    }

    static List<String> strings(JsonNode n) {
        List<String> l = new ArrayList<>();
        for (JsonNode s : Commits.iter(n)) {
            l.add(s.asText());
        }
        return l;
    }

    /**
     * prepare: writes the rows (a JSON array of row objects, "_kind" +I/-U/+U/-D) with one
     * TableWriteImpl, optionally fully compacts every bucket the latest snapshot holds plus the ones
     * written, then prepareCommit(waitCompaction, identifier). Nothing is committed. Writes the
     * messages as snapcommit's checkpoint change set (outJson) and as CommitMessageSerializer bytes
     * (outMessages: version int, then the list). A dynamic-bucket table gets its buckets from Paimon's
     * HashBucketAssigner (one assigner, as Flink's with parallelism 1).
     */
    static int prepare(FileStoreTable t, String user, long identifier, String rowsJson, String outJson,
            String outMessages, boolean waitCompaction, boolean full, Long watermark) throws Exception {
        JsonNode root = JsonSerdeUtil.OBJECT_MAPPER_INSTANCE.readTree(Files.readString(Paths.get(rowsJson)));
        RowType type = t.rowType();
        java.nio.file.Path tmp = Files.createTempDirectory("paimon-tool-io");
        List<CommitMessage> msgs;
        try (IOManager io = IOManager.create(tmp.toString());
                TableWriteImpl<?> w = t.newWrite(user).withIOManager(io)) {
            boolean dynamic = t.bucketMode() == BucketMode.HASH_DYNAMIC;
            RowPartitionKeyExtractor ext = new RowPartitionKeyExtractor(t.schema());
            HashBucketAssigner assigner = null;
            if (dynamic) {
                CoreOptions co = t.coreOptions();
                assigner = new HashBucketAssigner(t.snapshotManager(), user, t.store().newIndexFileHandler(),
                        1, 1, 0, co.dynamicBucketTargetRowNum(),
                        co.dynamicBucketMaxBuckets() == null ? -1 : co.dynamicBucketMaxBuckets());
            }
            Set<Pair<BinaryRow, Integer>> written = new LinkedHashSet<>();
            for (JsonNode r : Commits.iter(root)) {
                RowKind kind = r.has("_kind") ? RowKind.fromShortString(r.get("_kind").asText()) : RowKind.INSERT;
                GenericRow row = new GenericRow(kind, type.getFieldCount());
                List<DataField> fields = type.getFields();
                for (int i = 0; i < fields.size(); i++) {
                    row.setField(i, Commits.value(r.get(fields.get(i).name()), fields.get(i).type()));
                }
                if (dynamic) {
                    int bucket = assigner.assign(ext.partition(row), ext.trimmedPrimaryKey(row).hashCode());
                    w.write(row, bucket);
                    written.add(Pair.of(ext.partition(row).copy(), bucket));
                } else {
                    w.write(row);
                    written.add(Pair.of(w.getPartition(row).copy(), w.getBucket(row)));
                }
            }
            if (full) {
                Set<Pair<BinaryRow, Integer>> buckets = new LinkedHashSet<>();
                for (ManifestEntry e : t.store().newScan().plan().files()) {
                    buckets.add(Pair.of(e.partition(), e.bucket()));
                }
                buckets.addAll(written);
                for (Pair<BinaryRow, Integer> pb : buckets) {
                    w.compact(pb.getLeft(), pb.getRight(), true);
                }
                waitCompaction = true;
            }
            if (assigner != null) {
                assigner.prepareCommit(identifier);
            }
            msgs = w.prepareCommit(waitCompaction, identifier);
        } finally {
            try (var s = Files.walk(tmp)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        Files.writeString(Paths.get(outJson), Json.pretty(changeSet(t, msgs, watermark)) + "\n", StandardCharsets.UTF_8);
        CommitMessageSerializer ser = new CommitMessageSerializer();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputViewStreamWrapper view = new DataOutputViewStreamWrapper(bytes);
        view.writeInt(ser.getVersion());
        ser.serializeList(msgs, view);
        Files.write(Paths.get(outMessages), bytes.toByteArray());
        return 0;
    }

    /**
     * The checkpoint change set of snapcommit's CLI (docs/format.md, change-set JSON): Paimon's own
     * split of the messages (ManifestEntryChanges, as FileStoreCommitImpl makes it) into the append
     * part (top level) and the compact part ("compact"), each with data adds/deletes, changelog
     * files and index adds/deletes.
     */
    static Map<String, Object> changeSet(FileStoreTable t, List<CommitMessage> msgs, Long watermark) {
        ManifestEntryChanges ch = new ManifestEntryChanges(t.coreOptions().bucket());
        msgs.forEach(ch::collect);
        Map<String, Object> cs = part(t, ch.appendTableFiles, ch.appendChangelog, ch.appendIndexFiles);
        Map<String, Object> compact = part(t, ch.compactTableFiles, ch.compactChangelog, ch.compactIndexFiles);
        if (!compact.isEmpty()) {
            cs.put("compact", compact);
        }
        if (watermark != null) {
            cs.put("watermark", watermark);
        }
        return cs;
    }

    static Map<String, Object> part(FileStoreTable t, List<ManifestEntry> data, List<ManifestEntry> changelog,
            List<IndexManifestEntry> index) {
        Map<String, Object> p = Json.obj();
        List<Object> add = Json.arr();
        List<Object> del = Json.arr();
        for (ManifestEntry e : data) {
            (e.kind() == FileKind.ADD ? add : del).add(entry(t, e));
        }
        List<Object> cl = Json.arr();
        for (ManifestEntry e : changelog) {
            if (e.kind() != FileKind.ADD) {
                throw new IllegalStateException("a changelog DELETE entry: " + e);
            }
            cl.add(entry(t, e));
        }
        List<Object> iadd = Json.arr();
        List<Object> idel = Json.arr();
        for (IndexManifestEntry e : index) {
            (e.kind() == FileKind.ADD ? iadd : idel).add(indexEntry(t, e));
        }
        if (!add.isEmpty()) {
            p.put("add", add);
        }
        if (!del.isEmpty()) {
            p.put("delete", del);
        }
        if (!cl.isEmpty()) {
            p.put("changelog", cl);
        }
        if (!iadd.isEmpty() || !idel.isEmpty()) {
            Map<String, Object> im = Json.obj();
            if (!iadd.isEmpty()) {
                im.put("add", iadd);
            }
            if (!idel.isEmpty()) {
                im.put("delete", idel);
            }
            p.put("index", im);
        }
        return p;
    }

    static String spec(FileStoreTable t, BinaryRow partition) {
        if (t.schema().partitionKeys().isEmpty()) {
            return "";
        }
        String s = t.store().pathFactory().getPartitionString(partition);
        return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
    }

    static List<Object> key(BinaryRow row, RowType type) {
        return new ArrayList<>(Values.binaryRow(row, type).values());
    }

    static Map<String, Object> entry(FileStoreTable t, ManifestEntry e) {
        DataFileMeta f = e.file();
        Map<String, Object> m = Json.obj();
        m.put("partition", spec(t, e.partition()));
        m.put("bucket", e.bucket());
        m.put("totalBuckets", e.totalBuckets());
        m.put("level", f.level());
        m.put("file", f.fileName());
        m.put("rows", f.rowCount());
        m.put("size", f.fileSize());
        if (!t.schema().primaryKeys().isEmpty()) {
            RowType kt = t.schema().logicalTrimmedPrimaryKeysType();
            m.put("minKey", key(f.minKey(), kt));
            m.put("maxKey", key(f.maxKey(), kt));
        }
        m.put("minSeq", f.minSequenceNumber());
        m.put("maxSeq", f.maxSequenceNumber());
        f.deleteRowCount().ifPresent(d -> m.put("deleteRowCount", d));
        f.fileSource().ifPresent(s -> m.put("fileSource", s.name()));
        m.put("creationTime", f.creationTime().getMillisecond());
        // What the change set cannot say (docs/format.md): refuse rather than drop it silently.
        if (!f.extraFiles().isEmpty() || f.embeddedIndex() != null || f.externalPath().isPresent()
                || f.firstRowId() != null || f.writeCols() != null) {
            throw new IllegalStateException("prepare: " + f.fileName()
                    + " has extra files, an embedded index, an external path, a first row id or write columns");
        }
        return m;
    }

    static Map<String, Object> indexEntry(FileStoreTable t, IndexManifestEntry e) {
        IndexFileMeta f = e.indexFile();
        if (f.globalIndexMeta() != null) {
            throw new IllegalStateException("prepare: global index file " + f.fileName());
        }
        Map<String, Object> m = Json.obj();
        m.put("partition", spec(t, e.partition()));
        m.put("bucket", e.bucket());
        m.put("type", f.indexType());
        m.put("file", f.fileName());
        m.put("size", f.fileSize());
        m.put("rows", f.rowCount());
        if (f.dvRanges() != null) {
            List<Object> dv = Json.arr();
            for (DeletionVectorMeta d : f.dvRanges().values()) {
                Map<String, Object> r = Json.obj();
                r.put("file", d.dataFileName());
                r.put("offset", d.offset());
                r.put("length", d.length());
                if (d.cardinality() != null) {
                    r.put("cardinality", d.cardinality());
                }
                dv.add(r);
            }
            m.put("dv", dv);
        }
        if (f.externalPath() != null) {
            m.put("externalPath", f.externalPath());
        }
        return m;
    }

    /**
     * commit-messages: the messages `prepare` wrote, committed by Paimon's TableCommitImpl. With
     * replay, as a restored Flink committer does (filterAndCommitMultiple: an identifier the user
     * already committed is dropped); prints the number of checkpoints committed, else the latest id.
     */
    static int commitMessages(FileStoreTable t, String user, long identifier, String in, Long watermark,
            boolean replay) throws Exception {
        byte[] b = Files.readAllBytes(Paths.get(in));
        DataInputViewStreamWrapper view = new DataInputViewStreamWrapper(new ByteArrayInputStream(b));
        int version = view.readInt();
        List<CommitMessage> msgs = new CommitMessageSerializer().deserializeList(version, view);
        ManifestCommittable c = new ManifestCommittable(identifier, watermark);
        msgs.forEach(c::addFileCommittable);
        // An empty part writes no snapshot: what snapcommit does (Paimon's streaming sink would
        // write an empty APPEND).
        try (TableCommitImpl commit = t.newCommit(user).ignoreEmptyCommit(true)) {
            if (replay) {
                System.out.println(commit.filterAndCommitMultiple(List.of(c)));
                return 0;
            }
            commit.commit(c);
        }
        System.out.println(t.snapshotManager().latestSnapshotId());
        return 0;
    }

    /**
     * snapshots --detail true: per snapshot, what `snapshots` prints and, as Paimon's own scans and
     * readers see it: changelogRecordCount, watermark, whether there is a changelog manifest list and
     * an index manifest, the live data files, the snapshot's delta and changelog files, the live index
     * files (from its index manifest).
     */
    static void detail(FileStoreTable t, Snapshot s, Map<String, Object> m) {
        m.put("changelogRecordCount", s.changelogRecordCount());
        m.put("watermark", s.watermark());
        m.put("hasChangelogManifestList", s.changelogManifestList() != null);
        m.put("hasIndexManifest", s.indexManifest() != null);
        m.put("files", files(t, s, ScanMode.ALL));
        m.put("delta", files(t, s, ScanMode.DELTA));
        m.put("changelog", files(t, s, ScanMode.CHANGELOG));
        List<Object> idx = Json.arr();
        if (s.indexManifest() != null) {
            for (IndexManifestEntry e : t.store().indexManifestFileFactory().create().read(s.indexManifest())) {
                IndexFileMeta f = e.indexFile();
                Map<String, Object> m2 = Json.obj();
                m2.put("kind", e.kind().name());
                m2.put("partition", spec(t, e.partition()));
                m2.put("bucket", e.bucket());
                m2.put("type", f.indexType());
                m2.put("file", f.fileName());
                m2.put("size", f.fileSize());
                m2.put("rows", f.rowCount());
                m2.put("dv", f.dvRanges() == null ? null : f.dvRanges().values().toString());
                m2.put("externalPath", f.externalPath());
                idx.add(m2);
            }
        }
        m.put("index", idx);
    }

    /** The files of a snapshot as Paimon's FileStoreScan plans them, every DataFileMeta member the change set carries. */
    static List<Object> files(FileStoreTable t, Snapshot s, ScanMode mode) {
        List<Object> l = Json.arr();
        for (ManifestEntry e : t.store().newScan().withSnapshot(s).withKind(mode).plan().files()) {
            DataFileMeta f = e.file();
            Map<String, Object> m = Json.obj();
            m.put("kind", e.kind().name());
            m.put("partition", spec(t, e.partition()));
            m.put("bucket", e.bucket());
            m.put("totalBuckets", e.totalBuckets());
            m.put("file", f.fileName());
            m.put("level", f.level());
            m.put("rows", f.rowCount());
            m.put("size", f.fileSize());
            m.put("minSeq", f.minSequenceNumber());
            m.put("maxSeq", f.maxSequenceNumber());
            m.put("deleteRowCount", f.deleteRowCount().orElse(null));
            m.put("fileSource", f.fileSource().map(Enum::name).orElse(null));
            m.put("creationTime", f.creationTime().getMillisecond());
            m.put("schemaId", f.schemaId());
            m.put("minKey", Values.binaryRow(f.minKey(), keyType(t)));
            m.put("maxKey", Values.binaryRow(f.maxKey(), keyType(t)));
            m.put("keyStats", Values.binaryRow(f.keyStats().minValues(), keyType(t)) + ".."
                    + Values.binaryRow(f.keyStats().maxValues(), keyType(t)) + " nulls="
                    + java.util.Arrays.toString(f.keyStats().nullCounts().toLongArray()));
            l.add(m);
        }
        return l;
    }

    static RowType keyType(FileStoreTable t) {
        return t.schema().primaryKeys().isEmpty() ? RowType.of() : t.schema().logicalTrimmedPrimaryKeysType();
    }
}

// Paimon 1.4.2's own writer and reader for index manifests (not part of any build):
//   java -cp 'integration/paimon-compat/target/lib/*' GenIndex.java write DIR
//       a warehouse DIR/golden.db with two primary-key tables written and committed by Paimon:
//       pk_dv (partitioned by dt, bucket 2, deletion vectors, lookup changelog producer, deflate
//       manifests; a full compaction per checkpoint, the last with watermark 1700000000000) and
//       pk_hash (dynamic bucket: a HASH index per bucket; zstd manifests, Paimon's default; an ANALYZE
//       snapshot naming a statistics file at the end); then prints, per snapshot naming an index
//       manifest, what IndexManifestFile reads from it (JSON lines).
//   java -cp ... GenIndex.java read TABLE_DIR INDEX_MANIFEST_NAME
//       prints what IndexManifestFile reads from TABLE_DIR/manifest/NAME (one JSON line).
//   java -cp ... GenIndex.java expire TABLE_DIR N
//       Paimon's own snapshot expiration, keeping the latest N snapshots whatever their age.
//   java -cp ... GenIndex.java orphans TABLE_DIR
//       Paimon's own orphan cleaner (LocalOrphanFilesClean), deleting what is older than one day.
import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.utils.SerializationUtils;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.index.DeletionVectorMeta;
import org.apache.paimon.index.IndexFileMeta;
import org.apache.paimon.manifest.IndexManifestEntry;
import org.apache.paimon.manifest.IndexManifestFile;
import org.apache.paimon.manifest.ManifestCommittable;
import org.apache.paimon.options.ExpireConfig;
import org.apache.paimon.stats.Statistics;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

public class GenIndex {
    static String q(String s) {
        if (s == null) return "null";
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    static String entries(List<IndexManifestEntry> list) {
        List<String> out = new ArrayList<>();
        for (IndexManifestEntry e : list) {
            IndexFileMeta f = e.indexFile();
            String ranges = "null";
            if (f.dvRanges() != null) {
                List<String> rs = new ArrayList<>();
                for (DeletionVectorMeta m : f.dvRanges().values())
                    rs.add("{\"f0\":" + q(m.dataFileName()) + ",\"f1\":" + m.offset() + ",\"f2\":" + m.length()
                            + ",\"cardinality\":" + m.cardinality() + "}");
                ranges = "[" + String.join(",", rs) + "]";
            }
            byte[] part = SerializationUtils.serializeBinaryRow(e.partition());
            out.add("{\"kind\":" + e.kind().toByteValue() + ",\"partition\":\"" + HexFormat.of().formatHex(part)
                    + "\",\"bucket\":" + e.bucket() + ",\"indexType\":" + q(f.indexType()) + ",\"fileName\":"
                    + q(f.fileName()) + ",\"fileSize\":" + f.fileSize() + ",\"rowCount\":" + f.rowCount()
                    + ",\"dvRanges\":" + ranges + ",\"externalPath\":" + q(f.externalPath())
                    + ",\"globalIndex\":" + (f.globalIndexMeta() != null) + "}");
        }
        return "[" + String.join(",", out) + "]";
    }

    static IndexManifestFile indexFile(FileStoreTable t) {
        return t.store().indexManifestFileFactory().create();
    }

    static BinaryString s(String v) {
        return BinaryString.fromString(v);
    }

    static void commit(StreamTableWrite w, StreamTableCommit c, long id, boolean compact, GenericRow... rows)
            throws Exception {
        for (GenericRow r : rows) w.write(r);
        c.commit(id, w.prepareCommit(compact, id));
    }

    static void dump(FileStoreTable t, String name) {
        for (long id = t.snapshotManager().earliestSnapshotId(); id <= t.snapshotManager().latestSnapshotId(); id++) {
            Snapshot s = t.snapshotManager().snapshot(id);
            if (s.indexManifest() == null) continue;
            System.out.println("{\"table\":" + q(name) + ",\"snapshot\":" + id + ",\"indexManifest\":"
                    + q(s.indexManifest()) + ",\"entries\":" + entries(indexFile(t).read(s.indexManifest())) + "}");
        }
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("expire")) {
            FileStoreTable t = FileStoreTableFactory.create(LocalFileIO.create(), new Path(args[1]));
            int n = Integer.parseInt(args[2]);
            System.out.println(t.newExpireSnapshots().config(ExpireConfig.builder().snapshotRetainMax(n)
                    .snapshotRetainMin(n).snapshotTimeRetain(java.time.Duration.ZERO).build()).expire());
            return;
        }
        if (args[0].equals("orphans")) {
            FileStoreTable t = FileStoreTableFactory.create(LocalFileIO.create(), new Path(args[1]));
            long olderThan = System.currentTimeMillis() - java.util.concurrent.TimeUnit.DAYS.toMillis(1);
            System.out.println(new org.apache.paimon.operation.LocalOrphanFilesClean(t, olderThan).clean().getDeletedFilesPath());
            return;
        }
        if (args[0].equals("read")) {
            FileStoreTable t = FileStoreTableFactory.create(LocalFileIO.create(), new Path(args[1]));
            System.out.println(entries(indexFile(t).read(args[2])));
            return;
        }
        try (Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(new Path(args[1])))) {
            catalog.createDatabase("golden", false);
            Identifier dv = Identifier.create("golden", "pk_dv");
            catalog.createTable(dv, Schema.newBuilder()
                    .column("dt", DataTypes.STRING().notNull())
                    .column("id", DataTypes.INT().notNull())
                    .column("v", DataTypes.STRING())
                    .partitionKeys("dt")
                    .primaryKey("dt", "id")
                    .option("bucket", "2")
                    .option("deletion-vectors.enabled", "true")
                    .option("changelog-producer", "lookup")
                    .option("manifest.compression", "deflate")
                    .option("file.format", "parquet")
                    .build(), false);
            FileStoreTable t = (FileStoreTable) catalog.getTable(dv);
            StreamWriteBuilder wb = t.newStreamWriteBuilder().withCommitUser("golden-writer");
            try (StreamTableWrite w = wb.newWrite(); StreamTableCommit c = wb.newCommit()) {
                w.withIOManager(IOManager.create(System.getProperty("java.io.tmpdir")));
                commit(w, c, 1, true, GenericRow.of(s("2024-01-01"), 1, s("a")), GenericRow.of(s("2024-01-01"), 2, s("b")),
                        GenericRow.of(s("2024-01-01"), 3, s("c")), GenericRow.of(s("2024-01-02"), 4, s("d")));
                commit(w, c, 2, true, GenericRow.of(s("2024-01-01"), 2, s("b2")),
                        GenericRow.ofKind(RowKind.DELETE, s("2024-01-01"), 3, null), GenericRow.of(s("2024-01-02"), 5, s("e")));
                // The last checkpoint carries an event-time watermark (Flink's committer passes it so).
                w.write(GenericRow.of(s("2024-01-01"), 1, s("a2")));
                w.write(GenericRow.of(s("2024-01-02"), 4, s("d2")));
                ManifestCommittable mc = new ManifestCommittable(3, 1700000000000L);
                for (CommitMessage m : w.prepareCommit(true, 3)) mc.addFileCommittable(m);
                ((TableCommitImpl) c).commit(mc);
            }
            dump(t, "pk_dv");

            Identifier hash = Identifier.create("golden", "pk_hash");
            catalog.createTable(hash, Schema.newBuilder()
                    .column("id", DataTypes.INT().notNull())
                    .column("v", DataTypes.STRING())
                    .primaryKey("id")
                    .option("bucket", "-1")
                    .option("file.format", "parquet")
                    .build(), false);
            t = (FileStoreTable) catalog.getTable(hash);
            wb = t.newStreamWriteBuilder().withCommitUser("golden-writer");
            try (StreamTableWrite w = wb.newWrite(); StreamTableCommit c = wb.newCommit()) {
                // Dynamic bucket mode: the caller assigns buckets (Flink's assigner does); the writer
                // maintains each bucket's hash index and commits it.
                w.write(GenericRow.of(1, s("a")), 0);
                w.write(GenericRow.of(2, s("b")), 0);
                w.write(GenericRow.of(3, s("c")), 1);
                c.commit(1, w.prepareCommit(false, 1));
                w.write(GenericRow.of(2, s("b2")), 0);
                w.write(GenericRow.of(4, s("d")), 1);
                c.commit(2, w.prepareCommit(false, 2));
                // An ANALYZE snapshot naming a statistics file.
                ((TableCommitImpl) c).updateStatistics(new Statistics(2, 0, 4L, 100L));
            }
            dump(t, "pk_hash");
        }
    }
}

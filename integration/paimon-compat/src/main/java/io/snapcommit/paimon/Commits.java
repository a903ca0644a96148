package io.snapcommit.paimon;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.data.serializer.InternalRowSerializer;
import org.apache.paimon.io.CompactIncrement;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.io.DataIncrement;
import org.apache.paimon.manifest.FileSource;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.stats.SimpleStats;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeChecks;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.InternalRowPartitionComputer;
import org.apache.paimon.utils.JsonSerdeUtil;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** commit-files and write-rows: Paimon's own writer and committer, for the mixed-commit checks. */
final class Commits {
    private Commits() {}

    /** "dt=2024-01-01/h=3" (Hive-style, unescaped values) to the partition BinaryRow; "" = no partition. */
    static BinaryRow partition(FileStoreTable t, String spec) {
        RowType pt = t.schema().logicalPartitionType();
        Map<String, String> m = new LinkedHashMap<>();
        if (!spec.isEmpty()) {
            for (String kv : spec.split("/")) {
                int eq = kv.indexOf('=');
                if (eq <= 0) {
                    throw new PaimonTool.Usage("bad partition spec " + spec);
                }
                m.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
        }
        if (!pt.getFieldNames().containsAll(m.keySet()) || m.size() != pt.getFieldCount()) {
            throw new PaimonTool.Usage("partition spec " + spec + " does not match partition keys " + pt.getFieldNames());
        }
        GenericRow row = InternalRowPartitionComputer.convertSpecToInternalRow(m, pt, t.coreOptions().partitionDefaultName());
        return new InternalRowSerializer(pt).toBinaryRow(row).copy();
    }

    /**
     * commit-files: {"add":[{"partition":"","bucket":0,"totalBuckets":-1,"file":"data-….parquet",
     * "rows":3,"size":1234,"minSeq":0,"maxSeq":2}], "delete":[{"partition":"","bucket":0,"file":"…"}]}.
     * Added files must already exist under the table; they are committed as level-0 append files
     * without column statistics (valueStatsCols = []), so this is for append tables. Deleted files
     * are looked up among the live files (of "baseSnapshot" when given) and removed as a compaction would remove them (commit kind
     * COMPACT), which lets a check make Paimon and snapcommit delete the same file.
     */
    static int commitFiles(FileStoreTable t, String user, long identifier, String jsonFile) throws Exception {
        JsonNode root = JsonSerdeUtil.OBJECT_MAPPER_INSTANCE.readTree(Files.readString(Paths.get(jsonFile)));
        Map<String, List<DataFileMeta>> adds = new LinkedHashMap<>();
        Map<String, List<DataFileMeta>> deletes = new LinkedHashMap<>();
        Map<String, Object[]> keys = new LinkedHashMap<>();
        int defaultTotal = t.coreOptions().bucket();
        for (JsonNode a : iter(root.get("add"))) {
            String spec = a.path("partition").asText("");
            int bucket = a.path("bucket").asInt(0);
            int total = a.has("totalBuckets") ? a.get("totalBuckets").asInt() : defaultTotal;
            String k = spec + "\u0000" + bucket + "\u0000" + total;
            keys.putIfAbsent(k, new Object[] {partition(t, spec), bucket, total});
            long rows = a.get("rows").asLong();
            DataFileMeta meta = DataFileMeta.forAppend(
                    a.get("file").asText(), a.get("size").asLong(), rows, SimpleStats.EMPTY_STATS,
                    a.path("minSeq").asLong(0), a.path("maxSeq").asLong(Math.max(0, rows - 1)),
                    t.schema().id(), Collections.emptyList(), null, FileSource.APPEND,
                    Collections.emptyList(), null, null, null);
            adds.computeIfAbsent(k, x -> new ArrayList<>()).add(meta);
        }
        if (root.has("delete")) {
            // "baseSnapshot": N looks the files up in snapshot N instead of the latest, as a writer
            // that planned its compaction against N would; Paimon's committer then checks the
            // deletion against the latest snapshot ("File deletion conflicts detected!").
            var scan = t.store().newScan();
            if (root.has("baseSnapshot")) {
                scan = scan.withSnapshot(root.get("baseSnapshot").asLong());
            }
            List<ManifestEntry> live = scan.plan().files();
            for (JsonNode d : iter(root.get("delete"))) {
                String spec = d.path("partition").asText("");
                BinaryRow part = partition(t, spec);
                int bucket = d.path("bucket").asInt(0);
                String file = d.get("file").asText();
                ManifestEntry found = null;
                for (ManifestEntry e : live) {
                    if (e.partition().equals(part) && e.bucket() == bucket && e.file().fileName().equals(file)) {
                        found = e;
                    }
                }
                if (found == null) {
                    throw new IllegalStateException("delete: no live file " + file + " in partition '" + spec + "' bucket " + bucket);
                }
                String k = spec + "\u0000" + bucket + "\u0000" + found.totalBuckets();
                keys.putIfAbsent(k, new Object[] {part, bucket, found.totalBuckets()});
                deletes.computeIfAbsent(k, x -> new ArrayList<>()).add(found.file());
            }
        }
        List<CommitMessage> msgs = new ArrayList<>();
        for (Map.Entry<String, Object[]> e : keys.entrySet()) {
            Object[] v = e.getValue();
            List<DataFileMeta> add = adds.getOrDefault(e.getKey(), List.of());
            List<DataFileMeta> del = deletes.getOrDefault(e.getKey(), List.of());
            if (!add.isEmpty()) {
                msgs.add(new CommitMessageImpl((BinaryRow) v[0], (int) v[1], (Integer) v[2],
                        new DataIncrement(add, List.of(), List.of()), CompactIncrement.emptyIncrement()));
            }
            if (!del.isEmpty()) {
                msgs.add(new CommitMessageImpl((BinaryRow) v[0], (int) v[1], (Integer) v[2],
                        DataIncrement.emptyIncrement(), new CompactIncrement(del, List.of(), List.of())));
            }
        }
        StreamWriteBuilder wb = t.newStreamWriteBuilder().withCommitUser(user);
        try (StreamTableCommit c = wb.newCommit()) {
            c.commit(identifier, msgs);
        }
        Long latest = t.snapshotManager().latestSnapshotId();
        System.out.println(latest);
        return 0;
    }

    /** write-rows: a JSON array of row objects in the canonical form of `read` (optional "_kind"). */
    static int writeRows(FileStoreTable t, String user, long identifier, String jsonFile) throws Exception {
        JsonNode root = JsonSerdeUtil.OBJECT_MAPPER_INSTANCE.readTree(Files.readString(Paths.get(jsonFile)));
        RowType type = t.rowType();
        StreamWriteBuilder wb = t.newStreamWriteBuilder().withCommitUser(user);
        try (StreamTableWrite w = wb.newWrite(); StreamTableCommit c = wb.newCommit()) {
            for (JsonNode r : iter(root)) {
                RowKind kind = r.has("_kind") ? RowKind.fromShortString(r.get("_kind").asText()) : RowKind.INSERT;
                GenericRow row = new GenericRow(kind, type.getFieldCount());
                List<DataField> fields = type.getFields();
                for (int i = 0; i < fields.size(); i++) {
                    row.setField(i, value(r.get(fields.get(i).name()), fields.get(i).type()));
                }
                w.write(row);
            }
            c.commit(identifier, w.prepareCommit(false, identifier));
        }
        System.out.println(t.snapshotManager().latestSnapshotId());
        return 0;
    }

    static Object value(JsonNode v, DataType type) {
        if (v == null || v.isNull()) {
            return null;
        }
        switch (type.getTypeRoot()) {
            case BOOLEAN: return v.asBoolean();
            case TINYINT: return (byte) v.asInt();
            case SMALLINT: return (short) v.asInt();
            case INTEGER: return v.asInt();
            case BIGINT: return v.asLong();
            case FLOAT: return (float) v.asDouble();
            case DOUBLE: return v.asDouble();
            case CHAR:
            case VARCHAR: return BinaryString.fromString(v.asText());
            case DECIMAL:
                return Decimal.fromBigDecimal(new BigDecimal(v.asText()),
                        DataTypeChecks.getPrecision(type), DataTypeChecks.getScale(type));
            case DATE: return (int) LocalDate.parse(v.asText()).toEpochDay();
            case TIMESTAMP_WITHOUT_TIME_ZONE: return Timestamp.fromLocalDateTime(LocalDateTime.parse(v.asText()));
            default: throw new PaimonTool.Usage("write-rows: type " + type + " not supported");
        }
    }

    static Iterable<JsonNode> iter(JsonNode n) {
        List<JsonNode> l = new ArrayList<>();
        if (n != null) {
            n.forEach(l::add);
        }
        return l;
    }
}

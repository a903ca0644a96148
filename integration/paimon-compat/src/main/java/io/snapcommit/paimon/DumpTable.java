package io.snapcommit.paimon;

import org.apache.paimon.Snapshot;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.utils.SnapshotManager;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * dump-table TABLE: every snapshot of a table as Paimon's SnapshotManager reads it (the parsed
 * Snapshot's fields, not its JSON text), each followed by {@link Dump#dump} of that snapshot — its
 * manifest lists and manifests decoded by Paimon's own ManifestList and ManifestFile readers.
 * One JSON document: {"snapshots":[{"snapshot":{...},"dump":{...}}, ...]}, earliest first.
 * tests/paimon/check_our_manifests.py compares it field by field with what snapcommit meant to write.
 */
final class DumpTable {
    private DumpTable() {}

    static Map<String, Object> dump(FileStoreTable table) throws Exception {
        SnapshotManager sm = table.snapshotManager();
        List<Snapshot> all = new ArrayList<>();
        sm.snapshots().forEachRemaining(all::add);
        all.sort((a, b) -> Long.compare(a.id(), b.id()));
        List<Object> out = Json.arr();
        for (Snapshot s : all) {
            Map<String, Object> m = Json.obj();
            m.put("id", s.id());
            m.put("version", s.version());
            m.put("schemaId", s.schemaId());
            m.put("baseManifestList", s.baseManifestList());
            m.put("baseManifestListSize", s.baseManifestListSize());
            m.put("deltaManifestList", s.deltaManifestList());
            m.put("deltaManifestListSize", s.deltaManifestListSize());
            m.put("changelogManifestList", s.changelogManifestList());
            m.put("indexManifest", s.indexManifest());
            m.put("commitUser", s.commitUser());
            m.put("commitIdentifier", s.commitIdentifier());
            m.put("commitKind", s.commitKind().name());
            m.put("timeMillis", s.timeMillis());
            m.put("totalRecordCount", s.totalRecordCount());
            m.put("deltaRecordCount", s.deltaRecordCount());
            m.put("changelogRecordCount", s.changelogRecordCount());
            m.put("watermark", s.watermark());
            m.put("nextRowId", s.nextRowId());
            m.put("latestSnapshotId", sm.latestSnapshotId());
            m.put("earliestSnapshotId", sm.earliestSnapshotId());
            Map<String, Object> one = Json.obj();
            one.put("snapshot", m);
            one.put("dump", Dump.dump(table, s.id()));
            out.add(one);
        }
        Map<String, Object> doc = Json.obj();
        doc.put("snapshots", out);
        return doc;
    }
}

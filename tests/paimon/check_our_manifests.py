#!/usr/bin/env python3
"""Compare what snapcommit meant to write with what Paimon 1.4.2 decodes, field by field.

    check_our_manifests.py EXPECTED.json PAIMON.json TABLE_DIR
    check_our_manifests.py --self-test EXPECTED.json PAIMON.json TABLE_DIR

EXPECTED.json is tests/paimon/write_all_fields's output (the entries given to the library, rows as
value arrays). PAIMON.json is `paimon-tool.sh dump-table TABLE_DIR`: every snapshot as Paimon's
SnapshotManager parsed it, and its manifest lists and manifests as Paimon's ManifestList and
ManifestFile decoded them (BinaryRows turned into values with the table's types by Paimon).
Both sides are compared as values, never as bytes:

  snapshot   id, version 3, schemaId, commitUser/Identifier/Kind, totalRecordCount (rows of the live
             files), deltaRecordCount (added minus deleted rows), base/delta list names = files under
             manifest/ whose sizes are baseManifestListSize/deltaManifestListSize, no changelog or
             index manifest, latest/earliest ids
  lists      the delta list names one manifest: its fileName (exists), fileSize (= the object's
             size), numAddedFiles/numDeletedFiles, partitionStats (typed min/max per partition field,
             null counts 0), schemaId, min/max bucket and level over its records, null row ids;
             the base list of snapshot N+1 = base + delta list of snapshot N, meta for meta
  manifests  records in order (DELETE records first, then ADD, as the engine writes them): kind,
             partition values, bucket, totalBuckets, and every DataFileMeta member: fileName,
             fileSize, rowCount, minKey/maxKey values, keyStats and valueStats (min/max values with
             their arity, null counts, -1 = Paimon's null), min/max sequence number, schemaId,
             level, extraFiles, creationTime (millis), deleteRowCount, embeddedIndex (hex),
             fileSource, valueStatsCols, externalPath, firstRowId, writeCols

Members an entry left out are expected as the engine completes them (docs/format.md §7): total
buckets 0 = the table's bucket; no key stats = the key range's first field exact, the others null
with null counts [0, null, ...]; no value stats = valueStatsCols [] and arity-0 rows; no file source
= APPEND (COMPACT in a COMPACT commit); no creation time = some time (the committing clock).

--self-test: each of a list of single-field changes to EXPECTED (and to PAIMON for the parts that
come from the table: sizes, counts) must make the comparison fail, naming that field.
Exit status: 0 all equal, 1 differences (one line each) or a self-test that did not fail, 2 usage.
"""
import copy
import json
import os
import sys


def norm_counts(counts):
    return [None if c == -1 else c for c in counts]


def as_dict(names, values):
    return {n: v for n, v in zip(names, values)}


class Checker:
    def __init__(self, expected, paimon, table):
        self.exp = expected
        self.pm = paimon
        self.table = table
        self.failures = []
        self.compared = 0
        schema = expected["schema"]
        self.fields = [f["name"] for f in schema["fields"]]
        self.part = list(schema["partitionKeys"])
        self.key = [k for k in schema["primaryKeys"] if k not in self.part]
        self.buckets = int(schema["options"]["bucket"])

    def fail(self, where, msg):
        self.failures.append(f"{where}: {msg}")

    def same(self, where, ours, theirs):
        """Value equality; numbers compare numerically (doubles as doubles), dicts and lists deeply."""
        self.compared += 1
        if not self._eq(ours, theirs):
            self.fail(where, f"we wrote {json.dumps(ours)}, Paimon read {json.dumps(theirs)}")

    def _eq(self, a, b):
        if isinstance(a, bool) or isinstance(b, bool):
            return a is b
        if isinstance(a, (int, float)) and isinstance(b, (int, float)):
            if isinstance(a, float) or isinstance(b, float):
                return float(a) == float(b)
            return a == b
        if isinstance(a, dict) and isinstance(b, dict):
            return a.keys() == b.keys() and all(self._eq(a[k], b[k]) for k in a)
        if isinstance(a, list) and isinstance(b, list):
            return len(a) == len(b) and all(self._eq(x, y) for x, y in zip(a, b))
        return type(a) is type(b) and a == b

    def object_size(self, name):
        p = os.path.join(self.table, "manifest", name)
        return os.path.getsize(p) if os.path.isfile(p) else None

    # ---- the expectation of one entry, normalized to Paimon's values ----

    def expected_entry(self, e, kind):
        key_min = as_dict(self.key, e["minKey"])
        key_max = as_dict(self.key, e["maxKey"])
        out = {
            "partition": as_dict(self.part, e["partition"]),
            "bucket": e["bucket"],
            "totalBuckets": e["totalBuckets"] or self.buckets,
            "fileName": e["fileName"],
            "fileSize": e["fileSize"],
            "rowCount": e["rowCount"],
            "minKey": key_min,
            "maxKey": key_max,
        }
        ks = e["keyStats"]
        if ks is None:  # completed from the key range: the first field exact, the others unknown
            first = self.key[0]
            out["keyStats"] = {
                "min": {k: (key_min[k] if k == first else None) for k in self.key},
                "max": {k: (key_max[k] if k == first else None) for k in self.key},
                "nullCounts": [0 if k == first else None for k in self.key],
            }
        else:
            out["keyStats"] = {"min": as_dict(self.key, ks["min"]), "max": as_dict(self.key, ks["max"]),
                               "nullCounts": norm_counts(ks["nullCounts"])}
        vs = e["valueStats"]
        cols = e["valueStatsCols"]
        if vs is None and cols is None:  # completed: "no columns"
            cols = []
            out["valueStats"] = {"min": {}, "max": {}, "nullCounts": []}
        else:
            names = self.fields if cols is None else cols
            out["valueStats"] = {"min": as_dict(names, vs["min"]), "max": as_dict(names, vs["max"]),
                                 "nullCounts": norm_counts(vs["nullCounts"])}
        out["valueStatsCols"] = cols
        for k in ("minSequenceNumber", "maxSequenceNumber", "schemaId", "level", "extraFiles",
                  "creationTimeMillis", "deleteRowCount", "embeddedIndex", "fileSource", "externalPath",
                  "firstRowId", "writeCols"):
            out[k] = e[k]
        if out["fileSource"] is None:
            out["fileSource"] = "COMPACT" if kind == "COMPACT" else "APPEND"
        return out

    def check_entry(self, where, want, rec, kind):
        self.same(f"{where} kind", kind, rec["kind"])
        self.same(f"{where} partition", want["partition"], rec["partition"]["values"])
        self.same(f"{where} partition arity", len(self.part), rec["partition"]["arity"])
        self.same(f"{where} bucket", want["bucket"], rec["bucket"])
        self.same(f"{where} totalBuckets", want["totalBuckets"], rec["totalBuckets"])
        f = rec["file"]
        for k in ("fileName", "fileSize", "rowCount"):
            self.same(f"{where} {k}", want[k], f[k])
        for k in ("minKey", "maxKey"):
            self.same(f"{where} {k}", want[k], f[k]["values"])
            self.same(f"{where} {k} arity", len(want[k]), f[k]["arity"])
        for s in ("keyStats", "valueStats"):
            for side in ("min", "max"):
                self.same(f"{where} {s}.{side}", want[s][side], f[s][side]["values"])
                self.same(f"{where} {s}.{side} arity", len(want[s][side]), f[s][side]["arity"])
            self.same(f"{where} {s}.nullCounts", want[s]["nullCounts"], f[s]["nullCounts"])
        for k in ("minSequenceNumber", "maxSequenceNumber", "schemaId", "level", "extraFiles",
                  "deleteRowCount", "embeddedIndex", "fileSource", "valueStatsCols", "externalPath",
                  "firstRowId", "writeCols"):
            self.same(f"{where} {k}", want[k], f[k])
        if want["creationTimeMillis"] is None:  # completed with the committing clock: any time
            if not isinstance(f["creationTimeMillis"], int):
                self.fail(f"{where} creationTimeMillis", f"completed by the engine, Paimon read {f['creationTimeMillis']!r}")
            self.compared += 1
        else:
            self.same(f"{where} creationTimeMillis", want["creationTimeMillis"], f["creationTimeMillis"])

    # ---- lists, manifests and snapshots ----

    def check_meta(self, where, meta, records):
        """A ManifestFileMeta against the records it names (as we meant them)."""
        self.same(f"{where} fileSize (object size)", self.object_size(meta["fileName"]), meta["fileSize"])
        self.same(f"{where} numAddedFiles", sum(1 for k, _ in records if k == "ADD"), meta["numAddedFiles"])
        self.same(f"{where} numDeletedFiles", sum(1 for k, _ in records if k == "DELETE"), meta["numDeletedFiles"])
        self.same(f"{where} schemaId", 0, meta["schemaId"])
        ps = meta["partitionStats"]
        want_min = {n: min(r["partition"][n] for _, r in records) for n in self.part}
        want_max = {n: max(r["partition"][n] for _, r in records) for n in self.part}
        self.same(f"{where} partitionStats.min", want_min, ps["min"]["values"])
        self.same(f"{where} partitionStats.max", want_max, ps["max"]["values"])
        self.same(f"{where} partitionStats.nullCounts", [0] * len(self.part), ps["nullCounts"])
        self.same(f"{where} minBucket", min(r["bucket"] for _, r in records), meta["minBucket"])
        self.same(f"{where} maxBucket", max(r["bucket"] for _, r in records), meta["maxBucket"])
        self.same(f"{where} minLevel", min(r["level"] for _, r in records), meta["minLevel"])
        self.same(f"{where} maxLevel", max(r["level"] for _, r in records), meta["maxLevel"])
        self.same(f"{where} minRowId", None, meta["minRowId"])
        self.same(f"{where} maxRowId", None, meta["maxRowId"])

    def run(self):
        snaps = {s["snapshot"]["id"]: s for s in self.pm["snapshots"]}
        commits = self.exp["commits"]
        self.same("snapshot ids", [c["snapshot"] for c in commits], sorted(snaps))
        live = {}          # fileName -> normalized entry
        added_kind = {}    # fileName -> kind of the commit that added it
        prev = None
        for c in commits:
            sid = c["snapshot"]
            if sid not in snaps:
                self.fail(f"snapshot {sid}", "Paimon does not list it")
                continue
            s, dump = snaps[sid]["snapshot"], snaps[sid]["dump"]
            w = f"snapshot {sid}"
            records = [("DELETE", self.expected_entry(d, added_kind.get(d["fileName"], c["kind"])))
                       for d in c["delete"]]
            records += [("ADD", self.expected_entry(a, c["kind"])) for a in c["add"]]
            for k, r in records:
                if k == "DELETE":
                    live.pop(r["fileName"], None)
                else:
                    live[r["fileName"]] = r
                    added_kind[r["fileName"]] = c["kind"]
            # the snapshot as Paimon's SnapshotManager parsed it
            self.same(f"{w} version", 3, s["version"])
            self.same(f"{w} schemaId", 0, s["schemaId"])
            self.same(f"{w} commitUser", c["user"], s["commitUser"])
            self.same(f"{w} commitIdentifier", c["identifier"], s["commitIdentifier"])
            self.same(f"{w} commitKind", c["kind"], s["commitKind"])
            self.same(f"{w} totalRecordCount", sum(r["rowCount"] for r in live.values()), s["totalRecordCount"])
            self.same(f"{w} deltaRecordCount",
                      sum(r["rowCount"] if k == "ADD" else -r["rowCount"] for k, r in records), s["deltaRecordCount"])
            self.same(f"{w} changelogManifestList", None, s["changelogManifestList"])
            self.same(f"{w} indexManifest", None, s["indexManifest"])
            self.same(f"{w} latestSnapshotId", commits[-1]["snapshot"], s["latestSnapshotId"])
            self.same(f"{w} earliestSnapshotId", commits[0]["snapshot"], s["earliestSnapshotId"])
            lists = dump["manifestLists"]
            for which in ("base", "delta"):
                name, size = s[which + "ManifestList"], s[which + "ManifestListSize"]
                self.same(f"{w} {which}ManifestListSize (object size of {name})", self.object_size(name), size)
                self.same(f"{w} {which} list read by ManifestList", name, lists[which]["file"])
                self.same(f"{w} {which} list size via FileIO", size, lists[which]["size"])
            # delta list: one manifest holding this commit's records
            metas = lists["delta"]["paimon"]
            self.same(f"{w} delta list manifests", 1, len(metas))
            if metas:
                meta = metas[0]
                self.check_meta(f"{w} delta list {meta['fileName']}", meta, records)
                mf = [m for m in dump["manifests"] if m["file"] == meta["fileName"]]
                recs = mf[0]["paimon"] if mf else []
                self.same(f"{w} records of {meta['fileName']}", len(records), len(recs))
                for i, ((k, want), rec) in enumerate(zip(records, recs)):
                    self.check_entry(f"{w} {meta['fileName']} record {i} ({want['fileName']})", want, rec, k)
            # base list: every manifest of the previous snapshot, in order
            want_base = [] if prev is None else prev["base"]["paimon"] + prev["delta"]["paimon"]
            self.same(f"{w} base list = previous base + delta", want_base, lists["base"]["paimon"])
            prev = lists
        return self.failures


# Single-field changes the comparison must catch: (what, side, path, new value). A path step is a
# key or an index; "*" picks the snapshot dump entry by position.
MUTATIONS = [
    ("partition: we wrote", "exp", ["commits", 0, "add", 0, "partition", 1], 4),
    ("partition: we wrote", "exp", ["commits", 1, "add", 0, "partition", 0], "2023-12-30"),
    ("bucket", "exp", ["commits", 0, "add", 1, "bucket"], 0),
    ("totalBuckets", "exp", ["commits", 0, "add", 0, "totalBuckets"], 3),
    ("level", "exp", ["commits", 1, "add", 0, "level"], 1),
    ("fileName", "exp", ["commits", 0, "add", 2, "fileName"], "data-e3.orc"),
    ("fileSize", "exp", ["commits", 0, "add", 0, "fileSize"], 123456),
    ("rowCount", "exp", ["commits", 1, "delete", 0, "rowCount"], 4),
    ("minKey", "exp", ["commits", 0, "add", 0, "minKey", 0], 5),
    ("maxKey", "exp", ["commits", 0, "add", 0, "maxKey", 1], "a longer name valuE"),
    ("keyStats.max", "exp", ["commits", 0, "add", 0, "keyStats", "max", 1], "zurich"),
    ("keyStats.nullCounts", "exp", ["commits", 0, "add", 0, "keyStats", "nullCounts", 1], 0),
    ("valueStats.min", "exp", ["commits", 0, "add", 0, "valueStats", "min", 4], -9000000001),
    ("valueStats.max", "exp", ["commits", 0, "add", 0, "valueStats", "max", 5], 2.5),
    ("valueStats.max", "exp", ["commits", 1, "add", 0, "valueStats", "max", 0], 1e299),
    ("valueStats.nullCounts", "exp", ["commits", 0, "add", 0, "valueStats", "nullCounts", 4], 0),
    ("minSequenceNumber", "exp", ["commits", 0, "add", 0, "minSequenceNumber"], 11),
    ("maxSequenceNumber", "exp", ["commits", 1, "add", 0, "maxSequenceNumber"], 2002),
    ("extraFiles", "exp", ["commits", 0, "add", 0, "extraFiles"], ["changelog-e1.orc", "data-e1.parquet.index"]),
    ("creationTimeMillis", "exp", ["commits", 0, "add", 0, "creationTimeMillis"], 1718000000124),
    ("deleteRowCount", "exp", ["commits", 0, "add", 0, "deleteRowCount"], 8),
    ("deleteRowCount", "exp", ["commits", 1, "add", 0, "deleteRowCount"], None),
    ("embeddedIndex", "exp", ["commits", 0, "add", 0, "embeddedIndex"], "00017f80feff0043"),
    ("fileSource", "exp", ["commits", 0, "add", 1, "fileSource"], "COMPACT"),
    ("valueStatsCols", "exp", ["commits", 1, "add", 0, "valueStatsCols"], ["score", "h", "name"]),
    ("externalPath", "exp", ["commits", 0, "add", 0, "externalPath"], "file:/tmp/other"),
    ("firstRowId", "exp", ["commits", 0, "add", 0, "firstRowId"], 43),
    ("writeCols", "exp", ["commits", 0, "add", 0, "writeCols"], ["dt", "h", "id", "name", "v"]),
    ("commitUser", "exp", ["commits", 1, "user"], "someone-else"),
    ("commitKind", "exp", ["commits", 0, "kind"], "COMPACT"),
    # values that come from the table itself, changed on Paimon's side
    ("fileSize (object size)", "pm", ["snapshots", 0, "dump", "manifestLists", "delta", "paimon", 0, "fileSize"], None),
    ("deltaManifestListSize", "pm", ["snapshots", 1, "snapshot", "deltaManifestListSize"], None),
    ("totalRecordCount", "pm", ["snapshots", 1, "snapshot", "totalRecordCount"], 1012),
    ("numDeletedFiles", "pm", ["snapshots", 1, "dump", "manifestLists", "delta", "paimon", 0, "numDeletedFiles"], 0),
    ("partitionStats.min", "pm", ["snapshots", 1, "dump", "manifestLists", "delta", "paimon", 0, "partitionStats", "min", "values", "h"], 23),
    ("maxLevel", "pm", ["snapshots", 1, "dump", "manifestLists", "delta", "paimon", 0, "maxLevel"], 1),
    ("base list = previous base + delta", "pm", ["snapshots", 1, "dump", "manifestLists", "base", "paimon"], []),
]


def mutate(doc, path, value):
    d = doc
    for p in path[:-1]:
        d = d[p]
    old = d[path[-1]]
    if value is None and isinstance(old, int):
        value = old + 1  # "off by one" for sizes
    d[path[-1]] = value


def main(argv):
    self_test = argv[1:2] == ["--self-test"]
    args = argv[2:] if self_test else argv[1:]
    if len(args) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    with open(args[0], encoding="utf-8") as f:
        expected = json.load(f)
    with open(args[1], encoding="utf-8") as f:
        paimon = json.load(f)
    table = args[2]
    if not self_test:
        c = Checker(expected, paimon, table)
        failures = c.run()
        for line in failures:
            print("FAIL " + line)
        print(f"{c.compared} values compared, {len(failures)} differ")
        return 1 if failures else 0
    base = Checker(expected, paimon, table)
    if base.run():
        print("FAIL self-test: the unchanged inputs already differ")
        return 1
    bad = 0
    for what, side, path, value in MUTATIONS:
        exp, pm = copy.deepcopy(expected), copy.deepcopy(paimon)
        mutate(exp if side == "exp" else pm, path, value)
        failures = Checker(exp, pm, table).run()
        named = [f for f in failures if what in f]
        if named:
            print(f"ok   {what} changed ({side}): caught: {named[0]}")
        else:
            bad += 1
            print(f"FAIL {what} changed ({side}) at {path}: not caught ({len(failures)} other differences)")
    print(f"{len(MUTATIONS) - bad} mutations caught, {bad} missed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

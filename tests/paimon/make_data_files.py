#!/usr/bin/env python3
"""Write Parquet data files the way Paimon 1.4.2 lays them out, and print the change-set entries.

    py=$(scripts/pypaimon-setup.sh)     # pyarrow comes from the pypaimon venv
    "$py" tests/paimon/make_data_files.py --schema SCHEMA.json --rows ROWS.jsonl --table DIR
                                          [--seq-start N] [--rows-per-file K]

SCHEMA.json: the short form {"fields":[{"name":"dt","type":"STRING"},...],"partitionKeys":[...],
"primaryKeys":[...],"options":{...}} (field ids 0.. in order, primary-key fields made NOT NULL as
Paimon does) or Paimon's schema-N form (fields with "id"), e.g. a table's schema/schema-0.
ROWS.jsonl: one JSON object per row in the canonical value form of PaimonTool `read`
(Values.java: DECIMAL as a string "12.30", DATE "2024-01-01", TIMESTAMP "2024-01-01T10:00:00.123",
TIME "10:00:00", bytes as hex); missing fields are null. A primary-key table's rows may carry
"_kind" (+I, -U, +U, -D; default +I).

Files (under DIR, a local directory: the table root; upload with tests/paimon/s3_tree.py for S3):
  <k1>=<v1>/<k2>=<v2>/bucket-<b>/data-<uuid>-<n>.parquet
- partition directories Hive-style in partition-key order, values escaped as Paimon's
  PartitionPathUtils.escapePathName does, null as __DEFAULT_PARTITION__ (partition.default-name);
- bucket: option "bucket" (default -1). -1 (bucket-unaware append / dynamic) writes bucket-0 with
  totalBuckets -1; N > 0 assigns each row Paimon's bucket: Math.abs(hash % N) with hash the
  MurmurHash3 (seed 42, by 4-byte words) of the bucket-key BinaryRow (option "bucket-key", else the
  primary key without partition keys), as DefaultBucketFunction does (checked against the golden
  tables);
- one uuid per (partition, bucket) writer, <n> counting its files from 0; --rows-per-file K rolls
  a new file every K rows (default: one file per partition and bucket);
- Parquet: zstd, every column with its Paimon field id (PARQUET:field_id), NOT NULL fields
  required; types as Paimon's own writer chose them in the golden files (pyarrow.parquet.read_schema):
  BOOLEAN bool, TINYINT int8, SMALLINT int16, INT int32, BIGINT int64, FLOAT float, DOUBLE double,
  CHAR/VARCHAR/STRING string, BINARY/VARBINARY/BYTES binary, DATE date32, TIME(p) time32[ms],
  DECIMAL(p,s) decimal stored as INT32/INT64 when p <= 18 (as Paimon writes it), TIMESTAMP(p)
  timestamp[ms] (p <= 3), [us] (p <= 6), [ns], without zone (LTZ: UTC-adjusted);
- append tables: the table's columns in schema order (partition columns included);
  primary-key tables: _KEY_<k> for each trimmed primary-key field (field id 1073741823 + id),
  _SEQUENCE_NUMBER int64 (2147483646), _VALUE_KIND int8 (2147483645: 0 +I, 1 -U, 2 +U, 3 -D),
  then the table's columns; rows sorted by key, one row per key per file (the last one wins, as
  Paimon's write buffer with the deduplicate merge engine keeps it).
Sequence numbers count rows per (partition, bucket) from --seq-start (default 0); pass the previous
change set's maxSeq + 1 so that later files win in a primary-key table.

Output (stdout): the change set our CLI takes (issue 10, item 8), {"add":[entry, ...]}, one entry
per file: {"partition":"dt=2024-01-01/h=3","bucket":0,"totalBuckets":N,"level":0,"file":"data-...",
"rows":R,"size":S,"minKey":[...],"maxKey":[...],"minSeq":a,"maxSeq":b} (minKey/maxKey only for
primary-key tables: the trimmed key values in the canonical value form). Exit 1 on any error.
"""

import argparse
import collections
import datetime
import decimal
import json
import os
import re
import struct
import sys
import uuid

SPECIAL = {"_SEQUENCE_NUMBER": 2147483646, "_VALUE_KIND": 2147483645}
KEY_FIELD_ID_START = 1073741823
KINDS = {"+I": 0, "-U": 1, "+U": 2, "-D": 3}


# ---- schema ----

def load_schema(path):
    with open(path, encoding="utf-8") as f:
        s = json.load(f)
    pks = list(s.get("primaryKeys", []))
    fields = []
    for i, fd in enumerate(s["fields"]):
        t = fd["type"]
        if not isinstance(t, str):
            raise ValueError("field %s: nested types are not supported" % fd["name"])
        t = t.strip().upper() if not t.upper().startswith(("CHAR", "VARCHAR")) else t.strip()
        nullable = not t.upper().endswith(" NOT NULL")
        base = re.sub(r"\s+NOT NULL$", "", t, flags=re.I).strip()
        if fd["name"] in pks:
            nullable = False
        fields.append({"id": int(fd.get("id", i)), "name": fd["name"], "type": base.upper(), "nullable": nullable})
    names = [f["name"] for f in fields]
    for k in list(s.get("partitionKeys", [])) + pks:
        if k not in names:
            raise ValueError("key %s is not a field" % k)
    return fields, list(s.get("partitionKeys", [])), pks, dict(s.get("options", {}))


def params(t):
    m = re.search(r"\((\d+)(?:,\s*(\d+))?\)", t)
    if not m:
        return None, None
    return int(m.group(1)), (int(m.group(2)) if m.group(2) is not None else None)


def root_of(t):
    return re.match(r"[A-Z_ ]+?(?=\(|$| WITH)", t).group(0).strip() if not t.startswith("TIMESTAMP") else (
        "TIMESTAMP_LTZ" if "LOCAL TIME ZONE" in t else "TIMESTAMP")


# ---- values: canonical JSON form -> Python ----

def py_value(v, t):
    if v is None:
        return None
    r = root_of(t)
    if r in ("TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT"):
        return int(v)
    if r in ("FLOAT", "DOUBLE"):
        return float(v)
    if r == "BOOLEAN":
        return bool(v)
    if r in ("CHAR", "VARCHAR", "STRING"):
        return str(v)
    if r in ("BINARY", "VARBINARY", "BYTES"):
        return bytes.fromhex(v)
    if r == "DECIMAL":
        _, s = params(t)
        return decimal.Decimal(str(v)).quantize(decimal.Decimal(1).scaleb(-(s or 0)))
    if r == "DATE":
        return datetime.date.fromisoformat(v)
    if r == "TIME":
        return datetime.time.fromisoformat(v)
    if r in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        d = datetime.datetime.fromisoformat(v.rstrip("Z"))
        return d.replace(tzinfo=datetime.timezone.utc) if r == "TIMESTAMP_LTZ" else d
    raise ValueError("type %s is not supported" % t)


def arrow_type(pa, t):
    r = root_of(t)
    p, s = params(t)
    simple = {"BOOLEAN": pa.bool_(), "TINYINT": pa.int8(), "SMALLINT": pa.int16(), "INT": pa.int32(),
              "INTEGER": pa.int32(), "BIGINT": pa.int64(), "FLOAT": pa.float32(), "DOUBLE": pa.float64(),
              "CHAR": pa.string(), "VARCHAR": pa.string(), "STRING": pa.string(), "BINARY": pa.binary(),
              "VARBINARY": pa.binary(), "BYTES": pa.binary(), "DATE": pa.date32(), "TIME": pa.time32("ms")}
    if r in simple:
        return simple[r]
    if r == "DECIMAL":
        return pa.decimal128(p if p is not None else 10, s or 0)
    if r in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        p = 6 if p is None else p
        unit = "ms" if p <= 3 else "us" if p <= 6 else "ns"
        return pa.timestamp(unit, tz="UTC" if r == "TIMESTAMP_LTZ" else None)
    raise ValueError("type %s is not supported" % t)


# ---- BinaryRow bytes and Paimon's bucket hash (docs/paimon-layout.md section 6) ----

def binary_row(values, types):
    n = len(values)
    null_bytes = ((n + 63 + 8) // 64) * 8
    fixed = bytearray(null_bytes + 8 * n)
    var = bytearray()
    for i, (v, t) in enumerate(zip(values, types)):
        slot = null_bytes + 8 * i
        if v is None:
            fixed[1 + i // 8] |= 1 << (i % 8)  # bit i + 8 of the header word
            continue
        r = root_of(t)
        if r == "BOOLEAN":
            fixed[slot] = 1 if v else 0
        elif r == "TINYINT":
            struct.pack_into("<b", fixed, slot, v)
        elif r == "SMALLINT":
            struct.pack_into("<h", fixed, slot, v)
        elif r in ("INT", "INTEGER"):
            struct.pack_into("<i", fixed, slot, v)
        elif r == "DATE":
            struct.pack_into("<i", fixed, slot, (v - datetime.date(1970, 1, 1)).days)
        elif r == "BIGINT":
            struct.pack_into("<q", fixed, slot, v)
        elif r == "FLOAT":
            struct.pack_into("<f", fixed, slot, v)
        elif r == "DOUBLE":
            struct.pack_into("<d", fixed, slot, v)
        elif r in ("CHAR", "VARCHAR", "STRING", "BINARY", "VARBINARY", "BYTES"):
            b = v.encode("utf-8") if isinstance(v, str) else bytes(v)
            if len(b) <= 7:
                fixed[slot:slot + len(b)] = b
                fixed[slot + 7] = 0x80 | len(b)
            else:
                off = len(fixed) + len(var)
                struct.pack_into("<q", fixed, slot, (off << 32) | len(b))
                var += b + bytes((-len(b)) % 8)
        elif r == "DECIMAL" and (params(t)[0] or 10) <= 18:
            struct.pack_into("<q", fixed, slot, int(v.scaleb(params(t)[1] or 0)))
        else:
            raise ValueError("bucket key type %s is not supported here" % t)
    return bytes(fixed + var)


def _i32(x):
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x & 0x80000000 else x


def _rotl(x, r):
    x &= 0xFFFFFFFF
    return ((x << r) | (x >> (32 - r))) & 0xFFFFFFFF


def murmur_words(data, seed=42):
    """MurmurHashUtils.hashBytesByWords: 4-byte little-endian words, then fmix with the length."""
    h = seed & 0xFFFFFFFF
    for i in range(0, len(data), 4):
        k = struct.unpack_from("<I", data, i)[0]
        k = (k * 0xCC9E2D51) & 0xFFFFFFFF
        k = _rotl(k, 15)
        k = (k * 0x1B873593) & 0xFFFFFFFF
        h ^= k
        h = _rotl(h, 13)
        h = (h * 5 + 0xE6546B64) & 0xFFFFFFFF
    h ^= len(data)
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & 0xFFFFFFFF
    h ^= h >> 16
    return _i32(h)


def bucket_of(values, types, n):
    h = murmur_words(binary_row(values, types))
    return abs(int(h - n * int(h / n)))  # Java's % truncates towards zero


# ---- partition paths ----

_ESCAPE = set('"#%\'*/:=?\\\x7f{}[]^')


def escape(s):
    return "".join("%%%02X" % ord(c) if (ord(c) < 0x20 or c in _ESCAPE) else c for c in s)


def part_text(v, t):
    if v is None:
        return None
    r = root_of(t)
    if r == "DATE":
        return str((v - datetime.date(1970, 1, 1)).days)  # partition.legacy-name = true
    if r == "BOOLEAN":
        return "true" if v else "false"
    return str(v)


def canonical(v, t):
    """The canonical JSON value (as PaimonTool prints it) of a Python value of type t."""
    if v is None:
        return None
    r = root_of(t)
    if r == "DECIMAL":
        return format(v, "f")
    if r in ("DATE", "TIME"):
        return v.isoformat()
    if r in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        p = params(t)[0]
        p = 6 if p is None else p
        text = v.replace(tzinfo=None).isoformat(timespec="microseconds") if p > 0 else v.replace(tzinfo=None).isoformat(timespec="seconds")
        if p > 0:
            head, frac = text.split(".")
            text = head + "." + (frac + "000")[:p]
        return text + ("Z" if r == "TIMESTAMP_LTZ" else "")
    if r in ("BINARY", "VARBINARY", "BYTES"):
        return v.hex()
    return v


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--schema", required=True)
    ap.add_argument("--rows", required=True)
    ap.add_argument("--table", required=True)
    ap.add_argument("--seq-start", type=int, default=0)
    ap.add_argument("--rows-per-file", type=int, default=0)
    a = ap.parse_args(argv)

    import pyarrow as pa
    import pyarrow.parquet as pq

    fields, part_keys, pks, options = load_schema(a.schema)
    by_name = {f["name"]: f for f in fields}
    total = int(options.get("bucket", "-1"))
    trimmed = [k for k in pks if k not in part_keys]
    bucket_keys = [k.strip() for k in options.get("bucket-key", "").split(",") if k.strip()] or trimmed
    if total > 0 and not bucket_keys:
        raise ValueError("bucket %d needs a bucket-key or a primary key" % total)
    default_part = options.get("partition.default-name", "__DEFAULT_PARTITION__")

    groups = collections.OrderedDict()  # (partition spec, bucket) -> rows
    with open(a.rows, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            if not line.strip():
                continue
            obj = json.loads(line)
            unknown = set(obj) - set(by_name) - {"_kind"}
            if unknown:
                raise ValueError("%s:%d: unknown fields %s" % (a.rows, no, sorted(unknown)))
            kind = obj.get("_kind", "+I")
            if kind not in KINDS or (kind != "+I" and not pks):
                raise ValueError("%s:%d: _kind %s not allowed here" % (a.rows, no, kind))
            row = {fd["name"]: py_value(obj.get(fd["name"]), fd["type"]) for fd in fields}
            for fd in fields:
                if row[fd["name"]] is None and not fd["nullable"]:
                    raise ValueError("%s:%d: %s is NOT NULL" % (a.rows, no, fd["name"]))
            spec = "/".join("%s=%s" % (k, escape(part_text(row[k], by_name[k]["type"]) or default_part)) for k in part_keys)
            b = 0
            if total > 0:
                b = bucket_of([row[k] for k in bucket_keys], [by_name[k]["type"] for k in bucket_keys], total)
            groups.setdefault((spec, b), []).append((KINDS[kind], row))

    cols = []
    if pks:
        for k in trimmed:
            fd = by_name[k]
            cols.append(("_KEY_" + k, arrow_type(pa, fd["type"]), False, KEY_FIELD_ID_START + fd["id"], k))
        cols.append(("_SEQUENCE_NUMBER", pa.int64(), False, SPECIAL["_SEQUENCE_NUMBER"], None))
        cols.append(("_VALUE_KIND", pa.int8(), False, SPECIAL["_VALUE_KIND"], None))
    for fd in fields:
        cols.append((fd["name"], arrow_type(pa, fd["type"]), fd["nullable"], fd["id"], fd["name"]))
    schema = pa.schema([pa.field(n, t, nullable=nl, metadata={b"PARQUET:field_id": str(i).encode()})
                        for n, t, nl, i, _ in cols])

    entries = []
    for (spec, b), rows in groups.items():
        if pks:
            last = collections.OrderedDict()
            for kind, row in rows:  # one row per key, the last one wins
                key = tuple(row[k] for k in trimmed)
                last.pop(key, None)
                last[key] = (kind, row)
            rows = [last[k] for k in sorted(last)]
        chunk = a.rows_per_file if a.rows_per_file > 0 else max(1, len(rows))
        writer_uuid = str(uuid.uuid4())
        seq = a.seq_start
        d = os.path.join(a.table, spec, "bucket-%d" % b) if spec else os.path.join(a.table, "bucket-%d" % b)
        os.makedirs(d, exist_ok=True)
        for n, start in enumerate(range(0, len(rows), chunk)):
            part = rows[start:start + chunk]
            data = {}
            for name, _, _, _, src in cols:
                if name == "_SEQUENCE_NUMBER":
                    data[name] = list(range(seq, seq + len(part)))
                elif name == "_VALUE_KIND":
                    data[name] = [k for k, _ in part]
                else:
                    data[name] = [r[src] for _, r in part]
            table = pa.Table.from_pydict(data, schema=schema)
            name = "data-%s-%d.parquet" % (writer_uuid, n)
            path = os.path.join(d, name)
            pq.write_table(table, path, compression="zstd", store_decimal_as_integer=True)
            e = {"partition": spec, "bucket": b, "totalBuckets": total, "level": 0, "file": name,
                 "rows": len(part), "size": os.path.getsize(path)}
            if pks:
                e["minKey"] = [canonical(part[0][1][k], by_name[k]["type"]) for k in trimmed]
                e["maxKey"] = [canonical(part[-1][1][k], by_name[k]["type"]) for k in trimmed]
            e["minSeq"] = seq
            e["maxSeq"] = seq + len(part) - 1
            seq += len(part)
            entries.append(e)
    sys.stdout.write(json.dumps({"add": entries}, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (OSError, ValueError, KeyError) as e:
        print("make_data_files: error: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        sys.exit(1)

#!/usr/bin/env python3
"""Read a Paimon table with pypaimon and print what `scripts/paimon-tool.sh read` prints.

    py=$(scripts/pypaimon-setup.sh)
    "$py" tests/paimon/pypaimon_read.py TABLE [--snapshot N]
    "$py" tests/paimon/pypaimon_read.py TABLE --out-dir DIR [--snapshots N,M]

TABLE is a local path, file:// URI or s3://bucket/key. For S3 the usual AWS variables are used:
AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL (a self-hosted server, addressed path-style),
AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION (default us-east-1).

Output: one JSON object per row (fields in schema order), sorted by the line text, then
{"summary":{"snapshot":S,"rows":N}}. Values use the canonical form that PaimonTool's Values.java
documents (doubles as plain decimals, DECIMAL with its scale, DATE / TIMESTAMP(p) as ISO text
with exactly p fraction digits, bytes as hex), so the two outputs can be compared with diff.
With --out-dir (one process for tests/paimon/reader_check.sh, like PaimonTool's read-all): the
latest snapshot's output goes to DIR/latest.jsonl, each listed snapshot's to DIR/snapshot-N.jsonl,
and DIR/snapshots.jsonl gets one line per snapshot as pypaimon decodes it (id, schemaId, commitUser,
commitIdentifier, commitKind, totalRecordCount, deltaRecordCount, properties). A part that fails
leaves DIR/<part>.error instead, the others still run.
Exit status: 0 on success, 1 on any read error, 2 on bad usage.
"""

import argparse
import datetime
import decimal
import os
import re
import sys


def dbl(v):
    """Plain decimal text of a float, as PaimonTool's Json.dbl writes it."""
    if v != v or v in (float("inf"), float("-inf")):
        return string(repr(v).replace("inf", "Infinity").replace("nan", "NaN"))
    if v == 0.0:
        return "0"
    text = format(decimal.Decimal(repr(v)).normalize(), "f")
    return text


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def string(s):
    out = ['"']
    for ch in s:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20:
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


_PRECISION = re.compile(r"\((\d+)(?:,\s*(\d+))?\)")


def type_params(type_str):
    m = _PRECISION.search(type_str)
    if not m:
        return None, None
    return int(m.group(1)), (int(m.group(2)) if m.group(2) is not None else None)


def fmt_time(t, precision):
    base = "%02d:%02d:%02d" % (t.hour, t.minute, t.second)
    if precision <= 0:
        return base
    frac = "%06d" % t.microsecond + "000"  # nanoseconds beyond microseconds are not carried
    return base + "." + frac[:precision]


def value(v, type_str):
    """Canonical JSON text of one value of the given Paimon type string (e.g. 'DECIMAL(10, 2)')."""
    if v is None:
        return "null"
    t = type_str.upper().replace(" NOT NULL", "").strip()
    if t == "BOOLEAN":
        return "true" if v else "false"
    if t in ("TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT"):
        return str(int(v))
    if t in ("FLOAT", "DOUBLE"):
        return dbl(float(v))
    if t.startswith("DECIMAL"):
        _, scale = type_params(t)
        d = decimal.Decimal(v)
        return string(format(d.quantize(decimal.Decimal(1).scaleb(-(scale or 0))), "f"))
    if t == "DATE":
        return string(v.isoformat())
    if t.startswith("TIMESTAMP"):
        precision, _ = type_params(t)
        precision = 6 if precision is None else precision
        if hasattr(v, "to_pydatetime"):
            v = v.to_pydatetime()
        ltz = "LOCAL TIME ZONE" in t
        if ltz and v.tzinfo is not None:
            v = v.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        return string(v.date().isoformat() + "T" + fmt_time(v, precision) + ("Z" if ltz else ""))
    if t.startswith("TIME"):
        precision, _ = type_params(t)
        return string(fmt_time(v, min(3, 0 if precision is None else precision)))
    if t.startswith("CHAR") or t.startswith("VARCHAR") or t == "STRING":
        return string(v)
    if t.startswith("BINARY") or t.startswith("VARBINARY") or t == "BYTES":
        return string(bytes(v).hex())
    return string("<unsupported type %s>" % type_str)


def s3_options(path):
    if not path.startswith(("s3://", "s3a://")):
        return {}
    opts = {}
    endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
    if endpoint:
        opts["fs.s3.endpoint"] = endpoint
        opts["s3.path-style-access"] = "true"
    if os.environ.get("AWS_ACCESS_KEY_ID"):
        opts["fs.s3.accessKeyId"] = os.environ["AWS_ACCESS_KEY_ID"]
        opts["fs.s3.accessKeySecret"] = os.environ.get("AWS_SECRET_ACCESS_KEY", "")
    if os.environ.get("AWS_SESSION_TOKEN"):
        opts["fs.s3.securityToken"] = os.environ["AWS_SESSION_TOKEN"]
    opts["fs.s3.region"] = os.environ.get("AWS_REGION", "us-east-1")
    return opts


def open_table(path, snapshot):
    from pypaimon.table.file_store_table import FileStoreTable

    table = FileStoreTable.from_path(path, s3_options(path))
    if snapshot is not None:
        table = table.copy({"scan.snapshot-id": str(snapshot)})
    return table


def read_lines(path, snapshot):
    """The sorted row lines and the summary line of one batch read (latest when snapshot is None)."""
    table = open_table(path, snapshot)
    if snapshot is not None:
        snapshot_id = snapshot
    else:
        latest = table.snapshot_manager().get_latest_snapshot()
        snapshot_id = latest.id if latest is not None else None

    rb = table.new_read_builder()
    splits = rb.new_scan().plan().splits()
    arrow = rb.new_read().to_arrow(splits)
    fields = [(f.name, str(f.type)) for f in table.table_schema.fields]

    lines = []
    if arrow is not None:
        for row in arrow.to_pylist():
            parts = [string(name) + ":" + value(row.get(name), type_str) for name, type_str in fields]
            lines.append("{" + ",".join(parts) + "}")
    lines.sort(key=lambda x: x.encode("utf-8"))
    lines.append('{"summary":{"snapshot":%s,"rows":%d}}' % ("null" if snapshot_id is None else snapshot_id, len(lines)))
    return lines


def snapshot_lines(path):
    import json

    out = []
    for s in open_table(path, None).snapshot_manager().list_snapshots():
        out.append(json.dumps({"id": s.id, "schemaId": s.schema_id, "commitUser": s.commit_user,
                               "commitIdentifier": s.commit_identifier, "commitKind": s.commit_kind,
                               "totalRecordCount": s.total_record_count,
                               "deltaRecordCount": s.delta_record_count,
                               "properties": s.properties}, ensure_ascii=False))
    return out


def read_all(path, out_dir, snapshots):
    os.makedirs(out_dir, exist_ok=True)
    parts = [("latest", lambda: read_lines(path, None)), ("snapshots", lambda: snapshot_lines(path))]
    parts += [("snapshot-%d" % n, (lambda n=n: read_lines(path, n))) for n in snapshots]
    failed = 0
    for name, fn in parts:
        try:
            lines = fn()
            with open(os.path.join(out_dir, name + ".jsonl"), "w", encoding="utf-8") as f:
                f.write("".join(line + "\n" for line in lines))
        except Exception as e:  # reported per part; the check prints the reason
            with open(os.path.join(out_dir, name + ".error"), "w", encoding="utf-8") as f:
                f.write("%s: %s\n" % (type(e).__name__, e))
            print("pypaimon_read: %s: %s: %s" % (name, type(e).__name__, e), file=sys.stderr)
            failed += 1
    return 1 if failed else 0


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("table")
    p.add_argument("--snapshot", type=int)
    p.add_argument("--out-dir")
    p.add_argument("--snapshots", default="")
    args = p.parse_args(argv)

    if args.out_dir:
        ids = [int(x) for x in args.snapshots.split(",") if x.strip()]
        return read_all(args.table, args.out_dir, ids)
    out = sys.stdout
    for line in read_lines(args.table, args.snapshot):
        out.write(line + "\n")
    return 0


if __name__ == "__main__":
    sys.stdout.reconfigure(encoding="utf-8")
    try:
        sys.exit(main(sys.argv[1:]))
    except SystemExit:
        raise
    except BaseException as e:  # any read error is a failure, with its reason
        print("pypaimon_read: error: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        sys.exit(1)

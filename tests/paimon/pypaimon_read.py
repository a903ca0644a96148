#!/usr/bin/env python3
"""Read a Paimon table with pypaimon and print what `scripts/paimon-tool.sh read` prints.

    py=$(scripts/pypaimon-setup.sh)
    "$py" tests/paimon/pypaimon_read.py TABLE [--snapshot N]

TABLE is a local path, file:// URI or s3://bucket/key. For S3 the usual AWS variables are used:
AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL (a self-hosted server, addressed path-style),
AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION (default us-east-1).

Output: one JSON object per row (fields in schema order), sorted by the line text, then
{"summary":{"snapshot":S,"rows":N}}. Values use the canonical form that PaimonTool's Values.java
documents (doubles as plain decimals, DECIMAL with its scale, DATE / TIMESTAMP(p) as ISO text
with exactly p fraction digits, bytes as hex), so the two outputs can be compared with diff.
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


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("table")
    p.add_argument("--snapshot", type=int)
    args = p.parse_args(argv)

    from pypaimon.table.file_store_table import FileStoreTable

    table = FileStoreTable.from_path(args.table, s3_options(args.table))
    if args.snapshot is not None:
        table = table.copy({"scan.snapshot-id": str(args.snapshot)})
        snapshot_id = args.snapshot
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
    lines.sort()
    out = sys.stdout
    for line in lines:
        out.write(line + "\n")
    out.write('{"summary":{"snapshot":%s,"rows":%d}}\n' % ("null" if snapshot_id is None else snapshot_id, len(lines)))
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

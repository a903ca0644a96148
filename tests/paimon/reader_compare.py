#!/usr/bin/env python3
"""Compare what Paimon's readers read against an expectation directory (tests/paimon/reader_check.sh).

    reader_compare.py EXPECT_DIR [--stream NAME] NAME=OUT_DIR [NAME=OUT_DIR ...]

EXPECT_DIR (see reader_check.sh for the full description):
  latest.jsonl        rows of the latest snapshot (required)
  snapshot-<N>.jsonl  rows of snapshot N (time travel), any number
  stream.jsonl        {"snapshot":N,"rows":k} then that snapshot's delta rows, per snapshot, in order
  snapshots.jsonl     the snapshot chain: one object per snapshot with "id" and any of schemaId,
                      commitUser, commitIdentifier, commitKind, totalRecordCount, deltaRecordCount,
                      properties (only the keys given are compared)

OUT_DIR is what PaimonTool read-all or pypaimon_read.py --out-dir wrote: the same file names, or
<part>.error when that read failed. The stream is checked for the readers named with --stream
(PaimonTool; pypaimon's streaming read is not checked here) when EXPECT_DIR has stream.jsonl.

Rows are compared as multisets of JSON objects: key order does not matter, numbers compare by value
(5, 5.0 and 5.00 are equal; strings are compared exactly, so DECIMAL values keep their scale). A line
that is only {"summary":{...}} is not a row; when the expected latest/snapshot file has one with a
"snapshot" id, the reader's summary must name the same snapshot. Stream rows carry "_kind" (default
"+I" when the expectation leaves it out); the stream must consume exactly the expected snapshot ids
in the expected order, each with the expected multiset of rows.

Prints one line per reader and check ("paimon-java latest: 8 rows expected, 8 read: ok"), the rows
that differ under a failing line, and "N passed, M failed". Exit status 0 when all passed, 1 otherwise,
2 on bad usage. Standard library only.
"""

import collections
import decimal
import json
import os
import re
import sys

SHOW = 5  # differing rows shown per failing check


def canon(value):
    """A hashable canonical form of a parsed JSON value."""
    if isinstance(value, dict):
        return ("o", tuple(sorted((k, canon(v)) for k, v in value.items())))
    if isinstance(value, list):
        return ("a", tuple(canon(v) for v in value))
    if isinstance(value, decimal.Decimal):
        # normalize() makes 5, 5.0 and 5.00 the same; "0" and "-0" as well
        n = value.normalize()
        return ("n", "0" if n.is_zero() else format(n, "f"))
    if isinstance(value, bool) or value is None:
        return ("l", value)
    return ("s", value)


def parse(line):
    return json.loads(line, parse_float=decimal.Decimal, parse_int=decimal.Decimal)


def load(path):
    """(rows, summary) of a row file: rows as parsed objects, summary dict or None."""
    rows, summary = [], None
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                obj = parse(line)
            except ValueError as e:
                raise ValueError("%s:%d: not JSON: %s" % (path, no, e))
            if not isinstance(obj, dict):
                raise ValueError("%s:%d: not a JSON object" % (path, no))
            if list(obj) == ["summary"]:
                summary = obj["summary"]
            else:
                rows.append(obj)
    return rows, summary


def load_stream(path, default_kind):
    """[(snapshot id, [rows])] of a stream file."""
    sections = []
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            obj = parse(line)
            if list(obj) == ["summary"]:
                continue
            if set(obj) == {"snapshot", "rows"}:
                sections.append((int(obj["snapshot"]), []))
                continue
            if not sections:
                raise ValueError("%s:%d: a row before the first {\"snapshot\":N,\"rows\":k} line" % (path, no))
            if default_kind and "_kind" not in obj:
                obj = dict(obj, _kind="+I")
            sections[-1][1].append(obj)
    return sections


def text(obj):
    def plain(v):
        if isinstance(v, decimal.Decimal):
            return int(v) if v.as_tuple().exponent >= 0 else float(v)
        return v

    return json.dumps(obj, ensure_ascii=False, default=plain)


class Report:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def line(self, ok, what, detail, extra=()):
        print("%s: %s: %s" % (what, detail, "ok" if ok else "FAIL"))
        for e in extra:
            print("    " + e)
        if ok:
            self.passed += 1
        else:
            self.failed += 1


def diff_rows(expected, got):
    """(missing, unexpected) lists of rows, multiset difference."""
    e = collections.Counter(canon(r) for r in expected)
    g = collections.Counter(canon(r) for r in got)
    by = {}
    for r in list(expected) + list(got):
        by.setdefault(canon(r), r)
    missing = [by[k] for k, n in (e - g).items() for _ in range(n)]
    extra = [by[k] for k, n in (g - e).items() for _ in range(n)]
    return missing, extra


def shown(missing, extra):
    out = ["missing: " + text(r) for r in missing[:SHOW]]
    if len(missing) > SHOW:
        out.append("... and %d more missing" % (len(missing) - SHOW))
    out += ["unexpected: " + text(r) for r in extra[:SHOW]]
    if len(extra) > SHOW:
        out.append("... and %d more unexpected" % (len(extra) - SHOW))
    return out


def error_of(out_dir, part):
    p = os.path.join(out_dir, part + ".error")
    if os.path.exists(p):
        with open(p, encoding="utf-8", errors="replace") as f:
            return f.read().strip().splitlines()[0:1] or ["(empty error)"]
    return None


def check_rows(rep, reader, out_dir, expect_dir, part, label):
    exp_rows, exp_sum = load(os.path.join(expect_dir, part + ".jsonl"))
    what = "%s %s" % (reader, label)
    path = os.path.join(out_dir, part + ".jsonl")
    if not os.path.exists(path):
        rep.line(False, what, "%d rows expected, read failed" % len(exp_rows),
                 error_of(out_dir, part) or ["no output"])
        return
    got_rows, got_sum = load(path)
    missing, extra = diff_rows(exp_rows, got_rows)
    notes = shown(missing, extra)
    ok = not missing and not extra
    if exp_sum is not None and exp_sum.get("snapshot") is not None:
        want = int(exp_sum["snapshot"])
        have = None if not got_sum or got_sum.get("snapshot") is None else int(got_sum["snapshot"])
        if want != have:
            ok = False
            notes.insert(0, "read snapshot %s, expected snapshot %d" % (have, want))
    rep.line(ok, what, "%d rows expected, %d read" % (len(exp_rows), len(got_rows)), notes)


def check_stream(rep, reader, out_dir, expect_dir):
    exp = load_stream(os.path.join(expect_dir, "stream.jsonl"), True)
    what = "%s stream" % reader
    n_exp = sum(len(r) for _, r in exp)
    path = os.path.join(out_dir, "stream.jsonl")
    if not os.path.exists(path):
        rep.line(False, what, "%d snapshots / %d rows expected, read failed" % (len(exp), n_exp),
                 error_of(out_dir, "stream") or ["no output"])
        return
    got = load_stream(path, False)
    n_got = sum(len(r) for _, r in got)
    notes = []
    exp_ids, got_ids = [s for s, _ in exp], [s for s, _ in got]
    if exp_ids != got_ids:
        notes.append("snapshots consumed %s, expected %s" % (got_ids, exp_ids))
    got_by = dict(got)
    for sid, rows in exp:
        if sid in got_by:
            missing, extra = diff_rows(rows, got_by[sid])
            if missing or extra:
                notes.append("snapshot %d:" % sid)
                notes += ["  " + n for n in shown(missing, extra)]
    rep.line(not notes, what, "%d snapshots / %d rows expected, %d / %d read" % (len(exp), n_exp, len(got), n_got), notes)


def check_snapshots(rep, reader, out_dir, expect_dir):
    exp, _ = load(os.path.join(expect_dir, "snapshots.jsonl"))
    what = "%s snapshots" % reader
    path = os.path.join(out_dir, "snapshots.jsonl")
    if not os.path.exists(path):
        rep.line(False, what, "%d expected, read failed" % len(exp), error_of(out_dir, "snapshots") or ["no output"])
        return
    got, _ = load(path)
    notes = []
    exp_ids = [int(e["id"]) for e in exp]
    got_ids = [int(g["id"]) for g in got]
    if exp_ids != got_ids:
        notes.append("snapshot ids %s, expected %s" % (got_ids, exp_ids))
    got_by = {int(g["id"]): g for g in got}
    for e in exp:
        g = got_by.get(int(e["id"]))
        if g is None:
            continue
        for k, v in e.items():
            if canon(g.get(k)) != canon(v):
                notes.append("snapshot %d: %s is %s, expected %s" % (int(e["id"]), k, text(g.get(k)), text(v)))
    rep.line(not notes, what, "%d expected, %d read" % (len(exp), len(got)), notes)


def main(argv):
    streamers = set()
    args = []
    i = 1
    while i < len(argv):
        if argv[i] == "--stream" and i + 1 < len(argv):
            streamers.add(argv[i + 1])
            i += 2
        else:
            args.append(argv[i])
            i += 1
    if len(argv) < 2 or not args or any("=" not in a for a in args):
        print(__doc__, file=sys.stderr)
        return 2
    expect_dir = argv[0]
    if not os.path.exists(os.path.join(expect_dir, "latest.jsonl")):
        print("reader_compare: %s/latest.jsonl is missing" % expect_dir, file=sys.stderr)
        return 2
    snaps = sorted(int(m.group(1)) for m in (re.fullmatch(r"snapshot-(\d+)\.jsonl", n) for n in os.listdir(expect_dir)) if m)
    rep = Report()
    for arg in args:
        reader, out_dir = arg.split("=", 1)
        check_rows(rep, reader, out_dir, expect_dir, "latest", "latest")
        for n in snaps:
            check_rows(rep, reader, out_dir, expect_dir, "snapshot-%d" % n, "snapshot %d" % n)
        if reader in streamers and os.path.exists(os.path.join(expect_dir, "stream.jsonl")):
            check_stream(rep, reader, out_dir, expect_dir)
        if os.path.exists(os.path.join(expect_dir, "snapshots.jsonl")):
            check_snapshots(rep, reader, out_dir, expect_dir)
    print("%d passed, %d failed" % (rep.passed, rep.failed))
    return 0 if rep.failed == 0 else 1


if __name__ == "__main__":
    sys.stdout.reconfigure(encoding="utf-8")
    try:
        sys.exit(main(sys.argv[1:]))
    except (OSError, ValueError) as e:
        print("reader_compare: error: %s" % e, file=sys.stderr)
        print("0 passed, 1 failed")
        sys.exit(1)

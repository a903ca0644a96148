#!/usr/bin/env python3
"""Build a reader_check.sh expectation directory from a per-snapshot delta file.

    expect_from_stream.py STREAM_JSONL OUT_DIR [--primary-key K1,K2] [--latest ROWS_JSONL]
                          [--snapshots SNAPSHOTS_JSONL]

STREAM_JSONL has the stream.jsonl form ({"snapshot":N,"rows":k} then that snapshot's delta rows,
each with an optional "_kind": +I, +U, -U, -D; default +I). The rows of every snapshot are replayed
from the deltas: an append table (no --primary-key) keeps every +I/+U row and removes one equal row
for -U/-D; a primary-key table keeps the last +I/+U row per key and drops the key on -U/-D. Written:
OUT_DIR/stream.jsonl (a copy), snapshot-<N>.jsonl for every snapshot in the stream and latest.jsonl
(the last snapshot's rows, with a {"summary":{"snapshot":N,"rows":n}} line).

--latest ROWS_JSONL: a file that must hold exactly the replayed latest rows (as a multiset, compared
like reader_compare.py does); it is then used as latest.jsonl. A difference is an error, so the
replay is itself checked against an independent record. --snapshots copies a snapshot chain file to
OUT_DIR/snapshots.jsonl. Used on the golden tables (tests/paimon/reader_harness_test.sh); exit 1 on
any error, 2 on bad usage.
"""

import argparse
import os
import shutil
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reader_compare as rc  # noqa: E402


def replay(sections, keys):
    state = []  # rows without _kind, in arrival order
    out = []
    for sid, rows in sections:
        for r in rows:
            kind = r.get("_kind", "+I")
            row = {k: v for k, v in r.items() if k != "_kind"}
            if keys:
                key = tuple(rc.canon(row.get(k)) for k in keys)
                state = [s for s in state if tuple(rc.canon(s.get(k)) for k in keys) != key]
                if kind in ("+I", "+U"):
                    state.append(row)
                elif kind not in ("-U", "-D"):
                    raise ValueError("snapshot %d: unknown _kind %s" % (sid, kind))
            elif kind in ("+I", "+U"):
                state.append(row)
            elif kind in ("-U", "-D"):
                c = rc.canon(row)
                for i, s in enumerate(state):
                    if rc.canon(s) == c:
                        del state[i]
                        break
                else:
                    raise ValueError("snapshot %d: %s of a row that is not there: %s" % (sid, kind, rc.text(row)))
            else:
                raise ValueError("snapshot %d: unknown _kind %s" % (sid, kind))
        out.append((sid, list(state)))
    return out


def write_rows(path, sid, rows):
    lines = sorted(rc.text(r) for r in rows)
    with open(path, "w", encoding="utf-8") as f:
        for line in lines:
            f.write(line + "\n")
        f.write('{"summary":{"snapshot":%d,"rows":%d}}\n' % (sid, len(lines)))


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("stream")
    p.add_argument("out_dir")
    p.add_argument("--primary-key", default="")
    p.add_argument("--latest")
    p.add_argument("--snapshots")
    a = p.parse_args(argv)
    keys = [k for k in a.primary_key.split(",") if k]
    sections = rc.load_stream(a.stream, True)
    if not sections:
        raise ValueError("%s: no snapshot in the stream" % a.stream)
    os.makedirs(a.out_dir, exist_ok=True)
    shutil.copyfile(a.stream, os.path.join(a.out_dir, "stream.jsonl"))
    states = replay(sections, keys)
    for sid, rows in states:
        write_rows(os.path.join(a.out_dir, "snapshot-%d.jsonl" % sid), sid, rows)
    last_sid, last_rows = states[-1]
    if a.latest:
        kept, _ = rc.load(a.latest)
        missing, extra = rc.diff_rows(kept, last_rows)
        if missing or extra:
            raise ValueError("%s differs from the replayed stream: %s" % (a.latest, "; ".join(rc.shown(missing, extra))))
        shutil.copyfile(a.latest, os.path.join(a.out_dir, "latest.jsonl"))
    else:
        write_rows(os.path.join(a.out_dir, "latest.jsonl"), last_sid, last_rows)
    if a.snapshots:
        shutil.copyfile(a.snapshots, os.path.join(a.out_dir, "snapshots.jsonl"))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (OSError, ValueError) as e:
        print("expect_from_stream: error: %s" % e, file=sys.stderr)
        sys.exit(1)

#!/usr/bin/env bash
# Paimon reads the checkpoints the snapcommit CLI commits, judged by Paimon's own readers only
# (tests/paimon/reader_check.sh: Paimon Java 1.4.2 and pypaimon).
#
#   tests/paimon/cli_checkpoint_readers.sh PATH_TO_SNAPCOMMIT
#
# Registered in ctest as paimon_cli_checkpoint_readers: needs the JDK and Maven and the pypaimon
# venv, and FAILS without them (never skips). One local primary-key table (dt, id), bucket 1,
# changelog-producer "input" (the streaming read reads the changelog files each snapshot names):
#   checkpoint 1  append part: three rows as a data file and as a changelog file; a watermark
#   ALTER TABLE   schema/schema-1 written (the same fields)
#   checkpoint 2  append part only -> snapshot 2 names schemaId 1
#   checkpoint 3  append part: +U and -D rows (data + changelog); compact part: partition d1's two
#                 level-0 files deleted and their merge added at level 5 -> snapshots 3 (APPEND) and
#                 4 (COMPACT) with identifier 3 (last: the streaming read then ends on it)
# Expected: the rows at every snapshot (time travel), the streaming read (the changelog rows of the
# APPEND snapshots, nothing for the COMPACT one), the chain's kinds, identifiers and schema ids.
set -uo pipefail
sc=${1:?usage: cli_checkpoint_readers.sh PATH_TO_SNAPCOMMIT}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export SNAPCOMMIT_LOG=off
work=$(mktemp -d /tmp/sc-cli-ckpt.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL $*"; echo "cli_checkpoint_readers: 0 passed, 1 failed"; exit 1; }

py=$("$root/scripts/pypaimon-setup.sh") || fail "pypaimon set-up failed"
"$root/scripts/paimon-tool.sh" --build-only || fail "PaimonTool build failed"
export READER_CHECK_PY=$py

t=$work/warehouse/db.db/ckpt
cat > "$work/schema" <<'EOF'
{"fields":[{"name":"dt","type":"STRING"},{"name":"id","type":"INT"},{"name":"v","type":"STRING"}],
 "partitionKeys":["dt"],"primaryKeys":["dt","id"],
 "options":{"bucket":"1","file.format":"parquet","changelog-producer":"input"}}
EOF
"$sc" init "$t" --schema "$work/schema" > "$work/out" 2>&1 || fail "init: $(head -1 "$work/out")"

# files ROWS SEQ: write ROWS (jsonl) as data files of the table; print their change-set entries
files() { "$py" "$here/make_data_files.py" --schema "$work/schema" --rows "$1" --table "$t" --seq-start "$2"; }
adds() { python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["add"]))' "$1"; }

printf '%s\n' '{"dt":"d1","id":1,"v":"a"}' '{"dt":"d1","id":2,"v":"b"}' '{"dt":"d2","id":3,"v":"c"}' > "$work/rows1"
printf '%s\n' '{"dt":"d1","id":1,"v":"a2","_kind":"+U"}' '{"dt":"d1","id":2,"v":"b","_kind":"-D"}' > "$work/rows2"
printf '%s\n' '{"dt":"d1","id":1,"v":"a2"}' > "$work/merged"
printf '%s\n' '{"dt":"d2","id":4,"v":"d"}' > "$work/rows3"

files "$work/rows1" 0 > "$work/d1.json" && files "$work/rows1" 0 > "$work/c1.json" || fail "make_data_files 1"
echo "{\"add\":$(adds "$work/d1.json"),\"changelog\":$(adds "$work/c1.json"),\"watermark\":1700000000000}" > "$work/ck1.json"
"$sc" commit "$t" --user sc-ckpt --identifier 1 --changes "$work/ck1.json" --json > "$work/out" 2>&1 || fail "checkpoint 1: $(head -1 "$work/out")"

python3 - "$t/schema/schema-0" > "$t/schema/schema-1" <<'EOF' || fail "could not write schema-1"
import json, sys
s = json.load(open(sys.argv[1])); s["id"] = 1
print(json.dumps(s, indent=2))
EOF
files "$work/rows3" 100 > "$work/d3.json" && files "$work/rows3" 100 > "$work/c3.json" || fail "make_data_files 2"
echo "{\"add\":$(adds "$work/d3.json"),\"changelog\":$(adds "$work/c3.json")}" > "$work/ck2.json"
"$sc" commit "$t" --user sc-ckpt --identifier 2 --changes "$work/ck2.json" > "$work/out" 2>&1 || fail "checkpoint 2: $(head -1 "$work/out")"

files "$work/rows2" 200 > "$work/d2.json" && files "$work/rows2" 200 > "$work/c2.json" && files "$work/merged" 200 > "$work/m2.json" \
    || fail "make_data_files 3"
python3 - "$work/d1.json" "$work/d2.json" "$work/c2.json" "$work/m2.json" > "$work/ck3.json" <<'EOF'
import json, sys
d1, d2, c2, m2 = (json.load(open(p))["add"] for p in sys.argv[1:])
before = [e for e in d1 + d2 if e["partition"] == "dt=d1"]
after = [dict(e, level=5) for e in m2]
print(json.dumps({"add": d2, "changelog": c2, "compact": {"delete": before, "add": after}, "watermark": 1700000001000}))
EOF
"$sc" commit "$t" --user sc-ckpt --identifier 3 --changes "$work/ck3.json" --json > "$work/out3" 2>&1 || fail "checkpoint 3: $(head -1 "$work/out3")"
python3 -c '
import json,sys; o=json.load(open(sys.argv[1]))
assert (o["snapshot"],o["kind"],o["compactSnapshot"])==(3,"APPEND",4), o' "$work/out3" || fail "checkpoint 3 output: $(cat "$work/out3")"

e=$work/expect; mkdir -p "$e"
cp "$work/rows1" "$e/snapshot-1.jsonl"
{ cat "$work/rows1"; cat "$work/rows3"; } > "$e/snapshot-2.jsonl"
printf '%s\n' '{"dt":"d1","id":1,"v":"a2"}' '{"dt":"d2","id":3,"v":"c"}' '{"dt":"d2","id":4,"v":"d"}' > "$e/snapshot-3.jsonl"
cp "$e/snapshot-3.jsonl" "$e/snapshot-4.jsonl"
cp "$e/snapshot-4.jsonl" "$e/latest.jsonl"
{ echo '{"snapshot":1,"rows":3}'; cat "$work/rows1"
  echo '{"snapshot":2,"rows":1}'; cat "$work/rows3"
  echo '{"snapshot":3,"rows":2}'; cat "$work/rows2"
  echo '{"snapshot":4,"rows":0}'; } > "$e/stream.jsonl"
cat > "$e/snapshots.jsonl" <<'EOF'
{"id":1,"schemaId":0,"commitUser":"sc-ckpt","commitIdentifier":1,"commitKind":"APPEND","totalRecordCount":3,"deltaRecordCount":3}
{"id":2,"schemaId":1,"commitUser":"sc-ckpt","commitIdentifier":2,"commitKind":"APPEND","totalRecordCount":4,"deltaRecordCount":1}
{"id":3,"schemaId":1,"commitUser":"sc-ckpt","commitIdentifier":3,"commitKind":"APPEND","totalRecordCount":6,"deltaRecordCount":2}
{"id":4,"schemaId":1,"commitUser":"sc-ckpt","commitIdentifier":3,"commitKind":"COMPACT","totalRecordCount":3,"deltaRecordCount":-3}
EOF
if "$here/reader_check.sh" "$t" "$e" > "$work/check" 2>&1; then
    echo "ok   Paimon Java and pypaimon read the CLI's checkpoints ($(tail -1 "$work/check"))"
    echo "cli_checkpoint_readers: 1 passed, 0 failed"
else
    cat "$work/check"
    echo "FAIL reader_check of the CLI's checkpoints"
    echo "cli_checkpoint_readers: 0 passed, 1 failed"
    exit 1
fi

#!/usr/bin/env bash
# Expiration and orphan removal through the CLI, judged by Paimon's own readers.
#
#   tests/cli_expire.sh PATH_TO_SNAPCOMMIT
#
# An append table (bucket-unaware, parquet) gets 100 snapshots from `snapcommit commit`: one row
# per commit, and every 10th commit a COMPACT that merges the live files into one (so expired
# snapshots leave data files behind). Then `snapcommit expire --retain-max 10` keeps 10, and
# tests/paimon/reader_check.sh (Paimon Java 1.4.2 and pypaimon 2.1.0, never our code) must read
# exactly the retained snapshots (their ids) and the rows of the latest and of the first retained
# one; `snapcommit fsck` must be clean; a second expire finds nothing. A stray data file and a
# stray manifest (a checkpoint that never completed, a lost claim's list) are removed by
# `remove-orphans --older-than 0ms --force` (refused without --force), and the readers still read the same rows.
# Needs the JDK and Maven (scripts/paimon-tool.sh) and the pypaimon venv: FAILS without them.
# Prints the object counts before and after.
set -uo pipefail
sc=${1:?usage: cli_expire.sh PATH_TO_SNAPCOMMIT}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
export SNAPCOMMIT_LOG=off
work=$(mktemp -d /tmp/sc-cli-expire.XXXXXX)
trap 'rm -rf "$work"' EXIT
pass=0 fail=0
ok() { echo "ok   $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
finish() { echo "cli_expire: $pass passed, $fail failed"; [[ $fail -eq 0 ]]; exit $?; }

py=$("$root/scripts/pypaimon-setup.sh") || { echo "FAIL: pypaimon set-up failed"; exit 1; }
"$root/scripts/paimon-tool.sh" --build-only > "$work/out" 2>&1 || { echo "FAIL: PaimonTool build failed"; cat "$work/out"; exit 1; }
export READER_CHECK_PY=$py

t=$work/t
cat > "$work/schema" <<'EOF'
{"fields":[{"name":"id","type":"INT NOT NULL"},{"name":"name","type":"STRING"}],
 "partitionKeys":[],"primaryKeys":[],"options":{"bucket":"-1","file.format":"parquet"}}
EOF
"$sc" init "$t" --schema "$work/schema" > "$work/out" 2>&1 || { bad "init: $(cat "$work/out")"; finish; }
N=100
: > "$work/all.jsonl"
for ((i = 1; i <= N; i++)); do
    echo "{\"id\":$i,\"name\":\"row-$i\"}" >> "$work/all.jsonl"
    if (( i % 10 == 0 )); then
        # COMPACT: every row so far in one new file; the live files deleted
        "$py" "$root/tests/paimon/make_data_files.py" --schema "$work/schema" --rows "$work/all.jsonl" --table "$t" \
            > "$work/merged.json" 2> "$work/out" || { bad "make_data_files $i: $(head -1 "$work/out")"; finish; }
        "$sc" files "$t" --json > "$work/live.json" || { bad "files before compaction $i"; finish; }
        python3 -c 'import json,sys; live=json.load(open(sys.argv[1])); [e.pop("path") for e in live]
print(json.dumps({"delete": live, "add": json.load(open(sys.argv[2]))["add"]}))' "$work/live.json" "$work/merged.json" > "$work/changes.json"
        kind=compact
    else
        tail -1 "$work/all.jsonl" > "$work/rows"
        "$py" "$root/tests/paimon/make_data_files.py" --schema "$work/schema" --rows "$work/rows" --table "$t" \
            > "$work/changes.json" 2> "$work/out" || { bad "make_data_files $i: $(head -1 "$work/out")"; finish; }
        kind=append
    fi
    "$sc" commit "$t" --user writer --identifier "$i" --kind "$kind" --changes "$work/changes.json" > "$work/out" 2>&1 \
        || { bad "commit $i: $(head -1 "$work/out")"; finish; }
done
count() { find "$t" -type f -not -name '.tmp-*' | wc -l; }
count_in() { find "$t/$1" -type f 2>/dev/null | wc -l; }
data_files() { find "$t/bucket-0" -type f | wc -l; }
before=$(count); before_snap=$(count_in snapshot); before_man=$(count_in manifest); before_data=$(data_files)
[[ $before_snap -eq $((N + 2)) ]] && ok "$N snapshots committed" || bad "expected $N snapshots and 2 hints, found $before_snap files"

# dry run: nothing changes
"$sc" expire "$t" --retain-max 10 --limit 1000 --dry-run --json > "$work/dry" 2> "$work/err" || bad "expire --dry-run exited $?: $(cat "$work/err")"
[[ $(count) -eq $before ]] && ok "expire --dry-run deletes nothing" || bad "expire --dry-run changed the table"

"$sc" expire "$t" --retain-max 10 --limit 1000 --json > "$work/res" 2> "$work/err" || bad "expire exited $?: $(cat "$work/err")"
python3 - "$work/dry" "$work/res" <<'EOF' && ok "expire: 90 snapshots expired, earliest 91, dry run predicted it" || bad "expire result: $(cat "$work/res")"
import json, sys
d, r = (json.load(open(p)) for p in sys.argv[1:])
assert r["snapshotsExpired"] == 90 and r["earliestAfter"] == 91 and r["latest"] == 100, r
for k in ("snapshotsExpired", "dataFilesDeleted", "manifestsDeleted", "manifestListsDeleted", "bytesDeleted"):
    assert d[k] == r[k], (k, d[k], r[k])
# files of commits 1..89 (81 appended, 8 merged at 10..80): the merge at 90 is live in 91
assert r["dataFilesDeleted"] == 89, r
EOF
[[ $(cat "$t/snapshot/EARLIEST") == 91 ]] && ok "snapshot/EARLIEST is 91 (no newline)" || bad "EARLIEST holds '$(cat "$t/snapshot/EARLIEST")'"
[[ $(count_in snapshot) -eq 12 ]] && ok "10 snapshot files and 2 hints left" || bad "$(count_in snapshot) files under snapshot/"
"$sc" fsck "$t" --data > "$work/out" 2>&1 && grep -q "data files of snapshots 91..100 present" "$work/out" \
    && ok "fsck --data clean after expire: $(cat "$work/out")" || bad "fsck --data: $(cat "$work/out")"
"$sc" expire "$t" --retain-max 10 > "$work/out" 2>&1 && grep -q "nothing to expire" "$work/out" \
    && ok "a second expire finds nothing" || bad "second expire: $(cat "$work/out")"
after=$(count); after_man=$(count_in manifest); after_data=$(data_files)

# Paimon's readers: exactly snapshots 91..100, latest rows all 100, snapshot 91 rows 1..90 + 91
exp=$work/expect
mkdir -p "$exp"
cp "$work/all.jsonl" "$exp/latest.jsonl"
head -91 "$work/all.jsonl" > "$exp/snapshot-91.jsonl"
for ((i = 91; i <= N; i++)); do
    k=APPEND; (( i % 10 == 0 )) && k=COMPACT
    echo "{\"id\":$i,\"commitUser\":\"writer\",\"commitIdentifier\":$i,\"commitKind\":\"$k\"}"
done > "$exp/snapshots.jsonl"
if "$here/paimon/reader_check.sh" "$t" "$exp" > "$work/out" 2>&1; then
    ok "Paimon Java and pypaimon read exactly the retained snapshots ($(tail -1 "$work/out"))"
else
    bad "reader_check after expire"; cat "$work/out"
fi

# orphans: a stray data file and a stray manifest list are removed; referenced objects stay
printf 'PAR1 stray' > "$t/bucket-0/data-stray-0.parquet"
printf 'stray' > "$t/manifest/manifest-list-stray-0"
"$sc" remove-orphans "$t" --older-than 1d --json > "$work/res" || bad "remove-orphans --older-than 1d exited $?"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["orphansFound"]==2 and r["tooYoung"]==2, r' "$work/res" \
    && ok "remove-orphans keeps unreferenced objects younger than 1d" || bad "remove-orphans 1d: $(cat "$work/res")"
# an age below the commit budget is refused (exit 2, saying why) and deletes nothing; --force runs it
"$sc" remove-orphans "$t" --older-than 0ms > "$work/res" 2> "$work/err"; rc=$?
[[ $rc -eq 2 ]] && grep -q "older-than 0 ms is below the commit budget of 60000 ms: .*commit in flight.*--force" "$work/err" \
    && [[ -e $t/bucket-0/data-stray-0.parquet && -e $t/manifest/manifest-list-stray-0 ]] \
    && ok "remove-orphans --older-than 0ms refused: $(cat "$work/err")" || bad "remove-orphans 0ms without --force: exit $rc, $(cat "$work/err")"
"$sc" remove-orphans "$t" --older-than 59s --dry-run > /dev/null 2>&1; rc=$?
[[ $rc -eq 2 ]] && ok "remove-orphans --older-than 59s refused" || bad "remove-orphans 59s: exit $rc"
"$sc" remove-orphans "$t" --older-than 0ms --force > "$work/res" || bad "remove-orphans --force exited $?"
grep -q "^deleted 2 orphans (1 data files, 1 manifests, 0 index files, 0 other)" "$work/res" \
    && ok "remove-orphans --older-than 0ms --force: $(cat "$work/res")" || bad "remove-orphans: $(cat "$work/res")"
[[ ! -e $t/bucket-0/data-stray-0.parquet && ! -e $t/manifest/manifest-list-stray-0 ]] || bad "stray objects still there"
[[ -e $t/metadata/table.json && -e $t/metadata/history && -e $t/schema/schema-0 && -e $t/snapshot/LATEST ]] \
    && ok "table.json, history, schema and hints untouched" || bad "remove-orphans touched metadata"
[[ $(count) -eq $after ]] && ok "remove-orphans deleted only the strays" || bad "object count $(count), expected $after"
"$sc" fsck "$t" --data > "$work/out" 2>&1 && ok "fsck --data clean after remove-orphans" || bad "fsck --data: $(cat "$work/out")"
if "$here/paimon/reader_check.sh" "$t" "$exp" > "$work/out" 2>&1; then
    ok "Paimon's readers read the same after remove-orphans"
else
    bad "reader_check after remove-orphans"; cat "$work/out"
fi
# a data file a retained snapshot names goes missing: fsck --data names it, fsck alone (metadata) does not look
victim=$(find "$t/bucket-0" -type f -name 'data-*' | sort | head -1)
mv "$victim" "$work/victim"
"$sc" fsck "$t" > /dev/null 2>&1 && ok "fsck without --data does not read data files" || bad "fsck (metadata) failed"
"$sc" fsck "$t" --data > "$work/out" 2>&1; rc=$?
[[ $rc -eq 1 ]] && grep -q "$(basename "$victim"): named by snapshot .* but missing from storage" "$work/out" \
    && ok "fsck --data finds the missing data file: $(tail -1 "$work/out")" || bad "fsck --data on a missing file: exit $rc, $(cat "$work/out")"
mv "$work/victim" "$victim"
"$sc" expire "$t" --older-than 1x > "$work/out" 2>&1; [[ $? -eq 2 ]] && ok "a bad duration is exit 2" || bad "bad duration: exit not 2"
echo "objects: before $before (snapshot/ $before_snap, manifest/ $before_man, data $before_data); after $after (snapshot/ $(count_in snapshot), manifest/ $after_man, data $after_data)"
finish

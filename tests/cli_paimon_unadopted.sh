#!/usr/bin/env bash
# A Paimon table snapcommit has not adopted (Paimon's own writer made it; no metadata/table.json):
# log, files, last-committed and fsck read it as it is and write nothing (the tree is byte for byte
# the same afterwards); commit, expire and remove-orphans refuse it, saying how to adopt it; after
# 'init' adopts it, a commit works. A snapcommit table that lost its table.json is not taken for one.
set -uo pipefail
sc=${1:?usage: cli_paimon_unadopted.sh PATH_TO_SNAPCOMMIT}
golden=$(cd "$(dirname "$0")/vectors/paimon-1.4.2" && pwd)
work=$(mktemp -d /tmp/sc-unadopted.XXXXXX)
trap 'rm -rf "$work"' EXIT
export SNAPCOMMIT_LOG=warn
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
# run: description expected-exit pattern-in-stderr command...
run() {
  local d=$1 want=$2 pat=$3; shift 3
  timeout 20 "$@" >"$work/out" 2>"$work/err"
  local got=$?
  if [ "$got" != "$want" ]; then bad "$d: expected exit $want, got $got: $(head -c 400 "$work/err")"; return 1; fi
  if [ -n "$pat" ] && ! grep -qF -- "$pat" "$work/err"; then bad "$d: stderr lacks \"$pat\": $(head -c 400 "$work/err")"; return 1; fi
  ok
}
# Every file and directory with its type, size, mode and content hash: what "writes nothing" compares.
tree() { (cd "$1" && find . -printf '%y %s %m %p\n' | sort && find . -type f -print0 | sort -z | xargs -0 sha256sum); }

for name in append_fixed pk; do
  t="$work/$name"
  cp -a "$golden/warehouse/golden.db/$name" "$t"
  [ ! -e "$t/metadata/table.json" ] && ok || bad "$name: the golden table has a table.json"
  before=$(tree "$t")

  # log: the snapshots Paimon recorded.
  run "$name: log" 0 "" "$sc" log "$t" --json && python3 - "$work/out" "$golden/$name.snapshots.jsonl" <<'PY' && ok || bad "$name: log differs from Paimon's snapshots"
import json, sys
got = json.load(open(sys.argv[1]))
want = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
keys = ["id", "commitUser", "commitIdentifier", "commitKind", "totalRecordCount", "deltaRecordCount"]
g = [{k: s[k] for k in keys} for s in got]
w = [{k: s[k] for k in keys} for s in want]
if g != w:
    print("got ", g); print("want", w); sys.exit(1)
PY
  # files: every data file Paimon wrote is live (appends and upserts only, no compaction).
  run "$name: files" 0 "" "$sc" files "$t" --json && python3 - "$work/out" "$t" <<'PY' && ok || bad "$name: files differ from the data files on disk"
import json, os, sys
got = sorted(e["path"] for e in json.load(open(sys.argv[1])))
root = sys.argv[2]
want = sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs if f.startswith("data-"))
if got != want or not got:
    print("got ", got); print("want", want); sys.exit(1)
PY
  run "$name: files of snapshot 1" 0 "" "$sc" files "$t" --snapshot 1
  run "$name: last-committed" 0 "" "$sc" last-committed "$t" --user golden-writer
  [ "$(cat "$work/out")" = 3 ] && ok || bad "$name: last-committed printed $(cat "$work/out")"
  run "$name: fsck" 0 "" "$sc" fsck "$t"
  grep -q "is sound (latest snapshot 3)" "$work/out" && ok || bad "$name: fsck said $(cat "$work/out")"
  [ ! -s "$work/err" ] && ok || bad "$name: fsck warned: $(cat "$work/err")"
  run "$name: fsck --data" 0 "" "$sc" fsck "$t" --data
  [ "$before" = "$(tree "$t")" ] && ok || bad "$name: reading changed the table: $(diff <(echo "$before") <(tree "$t") | head -5)"

  # Commands that write refuse it, name the way to adopt it, and write nothing either.
  adopt="this is a Paimon table that snapcommit has not adopted"
  how="run 'snapcommit init $t' (no --schema) to adopt it first"
  printf '{"add":[]}' >"$work/c"
  run "$name: commit" 1 "$adopt" "$sc" commit "$t" --user u --identifier 1 --changes "$work/c"
  grep -qF -- "$how" "$work/err" && ok || bad "$name: commit does not say how to adopt: $(cat "$work/err")"
  run "$name: expire" 1 "$adopt" "$sc" expire "$t"
  run "$name: expire --dry-run" 1 "$adopt" "$sc" expire "$t" --dry-run
  run "$name: remove-orphans" 1 "$adopt" "$sc" remove-orphans "$t"
  run "$name: remove-orphans --dry-run" 1 "$adopt" "$sc" remove-orphans "$t" --dry-run
  [ "$before" = "$(tree "$t")" ] && ok || bad "$name: a refused write changed the table"

  # Adopted, it takes commits (and reads the same history).
  run "$name: init adopts" 0 "" "$sc" init "$t"
  run "$name: fsck after adoption" 0 "" "$sc" fsck "$t"
done

# A commit into the adopted append table: a bucket-0 file of partition dt=2024-01-03/h=1.
t="$work/append_fixed"
printf '{"add":[{"partition":"dt=2024-01-03/h=1","bucket":0,"totalBuckets":2,"level":0,"file":"data-new.parquet","rows":1,"size":10}]}' >"$work/c"
run "append_fixed: commit after adoption" 0 "" "$sc" commit "$t" --user u --identifier 1 --changes "$work/c"
run "append_fixed: log after the commit" 0 "" "$sc" last-committed "$t" --user u
[ "$(cat "$work/out")" = 1 ] && ok || bad "last-committed of u after adoption printed $(cat "$work/out")"

# A snapcommit table whose table.json is gone is not read as a Paimon one: its snapshots say whose they are.
t="$work/lost"
"$sc" init "$t" >/dev/null || bad "init $t"
printf '{"add":[{"partition":"","bucket":0,"level":0,"file":"data-a.parquet","rows":1,"size":10}]}' >"$work/c"
"$sc" commit "$t" --user u --identifier 1 --changes "$work/c" >/dev/null || bad "commit into $t"
uuid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tableUuid"])' "$t/metadata/table.json")
rm "$t/metadata/table.json"
lost="metadata/table.json is missing, but metadata/history shows that snapcommit committed to this table"
for cmd in log files fsck; do run "table.json lost: $cmd" 1 "$lost" "$sc" $cmd "$t"; done
run "table.json lost: commit" 1 "$lost" "$sc" commit "$t" --user u --identifier 2 --changes "$work/c"
run "table.json lost: init does not adopt it again" 1 "restore it" "$sc" init "$t"
[ ! -e "$t/metadata/table.json" ] && ok || bad "table.json lost: init wrote a new one"
# ... and without the history marker too (a table from before it): each of its snapshots names its table.
rm "$t/metadata/history"
for cmd in log files fsck; do
  run "table.json and history lost: $cmd" 1 "written by snapcommit for table $uuid, but metadata/table.json is missing" "$sc" $cmd "$t"
done
# No schema: no table at all, for reads and writes alike.
mkdir -p "$work/empty"
run "no table: log" 1 "no table here" "$sc" log "$work/empty"
run "no table: commit" 1 "no table here" "$sc" commit "$work/empty" --user u --identifier 1 --changes "$work/c"
[ -z "$(ls -A "$work/empty")" ] && ok || bad "a command wrote into an empty directory"

echo "cli_paimon_unadopted: $passed passed, $failed failed"
[ "$failed" = 0 ]

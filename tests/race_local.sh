#!/usr/bin/env bash
# Multi-process race on one table: P processes x C commits each through the CLI
# (real processes; by default the local file system and the rename strategy;
# RACE_TABLE and RACE_STRATEGY select another location and strategy). Every
# commit must land exactly once and snapshot ids must be contiguous from 1.
set -euo pipefail
sc=${1:?usage: race_local.sh PATH_TO_SNAPCOMMIT}
procs=${RACE_PROCS:-8}
commits=${RACE_COMMITS:-25}
work=$(mktemp -d /tmp/sc-race.XXXXXX)
trap 'rm -rf "$work"' EXIT
table=${RACE_TABLE:-$work/table}
strategy=${RACE_STRATEGY:-rename}
# A partitioned append table (bucket-unaware): each commit adds one file to partition part=p.
schema='{"fields":[{"name":"part","type":"STRING"},{"name":"v","type":"BIGINT"}],"partitionKeys":["part"],"primaryKeys":[],"options":{}}'
echo "$schema" | "$sc" init "$table" --strategy "$strategy" --schema - >/dev/null

writer() {
  local user=$1 lost=0
  for i in $(seq 1 "$commits"); do
    printf '{"add":[{"partition":"part=p","bucket":0,"level":0,"file":"data-%s-%d.parquet","rows":1,"size":1}]}' "$user" "$i" \
      | SNAPCOMMIT_LOG=off "$sc" commit "$table" --user "$user" --identifier "$i" --changes - \
          --max-retries 100 --json >>"$work/$user.out"
  done
}
start=$(date +%s.%N)
pids=()
for p in $(seq 1 "$procs"); do writer "w$p" & pids+=($!); done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
end=$(date +%s.%N)
[ "$status" = 0 ] || { echo "FAIL: a writer process failed"; exit 1; }

"$sc" log "$table" --json >"$work/log.json"
"$sc" files "$table" --json >"$work/files.json"
"$sc" fsck "$table" >/dev/null
python3 - "$work" "$procs" "$commits" "$start" "$end" "$table" "$strategy" <<'PY'
import json, sys, glob, os
work, procs, commits, start, end = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
table, strategy = sys.argv[6], sys.argv[7]
log = json.load(open(os.path.join(work, "log.json")))
files = json.load(open(os.path.join(work, "files.json")))
total = procs * commits
ids = [s["id"] for s in log]
assert ids == list(range(1, total + 1)), f"ids not contiguous 1..{total}: {ids[:5]}... ({len(ids)} snapshots)"
pairs = [(s["commitUser"], s["commitIdentifier"]) for s in log]
assert len(set(pairs)) == total, "a (user, identifier) was committed twice"
expected = {(f"w{p}", i) for p in range(1, procs + 1) for i in range(1, commits + 1)}
assert set(pairs) == expected, f"missing commits: {sorted(expected - set(pairs))[:5]}"
assert len(files) == total and len({f['file'] for f in files}) == total, "live files do not match the commits"
assert {f["path"] for f in files} == {f"part=p/bucket-0/data-w{p}-{i}.parquet" for p in range(1, procs + 1) for i in range(1, commits + 1)}, "live file paths"
assert all(f["totalBuckets"] == -1 and f["partition"] == "part=p" for f in files), files[0]
lost = attempts = 0
for out in glob.glob(os.path.join(work, "w*.out")):
    for line in open(out):
        r = json.loads(line)
        assert r["result"] == "SC_OK", r
        lost += r["lostClaims"]; attempts += r["attempts"]
secs = end - start
print(f"race ({strategy} on {table}): {procs} processes x {commits} commits = {total} snapshots, ids 1..{total} contiguous, "
      f"each (user, identifier) exactly once; {lost} lost claims retried, {attempts} claims; "
      f"{total/secs:.0f} commits/s wall (CLI process per commit)")
PY

#!/usr/bin/env bash
# Multi-process race on one table: P processes x C commits each through the CLI
# (real processes; by default the local file system and the rename strategy;
# RACE_TABLE and RACE_STRATEGY select another location and strategy), with the
# library's default retry policy (RACE_RETRY_ARGS adds CLI flags). Every commit
# must land exactly once (none may give up) and snapshot ids must be contiguous
# from 1. Reports lost claims, give-ups, storage requests per commit (in total
# and inside the claim window) and the longest commit.
set -euo pipefail
sc=${1:?usage: race_local.sh PATH_TO_SNAPCOMMIT}
procs=${RACE_PROCS:-8}
commits=${RACE_COMMITS:-25}
work=$(mktemp -d /tmp/sc-race.XXXXXX)
trap '[ -n "${RACE_KEEP:-}" ] || rm -rf "$work"' EXIT
table=${RACE_TABLE:-$work/table}
strategy=${RACE_STRATEGY:-rename}
# A partitioned append table (bucket-unaware): each commit adds one file to partition part=p.
schema='{"fields":[{"name":"part","type":"STRING"},{"name":"v","type":"BIGINT"}],"partitionKeys":["part"],"primaryKeys":[],"options":{}}'
echo "$schema" | "$sc" init "$table" --strategy "$strategy" --schema - >/dev/null

writer() {
  local user=$1 lost=0
  for i in $(seq 1 "$commits"); do
    printf '{"add":[{"partition":"part=p","bucket":0,"level":0,"file":"data-%s-%d.parquet","rows":1,"size":1}]}' "$user" "$i" \
      | SNAPCOMMIT_LOG=warn "$sc" commit "$table" --user "$user" --identifier "$i" --changes - \
          ${RACE_RETRY_ARGS:-} --stats --json >>"$work/$user.out" 2>>"$work/$user.err" || true  # judged from the JSON below
  done
}
start=$(date +%s.%N)
pids=()
for p in $(seq 1 "$procs"); do writer "w$p" & pids+=($!); done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
end=$(date +%s.%N)
[ "$status" = 0 ] || { echo "FAIL: a writer process failed"; exit 1; }
python3 - "$work" <<'PY'
import json, sys, glob, os
bad = [json.loads(l) for f in glob.glob(os.path.join(sys.argv[1], "w*.out")) for l in open(f) if json.loads(l)["result"] != "SC_OK"]
if bad:
    print(f"FAIL: {len(bad)} commits did not land (gave up or failed): " + "; ".join(f'{b["result"]}: {b.get("message", "")}' for b in bad[:3]))
    sys.exit(1)
PY

"$sc" log "$table" --json >"$work/log.json"
"$sc" files "$table" --json >"$work/files.json"
if ! "$sc" fsck "$table" >"$work/fsck.out" 2>&1; then
  # What the next look needs: the check's verdict, what the writers logged (but lost claims), and
  # the commits around the snapshot it names (who claimed it, after how many attempts).
  echo "FAIL: fsck after the race: $(cat "$work/fsck.out")"
  cat "$work"/w*.err 2>/dev/null | grep -v "lost the claim of snapshot" | sort | uniq -c | sort -rn | head -30
  python3 - "$work" "$(cat "$work/fsck.out")" <<'PY'
import json, sys, glob, os, re
work, msg = sys.argv[1], sys.argv[2]
m = re.search(r"snapshot (\d+)", msg)
at = int(m.group(1)) if m else 0
for s in json.load(open(os.path.join(work, "log.json"))):
    if abs(s["id"] - at) <= 2: print("log:", json.dumps(s)[:300])
for out in sorted(glob.glob(os.path.join(work, "w*.out"))):
    for line in open(out):
        r = json.loads(line)
        if abs(r.get("snapshot", 0) - at) <= 2: print(os.path.basename(out), line.strip()[:300])
PY
  exit 1
fi
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
lost = attempts = requests = window = 0
longest = most_lost = 0
for out in glob.glob(os.path.join(work, "w*.out")):
    for line in open(out):
        r = json.loads(line)
        assert r["result"] == "SC_OK", r
        lost += r["lostClaims"]; attempts += r["attempts"]
        requests += sum(v for k, v in r["stats"].items() if not k.startswith("bytes") and k != "roundTrips")
        window += sum(r.get("window", {}).values())  # absent before the window was counted
        longest = max(longest, r["elapsedMs"]); most_lost = max(most_lost, r["lostClaims"])
secs = end - start
print(f"race ({strategy} on {table}): {procs} processes x {commits} commits = {total} snapshots, ids 1..{total} contiguous, "
      f"each (user, identifier) exactly once, 0 gave up; {lost} lost claims retried (at most {most_lost} by one commit), "
      f"{attempts} claims; {requests/total:.1f} requests per commit ({window/total:.1f} in the claim window); "
      f"longest commit {longest} ms; {total/secs:.0f} commits/s wall (CLI process per commit)")
PY

#!/usr/bin/env bash
# Multi-process race on one local table through the tracker strategy (seed 000's
# list-based claim, no rename and no conditional write used for the claim):
# P processes x C commits each through the CLI on the local file system. Every
# commit must land exactly once and snapshot ids must be contiguous from 1.
set -euo pipefail
sc=${1:?usage: race_tracker_local.sh PATH_TO_SNAPCOMMIT}
procs=${RACE_PROCS:-8}
commits=${RACE_COMMITS:-25}
work=$(mktemp -d /tmp/sc-race-tracker.XXXXXX)
trap 'rm -rf "$work"' EXIT
table="$work/table"
echo '{"fields":[{"name":"part","type":"STRING"},{"name":"v","type":"BIGINT"}],"partitionKeys":["part"],"primaryKeys":[],"options":{}}' \
  | "$sc" init "$table" --strategy tracker --schema - >/dev/null

# RACE_KILL=1: SIGKILL each commit process after a random 5..80 ms and retry the
# same identifier until it is known committed (SC_OK or SC_ECOMMITTED), as a
# restarted committer would; set SNAPCOMMIT_TRACKER_TTL_MS low (e.g. 1000) so
# that attempts of killed processes age out quickly.
kill_mode=${RACE_KILL:-0}
kills=0
writer() {
  local user=$1 out
  for i in $(seq 1 "$commits"); do
    while :; do
      if [ "$kill_mode" = 1 ]; then
        out=$(printf '{"add":[{"partition":"part=p","bucket":0,"level":0,"file":"data-%s-%d.parquet","rows":1,"size":1}]}' "$user" "$i" \
          | SNAPCOMMIT_LOG=off timeout -s KILL "0.0$(( RANDOM % 75 + 5 ))" "$sc" commit "$table" --user "$user" --identifier "$i" \
              --changes - --max-retries 1000 --json --stats 2>/dev/null || true)
        case "$out" in
          *'"SC_OK"'*) echo "$out" >>"$work/$user.out"; break ;;
          *'"SC_ECOMMITTED"'*) echo "$i" >>"$work/$user.recommitted"; break ;;
          *) echo x >>"$work/$user.killed" ;;
        esac
      else
        printf '{"add":[{"partition":"part=p","bucket":0,"level":0,"file":"data-%s-%d.parquet","rows":1,"size":1}]}' "$user" "$i" \
          | SNAPCOMMIT_LOG=off "$sc" commit "$table" --user "$user" --identifier "$i" --changes - \
              --max-retries 1000 --json --stats >>"$work/$user.out"
        break
      fi
    done
  done
}
start=$(date +%s.%N)
pids=()
for p in $(seq 1 "$procs"); do writer "w$p" & pids+=($!); done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
end=$(date +%s.%N)
[ "$status" = 0 ] || { echo "FAIL: a writer process failed"; cat "$work"/w*.out | grep -v SC_OK | head; exit 1; }

# One more commit alone: the cost of an uncontended commit from a fresh process.
printf '{"add":[{"partition":"part=p","bucket":0,"level":0,"file":"data-solo.parquet","rows":1,"size":1}]}' \
  | SNAPCOMMIT_LOG=off "$sc" commit "$table" --user solo --identifier 1 --changes - --json --stats >"$work/solo.json"

"$sc" log "$table" --json >"$work/log.json"
"$sc" files "$table" --json >"$work/files.json"
expired=$(find "$table/commit" -name EXPIRED-HINT | wc -l)
if [ "$kill_mode" = 1 ]; then
  echo "kill mode: $(cat "$work"/*.killed 2>/dev/null | wc -l) commit processes killed, $(cat "$work"/*.recommitted 2>/dev/null | wc -l) found already committed on retry"
fi
subs=$(find "$table/commit" -mindepth 2 -maxdepth 2 -type d ! -name sub-tracker | wc -l)
python3 - "$work" "$procs" "$commits" "$start" "$end" "$expired" "$subs" <<'PY'
import json, sys, glob, os
work, procs, commits = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
start, end, expired, subs = float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
log = json.load(open(os.path.join(work, "log.json")))
files = json.load(open(os.path.join(work, "files.json")))
total = procs * commits + 1
ids = sorted(s["id"] for s in log)
assert ids == list(range(1, total + 1)), f"ids not contiguous 1..{total}: {ids[:5]}... ({len(ids)} snapshots)"
pairs = [(s["commitUser"], s["commitIdentifier"]) for s in log]
assert len(set(pairs)) == total, "a (user, identifier) was committed twice"
expected = {(f"w{p}", i) for p in range(1, procs + 1) for i in range(1, commits + 1)} | {("solo", 1)}
assert set(pairs) == expected, f"missing commits: {sorted(expected - set(pairs))[:5]}"
assert len(files) == total and len({f['file'] for f in files}) == total, "live files do not match the commits"
lost = attempts = unknown = 0
for out in glob.glob(os.path.join(work, "w*.out")):
    for line in open(out):
        r = json.loads(line)
        assert r["result"] == "SC_OK", r
        lost += r["lostClaims"]; attempts += r["attempts"]; unknown += r.get("unknownOutcomes", 0)
solo = json.load(open(os.path.join(work, "solo.json")))
st = solo.get("stats", {})
secs = end - start
print(f"race (tracker): {procs} processes x {commits} commits = {procs*commits} snapshots (+1 solo), ids 1..{total} contiguous, "
      f"each (user, identifier) exactly once; {attempts} claims, {lost} lost, {unknown} unknown; "
      f"{subs} sub-version directories, {expired} expired; {procs*commits/secs:.0f} commits/s wall (CLI process per commit)")
print("uncontended commit from a fresh process: " + ", ".join(f"{k} {v}" for k, v in st.items() if not k.startswith("bytes")))
PY

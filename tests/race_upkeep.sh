#!/usr/bin/env bash
# Upkeep racing real writers (docs/protocols.md §13): W writer processes commit
# through the CLI (one process per commit), a compactor replaces pairs of their
# files, an expirer loop (`expire --retain-min 2 --retain-max K --older-than 0s`),
# an orphan-remover loop (`remove-orphans --older-than 10s --force`: below the
# default commit budget, but longer than any commit takes here) and a reader loop
# (in turn `files`, `fsck` or `last-committed` of the latest state, then `log` and
# the files of latest or latest-1, inside the retention window) all run at once.
# Locally the writers also write their data files, and leave some never committed (orphans).
#
# At the end: no writer gave up; every (user, identifier) landed exactly once
# (last-committed per user, the latest snapshot id equals the number of commits,
# a replay exits 3); the live files are exactly those expected; at most K
# snapshots retained; fsck clean; the object count is bounded by what the
# retained snapshots need (not by the number of commits); no orphan data file
# left after a final `remove-orphans --older-than 0s --force` (the writers have
# stopped); the reader never found a snapshot inside the window with a missing object, and no read failed because an
# expiration ran meanwhile (only "run it again", SC_ETRANSIENT, or for a snapshot
# asked for by id that left the window, SC_ENOTFOUND, are accepted; never SC_ECORRUPT).
#
# RACE_TABLE / RACE_STRATEGY select another location and strategy (race_upkeep_s3.sh:
# gofakes3, conditional); RACE_PROCS, RACE_COMMITS, RACE_COMPACTIONS, RACE_RETAIN_MAX
# change the sizes.
set -euo pipefail
sc=${1:?usage: race_upkeep.sh PATH_TO_SNAPCOMMIT}
procs=${RACE_PROCS:-4}
commits=${RACE_COMMITS:-30}
compactions=${RACE_COMPACTIONS:-10}
retain_max=${RACE_RETAIN_MAX:-5}
orphan_age=${RACE_ORPHAN_AGE:-10s}
work=$(mktemp -d /tmp/sc-upkeep.XXXXXX)
trap '[ -n "${RACE_KEEP:-}" ] || rm -rf "$work"; [ -z "${loops:-}" ] || kill $loops 2>/dev/null || true' EXIT
table=${RACE_TABLE:-$work/table}
strategy=${RACE_STRATEGY:-rename}
local=0
case "$table" in s3://*) ;; *) local=1 ;; esac
schema='{"fields":[{"name":"part","type":"STRING"},{"name":"v","type":"BIGINT"}],"partitionKeys":["part"],"primaryKeys":[],"options":{}}'
echo "$schema" | "$sc" init "$table" --strategy "$strategy" --schema - >/dev/null
[ "$local" = 0 ] || mkdir -p "$table/part=p/bucket-0"

entry() { printf '{"partition":"part=p","bucket":0,"level":0,"file":"%s","rows":1,"size":4}' "$1"; }
writer() {
  local user=$1
  for i in $(seq 1 "$commits"); do
    if [ "$local" = 1 ]; then
      echo data >"$table/part=p/bucket-0/data-$user-$i.parquet"
      # every fifth commit also leaves a file that is never committed (a failed checkpoint)
      [ $((i % 5)) != 0 ] || echo orphan >"$table/part=p/bucket-0/orphan-$user-$i.parquet"
    fi
    printf '{"add":[%s]}' "$(entry "data-$user-$i.parquet")" \
      | SNAPCOMMIT_LOG=off "$sc" commit "$table" --user "$user" --identifier "$i" --changes - \
          --json >>"$work/$user.out" || true  # judged from the JSON below
  done
}
# Replaces two live writer files by one merged file, one compaction at a time.
compactor() {
  local n=0 attempts=0
  while [ "$n" -lt "$compactions" ] && [ "$attempts" -lt $((compactions * 5)) ]; do
    attempts=$((attempts + 1))
    sleep 0.3
    SNAPCOMMIT_LOG=off "$sc" files "$table" --json >"$work/c-live.json" 2>/dev/null || continue
    python3 - "$work/c-live.json" "$((n + 1))" >"$work/c-changes.json" <<'PY' || continue
import json, sys
live = [f for f in json.load(open(sys.argv[1])) if f["file"].startswith("data-")]
if len(live) < 2: sys.exit(1)
pick = live[:2]
for f in pick:
    for k in ("path", "totalBuckets"): f.pop(k, None)
print(json.dumps({"delete": pick, "add": [{"partition": "part=p", "bucket": 0, "level": 0,
                  "file": f"merged-{sys.argv[2]}.parquet", "rows": 2, "size": 4}]}))
PY
    [ "$local" = 0 ] || echo merged >"$table/part=p/bucket-0/merged-$((n + 1)).parquet"
    set +e
    SNAPCOMMIT_LOG=off "$sc" commit "$table" --user compactor --identifier "$((n + 1))" --kind compact \
      --changes "$work/c-changes.json" --json >>"$work/compactor.out"
    rc=$?
    set -e
    if [ "$rc" = 0 ]; then n=$((n + 1)); cp "$work/c-changes.json" "$work/compaction-$n.json"; fi
  done
  echo "$n" >"$work/compactions"
}
expirer() {
  while [ ! -e "$work/stop" ]; do
    SNAPCOMMIT_LOG=off "$sc" expire "$table" --retain-min 2 --retain-max "$retain_max" --older-than 0s --json \
      >>"$work/expire.out" 2>>"$work/expire.err" || echo failed >>"$work/expire.failed"
    sleep 0.1
  done
}
orphans() {
  while [ ! -e "$work/stop" ]; do
    SNAPCOMMIT_LOG=off "$sc" remove-orphans "$table" --older-than "$orphan_age" --force --json \
      >>"$work/orphans.out" 2>>"$work/orphans.err" || echo failed >>"$work/orphans.failed"
    sleep 0.3
  done
}
reader() {
  python3 - "$sc" "$table" "$local" "$work" <<'PY'
import json, os, random, re, subprocess, sys
sc, table, local, work = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4]
env = dict(os.environ, SNAPCOMMIT_LOG="off")
last_err = [""]
def run(*args):
    r = subprocess.run([sc, *args], capture_output=True, text=True, env=env)
    last_err[0] = r.stderr.strip()[-300:]
    return r.returncode, r.stdout
def earliest():
    rc, out = run("log", table, "--json")
    ids = [s["id"] for s in json.loads(out)] if rc == 0 else []
    return min(ids) if ids else None
def code():  # the library's code that a failed command printed last on stderr, "(SC_...)"
    m = re.findall(r"\((SC_[A-Z]+)\)", last_err[0])
    return m[-1] if m else "?"
reads = whole = expired = latest_reads = retried = 0
bad = []
rng = random.Random(7)
# Readers of the latest state racing expiration: an expiration between their reads is read
# again or reported as such (SC_ETRANSIENT: run it again), never as damage or "not found".
latest_readers = [("files", table, "--json"), ("fsck", table), ("last-committed", table, "--user", "w1")]
turn = 0
while not os.path.exists(os.path.join(work, "stop")):
    cmd = latest_readers[turn % len(latest_readers)]
    turn += 1
    rc, out = run(*cmd)
    latest_reads += 1
    if rc != 0 and code() == "SC_ETRANSIENT":
        retried += 1
    elif rc != 0:
        bad.append(f"{cmd[0]} failed: {rc}: {last_err[0]}")
    rc, out = run("log", table, "--json")
    if rc != 0:
        bad.append(f"log failed: {rc}: {last_err[0]}"); continue
    ids = [s["id"] for s in json.loads(out)]
    if not ids: continue
    n = max(ids) - rng.randrange(2)  # latest or latest-1: inside the window of --retain-min 2
    if n < min(ids): continue
    reads += 1
    rc, out = run("files", table, "--snapshot", str(n), "--json")
    missing = None if rc == 0 else f"files --snapshot {n} exited {rc}: {last_err[0]}"
    if rc != 0 and code() != "SC_ENOTFOUND":  # expired under it is "not found", never damage
        bad.append(missing); continue
    if rc == 0 and local:
        for f in json.loads(out):
            if not os.path.exists(os.path.join(table, f["path"])):
                missing = f"snapshot {n} names {f['path']}, which is gone"; break
    if missing is None:
        whole += 1
        continue
    e = earliest()
    if e is not None and n < e:
        expired += 1  # it left the window while it was read (EARLIEST is now e)
    else:
        bad.append(f"{missing} (EARLIEST {e}): inside the retention window")
json.dump({"reads": reads, "whole": whole, "expired": expired, "latest_reads": latest_reads, "retried": retried,
           "bad": bad}, open(os.path.join(work, "reader.json"), "w"))
PY
}

start=$(date +%s.%N)
expirer & e_pid=$!
orphans & o_pid=$!
reader & r_pid=$!
loops="$e_pid $o_pid $r_pid"
pids=()
for p in $(seq 1 "$procs"); do writer "w$p" & pids+=($!); done
compactor & c_pid=$!
status=0
for pid in "${pids[@]}" "$c_pid"; do wait "$pid" || status=1; done
touch "$work/stop"
for pid in $loops; do wait "$pid" || status=1; done
loops=
end=$(date +%s.%N)
[ "$status" = 0 ] || { echo "FAIL: a writer, the compactor or an upkeep loop failed"; exit 1; }

# Objects before the final passes, then the final passes: every writer is done, so any
# age is safe for remove-orphans now.
SNAPCOMMIT_LOG=off "$sc" remove-orphans "$table" --dry-run --older-than 0s --force --json >"$work/count-before.json"
SNAPCOMMIT_LOG=off "$sc" expire "$table" --retain-min 2 --retain-max "$retain_max" --older-than 0s --json >"$work/final-expire.json"
SNAPCOMMIT_LOG=off "$sc" remove-orphans "$table" --older-than 0s --force --json >"$work/final-orphans.json"
SNAPCOMMIT_LOG=off "$sc" remove-orphans "$table" --dry-run --older-than 0s --force --json >"$work/count-after.json"
# Locally the writers write real data files: fsck --data also finds every retained file present.
fsck_args=()
[ "$local" = 1 ] && fsck_args=(--data)
"$sc" fsck "$table" "${fsck_args[@]}" >/dev/null || { echo "FAIL: fsck ${fsck_args[*]} after the race"; exit 1; }
"$sc" log "$table" --json >"$work/log.json"
"$sc" files "$table" --json >"$work/files.json"
for p in $(seq 1 "$procs"); do
  echo "w$p $("$sc" last-committed "$table" --user "w$p")" >>"$work/last.txt"
done
set +e
printf '{"add":[%s]}' "$(entry data-w1-1.parquet)" \
  | SNAPCOMMIT_LOG=off "$sc" commit "$table" --user w1 --identifier 1 --changes - >/dev/null 2>&1
replay=$?
set -e
[ "$replay" = 3 ] || { echo "FAIL: a replay of (w1, 1) after its snapshots expired exited $replay, expected 3"; exit 1; }

python3 - "$work" "$procs" "$commits" "$retain_max" "$start" "$end" "$table" "$strategy" "$local" <<'PY'
import glob, json, os, sys
work, procs, commits, retain_max = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
start, end, table, strategy, local = float(sys.argv[5]), float(sys.argv[6]), sys.argv[7], sys.argv[8], sys.argv[9] == "1"
def lines(name):
    p = os.path.join(work, name)
    return [json.loads(l) for l in open(p)] if os.path.exists(p) else []
def count(name):
    p = os.path.join(work, name)
    return sum(1 for _ in open(p)) if os.path.exists(p) else 0
results = [r for p in range(1, procs + 1) for r in lines(f"w{p}.out")]
bad = [r for r in results if r["result"] != "SC_OK"]
assert not bad, f"{len(bad)} writer commits did not land: {bad[:3]}"
assert len(results) == procs * commits, f"{len(results)} writer results for {procs * commits} commits"
compactions = int(open(os.path.join(work, "compactions")).read())
total = procs * commits + compactions
log = json.load(open(os.path.join(work, "log.json")))
ids = [s["id"] for s in log]
assert ids and max(ids) == total, f"latest snapshot {max(ids) if ids else 0}, {total} commits: one was lost or doubled"
assert sorted(ids) == list(range(min(ids), total + 1)), f"retained ids not contiguous: {ids}"
assert len(ids) <= retain_max, f"{len(ids)} snapshots retained, retain-max {retain_max}"
for line in open(os.path.join(work, "last.txt")):
    user, last = line.split()
    assert int(last) == commits, f"last-committed of {user} is {last}, expected {commits}"
expected = {f"data-w{p}-{i}.parquet" for p in range(1, procs + 1) for i in range(1, commits + 1)}
for n in range(1, compactions + 1):
    c = json.load(open(os.path.join(work, f"compaction-{n}.json")))
    expected -= {f["file"] for f in c["delete"]}
    expected |= {f["file"] for f in c["add"]}
live = {f["file"] for f in json.load(open(os.path.join(work, "files.json")))}
assert live == expected, f"live files differ: missing {sorted(expected - live)[:3]}, extra {sorted(live - expected)[:3]}"
reader = json.load(open(os.path.join(work, "reader.json")))
assert not reader["bad"], f"the reader hit missing objects inside the window: {reader['bad'][:3]}"
ex = lines("expire.out") + [json.load(open(os.path.join(work, "final-expire.json")))]
orph = lines("orphans.out") + [json.load(open(os.path.join(work, "final-orphans.json")))]
before = json.load(open(os.path.join(work, "count-before.json")))["objectsListed"]
after = json.load(open(os.path.join(work, "count-after.json")))["objectsListed"]
# What the retained snapshots may need, none of it growing with the number of commits:
# their data files (live now, or replaced by a compaction inside the window), the base's
# manifests (a commit merges them once 32 small ones accumulate, engine/commit.c
# SC_MANIFEST_MERGE_THRESHOLD) plus a delta manifest and two lists per snapshot, watermark
# archives, and the fixed metadata (schema, table.json, history, hints).
bound = len(live) + 2 * retain_max + 32 + 4 * retain_max + 12
assert after <= bound, f"{after} objects left, bound {bound} (live {len(live)}, retain-max {retain_max})"
if local:
    gone = [f for f in live if not os.path.exists(os.path.join(table, "part=p", "bucket-0", f))]
    assert not gone, f"live data files missing from storage: {gone[:3]}"
    left = [f for f in os.listdir(os.path.join(table, "part=p", "bucket-0")) if f.startswith("orphan-")]
    assert not left, f"orphan data files left after remove-orphans --older-than 0s: {left[:3]}"
sum_ = lambda rs, k: sum(r.get(k, 0) for r in rs)
longest = max(r["elapsedMs"] for r in results)
print(f"race_upkeep ({strategy} on {table}): {procs} writers x {commits} commits + {compactions} compactions = {total} "
      f"snapshots, each (user, identifier) once, 0 gave up, replay exits 3; {len(ex)} expire runs "
      f"({count('expire.failed')} failed): {sum_(ex, 'snapshotsExpired')} snapshots, {sum_(ex, 'dataFilesDeleted')} data "
      f"files, {sum_(ex, 'manifestsDeleted') + sum_(ex, 'manifestListsDeleted')} manifests/lists deleted; {len(orph)} "
      f"remove-orphans runs ({count('orphans.failed')} failed): {sum_(orph, 'dataFilesDeleted')} data files, "
      f"{sum_(orph, 'manifestsDeleted')} manifests, {sum_(orph, 'otherDeleted')} other deleted; reader: "
      f"{reader['reads']} reads, {reader['whole']} whole, {reader['expired']} left the window while read, 0 missing "
      f"inside it, {reader['latest_reads']} reads of the latest (files, fsck, last-committed; {reader['retried']} "
      f"asked to run again), none failed; {len(ids)} snapshots retained (<= {retain_max}); objects {before} before the final passes, {after} "
      f"after (bound {bound}, live files {len(live)}); longest writer commit {longest} ms; fsck clean; {end - start:.1f} s")
PY

#!/usr/bin/env bash
# Cold CLI processes on tables with 250,000 live files (issue 20, goal 4): wall time and
# peak RSS (/usr/bin/time -v) of fresh `snapcommit` processes on a local table.
#
#   bench/cold_scale.sh [BUILD_DIR [WORK_DIR]]     (defaults: build, a new temp dir)
#
# Two tables of 250,000 live files in 10 partitions (dt=p000..p009):
#   bulk  one commit of a 250,000-entry change set (the largest a change set may hold);
#   many  `bench_commit big`: 25 appends of 10,000 files and one compaction (the
#         loader of bench/bench_commit.c, fast seeding).
# Measured, each by a fresh process:
#   change set   the 250,000-entry commit of `bulk` (partitioned adds), and the
#                docs/operations.md case (250,000 minimal adds, unpartitioned table)
#   append 1st   a 1-file append right after the bulk load (it checks that load's delta)
#   append       a 1-file append after that (steady state), on both tables
#   files        `files --json > /dev/null`
#   fsck         `fsck`
#   upkeep       `expire` and `remove-orphans`, dry runs, on `many`
# A program, not a test: it prints figures and asserts nothing.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
work=${2:-$(mktemp -d /tmp/cold_scale.XXXXXX)}
mkdir -p "$work"
sc=$build/snapcommit
bench=$build/bench_commit
[ -x "$sc" ] && [ -x "$bench" ] || { echo "cold_scale: no snapcommit / bench_commit in $build" >&2; exit 2; }
export SNAPCOMMIT_LOG=off
cd "$work"

# measure LABEL CMD...: one line "LABEL|wall s|cpu s|peak MB|exit" into rows (CPU = user + system:
# the figure to compare on a machine shared with other work, where wall time waits for a core)
rows=()
measure() {
  local label=$1; shift
  local rc=0
  /usr/bin/time -v -o "$work/time.txt" "$@" >/dev/null 2>"$work/err.txt" || rc=$?
  local wall cpu rss
  cpu=$(awk -F': ' '/User time|System time/ {s+=$2} END {print s}' "$work/time.txt")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$work/time.txt")
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$work/time.txt")
  rows+=("$label|$wall|$cpu|$rss|$rc")
  [ "$rc" = 0 ] || { echo "cold_scale: $label exited $rc: $(head -c 300 "$work/err.txt")" >&2; }
}

cat >"$work/schema.json" <<'EOF'
{"fields":[{"name":"dt","type":"STRING"},{"name":"id","type":"BIGINT"},{"name":"v","type":"STRING"}],"partitionKeys":["dt"],"options":{"bucket":"-1"}}
EOF
python3 - "$work" <<'PY'
import sys, os
w = sys.argv[1]
e = '{"partition":"dt=p%03d","bucket":0,"totalBuckets":-1,"level":0,"file":"bulk-%07d.parquet","rows":100,"size":4096}'
open(os.path.join(w, "bulk.json"), "w").write('{"add":[' + ",".join(e % (i % 10, i) for i in range(250000)) + ']}')
m = '{"partition":"","bucket":0,"level":0,"file":"d-%07d","rows":0,"size":0}'
open(os.path.join(w, "minimal.json"), "w").write('{"add":[' + ",".join(m % i for i in range(250000)) + ']}')
for n in range(1, 4):
    open(os.path.join(w, "one-%d.json" % n), "w").write(
        '{"add":[{"partition":"dt=p003","bucket":0,"totalBuckets":-1,"level":0,"file":"cold-%d.parquet","rows":100,"size":4096}]}' % n)
PY

# bulk: one 250,000-entry commit, then two 1-file appends, files, fsck
rm -rf bulk minimal many
"$sc" init bulk --schema "$work/schema.json" >/dev/null
measure "bulk: commit of 250,000 entries" "$sc" commit bulk --user loader --identifier 1 --changes "$work/bulk.json"
measure "bulk: 1-file append, 1st after the load" "$sc" commit bulk --user cold --identifier 1 --changes "$work/one-1.json"
measure "bulk: 1-file append" "$sc" commit bulk --user cold --identifier 2 --changes "$work/one-2.json"
sh -c 'exec "$0" files "$1" --json > /dev/null' "$sc" bulk # warm the page cache alike for old and new
measure "bulk: files --json" "$sc" files bulk --json
measure "bulk: fsck" "$sc" fsck bulk
"$sc" init minimal >/dev/null
measure "docs case: 250,000 minimal adds" "$sc" commit minimal --user job --identifier 1 --changes "$work/minimal.json"

# many: bench_commit's loader (25 appends of 10,000 files and a compaction)
"$bench" big "$work/many" --live 250000 --delete 10 --partitions 10 --fast-seed 1 >/dev/null 2>&1
measure "many: 1-file append" "$sc" commit many --user cold --identifier 1 --changes "$work/one-1.json"
measure "many: files --json" "$sc" files many --json
measure "many: fsck" "$sc" fsck many
# upkeep: expire every snapshot but the latest (dry run: the plan reads what a real run reads),
# and the orphan scan, which reads every retained snapshot's files
measure "many: expire --dry-run" "$sc" expire many --retain-min 1 --retain-max 1 --dry-run
measure "many: remove-orphans --dry-run" "$sc" remove-orphans many --older-than 1h --dry-run

printf '%-42s %8s %8s %9s %4s\n' "250,000 live files, fresh process" "wall s" "cpu s" "peak MB" "exit"
for r in "${rows[@]}"; do
  IFS='|' read -r label wall cpu rss rc <<<"$r"
  printf '%-42s %8.2f %8.2f %9s %4s\n' "$label" "$wall" "$cpu" "$rss" "$rc"
done
echo "(tables in $work)"

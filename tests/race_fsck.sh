#!/usr/bin/env bash
# fsck, log and files while commits run: P writer processes
# commit through the CLI while readers loop over fsck / log / files on the same
# table. A healthy table must never be reported damaged: every reader run exits 0.
# Bounded: RACE_PROCS x RACE_COMMITS commits (default 4 x 15), readers stop when
# the writers do (or after RACE_SECONDS, default 60).
set -uo pipefail
sc=${1:?usage: race_fsck.sh PATH_TO_SNAPCOMMIT}
procs=${RACE_PROCS:-4}
commits=${RACE_COMMITS:-15}
limit=${RACE_SECONDS:-60}
work=$(mktemp -d /tmp/sc-race-fsck.XXXXXX)
trap 'rm -rf "$work"' EXIT
export SNAPCOMMIT_LOG=off
table=$work/table
echo '{"fields":[{"name":"part","type":"STRING"},{"name":"v","type":"BIGINT"}],"partitionKeys":["part"],"primaryKeys":[],"options":{}}' \
  | "$sc" init "$table" --schema - >/dev/null || { echo "FAIL: init"; exit 1; }

writer() {
  for i in $(seq 1 "$commits"); do
    printf '{"add":[{"partition":"part=p","bucket":0,"level":0,"file":"data-%s-%d.parquet","rows":1,"size":1}]}' "$1" "$i" \
      | "$sc" commit "$table" --user "$1" --identifier "$i" --changes - --max-retries 100 >/dev/null \
      || echo "writer $1 commit $i failed" >>"$work/writer-errors"
  done
}
reader() { # command...: run until the writers are done; every failure is recorded
  local n=0
  while [ ! -e "$work/done" ] && [ "$SECONDS" -lt "$limit" ]; do
    if ! "$@" "$table" >/dev/null 2>"$work/r.$BASHPID.err"; then
      { echo "$* failed:"; cat "$work/r.$BASHPID.err"; } >>"$work/reader-errors"
    fi
    n=$((n + 1))
  done
  echo "$n" >>"$work/reader-runs"
}
pids=()
for p in $(seq 1 "$procs"); do writer "w$p" & pids+=($!); done
reader "$sc" fsck & r1=$!
reader "$sc" log & r2=$!
reader "$sc" files & r3=$!
for pid in "${pids[@]}"; do wait "$pid"; done
touch "$work/done"
wait "$r1" "$r2" "$r3"
status=0
[ ! -s "$work/writer-errors" ] || { echo "FAIL: writers:"; head -5 "$work/writer-errors"; status=1; }
if [ -s "$work/reader-errors" ]; then echo "FAIL: a reader reported a healthy table damaged:"; head -20 "$work/reader-errors"; status=1; fi
"$sc" fsck "$table" >/dev/null || { echo "FAIL: final fsck"; status=1; }
latest=$("$sc" log "$table" --json | python3 -c 'import json,sys; print(max(s["id"] for s in json.load(sys.stdin)))')
[ "$latest" = $((procs * commits)) ] || { echo "FAIL: latest snapshot $latest, expected $((procs * commits))"; status=1; }
runs=$(paste -sd+ "$work/reader-runs" | bc)
[ "$status" = 0 ] && echo "race_fsck: $((procs * commits)) commits by $procs processes, $runs concurrent fsck/log/files runs, 0 false reports: 1 passed, 0 failed"
exit "$status"

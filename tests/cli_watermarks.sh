#!/usr/bin/env bash
# Exactly-once however many users commit: a replay after 2,000 other users committed is still
# filtered (exit 3). The watermarks of users no longer inline live in the watermark archive
# under metadata/watermarks/ (docs/format.md); a broken archive fails closed, never "not committed".
set -uo pipefail
sc=${1:?usage: cli_watermarks.sh PATH_TO_SNAPCOMMIT}
seed="$(dirname "$sc")/cli_watermarks_seed"
[ -x "$seed" ] || { echo "FAIL: $seed is not built"; exit 1; }
# On tmpfs when there is one: 2,000 durable commits cost minutes of fsync on a disk.
if [ -d /dev/shm ] && [ -w /dev/shm ]; then work=$(mktemp -d /dev/shm/sc-wmark.XXXXXX); else work=$(mktemp -d /tmp/sc-wmark.XXXXXX); fi
trap 'rm -rf "$work"' EXIT
export SNAPCOMMIT_LOG=off
passed=0 failed=0
check() { # description expected-exit actual-exit
  if [ "$2" = "$3" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $1: expected exit $2, got $3"; fi
}
expect() { # description condition...
  local d=$1; shift
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $d"; fi
}
t="$work/t"
"$sc" init "$t" >/dev/null; check "init" 0 $?
echo '{"add":[{"partition":"","bucket":0,"level":0,"file":"u-41.parquet","rows":1,"size":10}]}' >"$work/u41"
echo '{"add":[{"partition":"","bucket":0,"level":0,"file":"u-42.parquet","rows":1,"size":10}]}' >"$work/u42"
out=$("$sc" commit "$t" --user U --identifier 41 --changes "$work/u41"); check "U commits" 0 $?
expect "U's commit is snapshot 1" [ "$out" = 1 ]
"$seed" "$t" other 2000; check "2,000 other users commit" 0 $?
expect "2,001 snapshots" [ "$(cat "$t/snapshot/LATEST")" = 2001 ]
expect "U's watermark left the latest snapshot's inline table" python3 -c '
import json,sys; s=json.load(open(sys.argv[1])); w=json.loads(s["properties"]["snapcommit.watermarks"])
assert all(u != "U" for u,_,_ in w) and len(w) <= 256, len(w)
assert s["properties"]["snapcommit.watermarkArchive"].startswith("watermarks-")' "$t/snapshot/snapshot-2001"
expect "the latest snapshot stays small" [ "$(stat -c %s "$t/snapshot/snapshot-2001")" -lt 32768 ]

"$sc" commit "$t" --user U --identifier 41 --changes "$work/u41" >/dev/null 2>"$work/err"; check "U's replay after 2,000 others" 3 $?
expect "the replay names snapshot 1" grep -q "snapshot 1)" "$work/err"
"$sc" commit "$t" --user U --identifier 40 --changes "$work/u41" >/dev/null 2>&1; check "U below its watermark" 3 $?
out=$("$sc" last-committed "$t" --user U); check "last-committed U" 0 $?
expect "last-committed U is 41" [ "$out" = 41 ]
expect "nothing was written by the replays" [ "$(cat "$t/snapshot/LATEST")" = 2001 ]
"$sc" fsck "$t" >/dev/null 2>&1; check "fsck with the archive" 0 $?

# A broken archive fails closed (exit 1, naming it), for U and for fsck; nothing is written.
archive="$t/metadata/watermarks/$(python3 -c '
import json,sys; print(json.load(open(sys.argv[1]))["properties"]["snapcommit.watermarkArchive"])' "$t/snapshot/snapshot-2001")"
expect "the archive exists under metadata/watermarks/" [ -f "$archive" ]
cp "$archive" "$work/archive"
printf 'X' | dd of="$archive" bs=1 seek=20 conv=notrunc 2>/dev/null
"$sc" commit "$t" --user U --identifier 41 --changes "$work/u41" >/dev/null 2>"$work/err"; check "U's replay on a damaged archive" 1 $?
expect "the error names the archive" grep -q "metadata/watermarks/watermarks-" "$work/err"
"$sc" last-committed "$t" --user U >/dev/null 2>&1; check "last-committed U on a damaged archive" 1 $?
"$sc" fsck "$t" >/dev/null 2>"$work/err"; check "fsck on a damaged archive" 1 $?
expect "fsck names the archive" grep -q "metadata/watermarks/watermarks-" "$work/err"
rm "$archive"
"$sc" commit "$t" --user U --identifier 41 --changes "$work/u41" >/dev/null 2>"$work/err"; check "U's replay on a missing archive" 1 $?
expect "the error says it is missing" grep -q "is missing" "$work/err"
expect "nothing was written" [ "$(cat "$t/snapshot/LATEST")" = 2001 ]
cp "$work/archive" "$archive"
"$sc" commit "$t" --user U --identifier 41 --changes "$work/u41" >/dev/null 2>&1; check "U's replay once repaired" 3 $?
out=$("$sc" commit "$t" --user U --identifier 42 --changes "$work/u42"); check "U's next identifier" 0 $?
expect "U's next identifier is snapshot 2002" [ "$out" = 2002 ]

echo "cli_watermarks: $passed passed, $failed failed"
[ "$failed" = 0 ]

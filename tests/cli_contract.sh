#!/usr/bin/env bash
# The CLI contract that acceptance tests drive: commands, exit codes, JSON output.
set -uo pipefail
sc=${1:?usage: cli_contract.sh PATH_TO_SNAPCOMMIT}
work=$(mktemp -d /tmp/sc-cli.XXXXXX)
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
entry() { # file [partition] [level] [total] [min] [max]
  local keys=""
  [ -n "${5:-}" ] && keys=",\"minKey\":\"$5\",\"maxKey\":\"$6\""
  printf '{"partition":"%s","bucket":0,"totalBuckets":%s,"level":%s,"file":"%s","rows":10,"size":100%s}' \
    "${2:-dt=1}" "${4:-4}" "${3:-0}" "$1" "$keys"
}
t="$work/t"

for cmd in init commit log files last-committed fsck; do
  "$sc" $cmd --help >"$work/help" 2>&1; check "$cmd --help" 0 $?
  expect "$cmd --help prints usage" grep -q "usage: snapcommit $cmd" "$work/help"
done
"$sc" bogus >/dev/null 2>&1; check "unknown command" 2 $?
"$sc" log >/dev/null 2>&1; check "missing TABLE" 2 $?

"$sc" init "$t" >/dev/null; check "init" 0 $?
before=$(find "$t" -type f -exec sha256sum {} + | sort)
"$sc" init "$t" >/dev/null 2>"$work/err"; check "init twice" 1 $?
expect "init twice changes nothing" [ "$before" = "$(find "$t" -type f -exec sha256sum {} + | sort)" ]
expect "init twice says why" grep -q "already exists" "$work/err"
"$sc" init "$work/u" --strategy nonsense >/dev/null 2>&1; check "bad strategy" 2 $?
"$sc" init "file://$work/uri" --strategy rename >/dev/null; check "init file:// URI" 0 $?
"$sc" init "$work/hd" --strategy head >/dev/null 2>"$work/err"; check "strategy the store cannot honour" 1 $?
expect "says what the store lacks" grep -q "compare-and-swap" "$work/err"

echo "{\"add\":[$(entry data/f1)]}" >"$work/c1"
out=$("$sc" commit "$t" --user u1 --identifier 1 --changes "$work/c1"); check "commit" 0 $?
expect "commit prints the snapshot id" [ "$out" = 1 ]
"$sc" commit "$t" --user u1 --identifier 1 --changes "$work/c1" >/dev/null 2>&1; check "replay" 3 $?
"$sc" commit "$t" --user u1 --identifier 0 --changes "$work/c1" >/dev/null 2>&1; check "lower identifier" 3 $?
out=$(echo "{\"add\":[$(entry data/f2)]}" | "$sc" commit "file://$t" --user u1 --identifier 2 --changes -); check "commit from stdin via file://" 0 $?
expect "second snapshot is 2" [ "$out" = 2 ]
"$sc" commit "$t" --user u2 --identifier 1 --changes "$work/c1" >/dev/null 2>"$work/err"; check "re-add live file" 4 $?
expect "conflict names the file" grep -q "data/f1" "$work/err"

echo "{\"add\":[$(entry data/f9 dt=1 0 8)]}" >"$work/c8"
"$sc" commit "$t" --user u2 --identifier 2 --changes "$work/c8" >/dev/null 2>&1; check "bucket count change" 4 $?
out=$("$sc" commit "$t" --user u2 --identifier 3 --kind overwrite --changes "$work/c8"); check "overwrite may change buckets" 0 $?

echo "{\"delete\":[$(entry data/f9 dt=1 0 8)],\"add\":[$(entry data/c1 dt=1 1 8 a m)]}" >"$work/compact1"
echo "{\"delete\":[$(entry data/f9 dt=1 0 8)],\"add\":[$(entry data/c2 dt=1 1 8 a m)]}" >"$work/compact2"
"$sc" commit "$t" --user c1 --identifier 1 --kind compact --changes "$work/compact1" >/dev/null; check "compaction" 0 $?
"$sc" commit "$t" --user c2 --identifier 1 --kind compact --changes "$work/compact2" >/dev/null 2>"$work/err"; check "second compaction of the same file" 4 $?
expect "deletion conflict message" grep -q "File deletion conflict" "$work/err"
echo "{\"add\":[$(entry data/c3 dt=1 1 8 l z)]}" >"$work/lsm"
"$sc" commit "$t" --user c1 --identifier 2 --kind compact --changes "$work/lsm" >/dev/null 2>"$work/err"; check "LSM overlap" 4 $?
expect "LSM message" grep -q "LSM conflict" "$work/err"

echo '{"add":[' >"$work/bad"
"$sc" commit "$t" --user u1 --identifier 9 --changes "$work/bad" >/dev/null 2>&1; check "malformed JSON" 2 $?
echo "{\"add\":[$(entry /etc/passwd)]}" >"$work/abs"
"$sc" commit "$t" --user u1 --identifier 9 --changes "$work/abs" >/dev/null 2>&1; check "absolute file" 2 $?
echo "{\"add\":[$(entry data/../../x)]}" >"$work/dotdot"
"$sc" commit "$t" --user u1 --identifier 9 --changes "$work/dotdot" >/dev/null 2>&1; check "file with .." 2 $?
echo '{"add":[{"partition":"p","bucket":0,"level":0,"file":"data/x","rows":1}]}' >"$work/missing"
"$sc" commit "$t" --user u1 --identifier 9 --changes "$work/missing" >/dev/null 2>"$work/err"; check "missing field" 2 $?
expect "missing field is named" grep -q "size" "$work/err"
"$sc" commit "$t" --identifier 9 --changes "$work/c1" >/dev/null 2>&1; check "missing --user" 2 $?
"$sc" commit "$t" --user u --identifier x --changes "$work/c1" >/dev/null 2>&1; check "bad identifier" 2 $?
"$sc" commit "$work/none" --user u --identifier 1 --changes "$work/c1" >/dev/null 2>&1; check "no table" 1 $?

"$sc" log "$t" --json >"$work/log.json"; check "log --json" 0 $?
expect "log JSON has the contract fields" python3 -c '
import json,sys; log=json.load(open(sys.argv[1]))
assert [s["id"] for s in log]==[1,2,3,4], log
for s in log: assert {"id","commitUser","commitIdentifier","commitKind","timeMillis"} <= s.keys()
assert [s["commitKind"] for s in log]==["APPEND","APPEND","OVERWRITE","COMPACT"]' "$work/log.json"
"$sc" files "$t" --json >"$work/files.json"; check "files --json" 0 $?
expect "files JSON holds the live files" python3 -c '
import json,sys; f=json.load(open(sys.argv[1]))
assert sorted(x["file"] for x in f)==["data/c1"], f
x=f[0]; assert (x["partition"],x["bucket"],x["totalBuckets"],x["level"],x["rows"],x["size"],x["minKey"],x["maxKey"])==("dt=1",0,8,1,10,100,"a","m"), x' "$work/files.json"
"$sc" files "$t" --snapshot 2 --json >"$work/files2.json"; check "files --snapshot" 0 $?
expect "snapshot 2 had two files" python3 -c 'import json,sys; assert len(json.load(open(sys.argv[1])))==2' "$work/files2.json"
"$sc" files "$t" --snapshot 99 >/dev/null 2>&1; expect "missing snapshot fails" [ $? -ne 0 ]
expect "last-committed" [ "$("$sc" last-committed "$t" --user u1)" = 2 ]
expect "last-committed of an unknown user prints nothing" [ -z "$("$sc" last-committed "$t" --user nobody)" ]
"$sc" fsck "$t" >/dev/null; check "fsck on a sound table" 0 $?

# Damage: each must fail closed, naming the object.
cp -r "$t" "$work/d1"; rm "$work/d1/snapshot/snapshot-2"
"$sc" fsck "$work/d1" >/dev/null 2>"$work/err"; expect "fsck finds a lost snapshot" [ $? -ne 0 ]
expect "message names snapshot 2" grep -q "snapshot 2" "$work/err"
cp -r "$t" "$work/d2"; m=$(ls "$work/d2"/manifest/manifest-[0-9a-f]* | head -1); printf 'X' | dd of="$m" bs=1 seek=30 conv=notrunc 2>/dev/null
"$sc" fsck "$work/d2" >/dev/null 2>"$work/err"; expect "fsck finds a damaged manifest" [ $? -ne 0 ]
expect "message names the manifest" grep -q "$(basename "$m")" "$work/err"
cp -r "$t" "$work/d3"; s="$work/d3/snapshot/snapshot-4"; head -c 100 "$s" >"$s.t" && mv "$s.t" "$s"
"$sc" log "$work/d3" >/dev/null 2>"$work/err"; expect "truncated latest snapshot fails closed" [ $? -ne 0 ]
expect "message names the snapshot" grep -q "snapshot-4" "$work/err"
cp -r "$t" "$work/d4"; echo garbage >"$work/d4/metadata/table.json"
"$sc" log "$work/d4" >/dev/null 2>"$work/err"; expect "damaged table metadata fails closed" [ $? -ne 0 ]
expect "message names table.json" grep -q "table.json" "$work/err"

echo "cli contract: $passed passed, $failed failed"
[ "$failed" = 0 ]

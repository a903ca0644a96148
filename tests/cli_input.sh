#!/usr/bin/env bash
# Issue 8: the CLI on hostile input. Bad input exits 2 and changes nothing, the
# change-set limit is enforced while reading, names cannot forge output, and
# messages name the flag rather than its value.
set -uo pipefail
sc=${1:?usage: cli_input.sh PATH_TO_SNAPCOMMIT}
work=$(mktemp -d /tmp/sc-cli-input.XXXXXX)
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
has() { grep -qF -- "$1" "$2"; } # fixed string in file
state() { find "$1" -type f -exec sha256sum {} + | sort; }
no_controls() { # no C0 (but newline), DEL or C1 (UTF-8 c2 80..9f) byte in the file
  python3 -c '
import re,sys; d=open(sys.argv[1],"rb").read()
sys.exit(1 if re.search(rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", d) else 0)' "$1"
}
t="$work/t"
# A primary-key table partitioned by part (key k, 2 buckets): entries carry their key range.
echo '{"fields":[{"name":"part","type":"STRING"},{"name":"k","type":"STRING"},{"name":"v","type":"BIGINT"}],
 "partitionKeys":["part"],"primaryKeys":["part","k"],"options":{"bucket":"2"}}' >"$work/schema"
"$sc" init "$t" --schema "$work/schema" >/dev/null || { echo "FAIL: init"; exit 1; }
K='"minKey":["a"],"maxKey":["z"]'
echo "{\"add\":[{\"partition\":\"part=p\",\"bucket\":0,\"level\":0,\"file\":\"data-ok\",\"rows\":1,\"size\":1,$K}]}" >"$work/ok"
"$sc" commit "$t" --user job --identifier 1 --changes "$work/ok" >/dev/null; check "first commit" 0 $?
before=$(state "$t")

# ---- control characters are refused at input: exit 2, nothing written ----
n=0
for user in $'job\n2        APPEND    forged' $'job\tx' $'job\e[2J' $'job\x7f' $'job\xc2\x9b31m' $'job\r'; do
  n=$((n + 1))
  "$sc" commit "$t" --user "$user" --identifier 5 --changes "$work/ok" >/dev/null 2>"$work/err"
  check "control character in --user ($n)" 2 $?
  expect "message names the field and the position ($n)" grep -q 'commit user "job.*": control character \\x[0-9a-f]*.* at byte 3' "$work/err"
  expect "message is one escaped line ($n)" [ "$(wc -l <"$work/err")" = 1 ]
  expect "message has no raw control character ($n)" no_controls "$work/err"
done
expect "refused users wrote nothing" [ "$before" = "$(state "$t")" ]
for bad in '"partition":"part=p\n"' '"partition":"part=p\u001b[1m"' '"file":"data-a\u0085"' '"file":"data-a\u007f"'; do
  case $bad in *partition*) e="{\"add\":[{$bad,\"bucket\":0,\"level\":0,\"file\":\"data-n\",\"rows\":1,\"size\":1,$K}]}" ;;
               *) e="{\"add\":[{\"partition\":\"part=p\",\"bucket\":0,\"level\":0,$bad,\"rows\":1,\"size\":1,$K}]}" ;; esac
  echo "$e" | "$sc" commit "$t" --user job --identifier 5 --changes - >/dev/null 2>"$work/err"
  check "control character in $bad" 2 $?
  expect "message names add[0] and the byte ($bad)" grep -q 'changes: add\[0\]: \(partition\|file\) ".*": control character .* at byte' "$work/err"
done
expect "refused names wrote nothing" [ "$before" = "$(state "$t")" ]

# ---- the change-set limit is enforced while reading ----
# Memory is bounded by `ulimit -v`; AddressSanitizer reserves terabytes of
# address space, so under it the peak resident size is checked instead.
# ASan's allocator copies on realloc and adds shadow memory, so its bound is looser.
if grep -q __asan_init "$sc"; then vlimit=unlimited rss=1200000; else vlimit=1000000 rss=600000; fi
bounded() { # max-resident-KB command... : run with the address-space limit, check the peak RSS
  local max=$1; shift
  ( ulimit -v $vlimit; exec python3 -c '
import resource,subprocess,sys
rc=subprocess.call(sys.argv[2:])
kb=resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
if kb > int(sys.argv[1]): print("peak RSS %d KB above %s KB" % (kb, sys.argv[1]), file=sys.stderr); sys.exit(99)
sys.exit(rc)' "$max" "$@" )
}
start=$(date +%s)
bounded $rss "$sc" commit "$t" --user job --identifier 5 --changes /dev/zero >/dev/null 2>"$work/err"
check "--changes /dev/zero" 2 $?
expect "/dev/zero is refused within 20 s" [ $(($(date +%s) - start)) -lt 20 ]
expect "message names the flag, the limit and SC_ELIMIT" grep -q -- '--changes /dev/zero: more than the change-set limit of 67108864 bytes.*(SC_ELIMIT)' "$work/err"
head -c 300000000 /dev/zero | bounded $rss "$sc" commit "$t" --user job --identifier 5 --changes - >/dev/null 2>"$work/err"
check "300 MB on stdin" 2 $?
expect "stdin message names the flag and the limit" grep -q -- '--changes - (stdin): more than the change-set limit' "$work/err"
truncate -s 300M "$work/sparse"
bounded 100000 "$sc" commit "$t" --user job --identifier 5 --changes "$work/sparse" >/dev/null 2>"$work/err"
check "300 MB file refused from its size, unread" 2 $?
expect "file message gives its size" grep -q -- "--changes $work/sparse: 314572800 bytes, more than the change-set limit" "$work/err"
# Parsing is bounded in memory: 30 MB of `{}` entries took 2.3 GB before.
python3 -c 'import sys; open(sys.argv[1],"w").write("{\"add\":["+",".join(["{}"]*10000000)+"]}")' "$work/empties"
bounded 100000 "$sc" commit "$t" --user job --identifier 5 --changes "$work/empties" >/dev/null 2>"$work/err"
check "10M empty entries refused by count, peak RSS < 100 MB" 2 $?
expect "entry-count message names the limit" grep -q -- 'changes: 10000000 entries, more than the limit of 250000 entries.*(SC_ELIMIT)' "$work/err"
rm -f "$work/empties"
python3 -c 'import sys; open(sys.argv[1],"w").write("{\"add\":[{\"partition\":\"part=p\",\"minKey\":["+",".join(["{}"]*5000000)+"]}]}")' "$work/deep"
bounded 100000 "$sc" commit "$t" --user job --identifier 5 --changes "$work/deep" >/dev/null 2>"$work/err"
check "one entry of 5M nested values refused, peak RSS < 100 MB" 2 $?
expect "token message names the entry" grep -q -- 'changes: add\[0\] has more than 256 JSON tokens' "$work/err"
rm -f "$work/deep"
# The worst accepted input: the most entries a change set may hold (250,000 minimal valid
# adds) is parsed and committed within the stated bound (measured 225 MB peak; docs/operations.md).
python3 - "$work/maxvalid" <<'PY'
import sys
limit, parts, size = 64 << 20, [], len('{"add":[]}')
for i in range(250000):
    e = '{"partition":"","bucket":0,"level":0,"file":"d-%07d","rows":0,"size":0}' % i
    if size + len(e) + 1 > limit: break
    parts.append(e); size += len(e) + 1
open(sys.argv[1], "w").write('{"add":[' + ",".join(parts) + ']}')
PY
"$sc" init "$work/tmax" >/dev/null
if grep -q __asan_init "$sc"; then maxrss=1500000; else maxrss=400000; fi
bounded $maxrss "$sc" commit "$work/tmax" --user job --identifier 1 --changes "$work/maxvalid" >/dev/null 2>"$work/err"
check "250,000 valid adds committed within the memory bound ($maxrss KB)" 0 $?
rm -rf "$work/maxvalid" "$work/tmax"
"$sc" commit "$t" --user job --identifier 5 --changes "$work/none" >/dev/null 2>"$work/err"; check "missing --changes file" 2 $?
expect "missing file message names the flag and the reason" grep -q -- "--changes $work/none: cannot open: No such file" "$work/err"
expect "limits wrote nothing" [ "$before" = "$(state "$t")" ]

# ---- fields the manifests cannot hold are bad input (exit 2), not a failure mid-commit ----
python3 -c '
import json,sys
e={"partition":"part=p","bucket":0,"level":1,"file":"data-k","rows":1,"size":1,"minKey":["a"],"maxKey":["z"*70000]}
json.dump({"add":[e]},open(sys.argv[1],"w"))
e={"partition":"part="+"p"*70000,"bucket":0,"level":0,"file":"data-k","rows":1,"size":1,"minKey":["a"],"maxKey":["z"]}
json.dump({"add":[e]},open(sys.argv[2],"w"))' "$work/bigkey" "$work/bigpart"
"$sc" commit "$t" --user job --identifier 5 --changes "$work/bigkey" >/dev/null 2>"$work/err"; check "oversized maxKey" 2 $?
# (the key is checked as its encoded BinaryRow: 70000 bytes of text plus the row header and offsets)
expect "oversized key message" grep -q 'max_key: 700[0-9][0-9] bytes, longer than the field limit of 65536 bytes' "$work/err"
"$sc" commit "$t" --user job --identifier 5 --changes "$work/bigpart" >/dev/null 2>"$work/err"; check "oversized partition" 2 $?
long=$(printf 'a%.0s' $(seq 300))
"$sc" commit "$t" --user "$long" --identifier 5 --changes "$work/ok" >/dev/null 2>&1; check "user over 255 bytes" 2 $?
expect "oversized input wrote nothing" [ "$before" = "$(state "$t")" ]

# ---- option errors name the flag, never its value ----
for flag in max-retries min-retry-wait-ms max-retry-wait-ms timeout-ms; do
  "$sc" commit "$t" --user job --identifier 5 --changes "$work/ok" --$flag bogus >/dev/null 2>"$work/err"
  check "--$flag bogus" 2 $?
  expect "--$flag is named" grep -q -- "^snapcommit commit: --$flag needs a number from 0 to 2147483647, got \"bogus\"" "$work/err"
done
"$sc" commit "$t" --user job --identifier 5 --changes "$work/ok" --base-snapshot x >/dev/null 2>"$work/err"; check "--base-snapshot x" 2 $?
expect "--base-snapshot is named" grep -q -- "--base-snapshot needs" "$work/err"
"$sc" files "$t" --snapshot >/dev/null 2>"$work/err"; check "--snapshot without a value" 2 $?
expect "missing value names --snapshot" grep -q -- "option --snapshot needs a value" "$work/err"
"$sc" commit "$t" --identifier 5 --changes "$work/ok" --user >/dev/null 2>"$work/err"; check "--user without a value" 2 $?
expect "missing value names --user" grep -q -- "option --user needs a value" "$work/err"
"$sc" log "$t" --json=yes >/dev/null 2>"$work/err"; check "--json=yes" 2 $?
expect "--json takes no value" grep -q -- "option --json takes no value" "$work/err"
"$sc" log "$t" --bogus=$'\e[2J' >/dev/null 2>"$work/err"; check "unknown option with a value" 2 $?
expect "unknown option named without its value" grep -q -- "option --bogus is not known" "$work/err"
"$sc" init "$work/t2" --strategy $'x\e[2J' >/dev/null 2>"$work/err"; check "bad strategy" 2 $?
expect "echoed values are escaped" no_controls "$work/err"
expect "refused options wrote nothing" [ "$before" = "$(state "$t")" ]

# ---- a table written before users were checked: output is escaped ----
# Rename the commit user inside the latest snapshot and reseal it (docs/format.md §4: the
# checksum property is the SHA-256 of the document with its value written as 64 zeros).
"$sc" commit "$t" --user evil-user-0000000 --identifier 7 --changes - >/dev/null <<'EOF'
{"add":[{"partition":"part=p","bucket":1,"level":0,"file":"data-evil","rows":1,"size":1,"minKey":"a","maxKey":"z"}]}
EOF
python3 - "$t/snapshot" <<'EOF'
import hashlib, json, os, sys
d = sys.argv[1]
p = next(os.path.join(d, n) for n in os.listdir(d) if n.startswith('snapshot-') and int(n[9:]) == 2)
snap = json.loads(open(p, 'rb').read())
user = 'e\n2  APPEND  x\x1b[2J\x9b\t'
assert snap['commitUser'] == 'evil-user-0000000'
snap['commitUser'] = user
props = snap['properties']
wm = json.loads(props['snapcommit.watermarks'])
for w in wm:
    if w[0] == 'evil-user-0000000': w[0] = user
wm.sort(key=lambda w: w[0].encode())
props['snapcommit.watermarks'] = json.dumps(wm, separators=(',', ':'), ensure_ascii=False)
props['snapcommit.checksum'] = '0' * 64
text = json.dumps(snap, separators=(',', ':'), ensure_ascii=False).encode()
digest = hashlib.sha256(text).hexdigest().encode()
open(p, 'wb').write(text.replace(b'0' * 64 + b'"}}', digest + b'"}}'))
EOF
"$sc" log "$t" >"$work/log" 2>&1; check "log of a legacy user" 0 $?
expect "log prints a header and two rows" [ "$(wc -l <"$work/log")" = 3 ]
expect "log output has no raw control character" no_controls "$work/log"
expect "log shows the user escaped" has 'e\x0a2  APPEND  x\x1b[2J\xc2\x9b\x09' "$work/log"
"$sc" log "$t" --json >"$work/log.json"; check "log --json of a legacy user" 0 $?
expect "log --json is ASCII and round-trips the user" python3 -c '
import json,sys; raw=open(sys.argv[1],"rb").read(); raw.decode("ascii")
assert json.loads(raw)[1]["commitUser"]=="e\n2  APPEND  x\x1b[2J\x9b\t"' "$work/log.json"
out=$("$sc" last-committed "$t" --user $'e\n2  APPEND  x\e[2J\xc2\x9b\t'); check "last-committed of a legacy user" 0 $?
expect "last-committed finds the legacy user" [ "$out" = 7 ]
echo '{"add":[{"partition":"part=p","bucket":1,"level":0,"file":"data-evil","rows":1,"size":1,"minKey":["a"],"maxKey":["z"]}]}' >"$work/readd"
"$sc" commit "$t" --user job --identifier 9 --changes "$work/readd" >/dev/null 2>"$work/err"; check "conflict naming a legacy user" 4 $?
expect "conflict message is one escaped line" [ "$(wc -l <"$work/err")" = 1 ]
expect "conflict message has no raw control character" no_controls "$work/err"
expect "conflict message shows the user escaped" has 'commit user "e\x0a2  APPEND  x\x1b[2J\xc2\x9b\x09"' "$work/err"
"$sc" fsck "$t" >"$work/fsck" 2>&1; check "fsck of a legacy user" 0 $?

echo "cli input: $passed passed, $failed failed"
[ "$failed" = 0 ]

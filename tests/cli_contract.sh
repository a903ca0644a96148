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
state() { find "$1" -type f -exec sha256sum {} + | sort; }
# The contract's table (issue 10 item 8): partitioned by dt STRING and h INT, primary key (dt, h, k)
# with k INT (the trimmed key is [k]), 4 buckets.
cat >"$work/schema" <<'EOF'
{"fields":[{"name":"dt","type":"STRING"},{"name":"h","type":"INT"},{"name":"k","type":"INT"},{"name":"v","type":"BIGINT"}],
 "partitionKeys":["dt","h"],"primaryKeys":["dt","h","k"],"options":{"bucket":"4"}}
EOF
entry() { # file [partition] [level] [total] [minKey] [maxKey]: keys default to [1]..[9]
  printf '{"partition":"%s","bucket":0,"totalBuckets":%s,"level":%s,"file":"%s","rows":10,"size":100,"minKey":%s,"maxKey":%s}' \
    "${2:-dt=1/h=3}" "${4:-4}" "${3:-0}" "$1" "${5:-[1]}" "${6:-[9]}"
}
t="$work/t"

for cmd in init commit log files last-committed fsck; do
  "$sc" $cmd --help >"$work/help" 2>&1; check "$cmd --help" 0 $?
  expect "$cmd --help prints usage" grep -q "usage: snapcommit $cmd" "$work/help"
done
"$sc" init --help >"$work/help" 2>&1
expect "init --help names --schema" grep -q -- "--schema FILE" "$work/help"
"$sc" bogus >/dev/null 2>&1; check "unknown command" 2 $?
"$sc" log >/dev/null 2>&1; check "missing TABLE" 2 $?

"$sc" init "$t" --schema "$work/schema" >/dev/null; check "init --schema" 0 $?
expect "schema-0 is Paimon's schema JSON of the given table" python3 -c '
import json,sys; s=json.load(open(sys.argv[1]))
assert s["version"]==3 and s["id"]==0, s
assert [(f["id"],f["name"],f["type"]) for f in s["fields"]]==[(0,"dt","STRING NOT NULL"),(1,"h","INT NOT NULL"),(2,"k","INT NOT NULL"),(3,"v","BIGINT")], s
assert s["partitionKeys"]==["dt","h"] and s["primaryKeys"]==["dt","h","k"] and s["options"]["bucket"]=="4", s' "$t/schema/schema-0"
before=$(state "$t")
"$sc" init "$t" >/dev/null 2>"$work/err"; check "init twice" 1 $?
expect "init twice changes nothing" [ "$before" = "$(state "$t")" ]
expect "init twice says why" grep -q "already exists" "$work/err"
"$sc" init "$t" --schema "$work/schema" >/dev/null 2>&1; check "init --schema over a table" 1 $?
expect "init --schema twice changes nothing" [ "$before" = "$(state "$t")" ]
"$sc" init "$work/u" --strategy nonsense >/dev/null 2>&1; check "bad strategy" 2 $?
"$sc" init "file://$work/uri" --strategy rename >/dev/null; check "init file:// URI" 0 $?
"$sc" init "$work/hd" --strategy head >/dev/null 2>"$work/err"; check "strategy the store cannot honour" 1 $?
expect "says what the store lacks" grep -q "compare-and-swap" "$work/err"
# Bad schemas are bad input (exit 2) and create nothing.
n=0
for bad in '{"fields":[' '{"fields":[{"name":"a","type":"NOSUCHTYPE"}]}' \
           '{"fields":[{"name":"a","type":"INT"}],"partitionKeys":["b"]}' \
           '{"fields":[{"name":"a","type":"INT"}],"primaryKeys":["b"]}' \
           '{"fields":[{"name":"a","type":"INT"},{"name":"p","type":"INT"}],"partitionKeys":["p"],"primaryKeys":["a"]}' \
           '{"fields":[{"name":"a","type":"INT"},{"name":"a","type":"INT"}]}'; do
  n=$((n + 1))
  echo "$bad" | "$sc" init "$work/bs$n" --schema - >/dev/null 2>"$work/err"; check "bad schema $n: $bad" 2 $?
  expect "bad schema $n creates nothing" [ ! -e "$work/bs$n" ]
done
"$sc" init "$work/bs" --schema "$work/no-such-file" >/dev/null 2>&1; check "missing schema file" 2 $?

# A table without --schema: no fields, no partition keys, bucket-unaware.
u="$work/plain"
"$sc" init "$u" >/dev/null; check "init without --schema" 0 $?
expect "no fields, no partition keys, bucket-unaware" python3 -c '
import json,sys; s=json.load(open(sys.argv[1]))
assert s["fields"]==[] and s["partitionKeys"]==[] and s["primaryKeys"]==[] and s["options"].get("bucket","-1")=="-1", s' "$u/schema/schema-0"
echo '{"add":[{"partition":"","bucket":0,"level":0,"file":"data-0.parquet","rows":3,"size":30}]}' >"$work/p1"
"$sc" commit "$u" --user u --identifier 1 --changes "$work/p1" >/dev/null; check "unpartitioned commit" 0 $?
"$sc" files "$u" --json >"$work/pf.json"
expect "files of a bucket-unaware table" python3 -c '
import json,sys; f=json.load(open(sys.argv[1]))
assert f==[{"partition":"","bucket":0,"totalBuckets":-1,"level":0,"file":"data-0.parquet","path":"bucket-0/data-0.parquet","rows":3,"size":30}], f' "$work/pf.json"
ubefore=$(state "$u")
for bad in '"partition":"dt=1"' '"partition":"","totalBuckets":4' '"partition":"","minKey":[1],"maxKey":[2]'; do
  echo "{\"add\":[{$bad,\"bucket\":0,\"level\":0,\"file\":\"data-x.parquet\",\"rows\":1,\"size\":1}]}" \
    | "$sc" commit "$u" --user u --identifier 2 --changes - >/dev/null 2>&1; check "unpartitioned table refuses $bad" 2 $?
done
expect "refused entries changed nothing" [ "$ubefore" = "$(state "$u")" ]

echo "{\"add\":[$(entry f1)]}" >"$work/c1"
out=$("$sc" commit "$t" --user u1 --identifier 1 --changes "$work/c1"); check "commit" 0 $?
expect "commit prints the snapshot id" [ "$out" = 1 ]
expect "the snapshot is Paimon's snapshot-1, LATEST says 1" [ -f "$t/snapshot/snapshot-1" -a "$(cat "$t/snapshot/LATEST")" = 1 ]
"$sc" commit "$t" --user u1 --identifier 1 --changes "$work/c1" >/dev/null 2>&1; check "replay" 3 $?
"$sc" commit "$t" --user u1 --identifier 0 --changes "$work/c1" >/dev/null 2>&1; check "lower identifier" 3 $?
# A bare value is accepted for a one-field key.
out=$(echo '{"add":[{"partition":"dt=1/h=3","bucket":1,"level":0,"file":"f2","rows":10,"size":100,"minKey":1,"maxKey":9}]}' \
  | "$sc" commit "file://$t" --user u1 --identifier 2 --changes -); check "commit from stdin via file://, bare key values" 0 $?
expect "second snapshot is 2" [ "$out" = 2 ]
"$sc" commit "$t" --user u2 --identifier 1 --changes "$work/c1" >/dev/null 2>"$work/err"; check "re-add live file" 4 $?
expect "conflict names the file" grep -q "f1" "$work/err"

echo "{\"add\":[$(entry f9 dt=1/h=3 0 8)]}" >"$work/c8"
"$sc" commit "$t" --user u2 --identifier 2 --changes "$work/c8" >/dev/null 2>&1; check "bucket count change" 4 $?
out=$("$sc" commit "$t" --user u2 --identifier 3 --kind overwrite --changes "$work/c8"); check "overwrite may change buckets" 0 $?

# Compaction: f9 (level 0, keys 1..9) becomes level-1 c1 (keys 1..9).
echo "{\"delete\":[$(entry f9 dt=1/h=3 0 8)],\"add\":[$(entry c1 dt=1/h=3 1 8 [1] [9])]}" >"$work/compact1"
echo "{\"delete\":[$(entry f9 dt=1/h=3 0 8)],\"add\":[$(entry c2 dt=1/h=3 1 8 [1] [9])]}" >"$work/compact2"
"$sc" commit "$t" --user c1 --identifier 1 --kind compact --changes "$work/compact1" >/dev/null; check "compaction" 0 $?
"$sc" commit "$t" --user c2 --identifier 1 --kind compact --changes "$work/compact2" >/dev/null 2>"$work/err"; check "second compaction of the same file" 4 $?
expect "deletion conflict message" grep -q "File deletion conflict" "$work/err"
echo "{\"add\":[$(entry c3 dt=1/h=3 1 8 [5] [20])]}" >"$work/lsm"
"$sc" commit "$t" --user c1 --identifier 2 --kind compact --changes "$work/lsm" >/dev/null 2>"$work/err"; check "LSM overlap" 4 $?
expect "LSM message" grep -q "LSM conflict" "$work/err"
# Keys compare in the key's type (Paimon's order): [256, 300] lies above [1, 9]. As the
# little-endian bytes of the BinaryRow they would overlap (256 = 00 01 .., 9 = 09 ..).
echo "{\"add\":[$(entry c4 dt=1/h=3 1 8 [256] [300])]}" >"$work/typed"
"$sc" commit "$t" --user c1 --identifier 3 --kind compact --changes "$work/typed" >/dev/null 2>"$work/err"; check "INT keys compare as numbers" 0 $?
echo "{\"delete\":[$(entry c4 dt=1/h=3 1 8 [256] [300])]}" >"$work/untyped"
"$sc" commit "$t" --user c1 --identifier 4 --kind compact --changes "$work/untyped" >/dev/null 2>"$work/err"; check "delete that file again" 0 $?

before=$(state "$t")
echo '{"add":[' >"$work/bad"
"$sc" commit "$t" --user u1 --identifier 9 --changes "$work/bad" >/dev/null 2>&1; check "malformed JSON" 2 $?
bad_entry() { # description expected-stderr-pattern entry-json
  echo "{\"add\":[$3]}" >"$work/be"
  "$sc" commit "$t" --user u1 --identifier 9 --changes "$work/be" >/dev/null 2>"$work/err"; check "$1" 2 $?
  expect "$1: message" grep -qF -- "$2" "$work/err"
}
bad_entry "absolute file" '"/etc/passwd"' "$(entry /etc/passwd)"
bad_entry "file with a directory" 'has no "/"' "$(entry data/f7)"
bad_entry "file with .." 'data/../../x' "$(entry data/../../x)"
bad_entry "file .." 'not a file name' "$(entry ..)"
bad_entry "unknown partition key" '"zz" is no partition key' "$(entry f7 zz=1/h=3)"
bad_entry "partition value of the wrong type" 'h=x' "$(entry f7 dt=1/h=x)"
bad_entry "partition spec missing a key" 'dt=1' "$(entry f7 dt=1)"
bad_entry "key value of the wrong type" 'minKey' "$(entry f7 dt=1/h=3 0 4 '["x"]' '[9]')"
bad_entry "key with too many values" 'minKey has 2 values' "$(entry f7 dt=1/h=3 0 4 '[1,2]' '[9]')"
bad_entry "bucket not below totalBuckets" 'bucket: 4 is not below' \
  '{"partition":"dt=1/h=3","bucket":4,"level":0,"file":"f7","rows":1,"size":1,"minKey":[1],"maxKey":[2]}'
bad_entry "primary-key table without keys" 'required on a primary-key table' \
  '{"partition":"dt=1/h=3","bucket":0,"level":0,"file":"f7","rows":1,"size":1}'
bad_entry "missing field" 'size' '{"partition":"dt=1/h=3","bucket":0,"level":0,"file":"x","rows":1}'
"$sc" commit "$t" --identifier 9 --changes "$work/c1" >/dev/null 2>&1; check "missing --user" 2 $?
"$sc" commit "$t" --user u --identifier x --changes "$work/c1" >/dev/null 2>&1; check "bad identifier" 2 $?
expect "bad input changed nothing" [ "$before" = "$(state "$t")" ]
"$sc" commit "$work/none" --user u --identifier 1 --changes "$work/c1" >/dev/null 2>&1; check "no table" 1 $?

"$sc" log "$t" --json >"$work/log.json"; check "log --json" 0 $?
expect "log JSON has the contract fields" python3 -c '
import json,sys; log=json.load(open(sys.argv[1]))
assert [s["id"] for s in log]==[1,2,3,4,5,6], log
for s in log: assert {"id","commitUser","commitIdentifier","commitKind","timeMillis"} <= s.keys()
assert [s["commitKind"] for s in log]==["APPEND","APPEND","OVERWRITE","COMPACT","COMPACT","COMPACT"]' "$work/log.json"
expect "snapshots are Paimon snapshot JSON" python3 -c '
import json,sys
s=json.load(open(sys.argv[1]))
assert (s["version"],s["id"],s["schemaId"],s["commitUser"],s["commitIdentifier"],s["commitKind"])==(3,4,0,"c1",1,"COMPACT"), s
for k in ("baseManifestList","deltaManifestList"): assert s[k].startswith("manifest-list-") and "/" not in s[k], s
assert all(isinstance(v,str) for v in s["properties"].values()), s' "$t/snapshot/snapshot-4"
"$sc" files "$t" --json >"$work/files.json"; check "files --json" 0 $?
expect "files JSON holds the live files" python3 -c '
import json,sys; f=json.load(open(sys.argv[1]))
assert sorted(x["file"] for x in f)==["c1"], f
assert f[0]=={"partition":"dt=1/h=3","bucket":0,"totalBuckets":8,"level":1,"file":"c1","path":"dt=1/h=3/bucket-0/c1",
              "rows":10,"size":100,"minKey":[1],"maxKey":[9]}, f[0]' "$work/files.json"
"$sc" files "$t" --snapshot 2 --json >"$work/files2.json"; check "files --snapshot" 0 $?
expect "snapshot 2 had two files" python3 -c '
import json,sys; f=json.load(open(sys.argv[1]))
assert sorted((x["file"],x["bucket"],x["path"]) for x in f)==[("f1",0,"dt=1/h=3/bucket-0/f1"),("f2",1,"dt=1/h=3/bucket-1/f2")], f' "$work/files2.json"
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
cp -r "$t" "$work/d3"; s="$work/d3/snapshot/snapshot-6"; head -c 100 "$s" >"$s.t" && mv "$s.t" "$s"
"$sc" log "$work/d3" >/dev/null 2>"$work/err"; expect "truncated latest snapshot fails closed" [ $? -ne 0 ]
expect "message names the snapshot" grep -q "snapshot-6" "$work/err"
cp -r "$t" "$work/d4"; echo garbage >"$work/d4/metadata/table.json"
"$sc" log "$work/d4" >/dev/null 2>"$work/err"; expect "damaged table metadata fails closed" [ $? -ne 0 ]
expect "message names table.json" grep -q "table.json" "$work/err"
cp -r "$t" "$work/d5"; echo garbage >"$work/d5/schema/schema-0"
"$sc" files "$work/d5" >/dev/null 2>"$work/err"; expect "damaged schema fails closed" [ $? -ne 0 ]
expect "message names schema-0" grep -q "schema/schema-0" "$work/err"
cp -r "$t" "$work/d6"; l=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["deltaManifestList"])' "$work/d6/snapshot/snapshot-6")
printf 'X' >>"$work/d6/manifest/$l"
"$sc" fsck "$work/d6" >/dev/null 2>"$work/err"; expect "fsck finds a manifest list whose size no longer matches" [ $? -ne 0 ]
expect "message names the manifest list" grep -q "$l" "$work/err"
cp -r "$t" "$work/d7"; sed -i 's/"commitUser":"c1"/"commitUser":"c9"/' "$work/d7/snapshot/snapshot-6"
"$sc" fsck "$work/d7" >/dev/null 2>"$work/err"; expect "fsck finds an edited snapshot" [ $? -ne 0 ]
expect "message says checksum mismatch" grep -q "snapshot-6: checksum mismatch" "$work/err"

# log's columns line up whatever the users' lengths (a Flink job's user is a 36-character UUID).
long_user=3f2a9c1e-8b7d-4e6f-a5c4-1234567890ab
echo '{"add":[{"partition":"","bucket":0,"level":0,"file":"data-l1.parquet","rows":3,"size":30}]}' \
  | "$sc" commit "$u" --user "$long_user" --identifier 1 --changes - >/dev/null; check "commit by a long user" 0 $?
echo '{"add":[{"partition":"","bucket":0,"level":0,"file":"data-l2.parquet","rows":3,"size":30}]}' \
  | "$sc" commit "$u" --user w --identifier 9223372036854775807 --changes - >/dev/null; check "commit with Paimon's batch identifier" 0 $?
"$sc" log "$u" >"$work/log"; check "log of long and short users" 0 $?
expect "log columns start at the header's offsets on every line" python3 -c '
import re,sys
lines=open(sys.argv[1]).read().splitlines(); h=lines[0]; users=sys.argv[2:]
assert len(lines)==4, lines
cols={name: h.index(name) for name in ("KIND","TIME (UTC)","USER")}
ends={name: h.index(name)+len(name) for name in ("ID","IDENTIFIER","RECORDS","FILES")}
for l in lines[1:]:
    for name, at in cols.items():
        assert l[at-1]==" " and l[at]!=" ", (name, l)
    assert re.match(r"\d{4}-\d\d-\d\dT", l[cols["TIME (UTC)"]:]), l
    assert any(l[cols["USER"]:].startswith(u) for u in users), l
    for name, end in ends.items():
        if name=="ID": assert l[0]!=" " and l[:end].strip().isdigit(), (name, l)
        else: assert l[end-1].isdigit() and (end==len(l) or l[end]==" "), (name, l)
' "$work/log" u "$long_user" w

# A checkpoint (docs/format.md section 8): its append part and its compact part are two snapshots
# of one identifier; JSON output names both; log shows schema, watermark and changelog count.
c="$work/ck"
"$sc" init "$c" --schema "$work/schema" >/dev/null; check "init of the checkpoint table" 0 $?
echo "{\"add\":[$(entry l0-a.parquet)]}" | "$sc" commit "$c" --user job --identifier 1 --changes - >/dev/null
cat >"$work/ck.json" <<EOF
{"add":[$(entry l0-b.parquet dt=1/h=3 0 4 '[10]' '[19]')],
 "changelog":[$(entry changelog-b.parquet dt=1/h=3 0 4 '[10]' '[19]')],
 "compact":{"delete":[$(entry l0-a.parquet)],"add":[$(entry l1-a.parquet dt=1/h=3 1)]},
 "watermark":1700000000000}
EOF
"$sc" commit "$c" --user job --identifier 2 --changes "$work/ck.json" --json >"$work/ck.out"; check "checkpoint commit" 0 $?
expect "checkpoint JSON names both snapshots" python3 -c '
import json,sys; o=json.load(open(sys.argv[1]))
assert (o["result"],o["snapshot"],o["kind"],o["compactSnapshot"])==("SC_OK",2,"APPEND",3), o' "$work/ck.out"
"$sc" commit "$c" --user job --identifier 2 --changes "$work/ck.json" --json >"$work/ck2.out" 2>/dev/null; check "checkpoint replay" 3 $?
expect "a replay names what holds the identifier" python3 -c '
import json,sys; o=json.load(open(sys.argv[1]))
assert (o["result"],o["snapshot"],o["compactSnapshot"])==("SC_ECOMMITTED",3,0), o' "$work/ck2.out"
"$sc" commit "$c" --user job --identifier 3 --kind compact --changes "$work/ck.json" >/dev/null 2>"$work/err"; check "--kind with a checkpoint" 2 $?
echo "{\"add\":[$(entry l0-c.parquet dt=1/h=3 0 4 '[20]' '[29]')],\"delete\":[$(entry l0-b.parquet dt=1/h=3 0 4 '[10]' '[19]')],\"watermark\":5}" \
  | "$sc" commit "$c" --user job --identifier 4 --changes - >"$work/ck3.out"; check "checkpoint whose append part deletes" 0 $?
expect "text output: both ids, 0 for an empty part" [ "$(cat "$work/ck3.out")" = "4 0" ]
"$sc" log "$c" --json >"$work/cklog.json"; check "log --json of the checkpoint table" 0 $?
expect "log JSON: kinds, schemaId, watermark, changelogRecordCount" python3 -c '
import json,sys; log=json.load(open(sys.argv[1]))
assert [s["commitKind"] for s in log]==["APPEND","APPEND","COMPACT","OVERWRITE"], log
assert [s["commitIdentifier"] for s in log]==[1,2,2,4], log
assert all(s["schemaId"]==0 for s in log), log
assert [s.get("watermark") for s in log]==[None,1700000000000,1700000000000,1700000000000], log
assert [s.get("changelogRecordCount") for s in log]==[None,10,None,None], log' "$work/cklog.json"
"$sc" files "$c" --snapshot 2 --changelog --json >"$work/ckfiles.json"; check "files --changelog" 0 $?
expect "files --changelog lists the snapshot's changelog" python3 -c '
import json,sys; f=json.load(open(sys.argv[1]))
assert [(x["file"],x["path"]) for x in f]==[("changelog-b.parquet","dt=1/h=3/bucket-0/changelog-b.parquet")], f' "$work/ckfiles.json"
"$sc" files "$c" --changelog --json >"$work/ckfiles4.json"; check "files --changelog of a snapshot without one" 0 $?
expect "no changelog: an empty list" [ "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$work/ckfiles4.json")" = 0 ]
# Index files of a checkpoint: deletion vectors of bucket 0 then a replacement; files --index.
dvi() { # file data-file
  printf '{"partition":"dt=1/h=3","bucket":0,"type":"DELETION_VECTORS","file":"%s","size":40,"rows":1,"dv":[{"file":"%s","offset":1,"length":22,"cardinality":3}]}' "$1" "$2"
}
echo "{\"index\":{\"add\":[$(dvi index-dv-1 l1-a.parquet)]}}" | "$sc" commit "$c" --user job --identifier 5 --changes - --json >"$work/ck5.out"
check "checkpoint with a deletion vector" 0 $?
expect "deletion vectors: the append part is labelled OVERWRITE" python3 -c '
import json,sys; o=json.load(open(sys.argv[1])); assert (o["snapshot"],o["kind"],o["compactSnapshot"])==(5,"OVERWRITE",0), o' "$work/ck5.out"
echo "{\"index\":{\"add\":[$(dvi index-dv-2 l1-a.parquet)],\"delete\":[$(dvi index-dv-1 l1-a.parquet)]}}" \
  | "$sc" commit "$c" --user job --identifier 6 --changes - >/dev/null; check "replacing the bucket's vectors" 0 $?
"$sc" files "$c" --index --json >"$work/ckidx.json"; check "files --index" 0 $?
expect "files --index lists the live index files" python3 -c '
import json,sys; f=json.load(open(sys.argv[1]))
assert [(x["file"],x["type"],x["bucket"],x["path"],x["dv"][0]["file"],x["dv"][0]["cardinality"]) for x in f]==[("index-dv-2","DELETION_VECTORS",0,"index/index-dv-2","l1-a.parquet",3)], f' "$work/ckidx.json"
"$sc" files "$c" --index --snapshot 5 >"$work/ckidx5"; check "files --index of snapshot 5" 0 $?
expect "text: the replaced file at snapshot 5" grep -q "index-dv-1" "$work/ckidx5"
echo "{\"index\":{\"delete\":[$(dvi index-dv-1 l1-a.parquet)]}}" \
  | "$sc" commit "$c" --user job --identifier 7 --changes - >/dev/null 2>"$work/err"; check "deleting an index file that is not live" 4 $?
expect "the conflict names the index file" grep -q "index-dv-1.*not live" "$work/err"
"$sc" files "$c" --index --changelog >/dev/null 2>&1; check "--index with --changelog" 2 $?

"$sc" fsck "$c" >/dev/null; check "fsck of the checkpoint table" 0 $?
# INSERT OVERWRITE (docs/format.md section 10): a partial partition spec replaces every matching
# partition, its data and index files; an unknown scope is bad input.
echo "{\"overwrite\":{\"partition\":\"h=3\"},\"add\":[$(entry l0-e.parquet dt=1/h=3 0 4 '[30]' '[31]')]}" \
  | "$sc" commit "$c" --user job --identifier 8 --changes - --json >"$work/ck8.out"; check "overwrite of h=3" 0 $?
expect "the overwrite is one OVERWRITE snapshot" python3 -c '
import json,sys; o=json.load(open(sys.argv[1])); assert (o["kind"],o["compactSnapshot"])==("OVERWRITE",0), o' "$work/ck8.out"
expect "only the new file and no index file are live" [ "$("$sc" files "$c" --json | python3 -c 'import json,sys; print([x["file"] for x in json.load(sys.stdin)])')$("$sc" files "$c" --index --json)" = "['l0-e.parquet'][]" ]
echo '{"overwrite":"everything"}' | "$sc" commit "$c" --user job --identifier 9 --changes - >/dev/null 2>"$work/err"; check "an unknown overwrite scope" 2 $?
"$sc" fsck "$c" >/dev/null; check "fsck after the overwrite" 0 $?

echo "cli contract: $passed passed, $failed failed"
[ "$failed" = 0 ]

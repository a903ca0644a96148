#!/usr/bin/env bash
# Damaged or oddly shaped tables (issue 8): every read, commit and fsck must
# fail closed with a message naming the damage, never serve an older state,
# never build on top, never block, and read commands must create nothing.
set -uo pipefail
sc=${1:?usage: cli_damage.sh PATH_TO_SNAPCOMMIT}
work=$(mktemp -d /tmp/sc-damage.XXXXXX)
trap 'rm -rf "$work"' EXIT
export SNAPCOMMIT_LOG=off
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
S() { printf 'snapshot-%d' "$1"; }
changes() { # file name -> a change set adding NAME to partition dt=1, bucket 0
  printf '{"add":[{"partition":"dt=1","bucket":0,"totalBuckets":4,"level":0,"file":"data-%s.parquet","rows":10,"size":100}]}' "$2" >"$1"
}
# A fixed-bucket append table partitioned by dt (4 buckets by id).
echo '{"fields":[{"name":"dt","type":"STRING"},{"name":"id","type":"INT"}],"partitionKeys":["dt"],"primaryKeys":[],
 "options":{"bucket":"4","bucket-key":"id"}}' >"$work/schema"
# A table with snapshots 1..n, committed by user u with identifiers 1..n.
make_table() { # dir n
  "$sc" init "$1" --schema "$work/schema" >/dev/null || { bad "init $1"; return; }
  for i in $(seq 1 "$2"); do
    changes "$work/c" "f$i"
    "$sc" commit "$1" --user u --identifier "$i" --changes "$work/c" >/dev/null || bad "commit $i into $1"
  done
}
# run: description expected-exit pattern-in-stderr command... (killed after 10 s: a hang is a failure)
run() {
  local d=$1 want=$2 pat=$3; shift 3
  timeout 10 "$@" >"$work/out" 2>"$work/err"
  local got=$?
  if [ "$got" = 124 ]; then bad "$d: blocked (killed after 10 s)"; return; fi
  if [ "$got" != "$want" ]; then bad "$d: expected exit $want, got $got: $(head -c 300 "$work/err")"; return; fi
  if [ -n "$pat" ] && ! grep -q -- "$pat" "$work/err"; then bad "$d: stderr lacks \"$pat\": $(head -c 300 "$work/err")"; return; fi
  ok
}
# Every read command, commit and fsck fail with exit 1 and a message matching pattern,
# and the commit leaves the snapshot directory unchanged.
all_refuse() { # label table pattern
  local label=$1 t=$2 pat=$3
  run "$label: last-committed" 1 "$pat" "$sc" last-committed "$t" --user u
  run "$label: files" 1 "$pat" "$sc" files "$t"
  run "$label: log" 1 "$pat" "$sc" log "$t"
  local before after
  before=$(ls -a "$t/snapshot" 2>/dev/null | grep -v '^LATEST$' | tr '\n' ' ')
  changes "$work/cx" "new-$RANDOM"
  run "$label: commit" 1 "$pat" "$sc" commit "$t" --user v --identifier 1 --changes "$work/cx"
  after=$(ls -a "$t/snapshot" 2>/dev/null | grep -v '^LATEST$' | tr '\n' ' ')
  [ "$before" = "$after" ] && ok || bad "$label: commit changed snapshot/ ($before -> $after)"
  run "$label: fsck" 1 "$pat" "$sc" fsck "$t"
}

base="$work/base"
make_table "$base" 4
fresh() { rm -rf "$work/$1"; cp -a "$base" "$work/$1"; echo "$work/$1"; }

# 1. A gap in the middle with a lagging hint.
t=$(fresh gap); echo 1 >"$t/snapshot/LATEST"; rm "$t/snapshot/$(S 3)"
all_refuse "gap + lagging hint" "$t" "snapshot 3 is missing"
# ... and with a current hint (log walks the history).
t=$(fresh gap2); rm "$t/snapshot/$(S 2)"
run "gap below a current hint: log" 1 "snapshot 2" "$sc" log "$t"
run "gap below a current hint: fsck" 1 "snapshot 2 is missing" "$sc" fsck "$t"

# ... and right above a lagging hint (LATEST = 2, snapshot 3 lost, 4 there): the HEAD of
# hint+2 stops a commit from claiming 3. An old-style hint with a newline is still read.
t=$(fresh gapabove); echo 2 >"$t/snapshot/LATEST"; rm "$t/snapshot/$(S 3)"
all_refuse "gap right above a lagging hint" "$t" "snapshot 3 is missing"
[ ! -e "$t/snapshot/$(S 3)" ] && ok || bad "gap right above a lagging hint: a commit claimed 3"
# Paimon's names and hints: snapshot-<id> unpadded, hints the bare id with no newline.
[ "$(od -An -c "$base/snapshot/LATEST" | tr -d ' ')" = 4 ] && ok || bad "LATEST is not \"4\" without newline: $(od -An -c "$base/snapshot/LATEST")"
[ "$(od -An -c "$base/snapshot/EARLIEST" | tr -d ' ')" = 1 ] && ok || bad "EARLIEST is not \"1\" without newline"
[ "$(cd "$base/snapshot" && ls | sort | tr '\n' ' ')" = "EARLIEST LATEST snapshot-1 snapshot-2 snapshot-3 snapshot-4 " ] && ok \
  || bad "snapshot/ holds $(ls "$base/snapshot" | tr '\n' ' ')"
# A second name for an id (a leading zero, or the old padded name) is damage, never skipped.
t=$(fresh zero); cp "$t/snapshot/$(S 2)" "$t/snapshot/snapshot-02"
run "leading zero: fsck" 1 "snapshot-02: not a snapshot name" "$sc" fsck "$t"
t=$(fresh padded); cp "$t/snapshot/$(S 2)" "$t/snapshot/snapshot-00000000000000000002"; rm "$t/snapshot/LATEST"
all_refuse "old padded name, no hint" "$t" "snapshot-00000000000000000002: not a snapshot name"
# More than 9 snapshots: names no longer sort numerically; discovery without a hint sorts them.
t="$work/ten"; make_table "$t" 11; rm "$t/snapshot/LATEST"
run "11 snapshots, no hint: last-committed" 0 "" "$sc" last-committed "$t" --user u
[ "$(cat "$work/out")" = 11 ] && ok || bad "11 snapshots, no hint: last-committed printed $(cat "$work/out")"
run "11 snapshots: fsck" 0 "" "$sc" fsck "$t"

# 2. The newest snapshot lost while LATEST still names it.
t=$(fresh lost); rm "$t/snapshot/$(S 4)"
all_refuse "newest lost" "$t" "snapshot 4 named by snapshot/LATEST is missing"
[ ! -e "$t/snapshot/$(S 4)" ] && ok || bad "newest lost: a commit reused id 4"
run "newest lost: fsck still reports it after the commit attempt" 1 "snapshot 4" "$sc" fsck "$t"

# 3. The whole snapshot/ directory gone, or replaced by a plain file.
t=$(fresh gone); rm -rf "$t/snapshot"
all_refuse "snapshot/ gone" "$t" "history"
[ ! -e "$t/snapshot" ] && ok || bad "snapshot/ gone: a command recreated it"
t=$(fresh plain); rm -rf "$t/snapshot"; echo junk >"$t/snapshot"
all_refuse "snapshot/ a plain file" "$t" "history"
# Snapshots 1..2 deleted (no expiration exists yet): log and fsck must say so.
t=$(fresh head1); rm "$t/snapshot/$(S 1)" "$t/snapshot/$(S 2)"
run "first snapshots deleted: log" 1 "snapshot 1 is missing" "$sc" log "$t"
run "first snapshots deleted: fsck" 1 "snapshot 1 is missing" "$sc" fsck "$t"
# ... also when EARLIEST is gone with them (history starts at 1 without it).
rm -f "$t/snapshot/EARLIEST"
run "first snapshots and EARLIEST deleted: fsck" 1 "snapshot 1 is missing" "$sc" fsck "$t"

# 4. Odd object types: never block, refuse with SC_ECORRUPT naming the object.
t=$(fresh fifo); rm "$t/snapshot/LATEST"; mkfifo "$t/snapshot/LATEST"
all_refuse "FIFO at LATEST" "$t" "snapshot/LATEST: is a FIFO"
t=$(fresh fifometa); rm "$t/metadata/table.json"; mkfifo "$t/metadata/table.json"
all_refuse "FIFO at table.json" "$t" "table.json: is a FIFO"
t=$(fresh fifosnap); rm "$t/snapshot/$(S 4)"; mkfifo "$t/snapshot/$(S 4)"
all_refuse "FIFO at the newest snapshot" "$t" "$(S 4): is a FIFO"
t=$(fresh dir); mkdir "$t/snapshot/$(S 5)"
changes "$work/cd" dirtest
run "directory at the next snapshot: commit" 1 "$(S 5): is an empty directory" \
  "$sc" commit "$t" --user v --identifier 1 --changes "$work/cd" --max-retries 2
run "directory at the next snapshot: fsck" 1 "$(S 5): is an empty directory" "$sc" fsck "$t"
# Discovery HEADs the id above LATEST, so reads meet it too (fail closed, naming it).
run "directory at the next snapshot: last-committed" 1 "$(S 5): is an empty directory" "$sc" last-committed "$t" --user u
t=$(fresh link); ln -s /etc/hostname "$t/snapshot/LATEST.tmp"; rm "$t/snapshot/LATEST"; mv "$t/snapshot/LATEST.tmp" "$t/snapshot/LATEST"
all_refuse "symlink out of the table at LATEST" "$t" "leading out of the table"

# 5. Messages.
t=$(fresh hint); echo -1 >"$t/snapshot/LATEST"
run "hint -1: fsck" 1 'snapshot/LATEST: damaged hint "-1' "$sc" fsck "$t"
run "hint -1: last-committed ignores the hint" 0 "" "$sc" last-committed "$t" --user u
[ "$(cat "$work/out")" = 4 ] && ok || bad "hint -1: last-committed printed $(cat "$work/out"), not 4"
changes "$work/ch" hintfix
# A commit fails closed: the damaged hint may have named a lost newer snapshot.
run "hint -1: commit refuses to build past it" 1 'snapshot/LATEST: damaged hint' "$sc" commit "$t" --user u --identifier 5 --changes "$work/ch"
[ ! -e "$t/snapshot/$(S 5)" ] && ok || bad "hint -1: commit claimed snapshot 5"
# Damaged LATEST + lost newest: the commit must not reuse id 5 and launder the loss.
t=$(fresh hintlost); changes "$work/ch" f5; "$sc" commit "$t" --user u --identifier 5 --changes "$work/ch" >/dev/null
rm "$t/snapshot/$(S 5)"; echo 'garbage' >"$t/snapshot/LATEST"
changes "$work/ch" relaunder
run "damaged hint + lost newest: commit" 1 'snapshot/LATEST: damaged hint' "$sc" commit "$t" --user v --identifier 1 --changes "$work/ch"
[ ! -e "$t/snapshot/$(S 5)" ] && ok || bad "damaged hint + lost newest: commit reused id 5"
run "damaged hint + lost newest: fsck still reports it" 1 'snapshot/LATEST: damaged hint' "$sc" fsck "$t"
# Deleting the hint is the operator's decision, after which commits go on.
rm "$t/snapshot/LATEST"
run "hint deleted: commit" 0 "" "$sc" commit "$t" --user v --identifier 1 --changes "$work/ch"
t=$(fresh moved); cp "$t/snapshot/$(S 3)" "$t/snapshot/$(S 4)"
run "snapshot under another id names both ids" 1 'field "id" is 3, not 4' "$sc" files "$t"

# 6. Read commands never create directories.
for cmd in "log" "files" "fsck" "last-committed --user u"; do
  # shellcheck disable=SC2086
  run "$cmd on a missing path" 1 "no table here" "$sc" $cmd "$work/missing/deep/t"
  [ ! -e "$work/missing" ] && ok || bad "$cmd on a missing path created $work/missing"
  rm -rf "$work/missing"
done
run "commit on a missing path" 1 "no table here" "$sc" commit "$work/missing/t" --user u --identifier 1 --changes "$work/c"
[ ! -e "$work/missing" ] && ok || bad "commit on a missing path created it"
run "init creates its directory" 0 "" "$sc" init "$work/made/deep/t"

# 7. Oversized objects (sparse files: no disk used) are refused by their size before they
# are read: a clear error naming the object, its size and the cap, and a small peak RSS
# (an unbounded read of 300 MB needs more than 300 MB).
rss_cap_kib=$((96 * 1024))
small_rss() { # label expected-exit pattern command...
  local label=$1 want=$2 pat=$3; shift 3
  run "$label" "$want" "$pat" /usr/bin/time -f %M -o "$work/rss" "$@"
  local kib; kib=$(tail -n 1 "$work/rss" 2>/dev/null)
  [ -n "$kib" ] && [ "$kib" -lt "$rss_cap_kib" ] && ok || bad "$label: peak RSS ${kib:-?} KiB (cap $rss_cap_kib)"
}
big=$((300 * 1024 * 1024))
t=$(fresh biglatest); truncate -s "$big" "$t/snapshot/LATEST"
small_rss "300 MB LATEST: files" 1 "snapshot/LATEST: $big bytes, more than the 32" "$sc" files "$t"
small_rss "300 MB LATEST: fsck" 1 "snapshot/LATEST: $big bytes" "$sc" fsck "$t"
t=$(fresh bigmeta); truncate -s "$big" "$t/metadata/table.json"
small_rss "300 MB table.json: files" 1 "metadata/table.json: $big bytes, more than the 1048576" "$sc" files "$t"
t=$(fresh bigsnap); truncate -s "$big" "$t/snapshot/$(S 4)"
small_rss "300 MB newest snapshot: files" 1 "$(S 4): $big bytes, more than the 67108864" "$sc" files "$t"
small_rss "300 MB newest snapshot: log" 1 "$(S 4): $big bytes" "$sc" log "$t"
changes "$work/cb" bigsnap
small_rss "300 MB newest snapshot: commit" 1 "$(S 4): $big bytes" "$sc" commit "$t" --user v --identifier 1 --changes "$work/cb"
[ ! -e "$t/snapshot/$(S 5)" ] && ok || bad "300 MB newest snapshot: a commit built on top"

# 8. Paimon's own objects: the schema, Avro manifests and manifest lists, a snapshot edited with
# or without resealing. Each read that needs the object fails closed naming it; nothing is built on top.
reseal() { # snapshot-file python-expression-on-snap: edit a snapshot and reseal it (docs/format.md §4)
  python3 - "$1" "$2" <<'PY'
import hashlib, json, sys
path, edit = sys.argv[1], sys.argv[2]
snap = json.loads(open(path, 'rb').read())
exec(edit)
snap['properties']['snapcommit.checksum'] = '0' * 64
text = json.dumps(snap, separators=(',', ':'), ensure_ascii=False).encode()
digest = hashlib.sha256(text).hexdigest().encode()
open(path, 'wb').write(text.replace(b'0' * 64 + b'"}}', digest + b'"}}'))
PY
}
t=$(fresh noschema); rm "$t/schema/schema-0"
all_refuse "schema-0 deleted" "$t" "schema/schema-0 is missing"
t=$(fresh badschema); printf '{"version":3,"id":0,' >"$t/schema/schema-0"
all_refuse "schema-0 truncated" "$t" "schema/schema-0"
t=$(fresh schemaid); sed -i 's/"id" : 0,/"id" : 1,/' "$t/schema/schema-0"
all_refuse "schema-0 holding schema 1" "$t" 'schema/schema-0: its field "id" is not 0'
# schema-0 edited to drop its partition keys: every manifest entry's partition (a row of
# one field) no longer fits the schema the snapshots claim. fsck and files fail naming the
# manifest and the record, never "sound", never a bare row error.
t=$(fresh nopartkeys)
python3 - "$t/schema/schema-0" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); s["partitionKeys"] = []; json.dump(s, open(sys.argv[1], "w"), indent=2)
PY
grep -q '"partitionKeys": \[\]' "$t/schema/schema-0" && ok || bad "schema without partition keys: the edit did not apply"
pk='manifest/manifest-[^:]*: record 0 (data-f[0-9]*.parquet), read with schema/schema-0: partition: BinaryRow arity 1, expected 0'
run "schema without partition keys: fsck" 1 "$pk" "$sc" fsck "$t"
run "schema without partition keys: files" 1 "$pk" "$sc" files "$t"
run "schema without partition keys: files --json" 1 "$pk" "$sc" files "$t" --json
# fsck reads every snapshot against the schema it claims: a schemaId naming no schema, and a
# schema-1 that retypes the partition key (the rows still decode as INT: only the claim shows it).
t=$(fresh schemaclaim); reseal "$t/snapshot/$(S 4)" 'snap["schemaId"] = 7'
run "snapshot claiming a schema that does not exist: fsck" 1 "snapshot 4: schemaId 7 names no schema of the table" "$sc" fsck "$t"
t=$(fresh retyped)
python3 - "$t/schema/schema-0" "$t/schema/schema-1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); s["id"] = 1
for f in s["fields"]:
    if f["name"] == "dt": f["type"] = "INT NOT NULL"
json.dump(s, open(sys.argv[2], "w"), indent=2)
PY
run "schema-1 retyping the partition key: fsck" 1 "snapshot 1 claims schema/schema-0, whose partition keys differ from schema/schema-1's" "$sc" fsck "$t"
# The newest snapshot's base manifest list one byte longer than the snapshot's baseManifestListSize.
t=$(fresh listsize); l=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["baseManifestList"])' "$t/snapshot/$(S 4)")
printf 'X' >>"$t/manifest/$l"
run "manifest list longer than recorded: files" 1 "$l" "$sc" files "$t"
run "manifest list longer than recorded: fsck" 1 "$l" "$sc" fsck "$t"
changes "$work/cl" listsize
run "manifest list longer than recorded: commit" 1 "$l" "$sc" commit "$t" --user v --identifier 1 --changes "$work/cl"
[ ! -e "$t/snapshot/$(S 5)" ] && ok || bad "manifest list longer than recorded: a commit built on top"
# One byte of an Avro manifest's (zstd) data block changed: caught by the digest the list records.
t=$(fresh avro); m=$(ls "$t"/manifest/manifest-[0-9a-f]* | head -1); sz=$(stat -c %s "$m")
printf '\x01' | dd of="$m" bs=1 seek=$((sz - 24)) conv=notrunc 2>/dev/null
run "damaged Avro manifest: files" 1 "$(basename "$m")" "$sc" files "$t"
run "damaged Avro manifest: fsck" 1 "$(basename "$m")" "$sc" fsck "$t"
# A manifest cut short.
t=$(fresh avrocut); m=$(ls "$t"/manifest/manifest-[0-9a-f]* | head -1); truncate -s 100 "$m"
run "truncated Avro manifest: fsck" 1 "$(basename "$m")" "$sc" fsck "$t"
# The newest snapshot's delta manifest (the newest manifest written) missing, then damaged:
# every commit reads it before building on it (docs/protocols.md §3), so it refuses naming it.
for how in missing damaged; do
  t=$(fresh "delta$how"); m=$(ls -t "$t"/manifest/manifest-[0-9a-f]* | head -1); sz=$(stat -c %s "$m")
  if [ "$how" = missing ]; then rm "$m"; else printf '\x01' | dd of="$m" bs=1 seek=$((sz - 24)) conv=notrunc 2>/dev/null; fi
  before=$(ls "$t/snapshot" "$t/manifest" | tr '\n' ' ')
  changes "$work/cd" "delta$how"
  run "$how delta manifest of the latest snapshot: commit" 1 "$(basename "$m")" "$sc" commit "$t" --user v --identifier 1 --changes "$work/cd"
  [ "$before" = "$(ls "$t/snapshot" "$t/manifest" | tr '\n' ' ')" ] && ok || bad "$how delta manifest: the refused commit changed the table"
  run "$how delta manifest of the latest snapshot: fsck" 1 "$(basename "$m")" "$sc" fsck "$t"
done
# A snapshot edited without resealing (as a Paimon tool that rewrites JSON would leave it).
t=$(fresh edited); sed -i 's/"totalRecordCount":40/"totalRecordCount":41/' "$t/snapshot/$(S 4)"
grep -q '"totalRecordCount":41' "$t/snapshot/$(S 4)" && ok || bad "edited snapshot: the edit did not apply"
all_refuse "snapshot edited, not resealed" "$t" "$(S 4): checksum mismatch"
# Resealed, but naming a manifest list that is not there: the list is named, not the checksum.
t=$(fresh resealed); reseal "$t/snapshot/$(S 4)" 'snap["deltaManifestList"] = "manifest-list-00000000-0000-0000-0000-000000000000-9"'
run "resealed snapshot naming a missing manifest list: log still reads it" 0 "" "$sc" log "$t"
run "resealed snapshot naming a missing manifest list: files" 1 "manifest-list-00000000-0000-0000-0000-000000000000-9" "$sc" files "$t"
run "resealed snapshot naming a missing manifest list: fsck" 1 "manifest-list-00000000-0000-0000-0000-000000000000-9" "$sc" fsck "$t"
# Resealed with a record count that disagrees with its manifests: fsck recounts.
t=$(fresh recount); reseal "$t/snapshot/$(S 4)" 'snap["totalRecordCount"] = 41'
run "resealed snapshot with a wrong totalRecordCount: fsck" 1 "totalRecordCount" "$sc" fsck "$t"

# metadata/table.json rewritten and resealed (as the rebuild recipe of docs/operations.md does)
# with another table's UUID: the message names both UUIDs, the snapshot's and table.json's.
reseal_meta() { # dir table-uuid
  python3 - "$1/metadata/table.json" "$2" <<'PY'
import hashlib, json, sys
path, uuid = sys.argv[1], sys.argv[2]
meta = json.loads(open(path, 'rb').read())
del meta['checksum']
meta['tableUuid'] = uuid
body = json.dumps(meta, separators=(',', ':')).encode()
seal = hashlib.sha256(body).hexdigest().encode()
open(path, 'wb').write(body[:-1] + b',"checksum":"' + seal + b'"}')
PY
}
own=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tableUuid"])' "$base/metadata/table.json")
other=11111111-2222-4333-8444-555555555555
t=$(fresh metauuid); reseal_meta "$t" "$other"
all_refuse "table.json resealed with another UUID" "$t" "belongs to table $own, not this table ($other, named by metadata/table.json)"
# The same recipe with the right UUID gives back a working table.
t=$(fresh metasame); reseal_meta "$t" "$own"
run "table.json resealed with its own UUID: fsck" 0 "" "$sc" fsck "$t"

# A healthy table still works end to end.
run "healthy: fsck" 0 "" "$sc" fsck "$base"
run "healthy: log" 0 "" "$sc" log "$base"
echo "cli_damage: $passed passed, $failed failed"
[ "$failed" = 0 ]

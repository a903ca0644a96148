#!/usr/bin/env bash
# Twin tables: Paimon's committer and snapcommit's commit the same checkpoints of Paimon's own writer,
# and Paimon's readers must see the same two tables.
#
#   tests/paimon/twin_commit.sh PATH_TO_SNAPCOMMIT [SCENARIO...]
#
# Registered in ctest as paimon_twin_commit (CMakeLists.txt): needs the JDK and Maven (PaimonTool) and
# the pypaimon venv, and FAILS without them (never skips).
#
# Per scenario: PaimonTool `create` makes table A (schema-0 only), A is copied to B and
# `snapcommit init B` adopts the copy. Per checkpoint: PaimonTool `prepare` runs one checkpoint of
# Paimon 1.4.2's TableWriteImpl on A (a fresh writer restored from A's latest snapshot, as a restarted
# Flink writer) and writes its commit messages twice: as CommitMessageSerializer bytes and as
# snapcommit's checkpoint change set (Paimon's ManifestEntryChanges split: append part, "compact"
# part, changelog and index sections). The data, changelog and index files it wrote in A are copied
# to B under the same relative paths; `commit-messages` commits A with Paimon's TableCommitImpl and
# `snapcommit commit` commits the change set to B (same user and identifier).
# Then A and B must agree for Paimon's readers: `snapshots --detail true` (every snapshot's kind,
# identifier, schema id, total/delta/changelog record counts, watermark, changelog manifest list and
# index manifest presence, live data files, delta and changelog files with their metadata, live index
# files with their deletion-vector ranges; only "properties" may differ), `read` (rows),
# `stream` from the first snapshot (each snapshot's rows with their row kinds), and pypaimon's read of
# B wherever pypaimon reads A. Each scenario also checks that A shows what it is meant to exercise.
#
# Scenarios:
#   append_unaware  append, dt-partitioned, bucket -1, 2 checkpoints
#   append_fixed    append, bucket 2 (bucket-key id), 2 checkpoints, then a full compaction (COMPACT)
#   pk_input        PK (dt, id), bucket 2, deduplicate, changelog-producer=input: inserts, -U/+U
#                   upserts, a delete, over 3 checkpoints with watermarks on the first two
#   pk_lookup       PK, bucket 2, changelog-producer=lookup, waitCompaction: APPEND + COMPACT per
#                   checkpoint, the changelog in the COMPACT part; the last checkpoint replayed on both
#   pk_dv           PK, bucket 2, deletion-vectors.enabled: DELETION_VECTORS index files in the COMPACT part
#   pk_dynamic      PK, bucket -1 (dynamic; Paimon's HashBucketAssigner): HASH index files in the APPEND
#                   part (several buckets per partition, _TOTAL_BUCKETS -1)
#   pk_full         PK, bucket 2: two checkpoints, then a full compaction rewriting every file (one of
#                   them upgraded: the same file deleted at level 0 and added at level 5 in one COMPACT)
# Prints "ok"/"FAIL" lines and "twin_commit: N passed, M failed"; exit 1 on any failure.
set -uo pipefail
sc=${1:?usage: twin_commit.sh PATH_TO_SNAPCOMMIT [SCENARIO...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export SNAPCOMMIT_LOG=warn
tool=$root/scripts/paimon-tool.sh
work=$(mktemp -d /tmp/sc-twin.XXXXXX)
[[ -n ${TWIN_KEEP:-} ]] && echo "twin_commit: work dir $work (kept)" || trap 'rm -rf "$work"' EXIT
pass=0 fail=0
ok() { echo "ok   $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
first() { head -c 600 "$1" | tr '\n' ' '; }

py=$("$root/scripts/pypaimon-setup.sh") || { echo "FAIL: pypaimon set-up failed"; exit 1; }
"$tool" --build-only || { echo "FAIL: PaimonTool build failed"; exit 1; }

# ---- does this snapcommit take checkpoint change sets (changelog/index/compact/watermark)? ----
# Without them no scenario can run; each then FAILS saying so (a missing capability is a failure).
cap=1
mkdir -p "$work/probe"
printf '{"fields":[{"name":"id","type":"INT"}],"partitionKeys":[],"primaryKeys":[],"options":{"bucket":"-1"}}' > "$work/probe.schema"
printf '{"add":[],"changelog":[],"index":{"add":[],"delete":[]},"compact":{"add":[],"delete":[]},"watermark":1}' > "$work/probe.json"
if ! "$sc" init "$work/probe/t" --schema "$work/probe.schema" > "$work/out" 2>&1; then
    echo "FAIL: snapcommit init: $(first "$work/out")"; exit 1
fi
if ! "$sc" commit "$work/probe/t" --user probe --identifier 1 --changes "$work/probe.json" --json > "$work/out" 2>&1; then
    cap=0
    cap_why="snapcommit commit does not take a checkpoint change set (changelog/index/compact/watermark): $(first "$work/out")"
fi

# The comparison of two `snapshots --detail true` outputs: every field but "properties"; lists of
# files compared as sets (their order is nothing a reader sees), differences named per file and field.
cat > "$work/cmp.py" <<'PY'
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l) for l in open(sys.argv[2])]
same = len(a) == len(b)
if not same:
    print(f"A has {len(a)} snapshots, B has {len(b)}: A {[x['commitKind'] for x in a]}, B {[x['commitKind'] for x in b]}")
def ident(f):
    return (f["kind"], f["partition"], f["bucket"], f.get("type", ""), f["file"])
for x, y in zip(a, b):
    for k in sorted(set(x) | set(y)):
        if k == "properties" or x.get(k) == y.get(k):
            continue
        if isinstance(x.get(k), list) and isinstance(y.get(k), list) and \
                sorted(map(json.dumps, x[k])) == sorted(map(json.dumps, y[k])):
            continue  # the same entries in another order: nothing a reader sees
        same = False
        if isinstance(x.get(k), list) and isinstance(y.get(k), list):
            xa = {ident(f): f for f in x[k]}
            yb = {ident(f): f for f in y[k]}
            if xa == yb:  # the same set with an entry repeated on one side
                print(f"snapshot {x['id']} {k}: A {x[k]}, B {y[k]}")
            for i in sorted(set(xa) | set(yb)):
                if i not in yb:
                    print(f"snapshot {x['id']} {k}: only in A: {xa[i]}")
                elif i not in xa:
                    print(f"snapshot {x['id']} {k}: only in B: {yb[i]}")
                elif xa[i] != yb[i]:
                    d = {f: (xa[i].get(f), yb[i].get(f)) for f in xa[i] if xa[i].get(f) != yb[i].get(f)}
                    print(f"snapshot {x['id']} {k} {' '.join(map(str, i))}: (A, B) {d}")
        else:
            print(f"snapshot {x['id']} {k}: A {x.get(k)!r}, B {y.get(k)!r}")
sys.exit(0 if same else 1)
PY

# ---- schemas ----
schema() { # NAME: the schema JSON of a scenario
    local pk='{"name":"dt","type":"STRING NOT NULL"},{"name":"id","type":"INT NOT NULL"},{"name":"v","type":"STRING"},{"name":"n","type":"BIGINT"}'
    local pkk='"partitionKeys":["dt"],"primaryKeys":["dt","id"]'
    case $1 in
        append_unaware) echo "{\"fields\":[$pk],\"partitionKeys\":[\"dt\"],\"primaryKeys\":[],\"options\":{\"bucket\":\"-1\",\"file.format\":\"parquet\"}}" ;;
        append_fixed) echo "{\"fields\":[$pk],\"partitionKeys\":[\"dt\"],\"primaryKeys\":[],\"options\":{\"bucket\":\"2\",\"bucket-key\":\"id\",\"file.format\":\"parquet\",\"compaction.force-rewrite-all-files\":\"true\"}}" ;;
        pk_input) echo "{\"fields\":[$pk],$pkk,\"options\":{\"bucket\":\"2\",\"file.format\":\"parquet\",\"changelog-producer\":\"input\"}}" ;;
        pk_lookup) echo "{\"fields\":[$pk],$pkk,\"options\":{\"bucket\":\"2\",\"file.format\":\"parquet\",\"changelog-producer\":\"lookup\"}}" ;;
        pk_dv) echo "{\"fields\":[$pk],$pkk,\"options\":{\"bucket\":\"2\",\"file.format\":\"parquet\",\"deletion-vectors.enabled\":\"true\"}}" ;;
        pk_dynamic) echo "{\"fields\":[$pk],$pkk,\"options\":{\"bucket\":\"-1\",\"file.format\":\"parquet\",\"dynamic-bucket.target-row-num\":\"3\"}}" ;;
        pk_full) echo "{\"fields\":[$pk],$pkk,\"options\":{\"bucket\":\"2\",\"file.format\":\"parquet\"}}" ;;
    esac
}
r() { # KIND DT ID V N: one row object
    echo "{\"_kind\":\"$1\",\"dt\":\"$2\",\"id\":$3,\"v\":$4,\"n\":$5}"
}
inserts() { # DT FROM TO VTAG: +I rows
    local i; for ((i = $2; i <= $3; i++)); do r +I "$1" "$i" "\"$4$i\"" $((i * 10)); done
}

# ---- one checkpoint on both tables ----
# checkpoint SCEN ID ROWS-FILE [prepare flags...]
checkpoint() {
    local s=$1 id=$2 rows=$3; shift 3
    local A=$work/$s/A B=$work/$s/B cp=$work/$s/cp-$id.json msg=$work/$s/msg-$id.bin
    if ! "$tool" prepare "$A" --user twin --identifier "$id" --rows-json "$rows" --out-json "$cp" \
            --out-messages "$msg" "$@" > "$work/out" 2>&1; then
        bad "$s: PaimonTool prepare $id: $(first "$work/out")"; return 1
    fi
    # The files the writer wrote (data, changelog, index), into B at the same relative paths.
    (cd "$A" && find . -type f ! -path './snapshot/*' ! -path './manifest/*' ! -path './schema/*' \
        ! -name '.*' -print) | while read -r f; do
        [[ -e $B/$f ]] || { mkdir -p "$(dirname "$B/$f")" && cp "$A/$f" "$B/$f"; }
    done
    local wm=(); local w
    w=$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); print(c.get("watermark",""))' "$cp")
    [[ -n $w ]] && wm=(--watermark "$w")
    if ! "$tool" commit-messages "$A" --user twin --identifier "$id" --in "$msg" "${wm[@]}" > "$work/out" 2>&1; then
        bad "$s: Paimon's commit of checkpoint $id: $(first "$work/out")"; return 1
    fi
    if [[ -n ${TWIN_LEGACY:-} ]]; then # development only: today's {"add","delete"} form
        python3 - "$cp" <<'PY' || { bad "$s: checkpoint $id needs more than the add/delete form"; return 1; }
import json, sys
c = json.load(open(sys.argv[1]))
if set(c) - {"add", "delete"}:
    sys.exit(1)
for e in c.get("add", []) + c.get("delete", []):
    for k in ("deleteRowCount", "fileSource", "creationTime"):
        e.pop(k, None)
json.dump(c, open(sys.argv[1], "w"))
PY
    fi
    if ! "$sc" commit "$B" --user twin --identifier "$id" --changes "$cp" --json > "$work/$s/sc-$id.out" 2>&1; then
        bad "$s: snapcommit commit of checkpoint $id exited non-zero: $(first "$work/$s/sc-$id.out")"; return 1
    fi
}

# replay SCEN ID: checkpoint ID (an APPEND and a COMPACT snapshot) committed again, as a restored
# committer does: Paimon's filterAndCommit drops it, snapcommit exits 3 (already committed); neither
# writes a snapshot (compare then sees the same chain).
replay() {
    local s=$1 id=$2 A=$work/$1/A B=$work/$1/B n
    if ! "$tool" commit-messages "$A" --user twin --identifier "$id" --in "$work/$s/msg-$id.bin" --replay true > "$work/out" 2>&1; then
        bad "$s: Paimon's replay of checkpoint $id failed: $(first "$work/out")"
    elif [[ $(tail -1 "$work/out") != 0 ]]; then
        bad "$s: Paimon's replay of checkpoint $id committed $(tail -1 "$work/out") checkpoints, not 0"
    else
        ok "$s: Paimon's committer drops the replayed checkpoint $id"
    fi
    "$sc" commit "$B" --user twin --identifier "$id" --changes "$work/$s/cp-$id.json" --json > "$work/out" 2>&1
    n=$?
    [[ $n == 3 ]] && ok "$s: snapcommit's replay of checkpoint $id exits 3 (already committed)" \
        || bad "$s: snapcommit's replay of checkpoint $id exited $n, not 3: $(first "$work/out")"
}

# ---- the judges ----
compare() { # SCEN: A and B through Paimon's readers
    local s=$1 A=$work/$s/A B=$work/$s/B d=$work/$s n
    if "$tool" snapshots "$A" --detail true > "$d/snapA" 2> "$d/err" && "$tool" snapshots "$B" --detail true > "$d/snapB" 2>> "$d/err"; then
        if python3 "$work/cmp.py" "$d/snapA" "$d/snapB" > "$d/snapdiff"; then ok "$s: snapshots agree ($(wc -l < "$d/snapA") snapshots: $(python3 -c 'import json,sys; print(" ".join(json.loads(l)["commitKind"] for l in open(sys.argv[1])))' "$d/snapA"))"; else bad "$s: snapshots differ (A = Paimon's committer, B = snapcommit):"; sed 's/^/     /' "$d/snapdiff"; fi
        # The comparison can fail: A against a copy of itself with one data file's metadata changed.
        python3 -c 'import json,sys
s=[json.loads(l) for l in open(sys.argv[1])]
f=s[-1]["files"][0]; f["deleteRowCount"]=(f["deleteRowCount"] or 0)+1
for x in s: print(json.dumps(x))' "$d/snapA" > "$d/snapX"
        if python3 "$work/cmp.py" "$d/snapA" "$d/snapX" > "$d/snapdiffX" || ! grep -q "deleteRowCount" "$d/snapdiffX"; then
            bad "$s: the snapshot comparison does not see a changed deleteRowCount: $(first "$d/snapdiffX")"
        fi
    else
        bad "$s: PaimonTool snapshots failed: $(first "$d/err")"
    fi
    if "$tool" read "$A" > "$d/readA" 2> "$d/err" && "$tool" read "$B" > "$d/readB" 2>> "$d/err"; then
        if cmp -s "$d/readA" "$d/readB"; then ok "$s: read agrees ($(($(wc -l < "$d/readA") - 1)) rows)"
        else bad "$s: read differs:"; diff "$d/readA" "$d/readB" | head -20 | sed 's/^/     /'; fi
    else
        bad "$s: PaimonTool read failed: $(first "$d/err")"
    fi
    n=$(wc -l < "$d/snapA")
    if "$tool" stream "$A" --expect-snapshots "$n" --timeout-ms 20000 > "$d/streamA" 2> "$d/err" && "$tool" stream "$B" --expect-snapshots "$n" --timeout-ms 20000 > "$d/streamB" 2>> "$d/err"; then
        if cmp -s "$d/streamA" "$d/streamB"; then ok "$s: stream agrees ($n snapshots, $(grep -c '"_kind"' "$d/streamA") rows)"
        else bad "$s: stream differs:"; diff "$d/streamA" "$d/streamB" | head -20 | sed 's/^/     /'; fi
    else
        bad "$s: PaimonTool stream failed: $(first "$d/err")"
    fi
    if "$py" "$here/pypaimon_read.py" "$A" > "$d/pyA" 2> "$d/err"; then
        if ! "$py" "$here/pypaimon_read.py" "$B" > "$d/pyB" 2> "$d/err"; then bad "$s: pypaimon reads A but not B: $(tail -c 400 "$d/err")"
        elif cmp -s "$d/pyA" "$d/pyB"; then ok "$s: pypaimon read agrees"
        else bad "$s: pypaimon read differs:"; diff "$d/pyA" "$d/pyB" | head -20 | sed 's/^/     /'; fi
        cmp -s "$d/pyA" "$d/readA" || echo "note $s: pypaimon's read of A differs from Paimon Java's (a pypaimon limit, not judged)"
    else
        echo "note $s: pypaimon cannot read A (Paimon's own table), so B is not judged by it: $(tail -c 300 "$d/err" | tr '\n' ' ')"
    fi
}

# expect SCEN DESCRIPTION PYTHON-EXPR: A (Paimon's own commits) shows what the scenario exercises;
# the expression sees `s` = the list of snapshot objects of `snapshots --detail true`.
expect() {
    if python3 -c "import json,sys; s=[json.loads(l) for l in open(sys.argv[1])]; sys.exit(0 if ($3) else 1)" "$work/$1/snapA" 2>"$work/err"; then
        ok "$1: A exercises $2"
    else
        bad "$1: A does not exercise $2 ($(first "$work/err")); snapshots: $(python3 -c 'import json,sys; print([(x["commitKind"],x["changelogRecordCount"],len(x["index"])) for x in map(json.loads,open(sys.argv[1]))])' "$work/$1/snapA")"
    fi
}

# ---- scenarios ----
run() { # SCEN: create A and B, run its checkpoints, judge
    local s=$1 d=$work/$1
    mkdir -p "$d"
    if [[ $cap == 0 && -z ${TWIN_LEGACY:-} ]]; then bad "$s: $cap_why"; return; fi
    schema "$s" > "$d/schema.json"
    if ! "$tool" create "$d/A" --schema-json "$d/schema.json" > "$work/out" 2>&1; then bad "$s: PaimonTool create: $(first "$work/out")"; return; fi
    cp -a "$d/A" "$d/B"
    if ! "$sc" init "$d/B" > "$work/out" 2>&1; then bad "$s: snapcommit init (adopt): $(first "$work/out")"; return; fi
    local rows=$d/rows
    case $s in
        append_unaware|append_fixed)
            { inserts d1 1 4 a; inserts d2 5 6 a; } > "$rows.1"
            { inserts d1 7 8 b; inserts d3 9 9 b; } > "$rows.2"
            : > "$rows.3"
            ;;
        pk_input)
            inserts d1 1 4 a > "$rows.1"; inserts d2 5 6 a >> "$rows.1"
            { r -U d1 2 '"a2"' 20; r +U d1 2 '"b2"' 21; r -U d2 5 '"a5"' 50; r +U d2 5 '"b5"' 51; inserts d1 7 7 b; } > "$rows.2"
            { r -D d1 3 '"a3"' 30; r -U d1 2 '"b2"' 21; r +U d1 2 '"c2"' 22; } > "$rows.3"
            ;;
        pk_lookup|pk_dv|pk_full|pk_dynamic)
            inserts d1 1 6 a > "$rows.1"; inserts d2 1 3 a >> "$rows.1"
            { r +I d1 2 '"b2"' 21; r +I d2 3 '"b3"' 31; inserts d1 7 9 b; } > "$rows.2"
            { r -D d1 4 '"a4"' 40; r +I d1 2 '"c2"' 22; r +I d2 9 '"c9"' 90; } > "$rows.3"
            ;;
    esac
    local i n=3 flags=() f
    [[ $s == append_unaware ]] && n=2
    case $s in pk_lookup|pk_dv) flags=(--wait-compaction true) ;; esac
    for ((i = 1; i <= n; i++)); do
        f=()
        [[ $s == pk_input && $i -lt 3 ]] && f=(--watermark $((i * 1000)))
        [[ ($s == pk_full || $s == append_fixed) && $i == 3 ]] && f=(--full-compaction true)
        python3 -c 'import json,sys; print(json.dumps([json.loads(l) for l in open(sys.argv[1])]))' "$rows.$i" > "$rows.$i.json"
        checkpoint "$s" "$i" "$rows.$i.json" "${flags[@]}" "${f[@]}" || return
    done
    [[ $s == pk_lookup ]] && replay "$s" 3
    compare "$s"
    # Beyond Paimon's readers: fsck --data finds both tables sound (A as Paimon wrote it, with its
    # changelog and index files; B as we committed it).
    local t
    for t in A B; do
        if "$sc" fsck "$d/$t" --data > "$work/out" 2>&1; then ok "$s: snapcommit fsck --data finds $t sound"
        else bad "$s: snapcommit fsck --data on $t: $(first "$work/out")"; fi
    done
    case $s in
        append_unaware) expect "$s" "two APPEND snapshots" 's and [x["commitKind"] for x in s] == ["APPEND", "APPEND"]' ;;
        append_fixed) expect "$s" "a full compaction: a COMPACT deleting every file the snapshot before held" \
            's[-1]["commitKind"] == "COMPACT" and {f["file"] for f in s[-2]["files"]} <= {f["file"] for f in s[-1]["delta"] if f["kind"] == "DELETE"}' ;;
        pk_input) expect "$s" "changelog in APPEND snapshots, a delete, watermarks carried" \
            'all(x["changelogRecordCount"] for x in s) and [x["watermark"] for x in s][-1] == 2000 and s[-1]["totalRecordCount"] > 0' ;;
        pk_lookup) expect "$s" "COMPACT snapshots with a changelog" 'any(x["commitKind"] == "COMPACT" and x["changelogRecordCount"] for x in s)' ;;
        pk_dv) expect "$s" "DELETION_VECTORS index files written by a COMPACT" \
            'any(x["commitKind"] == "COMPACT" and any(i["type"] == "DELETION_VECTORS" for i in x["index"]) for x in s)' ;;
        pk_dynamic) expect "$s" "HASH index files in APPEND snapshots, over several buckets" \
            'any(i["type"] == "HASH" for i in s[-1]["index"]) and len({(i["partition"], i["bucket"]) for i in s[-1]["index"]}) > 2' ;;
        pk_full) expect "$s" "a full compaction: a COMPACT deleting every file the snapshot before held, one file upgraded (deleted at level 0, added at level 5)" \
            's[-1]["commitKind"] == "COMPACT" and {f["file"] for f in s[-2]["files"]} <= {f["file"] for f in s[-1]["delta"] if f["kind"] == "DELETE"} and {(f["file"], 0) for f in s[-1]["delta"] if f["kind"] == "DELETE"} & {(f["file"], f["level"] - 5) for f in s[-1]["delta"] if f["kind"] == "ADD"}' ;;
    esac
}

scenarios=("$@")
[[ ${#scenarios[@]} -gt 0 ]] || scenarios=(append_unaware append_fixed pk_input pk_lookup pk_dv pk_dynamic pk_full)
for s in "${scenarios[@]}"; do run "$s"; done
echo "twin_commit: $pass passed, $fail failed"
[[ $fail == 0 ]]

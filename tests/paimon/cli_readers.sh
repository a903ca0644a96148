#!/usr/bin/env bash
# Paimon reads what the snapcommit CLI commits (issue 10, "How it is checked"), judged by Paimon's
# own readers only (tests/paimon/reader_check.sh: Paimon Java 1.4.2 and pypaimon 2.1.0).
#
#   tests/paimon/cli_readers.sh PATH_TO_SNAPCOMMIT
#
# Registered in ctest as paimon_cli_readers (CMakeLists.txt): needs the JDK and Maven, the pypaimon
# venv and the S3 test servers, and FAILS without them (never skips).
#
# Cases, each local and on the S3 test server (gofakes3; scripts/s3-servers.sh start):
#   append    unpartitioned bucket-unaware table (id INT, name STRING, amount DOUBLE), 3 commits
#   parted    partitioned dt STRING + h INT, bucket-unaware, 3 commits over several partitions, then
#             a COMPACT commit: the files of partition dt=2024-01-01/h=3 deleted and one merged file
#             holding their rows added (rows unchanged; the streaming read emits nothing for it)
#   fixed     fixed-bucket table (bucket 3, bucket-key id) partitioned by dt, 2 commits
#   pk        primary-key table (dt, id), bucket 2: inserts, then an update (+U) and a delete (-D),
#             then an insert; level-0 files with sequence numbers, merged by Paimon's readers
# Each: `snapcommit init TABLE --schema FILE`, data files from tests/paimon/make_data_files.py
# (uploaded next to the table on S3 before the commit), `snapcommit commit` per change set; then
# reader_check.sh: latest rows, time travel to every snapshot, the streaming read (each commit's
# rows once, in order), the snapshot chain with our commitUser / commitIdentifier.
# Mixed (local): Paimon commits (PaimonTool commit-files) onto a table we created and committed,
# we commit again, Paimon again; both readers check rows, chain, users and identifiers; then a real
# conflict: Paimon deletes a file (a COMPACT commit) and our commit deleting the same file, planned
# on the snapshot before, must exit 4 and change nothing.
# Prints "ok"/"FAIL" lines and "cli_readers: N passed, M failed"; exit 1 on any failure.
set -uo pipefail
sc=${1:?usage: cli_readers.sh PATH_TO_SNAPCOMMIT}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export SNAPCOMMIT_LOG=off
tool=$root/scripts/paimon-tool.sh
work=$(mktemp -d /tmp/sc-cli-readers.XXXXXX)
s3prefix=
cleanup() {
    [[ -n $s3prefix ]] && "$py" "$here/s3_tree.py" remove "$s3prefix" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
pass=0 fail=0
ok() { echo "ok   $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

py=$("$root/scripts/pypaimon-setup.sh") || { echo "FAIL: pypaimon set-up failed"; exit 1; }
"$tool" --build-only || { echo "FAIL: PaimonTool build failed"; exit 1; }
export READER_CHECK_PY=$py

# ---- schemas and change sets (rows in PaimonTool's canonical value form) ----
cat > "$work/append.schema" <<'EOF'
{"fields":[{"name":"id","type":"INT NOT NULL"},{"name":"name","type":"STRING"},{"name":"amount","type":"DOUBLE"}],
 "partitionKeys":[],"primaryKeys":[],"options":{"bucket":"-1","file.format":"parquet"}}
EOF
cat > "$work/parted.schema" <<'EOF'
{"fields":[{"name":"dt","type":"STRING"},{"name":"h","type":"INT"},{"name":"id","type":"BIGINT NOT NULL"},{"name":"msg","type":"STRING"}],
 "partitionKeys":["dt","h"],"primaryKeys":[],"options":{"bucket":"-1","file.format":"parquet"}}
EOF
cat > "$work/fixed.schema" <<'EOF'
{"fields":[{"name":"dt","type":"STRING"},{"name":"id","type":"INT NOT NULL"},{"name":"amt","type":"DECIMAL(10, 2)"},{"name":"day","type":"DATE"}],
 "partitionKeys":["dt"],"primaryKeys":[],"options":{"bucket":"3","bucket-key":"id","file.format":"parquet"}}
EOF
cat > "$work/pk.schema" <<'EOF'
{"fields":[{"name":"dt","type":"STRING"},{"name":"id","type":"INT"},{"name":"v","type":"STRING"}],
 "partitionKeys":["dt"],"primaryKeys":["dt","id"],"options":{"bucket":"2","file.format":"parquet"}}
EOF
rows() { # CASE N: the rows of change set N
    local i
    case $1:$2 in
        append:1) printf '%s\n' '{"id":1,"name":"alpha","amount":1.5}' '{"id":2,"name":"beta","amount":-0.25}' '{"id":3,"name":null,"amount":0}' ;;
        append:2) printf '%s\n' '{"id":4,"name":"","amount":1e-3}' '{"id":5,"name":"fünf","amount":null}' ;;
        append:3) printf '%s\n' '{"id":6,"name":"a string longer than sixteen characters","amount":6.5}' ;;
        parted:1) printf '%s\n' '{"dt":"2024-01-01","h":3,"id":1,"msg":"a"}' '{"dt":"2024-01-01","h":3,"id":2,"msg":"b"}' '{"dt":"2024-01-02","h":0,"id":3,"msg":null}' ;;
        parted:2) printf '%s\n' '{"dt":"2024-01-01","h":4,"id":4,"msg":"d"}' ;;
        parted:3) printf '%s\n' '{"dt":"2024-01-01","h":3,"id":5,"msg":"e"}' '{"dt":"2024-02-29","h":23,"id":6,"msg":"f"}' ;;
        fixed:1) for i in 1 2 3 4 5 6; do echo "{\"dt\":\"2024-01-0$((i % 2 + 1))\",\"id\":$i,\"amt\":\"$i.0$i\",\"day\":\"2024-01-0$i\"}"; done ;;
        fixed:2) for i in 7 8 9; do echo "{\"dt\":\"2024-01-01\",\"id\":$i,\"amt\":\"-$i.50\",\"day\":null}"; done ;;
        pk:1) printf '%s\n' '{"dt":"d1","id":1,"v":"a"}' '{"dt":"d1","id":2,"v":"b"}' '{"dt":"d2","id":3,"v":"c"}' ;;
        pk:2) printf '%s\n' '{"dt":"d1","id":1,"v":"a2","_kind":"+U"}' '{"dt":"d1","id":2,"v":"b","_kind":"-D"}' ;;
        pk:3) printf '%s\n' '{"dt":"d2","id":4,"v":"d"}' ;;
        *) return 1 ;;
    esac
}
commits() { case $1 in fixed) echo 2 ;; *) echo 3 ;; esac; }
rows_of() { grep -c . "$1"; } # rows in a .jsonl file

# expect_dir DIR CASE N USER: the expectation after N change sets committed by USER as identifiers 1..N
expect_dir() {
    local d=$1 c=$2 n=$3 user=$4 i
    rm -rf "$d"; mkdir -p "$d"; : > "$d/latest.jsonl"; : > "$d/stream.jsonl"; : > "$d/snapshots.jsonl"
    for ((i = 1; i <= n; i++)); do
        if [[ $c == pk ]]; then # merge by (dt, id): the last row wins, -D removes it
            rows "$c" "$i" | python3 -c '
import json,sys
rows={}
for l in open(sys.argv[1]): r=json.loads(l); rows[(r["dt"],r["id"])]=r
for l in sys.stdin:
    r=json.loads(l); k=r.pop("_kind","+I"); rows.pop((r["dt"],r["id"]),None)
    if k!="-D": rows[(r["dt"],r["id"])]=r
for r in rows.values(): print(json.dumps(r))' "$d/latest.jsonl" > "$d/merged" && mv "$d/merged" "$d/latest.jsonl"
        else
            rows "$c" "$i" >> "$d/latest.jsonl"
        fi
        cp "$d/latest.jsonl" "$d/snapshot-$i.jsonl"
        echo "{\"snapshot\":$i,\"rows\":$(rows "$c" "$i" | wc -l)}" >> "$d/stream.jsonl"
        rows "$c" "$i" >> "$d/stream.jsonl"
        echo "{\"id\":$i,\"schemaId\":0,\"commitUser\":\"$user\",\"commitIdentifier\":$i,\"commitKind\":\"APPEND\"}" >> "$d/snapshots.jsonl"
    done
}

# report TABLE-LABEL READER-OUTPUT ROWS SNAPSHOTS: rows written (the latest snapshot's live rows) vs
# the rows each reader read at the latest snapshot (reader_compare.py's "latest" lines)
report() {
    local java pyp
    java=$(sed -n 's/^paimon-java latest: \([0-9]*\) rows expected, \([0-9]*\) read.*/\2/p' "$2" | head -1)
    pyp=$(sed -n 's/^pypaimon latest: \([0-9]*\) rows expected, \([0-9]*\) read.*/\2/p' "$2" | head -1)
    echo "$1: $4 snapshots, $3 rows live, Paimon Java read ${java:-?}, pypaimon read ${pyp:-?}" >> "$work/report"
}

# run_case CASE TABLE [--s3]: init, commit every change set, reader_check
run_case() {
    local c=$1 t=$2 s3=${3:-} n i stage where=local
    n=$(commits "$c"); [[ -n $s3 ]] && where=s3
    if ! "$sc" init "$t" --schema "$work/$c.schema" > "$work/out" 2>&1; then
        bad "$c $where: snapcommit init --schema exited non-zero: $(head -1 "$work/out")"; return
    fi
    for ((i = 1; i <= n; i++)); do
        stage=$work/stage-$c-$where
        [[ -n $s3 ]] || stage=$t
        rows "$c" "$i" > "$work/rows"
        if ! "$py" "$here/make_data_files.py" --schema "$work/$c.schema" --rows "$work/rows" --table "$stage" \
                --seq-start $(( (i - 1) * 100 )) > "$work/changes-$c-$i.json" 2> "$work/out"; then
            bad "$c: make_data_files: $(head -1 "$work/out")"; return
        fi
        if [[ -n $s3 ]] && ! "$py" "$here/s3_tree.py" upload "$stage" "$t" 2> "$work/out"; then
            bad "$c s3: upload of the data files: $(head -1 "$work/out")"; return
        fi
        [[ -n $s3 ]] && rm -rf "$stage"
        if ! "$sc" commit "$t" --user sc-writer --identifier "$i" --changes "$work/changes-$c-$i.json" > "$work/out" 2>&1; then
            bad "$c $where: snapcommit commit $i exited non-zero: $(head -1 "$work/out")"; return
        fi
    done
    expect_dir "$work/expect-$c" "$c" "$n" sc-writer
    if [[ $c == parted ]]; then
        # A compaction: the three rows of dt=2024-01-01/h=3 (commits 1 and 3, two files) rewritten
        # into one file; our COMPACT commit deletes both and adds the merged one.
        stage=$work/stage-$c-$where-compact
        [[ -n $s3 ]] || stage=$t
        { rows parted 1; rows parted 3; } | grep '"h":3,' > "$work/rows"
        python3 -c '
import json, sys
print(json.dumps([e for f in sys.argv[1:] for e in json.load(open(f))["add"] if e["partition"] == "dt=2024-01-01/h=3"]))' \
            "$work/changes-$c-1.json" "$work/changes-$c-3.json" > "$work/del-$c"
        if ! "$py" "$here/make_data_files.py" --schema "$work/$c.schema" --rows "$work/rows" --table "$stage" \
                --seq-start 1000 > "$work/merged-$c.json" 2> "$work/out"; then
            bad "$c: make_data_files (compaction): $(head -1 "$work/out")"; return
        fi
        if [[ -n $s3 ]]; then
            "$py" "$here/s3_tree.py" upload "$stage" "$t" 2> "$work/out" || { bad "$c s3: upload: $(head -1 "$work/out")"; return; }
            rm -rf "$stage"
        fi
        python3 -c 'import json,sys; print(json.dumps({"delete": json.load(open(sys.argv[1])), "add": json.load(open(sys.argv[2]))["add"]}))' \
            "$work/del-$c" "$work/merged-$c.json" > "$work/compact-$c.json"
        [[ $(python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); print(len(c["delete"]), len(c["add"]))' "$work/compact-$c.json") == "2 1" ]] \
            || { bad "$c $where: the compaction should delete 2 files and add 1"; return; }
        if ! "$sc" commit "$t" --user sc-compactor --identifier 1 --kind compact --changes "$work/compact-$c.json" > "$work/out" 2>&1; then
            bad "$c $where: snapcommit compact commit exited non-zero: $(head -1 "$work/out")"; return
        fi
        # rows unchanged; the streaming read consumes the COMPACT snapshot without emitting a row
        # (the merged file's rows were already streamed from the files it replaces)
        cp "$work/expect-$c/latest.jsonl" "$work/expect-$c/snapshot-4.jsonl"
        echo '{"snapshot":4,"rows":0}' >> "$work/expect-$c/stream.jsonl"
        echo '{"id":4,"schemaId":0,"commitUser":"sc-compactor","commitIdentifier":1,"commitKind":"COMPACT","totalRecordCount":6,"deltaRecordCount":0}' \
            >> "$work/expect-$c/snapshots.jsonl"
        n=4
    fi
    if "$here/reader_check.sh" "$t" "$work/expect-$c" $s3 > "$work/out" 2>&1; then
        ok "$c $where: Paimon Java and pypaimon read what the CLI committed ($(tail -1 "$work/out"))"
        report "$c $where" "$work/out" "$(rows_of "$work/expect-$c/latest.jsonl")" "$n"
    else
        bad "$c $where: reader_check"; cat "$work/out"
    fi
}

for c in append parted fixed pk; do run_case "$c" "$work/warehouse/db.db/$c"; done

if env_out=$(bash "$root/scripts/s3-servers.sh" env 2>/dev/null); then
    eval "$env_out"
    export AWS_ENDPOINT_URL_S3=$SC_GOFAKES3_ENDPOINT AWS_ACCESS_KEY_ID=$SC_GOFAKES3_ACCESS_KEY_ID \
           AWS_SECRET_ACCESS_KEY=$SC_GOFAKES3_SECRET_ACCESS_KEY
    s3prefix="s3://$SC_S3_BUCKET/cli-readers-$$-$(date +%s%N)"
    for c in append parted fixed pk; do run_case "$c" "$s3prefix/db.db/$c" --s3; done
else
    bad "S3 test servers not running: run scripts/s3-servers.sh start"
fi

# ---- mixed: Paimon and snapcommit commit onto one table ----
m=$work/warehouse/db.db/mixed
mixed() {
    "$sc" init "$m" --schema "$work/parted.schema" > "$work/out" 2>&1 || { echo "init: $(head -1 "$work/out")"; return 1; }
    local i who
    for i in 1 2 3; do
        rows parted "$i" > "$work/rows"
        "$py" "$here/make_data_files.py" --schema "$work/parted.schema" --rows "$work/rows" --table "$m" \
            --seq-start $(( (i - 1) * 100 )) > "$work/mixed-$i.json" || { echo "make_data_files $i"; return 1; }
        case $i in
            1|3) who=sc-writer
                 "$sc" commit "$m" --user sc-writer --identifier "$i" --changes "$work/mixed-$i.json" > "$work/out" 2>&1 \
                     || { echo "snapcommit commit $i: $(head -1 "$work/out")"; return 1; } ;;
            2)   who=paimon-writer
                 "$tool" commit-files "$m" --user paimon-writer --identifier "$i" --file-json "$work/mixed-$i.json" > "$work/out" 2>&1 \
                     || { echo "Paimon commit-files $i: $(grep -m1 paimon-tool "$work/out")"; return 1; } ;;
        esac
    done
    # Paimon once more, after our last commit
    echo '{"dt":"2024-03-01","h":1,"id":7,"msg":"paimon again"}' > "$work/rows"
    "$py" "$here/make_data_files.py" --schema "$work/parted.schema" --rows "$work/rows" --table "$m" --seq-start 300 \
        > "$work/mixed-4.json" && "$tool" commit-files "$m" --user paimon-writer --identifier 4 --file-json "$work/mixed-4.json" \
        > "$work/out" 2>&1 || { echo "Paimon commit-files 4: $(grep -m1 paimon-tool "$work/out")"; return 1; }
    return 0
}
if why=$(mixed); then
    expect_dir "$work/expect-mixed" parted 3 sc-writer
    d=$work/expect-mixed
    sed -i 's/"id":2,"schemaId":0,"commitUser":"sc-writer"/"id":2,"schemaId":0,"commitUser":"paimon-writer"/' "$d/snapshots.jsonl"
    echo '{"dt":"2024-03-01","h":1,"id":7,"msg":"paimon again"}' >> "$d/latest.jsonl"
    cp "$d/latest.jsonl" "$d/snapshot-4.jsonl"
    { echo '{"snapshot":4,"rows":1}'; echo '{"dt":"2024-03-01","h":1,"id":7,"msg":"paimon again"}'; } >> "$d/stream.jsonl"
    echo '{"id":4,"schemaId":0,"commitUser":"paimon-writer","commitIdentifier":4,"commitKind":"APPEND"}' >> "$d/snapshots.jsonl"
    if "$here/reader_check.sh" "$m" "$d" > "$work/out" 2>&1; then
        ok "mixed: snapcommit, Paimon, snapcommit, Paimon commits read back by both readers ($(tail -1 "$work/out"))"
        report "mixed local (2 snapcommit + 2 Paimon commits)" "$work/out" "$(rows_of "$d/latest.jsonl")" 4
    else
        bad "mixed: reader_check"; cat "$work/out"
    fi
    # our side sees Paimon's commits: last-committed per user
    [[ $("$sc" last-committed "$m" --user paimon-writer 2>/dev/null) == 4 && $("$sc" last-committed "$m" --user sc-writer 2>/dev/null) == 3 ]] \
        && ok "mixed: last-committed sees Paimon's identifiers (paimon-writer 4, sc-writer 3)" \
        || bad "mixed: last-committed paimon-writer / sc-writer not 4 / 3"
    # a real conflict: Paimon deletes a file (COMPACT commit); we delete the same file planned on snapshot 4
    # the whole entry of the first file we committed (our CLI wants every field; PaimonTool reads
    # partition, bucket and file)
    python3 -c 'import json,sys; print(json.dumps({"delete": json.load(open(sys.argv[1]))["add"][:1]}))' \
        "$work/mixed-1.json" > "$work/del.json"
    if "$tool" commit-files "$m" --user paimon-writer --identifier 5 --file-json "$work/del.json" > /dev/null 2>&1; then
        before=$(ls "$m/snapshot" | sort)
        "$sc" commit "$m" --user sc-writer --identifier 6 --kind compact --base-snapshot 4 --changes "$work/del.json" > "$work/out" 2>&1
        rc=$?
        [[ $rc == 4 && $(ls "$m/snapshot" | sort) == "$before" ]] \
            && ok "mixed: deleting a file Paimon already deleted is a conflict (exit 4), nothing written" \
            || bad "mixed: conflicting delete exited $rc (expected 4) or changed snapshot/: $(head -1 "$work/out")"
    else
        bad "mixed: Paimon's delete commit failed"
    fi
else
    bad "mixed: $why"
fi

echo "rows written vs read, per table:"; cat "$work/report" 2>/dev/null
echo "cli_readers: $pass passed, $fail failed"
[[ $fail == 0 ]]

#!/usr/bin/env bash
# ctest paimon_reader_harness: tests/paimon/reader_check.sh (the judge) on the golden tables written
# by Paimon 1.4.2 (tests/vectors/paimon-1.4.2/), and proof that it can fail.
#   1. every golden table, local: expectations built from the kept <table>.stream.jsonl (time travel
#      to every snapshot replayed from the deltas and checked against the kept <table>.rows.jsonl)
#      plus <table>.snapshots.jsonl; reader_check must pass;
#   2. golden `append_fixed` (partitions, buckets) uploaded to the gofakes3 test server and `pk` (all
#      types, +U/-D) to moto (SigV4 checked): reader_check --s3 must pass;
#   3. negative self-tests: a table whose latest snapshot was altered (snapshot-3 pointing at
#      snapshot 2's manifest lists) and a table with a data file deleted make reader_check FAIL
#      (exit 1, "FAIL" lines); a row missing from latest.jsonl, a row changed in snapshot-2.jsonl, a
#      stream row moved to another snapshot and a wrong commitUser in snapshots.jsonl make its
#      comparison step (reader_compare.py, on the readers' outputs kept from step 1, so the tables
#      are not read again) FAIL.
# Missing Java/Maven, pypaimon venv or S3 servers make this FAIL (scripts/setup.sh,
# scripts/flink-setup.sh, scripts/s3-servers.sh start install/start them), never skip.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
vec=$root/tests/vectors/paimon-1.4.2
wh=$vec/warehouse/golden.db
check=$here/reader_check.sh
tmp=$(mktemp -d)
s3prefix=
cleanup() {
    if [[ -n $s3prefix ]]; then
        "$py" "$here/s3_tree.py" remove "$s3prefix" 2>/dev/null
        AWS_ENDPOINT_URL_S3=$SC_MOTO_ENDPOINT AWS_ACCESS_KEY_ID=$SC_MOTO_ACCESS_KEY_ID \
            AWS_SECRET_ACCESS_KEY=$SC_MOTO_SECRET_ACCESS_KEY "$py" "$here/s3_tree.py" remove "$s3prefix" 2>/dev/null
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
pass=0 fail=0
ok() { echo "ok   $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

py=$("$root/scripts/pypaimon-setup.sh") || { echo "FAIL: pypaimon set-up failed"; exit 1; }
"$root/scripts/paimon-tool.sh" --build-only || { echo "FAIL: PaimonTool build failed"; exit 1; }
export READER_CHECK_PY=$py

# expect TABLE: the expectation directory of a golden table
expect() {
    local t=$1 pk=
    [[ $t == pk ]] && pk=id
    python3 "$here/expect_from_stream.py" "$vec/$t.stream.jsonl" "$tmp/exp/$t" --primary-key "$pk" \
        --latest "$vec/$t.rows.jsonl" --snapshots "$vec/$t.snapshots.jsonl"
}

# passes WHAT ARGS...: reader_check must exit 0 and print "0 failed"
passes() {
    local what=$1; shift
    if "$check" "$@" > "$tmp/out" 2>&1 && grep -q '^[1-9][0-9]* passed, 0 failed$' "$tmp/out"; then
        ok "$what ($(tail -1 "$tmp/out"))"
    else
        bad "$what"; cat "$tmp/out"
    fi
}

# fails WHAT PATTERN COMMAND...: the command (reader_check.sh or reader_compare.py) must exit 1
# with a line matching PATTERN and a non-zero failed count
fails() {
    local what=$1 pattern=$2; shift 2
    "$@" > "$tmp/out" 2>&1; local rc=$?
    if [[ $rc == 1 ]] && grep -q -- "$pattern" "$tmp/out" && grep -q ' [1-9][0-9]* failed$' "$tmp/out"; then
        ok "$what: $(basename "$1") fails ($(grep -m1 -- "$pattern" "$tmp/out"))"
    else
        bad "$what: $(basename "$1") did not fail as expected (exit $rc)"; cat "$tmp/out"
    fi
}

# 1. local, every golden table
for dir in "$wh"/*/; do
    t=$(basename "$dir")
    expect "$t" || { bad "$t: expectation from the kept stream"; continue; }
    READER_CHECK_KEEP=$tmp/read/$t passes "$t local" "$dir" "$tmp/exp/$t"
done

# 3. negative self-tests (local, on copies)
neg() { rm -rf "$tmp/neg"; cp -r "$tmp/exp/$1" "$tmp/neg"; }
compare() { python3 "$here/reader_compare.py" "$tmp/neg" --stream paimon-java \
                "paimon-java=$tmp/read/$1/paimon-java" "pypaimon=$tmp/read/$1/pypaimon"; }
neg append_fixed; sed -i '2d' "$tmp/neg/latest.jsonl"
fails "a row missing from latest.jsonl" "paimon-java latest: 7 rows expected, 8 read: FAIL" compare append_fixed
neg pk; sed -i 's/"s": "two v2"/"s": "two v3"/' "$tmp/neg/snapshot-2.jsonl"
fails "a changed row in snapshot-2.jsonl" "pypaimon snapshot 2: 5 rows expected, 5 read: FAIL" compare pk
neg append_unaware
python3 - "$tmp/neg/stream.jsonl" <<'EOF'
# move the last row of snapshot 2 into snapshot 3 (counts in the headers are not compared)
import sys
p = sys.argv[1]
lines = open(p).read().splitlines()
i = lines.index(next(l for l in lines if l.startswith('{"snapshot":3')))
lines.insert(i, lines.pop(i - 1))
open(p, "w").write("\n".join(lines) + "\n")
EOF
fails "a stream row in the wrong snapshot" "paimon-java stream: .*FAIL" compare append_unaware
neg pk; sed -i 's/"commitUser":"golden-writer","commitIdentifier":2/"commitUser":"someone-else","commitIdentifier":2/' "$tmp/neg/snapshots.jsonl"
fails "a wrong commitUser in snapshots.jsonl" "paimon-java snapshots: .*FAIL" compare pk

# an altered table: snapshot-3 of append_unaware now names snapshot 2's manifest lists
rm -rf "$tmp/alt"; cp -r "$wh/append_unaware" "$tmp/alt"
python3 - "$tmp/alt/snapshot" <<'EOF'
import json, sys
d = sys.argv[1]
s2 = json.load(open(d + "/snapshot-2"))
s3 = json.load(open(d + "/snapshot-3"))
for k in ("baseManifestList", "baseManifestListSize", "deltaManifestList", "deltaManifestListSize"):
    s3[k] = s2[k]
open(d + "/snapshot-3", "w").write(json.dumps(s3, indent=2))
EOF
fails "snapshot-3 altered to snapshot 2's manifests" "paimon-java latest: 8 rows expected, 5 read: FAIL" \
    "$check" "$tmp/alt" "$tmp/exp/append_unaware"
rm -rf "$tmp/alt"; cp -r "$wh/append_fixed" "$tmp/alt"
rm -f "$(find "$tmp/alt" -name 'data-*.parquet' | sort | head -1)"
fails "a data file deleted" "pypaimon latest: 8 rows expected, read failed: FAIL" "$check" "$tmp/alt" "$tmp/exp/append_fixed"

# 4. tests/paimon/make_data_files.py: the golden rows of append_fixed and pk land in the same
#    partition/bucket directories as Paimon put them (its bucket hash), with Paimon's Parquet column
#    types; files it writes for a partitioned fixed-bucket table, committed by Paimon's own committer
#    (PaimonTool commit-files) in two commits, read back as expected by both readers.
"$py" - "$wh" "$here/make_data_files.py" "$tmp/mk" "$vec" > "$tmp/out" 2>&1 <<'EOF_PY'
import collections, glob, json, os, subprocess, sys
import pyarrow.parquet as pq
wh, tool, out, vec = sys.argv[1:]
def layout(root):
    m = collections.defaultdict(list)
    for f in glob.glob(root + "/**/*.parquet", recursive=True):
        m[os.path.relpath(os.path.dirname(f), root)] += pq.ParquetFile(f).read().column("id").to_pylist()
    return {k: sorted(set(v)) for k, v in m.items()}
def types(root):
    f = sorted(glob.glob(root + "/**/*.parquet", recursive=True))[0]
    return [(c.name, c.physical_type, str(c.logical_type), c.max_definition_level) for c in pq.ParquetFile(f).schema]
bad = 0
for t in ("append_fixed", "pk"):
    rows = os.path.join(out, t + ".jsonl")
    os.makedirs(out, exist_ok=True)
    with open(rows, "w") as f:
        f.writelines(l for l in open(os.path.join(vec, t + ".rows.jsonl")) if not l.startswith('{"summary"'))
    subprocess.run([sys.executable, tool, "--schema", os.path.join(wh, t, "schema/schema-0"), "--rows", rows,
                    "--table", os.path.join(out, t)], check=True, stdout=subprocess.DEVNULL)
    live = layout(os.path.join(out, t))
    golden = {k: v for k, v in layout(os.path.join(wh, t)).items()}
    # the golden pk table keeps deleted/updated ids in older files: compare the latest rows' ids only
    want = {k: sorted(set(v) & {i for vs in live.values() for i in vs}) for k, v in golden.items()}
    want = {k: v for k, v in want.items() if v}
    if live != want:
        print("%s: layout %s, Paimon's %s" % (t, live, want)); bad += 1
    if types(os.path.join(out, t)) != types(os.path.join(wh, t)):
        print("%s: parquet columns %s, Paimon's %s" % (t, types(os.path.join(out, t)), types(os.path.join(wh, t)))); bad += 1
    else:
        print("%s: %d directories, %d columns as Paimon wrote them" % (t, len(live), len(types(os.path.join(wh, t)))))
sys.exit(1 if bad else 0)
EOF_PY
if [[ $? == 0 ]]; then ok "make_data_files lays out the golden rows as Paimon did ($(tr '\n' ';' < "$tmp/out"))"; else bad "make_data_files layout"; cat "$tmp/out"; fi

e2e=$tmp/e2e; mkdir -p "$e2e/table/schema" "$e2e/expect"
cp "$wh/append_fixed/schema/schema-0" "$e2e/table/schema/"
printf '%s\n' '{"dt":"2024-01-01","h":3,"id":1,"msg":"a"}' '{"dt":"2024-01-01","h":3,"id":2,"msg":null}' \
    '{"dt":"2024-01-02","h":0,"id":3,"msg":"c/d \u00e9"}' > "$e2e/rows1.jsonl"
printf '%s\n' '{"dt":"2024-01-01","h":3,"id":4,"msg":"x"}' '{"dt":"2024-01-03","h":23,"id":5,"msg":""}' > "$e2e/rows2.jsonl"
if "$py" "$here/make_data_files.py" --schema "$e2e/table/schema/schema-0" --rows "$e2e/rows1.jsonl" --table "$e2e/table" > "$e2e/c1.json" &&
   "$root/scripts/paimon-tool.sh" commit-files "$e2e/table" --user paimon --identifier 1 --file-json "$e2e/c1.json" > /dev/null 2>&1 &&
   "$py" "$here/make_data_files.py" --schema "$e2e/table/schema/schema-0" --rows "$e2e/rows2.jsonl" --table "$e2e/table" --seq-start 3 > "$e2e/c2.json" &&
   "$root/scripts/paimon-tool.sh" commit-files "$e2e/table" --user paimon --identifier 2 --file-json "$e2e/c2.json" > /dev/null 2>&1; then
    cat "$e2e/rows1.jsonl" "$e2e/rows2.jsonl" > "$e2e/expect/latest.jsonl"
    cp "$e2e/rows1.jsonl" "$e2e/expect/snapshot-1.jsonl"
    { echo '{"snapshot":1,"rows":3}'; cat "$e2e/rows1.jsonl"; echo '{"snapshot":2,"rows":2}'; cat "$e2e/rows2.jsonl"; } > "$e2e/expect/stream.jsonl"
    printf '%s\n' '{"id":1,"commitUser":"paimon","commitIdentifier":1,"commitKind":"APPEND"}' \
        '{"id":2,"commitUser":"paimon","commitIdentifier":2,"commitKind":"APPEND"}' > "$e2e/expect/snapshots.jsonl"
    passes "make_data_files + Paimon's committer, partitioned fixed-bucket, 2 commits" "$e2e/table" "$e2e/expect"
else
    bad "make_data_files + PaimonTool commit-files"
fi

# 2. S3: the gofakes3 server (no signatures) and moto (SigV4 checked)
if env_out=$(bash "$root/scripts/s3-servers.sh" env 2>/dev/null); then
    eval "$env_out"
    s3prefix="s3://$SC_S3_BUCKET/reader-harness-$$-$(date +%s%N)"
    export AWS_ENDPOINT_URL_S3=$SC_GOFAKES3_ENDPOINT AWS_ACCESS_KEY_ID=$SC_GOFAKES3_ACCESS_KEY_ID \
           AWS_SECRET_ACCESS_KEY=$SC_GOFAKES3_SECRET_ACCESS_KEY
    for t in append_fixed; do
        if "$py" "$here/s3_tree.py" upload "$wh/$t" "$s3prefix/$t" 2>/dev/null; then
            passes "$t on S3 (gofakes3)" "$s3prefix/$t" "$tmp/exp/$t" --s3-server gofakes3
        else
            bad "$t: upload to gofakes3"
        fi
    done
    if AWS_ENDPOINT_URL_S3=$SC_MOTO_ENDPOINT AWS_ACCESS_KEY_ID=$SC_MOTO_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY=$SC_MOTO_SECRET_ACCESS_KEY \
        "$py" "$here/s3_tree.py" upload "$wh/pk" "$s3prefix/pk" 2>/dev/null; then
        passes "pk on S3 (moto, SigV4)" "$s3prefix/pk" "$tmp/exp/pk" --s3-server moto
    else
        bad "pk: upload to moto"
    fi
else
    bad "S3 test servers not running: run scripts/s3-servers.sh start"
fi

echo "paimon_reader_harness: $pass passed, $fail failed"
[[ $fail == 0 && $pass -gt 0 ]]

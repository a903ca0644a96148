#!/usr/bin/env bash
# ctest paimon_reader_harness: tests/paimon/reader_check.sh (the judge) on the golden tables written
# by Paimon 1.4.2 (tests/vectors/paimon-1.4.2/), and proof that it can fail.
#   1. every golden table, local: expectations built from the kept <table>.stream.jsonl (time travel
#      to every snapshot replayed from the deltas and checked against the kept <table>.rows.jsonl)
#      plus <table>.snapshots.jsonl; reader_check must pass;
#   2. golden `pk` (all types, +U/-D) and `append_fixed` (partitions, buckets) uploaded to the gofakes3
#      test server, and `pk` to moto (SigV4 checked): reader_check --s3 must pass;
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

# 2. S3: the gofakes3 server (no signatures) and moto (SigV4 checked)
if env_out=$(bash "$root/scripts/s3-servers.sh" env 2>/dev/null); then
    eval "$env_out"
    s3prefix="s3://$SC_S3_BUCKET/reader-harness-$$-$(date +%s%N)"
    export AWS_ENDPOINT_URL_S3=$SC_GOFAKES3_ENDPOINT AWS_ACCESS_KEY_ID=$SC_GOFAKES3_ACCESS_KEY_ID \
           AWS_SECRET_ACCESS_KEY=$SC_GOFAKES3_SECRET_ACCESS_KEY
    for t in pk append_fixed; do
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

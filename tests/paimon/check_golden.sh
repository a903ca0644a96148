#!/usr/bin/env bash
# The golden Paimon tables (tests/vectors/paimon-1.4.2/): Paimon's Java reader (PaimonTool) and
# pypaimon must read the same rows from each table, at the latest snapshot and at every earlier one
# (time travel), and both must match the rows kept next to the table (<table>.rows.jsonl); PaimonTool's
# snapshots and dump-manifests output must match the kept <table>.snapshots.jsonl and
# <table>.manifests.json, and a streaming read from the first snapshot must match <table>.stream.jsonl. Prints one line per check and "N passed, N failed"; exits non-zero on any
# difference or read error.
#   tests/paimon/check_golden.sh                 the committed vectors
#   tests/paimon/check_golden.sh --regenerate    rewrite the kept outputs from the current tables
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
vec=$root/tests/vectors/paimon-1.4.2
wh=$vec/warehouse/golden.db
tool=$root/scripts/paimon-tool.sh
regen=0; [[ ${1:-} == --regenerate ]] && regen=1

py=$("$root/scripts/pypaimon-setup.sh") || { echo "check_golden: pypaimon set-up failed"; echo "0 passed, 1 failed"; exit 1; }
"$tool" --build-only || { echo "check_golden: PaimonTool build failed"; echo "0 passed, 1 failed"; exit 1; }

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { echo "ok   $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

# same FILE_A FILE_B WHAT: the two files are identical (shows the diff otherwise)
same() {
    if diff -u "$1" "$2" > "$tmp/diff"; then ok "$3"; else bad "$3"; head -40 "$tmp/diff"; fi
}

for dir in "$wh"/*/; do
    t=$(basename "$dir")
    latest=$(cat "$dir/snapshot/LATEST")
    if [[ $regen == 1 ]]; then
        "$tool" read "$dir" > "$vec/$t.rows.jsonl" 2>/dev/null &&
        "$tool" snapshots "$dir" > "$vec/$t.snapshots.jsonl" 2>/dev/null &&
        "$tool" dump-manifests "$dir" > "$vec/$t.manifests.json" 2>/dev/null &&
        "$tool" stream "$dir" --expect-snapshots "$latest" > "$vec/$t.stream.jsonl" 2>/dev/null || { bad "$t: regenerate"; continue; }
    fi
    for ((s = 1; s <= latest; s++)); do
        args=(); [[ $s != "$latest" ]] && args=(--snapshot "$s")
        if ! "$tool" read "$dir" "${args[@]}" > "$tmp/java" 2> "$tmp/java.err"; then
            bad "$t@$s: PaimonTool read failed"; tail -5 "$tmp/java.err"; continue
        fi
        if ! "$py" "$root/tests/paimon/pypaimon_read.py" "$dir" "${args[@]}" > "$tmp/py" 2> "$tmp/py.err"; then
            bad "$t@$s: pypaimon read failed"; tail -5 "$tmp/py.err"; continue
        fi
        same "$tmp/java" "$tmp/py" "$t@$s: PaimonTool and pypaimon read the same rows ($(tail -1 "$tmp/py"))"
        if [[ $s == "$latest" ]]; then
            same "$vec/$t.rows.jsonl" "$tmp/java" "$t: rows as kept in $t.rows.jsonl"
        fi
    done
    "$tool" snapshots "$dir" > "$tmp/snaps" 2>/dev/null && same "$vec/$t.snapshots.jsonl" "$tmp/snaps" "$t: snapshots as kept" \
        || bad "$t: PaimonTool snapshots failed"
    "$tool" stream "$dir" --expect-snapshots "$latest" > "$tmp/stream" 2>/dev/null \
        && same "$vec/$t.stream.jsonl" "$tmp/stream" "$t: streaming read sees each snapshot's rows once, as kept" \
        || bad "$t: PaimonTool stream failed"
    "$tool" dump-manifests "$dir" > "$tmp/dump" 2>/dev/null && same "$vec/$t.manifests.json" "$tmp/dump" "$t: dump-manifests as kept" \
        || bad "$t: PaimonTool dump-manifests failed"
done
echo "golden: $pass passed, $fail failed"
[[ $fail == 0 ]]

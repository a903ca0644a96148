#!/usr/bin/env bash
# ctest paimon_orphans_match_ours: on a primary-key table Paimon 1.4.2 wrote with deletion vectors
# and a lookup changelog producer (tests/vectors/paimon-1.4.2/index/warehouse/golden.db/pk_dv),
# orphans of every kind: snapshots 1-3 gone with their objects left behind (their manifest lists,
# changelog lists, manifests and files), and
# strays (an index file, an index manifest, a manifest list, a changelog file, a data file, a
# statistics file),
# all two days old. `snapcommit remove-orphans --older-than 1d` and Paimon's own orphan cleaner
# (LocalOrphanFilesClean, GenIndex.java orphans) must leave the same objects under the table
# (snapcommit's metadata/ aside); Paimon's reader then reads every row of every retained snapshot
# from ours. Missing Java or the Paimon jars make this FAIL.
#   orphans_like_paimon_test.sh SNAPCOMMIT_CLI
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cli=${1:?usage: orphans_like_paimon_test.sh SNAPCOMMIT_CLI}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

java=/usr/lib/jvm/java-17-openjdk-amd64/bin/java
[[ -x $java ]] || java=$(command -v java) || fail "no Java (scripts/flink-setup.sh installs JDK 17)"
"$root/scripts/paimon-tool.sh" --build-only || fail "PaimonTool (its jars) could not be built"
lib=$root/integration/paimon-compat/target/lib
golden=$root/tests/vectors/paimon-1.4.2/index/warehouse/golden.db/pk_dv
mkdir -p "$tmp/classes"
"$(dirname "$java")/javac" -nowarn -cp "$lib/*" -d "$tmp/classes" "$root/tests/vectors/paimon-1.4.2/index/GenIndex.java" \
    2>/dev/null || fail "compiling GenIndex.java"
jflags=(-XX:TieredStopAtLevel=1 --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
        --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED -cp "$lib/*:$tmp/classes")

# The rows Paimon reads at each retained snapshot of the golden table.
for id in 4 5 6; do
    "$root/scripts/paimon-tool.sh" read "$golden" --snapshot "$id" > "$tmp/rows-$id" || fail "Paimon cannot read snapshot $id of the golden table"
done

# orphan T: the golden table with its snapshots 1-3 gone and strays of every kind, all two days old
orphan() {
    cp -r "$golden" "$1"
    rm "$1"/snapshot/snapshot-{1,2,3}
    echo 4 > "$1/snapshot/EARLIEST"
    local idx=$(ls "$1/index" | head -1) im=$(cd "$1/manifest" && ls index-manifest-* | head -1)
    local ml=$(cd "$1/manifest" && ls manifest-list-* | head -1) cl=$(cd "$1/dt=2024-01-01/bucket-0" && ls changelog-* | head -1)
    cp "$1/index/$idx" "$1/index/index-stray-0"
    cp "$1/manifest/$im" "$1/manifest/index-manifest-stray-0"
    cp "$1/manifest/$ml" "$1/manifest/manifest-list-stray-0"
    cp "$1/dt=2024-01-01/bucket-0/$cl" "$1/dt=2024-01-01/bucket-0/changelog-stray-0.parquet"
    cp "$1/dt=2024-01-01/bucket-0/$cl" "$1/dt=2024-01-02/bucket-0/data-stray-0.parquet"
    mkdir -p "$1/statistics" && echo '{}' > "$1/statistics/stat-stray-0"
    find "$1" -type f -exec touch -d '2 days ago' {} +
}
orphan "$tmp/paimon"
orphan "$tmp/ours"
(cd "$tmp/ours" && find . -type f ! -name '.*' | sort) > "$tmp/before.files"

"$java" "${jflags[@]}" GenIndex orphans "$tmp/paimon" > "$tmp/paimon.out" || fail "Paimon's orphan cleaner"
"$cli" init "$tmp/ours" > /dev/null || fail "snapcommit init (adopt)"
"$cli" remove-orphans "$tmp/ours" --older-than 1d --json > "$tmp/ours.out" || fail "snapcommit remove-orphans: $(cat "$tmp/ours.out")"

(cd "$tmp/paimon" && find . -type f ! -name '.*' | sort) > "$tmp/paimon.files"
(cd "$tmp/ours" && find . -type f ! -name '.*' ! -path './metadata/*' | sort) > "$tmp/ours.files"
if ! diff -u "$tmp/paimon.files" "$tmp/ours.files" > "$tmp/diff"; then
    echo "FAIL: the objects left differ (- Paimon's orphan cleaner, + ours):"; grep '^[-+][^-+]' "$tmp/diff"
    echo "ours: $(cat "$tmp/ours.out")"; exit 1
fi
gone=$(comm -23 "$tmp/before.files" "$tmp/ours.files")
for kind in '/index/' '/manifest/index-manifest-' '/manifest/manifest-list-' '/changelog-' '/statistics/' '/data-'; do
    grep -q -- "$kind" <<< "$gone" || fail "no orphan of kind $kind deleted (deleted: $(echo $gone))"
done
for id in 4 5 6; do
    "$root/scripts/paimon-tool.sh" read "$tmp/ours" --snapshot "$id" > "$tmp/after-$id" || fail "Paimon cannot read snapshot $id of ours"
    cmp -s "$tmp/rows-$id" "$tmp/after-$id" || fail "Paimon reads other rows at snapshot $id after our remove-orphans"
done
"$cli" fsck "$tmp/ours" --data > "$tmp/fsck" 2>&1 || fail "fsck --data after our remove-orphans: $(cat "$tmp/fsck")"
echo "PASS: snapcommit remove-orphans deletes what Paimon's orphan cleaner deletes ($(echo "$gone" | wc -l) files:" \
     "changelog, index, manifests, data); Paimon reads snapshots 4-6 whole"

#!/usr/bin/env bash
# ctest paimon_expire_matches_ours: on a primary-key table Paimon 1.4.2 wrote with deletion vectors
# and a lookup changelog producer (tests/vectors/paimon-1.4.2/index/warehouse/golden.db/pk_dv:
# changelog lists, changelog files, index manifests, index files), `snapcommit expire` and Paimon's
# own ExpireSnapshots (GenIndex.java expire), each keeping the latest N snapshots, leave the same
# objects under the table (snapcommit's metadata/ aside), for N = 1..5; Paimon's reader then reads
# the same rows from ours as from the table before. Missing Java or the Paimon jars make this FAIL.
#   expire_like_paimon_test.sh SNAPCOMMIT_CLI
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cli=${1:?usage: expire_like_paimon_test.sh SNAPCOMMIT_CLI}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

java=/usr/lib/jvm/java-17-openjdk-amd64/bin/java
[[ -x $java ]] || java=$(command -v java) || { echo "FAIL: no Java (scripts/flink-setup.sh installs JDK 17)"; exit 1; }
"$root/scripts/paimon-tool.sh" --build-only || { echo "FAIL: PaimonTool (its jars) could not be built"; exit 1; }
lib=$root/integration/paimon-compat/target/lib
golden=$root/tests/vectors/paimon-1.4.2/index/warehouse/golden.db/pk_dv
gen=$root/tests/vectors/paimon-1.4.2/index/GenIndex.java
jflags=(-XX:TieredStopAtLevel=1 --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
        --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED -cp "$lib/*")
# Compile GenIndex once (a source-file launch compiles on every run).
mkdir -p "$tmp/classes"
javac=$(dirname "$java")/javac
"$javac" -nowarn -cp "$lib/*" -d "$tmp/classes" "$gen" 2>/dev/null || { echo "FAIL: compiling GenIndex.java"; exit 1; }
jflags[-1]="$lib/*:$tmp/classes"

"$root/scripts/paimon-tool.sh" read "$golden" > "$tmp/rows-before" || { echo "FAIL: Paimon cannot read the golden table"; exit 1; }
rc=0
for n in 1 2 3 4 5; do
    rm -rf "$tmp/paimon" "$tmp/ours"
    cp -r "$golden" "$tmp/paimon"
    cp -r "$golden" "$tmp/ours"
    "$java" "${jflags[@]}" GenIndex expire "$tmp/paimon" "$n" > /dev/null || { echo "FAIL: Paimon's expire (N=$n)"; rc=1; continue; }
    "$cli" init "$tmp/ours" > /dev/null || { echo "FAIL: snapcommit init (adopt)"; rc=1; continue; }
    "$cli" expire "$tmp/ours" --retain-min "$n" --retain-max "$n" > /dev/null || { echo "FAIL: snapcommit expire (N=$n)"; rc=1; continue; }
    (cd "$tmp/paimon" && find . -type f ! -name '.*' | sort) > "$tmp/paimon.files"
    # Ours adds metadata/ (table.json, history); Paimon leaves empty bucket directories it could not clean
    # and we may too: files only.
    (cd "$tmp/ours" && find . -type f ! -name '.*' ! -path './metadata/*' | sort) > "$tmp/ours.files"
    if ! diff -u "$tmp/paimon.files" "$tmp/ours.files" > "$tmp/diff"; then
        echo "FAIL: N=$n: the objects left differ (- Paimon's expire, + ours):"; grep '^[-+][^-+]' "$tmp/diff"; rc=1; continue
    fi
    "$root/scripts/paimon-tool.sh" read "$tmp/ours" > "$tmp/rows-after" || { echo "FAIL: N=$n: Paimon cannot read ours"; rc=1; continue; }
    cmp -s "$tmp/rows-before" "$tmp/rows-after" || { echo "FAIL: N=$n: Paimon reads other rows after our expire"; rc=1; continue; }
    "$cli" fsck "$tmp/ours" --data > /dev/null 2>&1 || { echo "FAIL: N=$n: fsck --data after our expire"; rc=1; continue; }
    echo "N=$n: same $(wc -l < "$tmp/ours.files") files as Paimon's expire"
done
[[ $rc == 0 ]] && echo "PASS: snapcommit expire leaves what Paimon's expire leaves (changelog, index, data)" || echo "FAIL"
exit $rc

#!/usr/bin/env bash
# ctest paimon_decodes_our_manifests: Paimon 1.4.2 decodes the manifests, manifest lists and
# snapshots snapcommit writes, and every field reads back as we meant it.
#   1. write_all_fields (tests/paimon/write_all_fields.c) creates a table (partition dt STRING,
#      h INT; primary key id INT, name STRING; bucket 2) through the library and commits entries
#      that set every sc_file_entry member, then a COMPACT commit deleting one; it prints what it
#      meant to write;
#   2. PaimonTool dump-table (Paimon's SnapshotManager, ManifestList, ManifestFile; never our code)
#      decodes every snapshot;
#   3. check_our_manifests.py compares both, field by field, as values; then --self-test: single
#      field changes to either side must each be caught, naming the field.
# Missing Java or Maven make this FAIL (scripts/flink-setup.sh installs them), never skip.
#   our_manifests_test.sh WRITE_ALL_FIELDS_BINARY
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
writer=${1:?usage: our_manifests_test.sh WRITE_ALL_FIELDS_BINARY}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

java=/usr/lib/jvm/java-17-openjdk-amd64/bin/java
[[ -x $java ]] || java=$(command -v java) || { echo "FAIL: no Java (scripts/flink-setup.sh installs JDK 17)"; exit 1; }
jar=$root/integration/paimon-compat/target/paimon-compat.jar
if [[ ! -f $jar ]] && ! command -v mvn >/dev/null; then
    echo "FAIL: PaimonTool is not built and Maven is missing (scripts/flink-setup.sh installs it)"; exit 1
fi
"$root/scripts/paimon-tool.sh" --build-only || { echo "FAIL: PaimonTool build failed"; exit 1; }

"$writer" "$tmp/table" > "$tmp/expected.json" || { echo "FAIL: write_all_fields"; exit 1; }
"$root/scripts/paimon-tool.sh" dump-table "$tmp/table" > "$tmp/paimon.json" \
    || { echo "FAIL: Paimon could not decode the table (paimon-tool dump-table)"; exit 1; }

rc=0
python3 "$here/check_our_manifests.py" "$tmp/expected.json" "$tmp/paimon.json" "$tmp/table" || rc=1
python3 "$here/check_our_manifests.py" --self-test "$tmp/expected.json" "$tmp/paimon.json" "$tmp/table" || rc=1
[[ $rc == 0 ]] && echo "PASS: Paimon 1.4.2 reads every field of our manifests as written" || echo "FAIL"
exit $rc

#!/usr/bin/env bash
# ctest paimon_reads_our_index_manifest: Paimon 1.4.2's IndexManifestFile reads an index
# manifest snapcommit wrote (tests/paimon/write_index_manifest.c: every sc_index_entry member set
# somewhere) as we meant it. The manifest goes into a copy of the golden pk_dv table (Paimon needs
# a table to open), GenIndex.java (tests/vectors/paimon-1.4.2/index) reads it with Paimon's code,
# and both JSON views must be equal as values; then a one-field change to the expectation must be
# caught (self-test). Missing Java or the Paimon jars make this FAIL, never skip.
#   our_index_manifest_test.sh WRITE_INDEX_MANIFEST_BINARY
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
writer=${1:?usage: our_index_manifest_test.sh WRITE_INDEX_MANIFEST_BINARY}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

java=/usr/lib/jvm/java-17-openjdk-amd64/bin/java
[[ -x $java ]] || java=$(command -v java) || { echo "FAIL: no Java (scripts/flink-setup.sh installs JDK 17)"; exit 1; }
"$root/scripts/paimon-tool.sh" --build-only || { echo "FAIL: PaimonTool (its jars) could not be built"; exit 1; }
lib=$root/integration/paimon-compat/target/lib

cp -r "$root/tests/vectors/paimon-1.4.2/index/warehouse/golden.db/pk_dv" "$tmp/pk_dv"
"$writer" "$tmp/pk_dv/manifest/index-manifest-sc-0" > "$tmp/expected.json" || { echo "FAIL: write_index_manifest"; exit 1; }
"$java" -XX:TieredStopAtLevel=1 --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED \
    --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED -cp "$lib/*" \
    "$root/tests/vectors/paimon-1.4.2/index/GenIndex.java" read "$tmp/pk_dv" index-manifest-sc-0 > "$tmp/paimon.json" \
    || { echo "FAIL: Paimon could not read our index manifest"; exit 1; }

python3 - "$tmp/expected.json" "$tmp/paimon.json" <<'PY'
import json, sys
want = json.load(open(sys.argv[1]))
got = json.load(open(sys.argv[2]))
def diff(a, b):
    if len(a) != len(b):
        return f"{len(a)} records expected, Paimon read {len(b)}"
    for i, (x, y) in enumerate(zip(a, b)):
        for k in sorted(set(x) | set(y)):
            if x.get(k) != y.get(k):
                return f"record {i} field {k}: expected {x.get(k)!r}, Paimon read {y.get(k)!r}"
    return None
d = diff(want, got)
if d:
    print("FAIL:", d)
    sys.exit(1)
# Self-test: every single-field change to the expectation is caught.
for i, rec in enumerate(want):
    for k in rec:
        changed = json.loads(json.dumps(want))
        v = changed[i][k]
        changed[i][k] = (v + 1) if isinstance(v, int) and not isinstance(v, bool) else ("x" if v is None else None)
        if diff(changed, got) is None:
            print(f"FAIL: self-test: a change of record {i} field {k} went unnoticed")
            sys.exit(1)
print(f"PASS: Paimon 1.4.2 reads our index manifest as written ({len(want)} records)")
PY

#!/usr/bin/env bash
# The Flink main job: builds the native library, the JNI binding and the
# connector, then runs io.snapcommit.demo.DemoJob on an embedded MiniCluster:
# a generated stream (2,000 rows at 100 rows/s, about 20 s) into a local
# table, a checkpoint every second, one injected task failure; it prints the
# snapshot log, the committer metrics and an exactly-once check, reads the table
# back with Apache Paimon's own Java reader (rows, exactly once, time travel,
# streaming read), then the CLI's view of the same table (snapcommit log + fsck).
# Then an upsert job (1,000 rows at 500 rows/s): a streaming GROUP BY (count and sum per key) into a
# primary-key table next to it (totals: bucket 2, changelog-producer lookup), read back
# by Paimon's reader (batch scan and folded changelog) and checked against a model.
#   scripts/flink-demo.sh [--table DIR] [--rows N] [--rate R] [--no-failure]
#   FLINK_PROFILE=flink-2 scripts/flink-demo.sh         on Flink 2.x
#   SNAPCOMMIT_MVN_OFFLINE=1 scripts/flink-demo.sh      no network (after a first run)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/flink-setup.sh
source scripts/flink-env.sh
flink_build_native

profile=${FLINK_PROFILE:-flink-1.20}
line=${profile#flink-}
echo "== connector and demo (Flink $line) =="
mvn "${MVN_FLAGS[@]}" -q -f pom.xml -P"$profile" -DskipTests package

table=""
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  [ "${args[$i]}" = "--table" ] && table=${args[$((i + 1))]:-}
done
if [ -z "$table" ]; then
  # Paimon's filesystem-catalog layout: warehouse/<db>.db/<table>, so Paimon's catalogs find it
  table=$(mktemp -d "${TMPDIR:-/tmp}/snapcommit-flink-demo.XXXXXX")/warehouse/demo.db/events
  args+=(--table "$table")
fi

target=integration/target/flink-$line
echo "== DemoJob =="
set +e
java "${FLINK_JAVA_OPTS[@]}" -cp "$target/snapcommit-flink-integration-0.1.0-SNAPSHOT.jar:$(cat "$target/demo.classpath")" \
  io.snapcommit.demo.DemoJob "${args[@]}"
rc=$?
set -e
echo
echo "== snapcommit log $table =="
build/snapcommit log "$table"
echo
echo "== snapcommit fsck $table =="
build/snapcommit fsck "$table"
totals=$(dirname "$table")/totals
if [ -d "$totals" ]; then
  echo
  echo "== snapcommit log $totals =="
  build/snapcommit log "$totals"
fi
exit $rc

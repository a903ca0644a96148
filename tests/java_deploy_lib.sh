#!/usr/bin/env bash
# Deploying into a Flink lib/ from the documented jar list alone works: the class path is Flink's
# own (tests/java_deploy_lib/pom.xml: Flink and its dependencies, nothing of snapcommit, Paimon or
# Hadoop), the connector's lib/ jar of this line (classifier lib: the connector with Paimon relocated
# inside), and the jars of the "lib/ jars of the connector" block of
# docs/flink.md, read from the page (so the page cannot list fewer jars than a write needs). On it,
# io.snapcommit.demo.DeployCheck runs a bounded SQL INSERT into a new ORC table and checks the
# committed snapshot.
# Needs the connector and integration jars of this line (mvn package; scripts/flink-test.sh builds
# them before calling this) and the listed jars in ~/.m2 (fetched with mvn dependency:get unless
# SNAPCOMMIT_MVN_OFFLINE=1).
#   tests/java_deploy_lib.sh [flink-1.20|flink-2]
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/flink-env.sh
profile=${1:-flink-1.20}
line=${profile#flink-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0; failed=0
ok() { echo "  ok   $1"; passed=$((passed + 1)); }
bad() { echo "  FAIL $1"; failed=$((failed + 1)); }
finish() { echo "java_deploy_lib: $passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit; }

echo "== java_deploy_lib ($profile) =="
connector=java-shim/flink-$line/target/flink-$line/snapcommit-flink-$line-0.1.0-SNAPSHOT-lib.jar
checker=integration/target/flink-$line/snapcommit-flink-integration-0.1.0-SNAPSHOT.jar
for jar in "$connector" "$checker"; do
  [ -f "$jar" ] || { bad "$jar is not built (mvn -P$profile -DskipTests package)"; finish; }
done

# The documented list: the fenced block of docs/flink.md whose first line is the marker comment.
mapfile -t listed < <(awk '/^# lib\/ jars of the connector/ { on = 1; next }
                            on && /^```/ { exit }
                            on && NF { print $1 }' docs/flink.md)
if [ "${#listed[@]}" -gt 0 ]; then ok "docs/flink.md lists ${#listed[@]} jars for lib/: ${listed[*]}"
else bad "docs/flink.md has no \"# lib/ jars of the connector\" block"; finish; fi

lib=$work/lib
mkdir -p "$lib"
cp "$connector" "$lib/"
for coord in "${listed[@]}"; do
  IFS=: read -r group artifact version <<<"$coord"
  jar=$HOME/.m2/repository/${group//.//}/$artifact/$version/$artifact-$version.jar
  if [ ! -f "$jar" ]; then
    mvn "${MVN_FLAGS[@]}" -q dependency:get -Dartifact="$coord" -Dtransitive=false >"$work/get.log" 2>&1
  fi
  if [ -f "$jar" ]; then cp "$jar" "$lib/"; else bad "$coord: not in ~/.m2 and not fetched"; cat "$work/get.log"; fi
done
[ "$failed" -eq 0 ] || finish

flink_version=$(sed -n "s:.*<flink-$line.version>\(.*\)</flink-$line.version>.*:\1:p" pom.xml)
cp -r tests/java_deploy_lib "$work/flink"
if (cd "$work/flink" && mvn "${MVN_FLAGS[@]}" -q -Dflink.version="$flink_version" dependency:build-classpath) \
     >"$work/flink.log" 2>&1; then
  ok "Flink $flink_version's class path resolved ($(tr ':' '\n' <"$work/flink/target/flink.classpath" | wc -l) jars)"
else
  bad "Flink $flink_version's class path did not resolve"; tail -20 "$work/flink.log"; finish
fi
# Flink's side must not bring what the list is tested for.
if tr ':' '\n' <"$work/flink/target/flink.classpath" | grep -E '/(paimon|hadoop|commons-logging)[^/]*\.jar$'; then
  bad "Flink's class path already holds a jar of the data plane (above)"; finish
fi

cp_deploy="$(ls "$lib"/*.jar | tr '\n' ':')$(cat "$work/flink/target/flink.classpath"):$checker"
table=$work/tables/deploy
if java "${FLINK_JAVA_OPTS[@]}" -cp "$cp_deploy" io.snapcommit.demo.DeployCheck "$table" >"$work/run.log" 2>&1 \
   && grep -q "^deploy-check: ok" "$work/run.log"; then
  ok "an ORC write commits with lib/ = the connector's lib/ jar + the listed jars: $(grep '^deploy-check' "$work/run.log")"
else
  bad "the ORC write failed with lib/ = the connector + the listed jars"
  grep -E "Exception|Error|deploy-check" "$work/run.log" | head -15
fi
finish

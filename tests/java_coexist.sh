#!/usr/bin/env bash
# The connector's lib/ jar shares one Flink lib/ with Paimon's own Flink connector: the class path
# is Flink's own (tests/java_deploy_lib/pom.xml), the connector's lib/ jar (Paimon 1.4.2 relocated
# inside), the jars docs/flink.md lists next to it (Hadoop), and what a Paimon user adds to lib/:
# Paimon's connector of this line (paimon-flink-1.20:1.3.1, the newest Paimon for Flink 1.20, or
# paimon-flink-2.0:1.4.2) and the paimon-s3 of that version. In both orders (ours first, Paimon's
# first; each plugin directory is looked up by name on the class path), io.snapcommit.demo.CoexistCheck
# writes an append and a primary-key table through snapcommit, locally and on S3 (gofakes3), and
# reads them back through CREATE CATALOG ... ('type' = 'paimon').
# Needs the connector (with its lib/ jar) and integration jars of this line (mvn package;
# scripts/flink-test.sh builds them before calling this), the S3 test servers (started here if they
# are not running) and the jars in ~/.m2 (fetched with mvn dependency:get unless
# SNAPCOMMIT_MVN_OFFLINE=1).
#   tests/java_coexist.sh [flink-1.20|flink-2]
#   tests/java_coexist.sh flink-1.20 thin    the layout the lib/ jar replaces (thin jar + paimon-bundle
#                                            + paimon-s3 1.4.2, unrelocated): fails on 1.20, two Paimon versions under one set of class names
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/flink-env.sh
profile=${1:-flink-1.20}
layout=${2:-lib}
line=${profile#flink-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0; failed=0
ok() { echo "  ok   $1"; passed=$((passed + 1)); }
bad() { echo "  FAIL $1"; failed=$((failed + 1)); }
finish() { echo "java_coexist: $passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit; }

case $line in
  1.20) paimon_version=1.3.1; paimon_flink=paimon-flink-1.20 ;;
  2) paimon_version=1.4.2; paimon_flink=paimon-flink-2.0 ;;
  *) echo "usage: tests/java_coexist.sh [flink-1.20|flink-2] [lib|thin]"; exit 2 ;;
esac
echo "== java_coexist ($profile, $layout layout, next to Paimon $paimon_version's $paimon_flink) =="

# m2_jar GROUP:ARTIFACT:VERSION: the jar's path in ~/.m2, fetched when missing.
m2_jar() {
  local group artifact version jar
  IFS=: read -r group artifact version <<<"$1"
  jar=$HOME/.m2/repository/${group//.//}/$artifact/$version/$artifact-$version.jar
  [ -f "$jar" ] || mvn "${MVN_FLAGS[@]}" -q dependency:get -Dartifact="$1" -Dtransitive=false >"$work/get.log" 2>&1
  if [ -f "$jar" ]; then echo "$jar"; else cat "$work/get.log" >&2; return 1; fi
}

target=java-shim/flink-$line/target/flink-$line
checker=integration/target/flink-$line/snapcommit-flink-integration-0.1.0-SNAPSHOT.jar
ours=()
if [ "$layout" = thin ]; then
  ours=("$target/snapcommit-flink-$line-0.1.0-SNAPSHOT.jar")
  for coord in org.apache.paimon:paimon-bundle:1.4.2 org.apache.paimon:paimon-s3:1.4.2; do
    jar=$(m2_jar "$coord") || { bad "$coord: not in ~/.m2 and not fetched"; finish; }
    ours+=("$jar")
  done
else
  ours=("$target/snapcommit-flink-$line-0.1.0-SNAPSHOT-lib.jar")
fi
for jar in "${ours[0]}" "$checker"; do
  [ -f "$jar" ] || { bad "$jar is not built (mvn -P$profile -DskipTests package)"; finish; }
done

# The lib/ jar holds no class or plugin directory under a name Paimon's own jars use.
if [ "$layout" = lib ]; then
  stray=$(unzip -Z1 "${ours[0]}" | grep -E '^(org/apache/paimon/|paimon-codegen/|paimon-plugin-s3/)' \
          | grep -vE '^org/apache/paimon/((shade/)?|shade/snapcommit/.*)$' | head -5)
  # ... no root service file under Paimon's own name ...
  stray+=$(unzip -Z1 "${ours[0]}" | grep -E '^META-INF/services/org\.apache\.paimon\.' \
           | grep -v '^META-INF/services/org\.apache\.paimon\.shade\.snapcommit\.' | head -5)
  # ... and no class that still names an unrelocated Paimon type in a string constant (a method
  # descriptor a serializable lambda's $deserializeLambda$ compares: "(ILorg/apache/paimon/...").
  unzip -q -o "${ours[0]}" 'org/apache/paimon/*' 'snapcommit-paimon-*' 'io/snapcommit/*' -d "$work/libjar"
  stray+=$(grep -rlaP 'Lorg/apache/paimon/(?!shade/snapcommit/)' "$work/libjar" | sed "s|$work/libjar/||" | head -5)
  rm -rf "$work/libjar"
  if [ -z "$stray" ]; then ok "the lib/ jar has Paimon only under org/apache/paimon/shade/snapcommit/ and snapcommit-paimon-*/"
  else bad "the lib/ jar has Paimon entries outside the relocated names: $stray"; fi
fi

# What docs/flink.md lists for lib/ next to the connector (Hadoop), as tests/java_deploy_lib.sh reads it.
mapfile -t listed < <(awk '/^# lib\/ jars of the connector/ { on = 1; next }
                            on && /^```/ { exit }
                            on && NF { print $1 }' docs/flink.md)
[ "${#listed[@]}" -gt 0 ] || { bad "docs/flink.md has no \"# lib/ jars of the connector\" block"; finish; }
beside=()
for coord in "${listed[@]}"; do
  jar=$(m2_jar "$coord") || { bad "$coord (docs/flink.md): not in ~/.m2 and not fetched"; finish; }
  beside+=("$jar")
done
paimons=()
for coord in "org.apache.paimon:$paimon_flink:$paimon_version" "org.apache.paimon:paimon-s3:$paimon_version"; do
  jar=$(m2_jar "$coord") || { bad "$coord: not in ~/.m2 and not fetched"; finish; }
  paimons+=("$jar")
done

flink_version=$(sed -n "s:.*<flink-$line.version>\(.*\)</flink-$line.version>.*:\1:p" pom.xml)
cp -r tests/java_deploy_lib "$work/flink"
if ! (cd "$work/flink" && mvn "${MVN_FLAGS[@]}" -q -Dflink.version="$flink_version" dependency:build-classpath) \
     >"$work/flink.log" 2>&1; then
  bad "Flink $flink_version's class path did not resolve"; tail -20 "$work/flink.log"; finish
fi
flink_cp=$(cat "$work/flink/target/flink.classpath")

# The S3 part runs on gofakes3 (scripts/s3-servers.sh), as S3ITCase does.
if [ -z "${SC_GOFAKES3_ENDPOINT:-}" ]; then
  if scripts/s3-servers.sh start >/dev/null && s3_env=$(scripts/s3-servers.sh env); then eval "$s3_env"
  else bad "the S3 test servers could not be started (scripts/s3-servers.sh start)"; finish; fi
fi
s3_warehouse=s3://$SC_S3_BUCKET/coexist/$(basename "$work")

joined() { local IFS=:; echo "$*"; }
run() { # run NAME CLASSPATH
  local name=$1 cp=$2 log=$work/$1.log
  if java "${FLINK_JAVA_OPTS[@]}" -cp "$cp" io.snapcommit.demo.CoexistCheck "$work/wh-$name" "$s3_warehouse/$name" \
       >"$log" 2>&1 && grep -q "^coexist-check: ok" "$log"; then
    ok "$name: $(grep '^coexist-check' "$log")"
  else
    bad "$name: snapcommit's write or Paimon's read failed; the first errors:"
    grep -E "Exception|Error|coexist-check" "$log" | head -12 | cut -c1-400
  fi
}
run snapcommit-first "$flink_cp:$(joined "${ours[@]}" "${beside[@]}" "${paimons[@]}"):$checker"
run paimon-first "$flink_cp:$(joined "${paimons[@]}" "${ours[@]}" "${beside[@]}"):$checker"
finish

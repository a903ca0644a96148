#!/usr/bin/env bash
# The connector's Maven build must refuse to package a jar without the JNI library (a job using such
# a jar restart-loops on UnsatisfiedLinkError), and must bundle the library when it is there.
#   1. -Dsnapcommit.jni.dir=<empty dir>: `mvn package` exits non-zero, names the missing file and
#      says how to build it; no jar is produced.
#   2. the default build-jni/: `mvn package` exits 0 and the jar holds native/linux-x86_64/libsnapcommit_jni.so.
# Fast: connector module only, -DskipTests, offline (-o; run one ordinary Maven build first so that
# ~/.m2 holds the plugins, as scripts/flink-test.sh does before calling this), into its own build
# directory (target/flink-packaging-test) so that it never touches the jars of a real build.
#   tests/java_packaging.sh [flink-1.20|flink-2]
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/flink-env.sh
profile=${1:-flink-1.20}
work=$(mktemp -d)
line=${profile#flink-}
# the connector module of this Flink line (artifact snapcommit-flink-<line>)
module=connector/flink-$line
out=java/$module/target/flink-packaging-test
trap 'rm -rf "$work" "$out"' EXIT
mvn_package() {
  mvn -B -o -Dstyle.color=never -f java/pom.xml -P"$profile" -pl "$module" -DskipTests \
      -Dflink.line=packaging-test "$@" package
}
passed=0; failed=0
ok() { echo "  ok   $1"; passed=$((passed + 1)); }
bad() { echo "  FAIL $1"; failed=$((failed + 1)); }

echo "== java_packaging ($profile) =="
mkdir -p "$work/no-jni"
mvn_package -Dsnapcommit.jni.dir="$work/no-jni" >"$work/missing.log" 2>&1
rc=$?
if [ "$rc" -ne 0 ]; then ok "without the JNI library mvn package exits $rc"; else bad "without the JNI library mvn package exits 0"; fi
for want in "the JNI library $work/no-jni/libsnapcommit_jni.so is missing" "flink_build_native" \
            "-Dsnapcommit.jni.dir="; do
  if grep -qF -- "$want" "$work/missing.log"; then ok "message names: $want"; else bad "message lacks: $want"; fi
done
if ls "$out"/*.jar >/dev/null 2>&1; then bad "a jar was packaged anyway: $(ls "$out"/*.jar)"; else ok "no jar packaged"; fi
[ "$failed" -eq 0 ] || { echo "--- mvn output:"; cat "$work/missing.log"; }

if [ -f build-jni/libsnapcommit_jni.so ]; then
  rm -rf "$out"
  if mvn_package >"$work/present.log" 2>&1; then
    ok "with build-jni/libsnapcommit_jni.so mvn package exits 0"
    jar_file=$(ls "$out"/snapcommit-flink-*.jar 2>/dev/null | grep -v -- '-tests' | head -1)
    # the jar is named after its Flink line: snapcommit-flink-1.20-<version>.jar, snapcommit-flink-2-<version>.jar
    case "$(basename "${jar_file:-none}")" in
      snapcommit-flink-"$line"-[0-9]*.jar) ok "the jar is named for Flink $line: $(basename "$jar_file")" ;;
      *) bad "the jar is not named snapcommit-flink-$line-<version>.jar: ${jar_file:-none}" ;;
    esac
    if [ -n "$jar_file" ] && jar tf "$jar_file" | grep -qx "native/linux-x86_64/libsnapcommit_jni.so"; then
      ok "the jar bundles native/linux-x86_64/libsnapcommit_jni.so"
    else
      bad "the jar ($jar_file) lacks native/linux-x86_64/libsnapcommit_jni.so"
    fi
  else
    bad "with build-jni/libsnapcommit_jni.so mvn package failed"; cat "$work/present.log"
  fi
else
  bad "build-jni/libsnapcommit_jni.so not built (source scripts/flink-env.sh && flink_build_native)"
fi
echo "java_packaging: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

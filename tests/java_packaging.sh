#!/usr/bin/env bash
# The connector's Maven build must refuse to package a jar without the JNI library (a job using such
# a jar restart-loops on UnsatisfiedLinkError), must bundle the library when it is there, and
# `mvn install` must publish an artifact a consumer can resolve.
#   1. -Dsnapcommit.jni.dir=<empty dir>: `mvn package` of java-shim/flink-<line> exits non-zero,
#      names the missing file and says how to build it; no jar is produced.
#   2. the same empty dir for the pom-packaging parents alone (pom.xml, java-shim/pom.xml):
#      `mvn install` exits 0: they ship no jar, so the check must not run in them.
#   3. the default build-jni/: `mvn package` exits 0 and the jar, named snapcommit-flink-<line>-<version>.jar,
#      holds native/linux-x86_64/libsnapcommit_jni.so.
#   4. `mvn install -P<profile>` of the whole reactor into a scratch local repository, then
#      tests/java_consumer (a standalone pom depending on io.snapcommit:snapcommit-flink-<line>)
#      built offline against it: it resolves the artifact and its parent poms, compiles against the
#      connector's classes and runs, finding the JNI library in the resolved jar.
# Fast: -DskipTests, offline (-o; run one ordinary Maven build first so that ~/.m2 holds the plugins,
# as scripts/flink-test.sh does before calling this; the install step alone follows
# SNAPCOMMIT_MVN_OFFLINE, so that a first run may fetch maven-install-plugin), into its own build
# directory (target/flink-packaging-test) so that it never touches the jars of a real build. The
# scratch repository links every group of ~/.m2 except io/snapcommit, so it resolves Flink and the
# plugins from ~/.m2 but sees only the snapcommit artifacts this run installed.
#   tests/java_packaging.sh [flink-1.20|flink-2]
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/flink-env.sh
profile=${1:-flink-1.20}
work=$(mktemp -d)
line=${profile#flink-}
# the connector module of this Flink line (artifact snapcommit-flink-<line>)
module=java-shim/flink-$line
out=$module/target/flink-packaging-test
trap 'rm -rf "$work" "$out" target/flink-packaging-test java-shim/target/flink-packaging-test integration/target/flink-packaging-test' EXIT
mvn_package() {
  mvn -B -o -Dstyle.color=never -f pom.xml -P"$profile" -pl "$module" -DskipTests \
      -Dflink.line=packaging-test -Dsnapcommit.libjar.skip=true "$@" package
}
passed=0; failed=0
ok() { echo "  ok   $1"; passed=$((passed + 1)); }
# scratch_repo DIR: a local repository that links every group of ~/.m2 except io/snapcommit, so
# that Maven finds Flink and the plugins there but sees only the snapcommit artifacts this run installs.
scratch_repo() {
  mkdir -p "$1/io"
  for entry in "$HOME"/.m2/repository/*; do
    [ "$(basename "$entry")" = io ] || ln -s "$entry" "$1/"
  done
  for entry in "$HOME"/.m2/repository/io/*; do
    [ "$(basename "$entry")" = snapcommit ] || ln -s "$entry" "$1/io/"
  done
}
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

# The parents package no .so: installing them must not depend on it (the check runs only in
# java-shim/flink-<line>).
scratch_repo "$work/parents-repo"
if mvn "${MVN_FLAGS[@]}" -q -f pom.xml -P"$profile" -pl .,java-shim -Dflink.line=packaging-test \
       -Dsnapcommit.jni.dir="$work/no-jni" -Dmaven.repo.local="$work/parents-repo" \
       install >"$work/parents.log" 2>&1 \
   && [ -f "$work/parents-repo/io/snapcommit/snapcommit-flink-connector-build/0.1.0-SNAPSHOT/snapcommit-flink-connector-build-0.1.0-SNAPSHOT.pom" ]; then
  ok "without the JNI library the pom-packaging parents install"
else
  bad "without the JNI library the pom-packaging parents fail to build"; cat "$work/parents.log"
fi

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

  # Publish and consume: install the connector of this line and the poms it needs (-am: pom.xml,
  # java-shim/pom.xml; integration is never installed) into a scratch local repository, then build
  # tests/java_consumer against it offline.
  repo=$work/repo
  scratch_repo "$repo"
  if mvn "${MVN_FLAGS[@]}" -q -f pom.xml -P"$profile" -pl "$module" -am -DskipTests -Dflink.line=packaging-test -Dsnapcommit.libjar.skip=true \
         -Dmaven.repo.local="$repo" install >"$work/install.log" 2>&1; then
    ok "mvn install -P$profile exits 0"
    for artifact in snapcommit-java-parent snapcommit-flink-connector-build snapcommit-flink-"$line"; do
      if ls "$repo"/io/snapcommit/"$artifact"/0.1.0-SNAPSHOT/"$artifact"-0.1.0-SNAPSHOT.pom >/dev/null 2>&1; then
        ok "installed io.snapcommit:$artifact"
      else
        bad "io.snapcommit:$artifact not installed"
      fi
    done
    cp -r tests/java_consumer "$work/consumer"
    if (cd "$work/consumer" && mvn -B -o -q -Dstyle.color=never -Dmaven.repo.local="$repo" \
          -Dflink.line="$line" compile dependency:build-classpath) >"$work/consumer.log" 2>&1; then
      ok "a consumer resolves io.snapcommit:snapcommit-flink-$line offline and compiles against it"
      cp_file=$work/consumer/target/consumer.classpath
      if java -cp "$work/consumer/target/classes:$(cat "$cp_file")" io.snapcommit.consumer.UsesConnector \
           >"$work/consumer.out" 2>&1 \
         && grep -qF "snapcommit-flink-$line-0.1.0-SNAPSHOT.jar!/native/linux-x86_64/libsnapcommit_jni.so" "$work/consumer.out"; then
        ok "the consumer runs on the resolved jar: $(cut -c1-60 "$work/consumer.out")..."
      else
        bad "the consumer does not run on the resolved jar"; cat "$work/consumer.out"
      fi
    else
      bad "a consumer cannot resolve io.snapcommit:snapcommit-flink-$line"; grep -E "ERROR" "$work/consumer.log" | head -5
    fi
  else
    bad "mvn install -P$profile failed"; tail -30 "$work/install.log"
  fi
else
  bad "build-jni/libsnapcommit_jni.so not built (source scripts/flink-env.sh && flink_build_native)"
fi
echo "java_packaging: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

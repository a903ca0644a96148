#!/usr/bin/env bash
# Every test: set-up (native packages, JDK and Maven, Paimon's Java tool, pypaimon), the S3 test servers (gofakes3 and moto on 127.0.0.1), the
# native suite in a normal build, the build matrix (gcc and clang x Release, Debug,
# RelWithDebInfo under -Werror; build only), the native suite again under AddressSanitizer +
# UndefinedBehaviorSanitizer, then the Flink connector's suites (Flink 1.20 and 2.x).
set -euo pipefail
cd "$(dirname "$0")/.."
# Each part's wall time, printed when the next begins and at the end (where CI time goes).
part_start=$SECONDS part_name="set-up"
part() {
  echo "   ($part_name: $((SECONDS - part_start))s; $((SECONDS / 60)) min so far)"
  part_start=$SECONDS part_name=$1
  echo "== $1 =="
}
trap 'echo "   ($part_name: $((SECONDS - part_start))s; total $((SECONDS / 60)) min)"' EXIT
scripts/setup.sh
# Paimon's own readers judge the format in the native suite (tests/paimon/): the JDK and Maven,
# PaimonTool (Paimon 1.4.2 from Maven Central) and the pypaimon 2.1.0 venv are set up once here,
# before ctest runs tests in parallel.
scripts/flink-setup.sh
scripts/paimon-tool.sh --build-only
scripts/pypaimon-setup.sh >/dev/null
# Stop at the end only servers this run started: others may be using running ones.
if ! scripts/s3-servers.sh status >/dev/null 2>&1; then
  scripts/s3-servers.sh start
  trap 'scripts/s3-servers.sh stop >/dev/null 2>&1 || true
        echo "   ($part_name: $((SECONDS - part_start))s; total $((SECONDS / 60)) min)"' EXIT
fi
eval "$(scripts/s3-servers.sh env)"
part "native suite (RelWithDebInfo)"
scripts/build.sh build
# CTEST_PARALLEL_LEVEL (ctest's own variable) overrides the 2 parallel tests of both suites.
jobs=${CTEST_PARALLEL_LEVEL:-2}
(cd build && ctest --output-on-failure -j"$jobs")
part "build matrix (gcc, clang x Release, Debug, RelWithDebInfo; -Werror; build only)"
# gcc RelWithDebInfo is build/ above and gcc Debug is build-asan/ below (the same compiler, -O0 and
# warning flags, plus the sanitizers; its test programs link the static library, so a symbol only
# an -O0 build leaves undefined fails there too, as in clang Debug here).
scripts/build-matrix.sh gcc:Release clang:Release clang:Debug clang:RelWithDebInfo
part "native suite (ASan + UBSan)"
scripts/build.sh build-asan -DSC_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
# Every test again except those labelled build_independent (they run no code of this build: the
# Paimon judge on Paimon's golden tables, source and layer-rule checks; CMakeLists.txt lists them).
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
   ctest --output-on-failure -j"$jobs" -LE build_independent)
part "native threads (ThreadSanitizer: S3 batches, the LATEST hint's thread)"
scripts/tsan.sh
part "Flink connector (JNI + MiniCluster, Flink 1.20 and 2.x)"
scripts/flink-test.sh

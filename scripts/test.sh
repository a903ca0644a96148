#!/usr/bin/env bash
# Every test: set-up, the native suite in a normal build, then again under
# AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
echo "== native suite (RelWithDebInfo) =="
scripts/build.sh build
(cd build && ctest --output-on-failure -j2)
echo "== native suite (ASan + UBSan) =="
scripts/build.sh build-asan -DSC_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
   ctest --output-on-failure -j2)

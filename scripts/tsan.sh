#!/usr/bin/env bash
# ThreadSanitizer run of the tests that exercise the library's threads: a batch's requests sent
# at once on S3 (store/store_batch.c) and the LATEST hint's own thread (strategy/strategy_file.c).
# Builds only those tests into DIR (default build-tsan/), runs them through ctest against the S3
# test servers, and fails on any report. --race adds tests/race_s3.sh (real CLI processes, about
# 2 more minutes). No suppressions are needed today; if libcurl or OpenSSL (not instrumented)
# ever need one, add it to tests/tsan/tsan.supp with a comment and pass suppressions= below.
#   scripts/tsan.sh [--race]        (SC_TSAN_DIR, SC_BUILD_JOBS: build dir and -j, default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${SC_TSAN_DIR:-build-tsan}
tests=(test_requests test_store_conformance test_store_s3 test_discovery test_cold_scale test_stream_damage)
targets=("${tests[@]}" snapcommit_cli) # the CLI: test_stream_damage and race_s3 run it
if [ "${1:-}" = --race ]; then tests+=(race_s3); fi
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS='-fsanitize=thread -g -O1' \
  -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread >/dev/null
cmake --build "$dir" -j"${SC_BUILD_JOBS:-2}" --target "${targets[@]}"
# Criterion's sandbox cannot place its arena under TSan without this (tests/tsan/criterion_arena.c).
${CC:-cc} -shared -fPIC -O2 -Wall -Wextra -Werror -o "$dir/criterion_arena.so" tests/tsan/criterion_arena.c -ldl
eval "$(scripts/s3-servers.sh env)"
logs=$(cd "$dir" && pwd)/tsan-logs
rm -rf "$logs" && mkdir -p "$logs"
# Reports go to files, one per process: a Criterion test runs in a child whose exit status does
# not fail the test, so the files are the verdict (exitcode=0 keeps race_s3.sh's exit-code checks
# about snapcommit itself).
regex="^($(IFS='|'; echo "${tests[*]}"))\$"
status=0
(cd "$dir" && LD_PRELOAD=$PWD/criterion_arena.so \
   TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1 exitcode=0 log_path=$logs/tsan" \
   ctest --output-on-failure -R "$regex") || status=$?
reports=$(cat "$logs"/tsan.* 2>/dev/null | grep -c '^WARNING: ThreadSanitizer' || true)
if [ "$reports" != 0 ]; then
  cat "$logs"/tsan.*
  echo "FAIL: $reports ThreadSanitizer report(s) (files in $logs)"
  exit 1
fi
[ "$status" = 0 ] || { echo "FAIL: a test failed under ThreadSanitizer"; exit "$status"; }
echo "ThreadSanitizer: no reports from ${tests[*]}"

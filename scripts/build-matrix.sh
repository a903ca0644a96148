#!/usr/bin/env bash
# The CI build matrix: Release, Debug and RelWithDebInfo with gcc and clang, all under
# -Wall -Wextra -Werror (CMakeLists.txt), C11. Builds the library, the CLI, the tests, the
# simulation and the example — build only: the tests run in build/ and build-asan/ (scripts/test.sh).
# Each configuration also runs public_exports (nm, well under a second), because what -O3 or
# clang inline must not change what libsnapcommit.so exports.
#   scripts/build-matrix.sh                       all six, into build-matrix/<cc>-<type>/
#   scripts/build-matrix.sh clang:Release gcc:Debug   only these
# Prints the seconds each configuration took; exits non-zero at the first one that fails.
set -euo pipefail
cd "$(dirname "$0")/.."
configs=("$@")
((${#configs[@]})) || configs=(gcc:Release gcc:Debug gcc:RelWithDebInfo clang:Release clang:Debug clang:RelWithDebInfo)
total_start=$(date +%s)
mkdir -p build-matrix
for config in "${configs[@]}"; do
  cc=${config%%:*} type=${config#*:}
  command -v "$cc" >/dev/null || { echo "build-matrix: compiler $cc not found (scripts/setup.sh installs it)"; exit 1; }
  dir=build-matrix/$cc-$type
  start=$(date +%s)
  # A cache made with another compiler cannot be reused: CMake fixes CMAKE_C_COMPILER at first configure.
  CC=$cc cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="$type" >"$dir.configure.log" 2>&1 \
    || { cat "$dir.configure.log"; echo "build-matrix: $cc $type: configure failed"; exit 1; }
  if ! cmake --build "$dir" -j"$(nproc)" >"$dir.build.log" 2>&1; then
    grep -E -B2 -A6 'error|warning' "$dir.build.log" | head -60
    echo "build-matrix: $cc $type: build failed (full log: $dir.build.log)"; exit 1
  fi
  (cd "$dir" && ctest -R '^public_exports$' --output-on-failure >/dev/null) \
    || { (cd "$dir" && ctest -R '^public_exports$' --output-on-failure | tail -20); echo "build-matrix: $cc $type: public_exports failed"; exit 1; }
  echo "build-matrix: $cc $type: built, exports checked in $(( $(date +%s) - start ))s"
done
echo "build-matrix: ${#configs[@]} configurations in $(( $(date +%s) - total_start ))s"

#!/usr/bin/env bash
# Installs the build into a temporary prefix, then builds docs/examples/api_example.c the ways
# docs/api.md documents and runs each program:
#   1. cc ... $(pkg-config --cflags --libs snapcommit)          -> libsnapcommit.so
#   2. cc ... $(pkg-config --cflags --libs snapcommit-static)   -> libsnapcommit.a
#   3. cc ... $(pkg-config --static --cflags --libs snapcommit) in a prefix holding only the archive
#   4. find_package(snapcommit CONFIG): snapcommit::snapcommit and snapcommit::snapcommit_static
# Each program must link the library the way it asked for (readelf), and run to exit 0.
#   test_install.sh BUILD_DIR SOURCE_DIR      (env: CC, SC_CONSUMER_FLAGS e.g. sanitizer flags)
set -euo pipefail
build=${1:?usage: test_install.sh BUILD_DIR SOURCE_DIR}
src=${2:?SOURCE_DIR}
cc=${CC:-cc}
flags=${SC_CONSUMER_FLAGS:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
example=$src/docs/examples/api_example.c
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log"

pcdir=$(dirname "$(find "$prefix" -name snapcommit.pc)")
libdir=$(dirname "$pcdir")
export PKG_CONFIG_PATH=$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
passed=0
fail() { echo "install_consumers: $*"; exit 1; }
# run NAME PROGRAM NEEDS_SO: the program's DT_NEEDED must (not) name libsnapcommit.so.
run() {
  local name=$1 prog=$2 needs_so=$3
  if readelf -d "$prog" | grep -q 'libsnapcommit\.so'; then
    [ "$needs_so" = 1 ] || fail "$name: linked libsnapcommit.so, expected the archive"
  else
    [ "$needs_so" = 0 ] || fail "$name: did not link libsnapcommit.so"
  fi
  LD_LIBRARY_PATH=$libdir "$prog" "$tmp/table-$name" >"$tmp/$name.out" 2>&1 \
    || { cat "$tmp/$name.out"; fail "$name: api_example failed"; }
  grep -q '^fsck: ok$' "$tmp/$name.out" || { cat "$tmp/$name.out"; fail "$name: no 'fsck: ok'"; }
  passed=$((passed + 1))
}

[ -x "$prefix/bin/snapcommit" ] || fail "the CLI was not installed"
[ -f "$prefix/include/snapcommit/snapcommit.h" ] || fail "the headers were not installed"

# 1. shared, the line docs/api.md shows
# shellcheck disable=SC2046,SC2086
"$cc" -std=c11 -Wall -Wextra -Werror $flags -o "$tmp/pc_shared" "$example" $(pkg-config --cflags --libs snapcommit)
run pc_shared "$tmp/pc_shared" 1
# 2. the archive next to the shared library
# shellcheck disable=SC2046,SC2086
"$cc" -std=c11 -Wall -Wextra -Werror $flags -o "$tmp/pc_static" "$example" $(pkg-config --cflags --libs snapcommit-static)
run pc_static "$tmp/pc_static" 0
# 3. --static where only the archive is installed: Requires.private / Libs.private must be complete
cp -a "$prefix" "$tmp/prefix-a"
find "$tmp/prefix-a" -name 'libsnapcommit.so*' -delete
# shellcheck disable=SC2046,SC2086
PKG_CONFIG_PATH=${pcdir/#$prefix/$tmp/prefix-a} \
  "$cc" -std=c11 -Wall -Wextra -Werror $flags -o "$tmp/pc_private" "$example" \
  $(PKG_CONFIG_PATH=${pcdir/#$prefix/$tmp/prefix-a} pkg-config --static --cflags --libs snapcommit)
run pc_private "$tmp/pc_private" 0
# 4. CMake package config
cmake -S "$src/cmake/consumer" -B "$tmp/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="-Wall -Wextra -Werror $flags" -DSC_EXAMPLE="$example" \
  >"$tmp/consumer.log" 2>&1 || { cat "$tmp/consumer.log"; fail "find_package(snapcommit CONFIG) failed"; }
cmake --build "$tmp/consumer" >>"$tmp/consumer.log" 2>&1 || { cat "$tmp/consumer.log"; fail "consumer build failed"; }
run cmake_shared "$tmp/consumer/example_shared" 1
run cmake_static "$tmp/consumer/example_static" 0
# 5. an absolute CMAKE_INSTALL_LIBDIR: the .pc must name it, not ${pcfiledir}/../<absolute path>
# (configure only: the .pc files are generated at configure time)
cmake -S "$src" -B "$tmp/abslib" -G Ninja -DSC_BUILD_TESTS=OFF -DCMAKE_C_COMPILER="$cc" \
  -DCMAKE_INSTALL_PREFIX="$tmp/abs" -DCMAKE_INSTALL_LIBDIR="$tmp/abs/lib64" >"$tmp/abslib.log" 2>&1 \
  || { cat "$tmp/abslib.log"; fail "configuring with an absolute CMAKE_INSTALL_LIBDIR failed"; }
for pc in snapcommit snapcommit-static; do
  got=$(PKG_CONFIG_PATH=$tmp/abslib pkg-config --variable=libdir "$pc")
  [ "$got" = "$tmp/abs/lib64" ] || fail "absolute CMAKE_INSTALL_LIBDIR: $pc.pc has libdir $got, expected $tmp/abs/lib64"
  got=$(PKG_CONFIG_PATH=$tmp/abslib pkg-config --variable=includedir "$pc")
  [ "$got" = "$tmp/abs/include" ] || fail "absolute CMAKE_INSTALL_LIBDIR: $pc.pc has includedir $got, expected $tmp/abs/include"
done
passed=$((passed + 1))
echo "install_consumers: $passed passed, 0 failed"

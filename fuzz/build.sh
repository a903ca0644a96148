#!/usr/bin/env bash
# Build the libFuzzer targets with clang into OUT (default /tmp/sc-fuzz):
#   OUT/fuzz_manifest, fuzz_snapshot, fuzz_schema, fuzz_row, fuzz_index_manifest
# The library's base/ and format/ layers are compiled into each target with the
# same instrumentation (format/ uses only base/: ctest layers).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/sc-fuzz}
mkdir -p "$out/obj"
cc=${CC:-clang}
flags=(-g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
       -fno-omit-frame-pointer -Inative/include -Inative/src $(pkg-config --cflags jansson avro-c libzstd zlib))
libs=($(pkg-config --libs jansson avro-c libzstd zlib) -lcrypto -lpthread)
objs=()
for src in native/src/base/*.c native/src/format/*.c; do
  obj="$out/obj/$(echo "$src" | tr / _).o"
  if [ ! -e "$obj" ] || [ "$src" -nt "$obj" ]; then "$cc" "${flags[@]}" -c "$src" -o "$obj"; fi
  objs+=("$obj")
done
for t in manifest snapshot schema row index_manifest; do
  "$cc" "${flags[@]}" -fsanitize=fuzzer -DSC_FUZZ_LIBFUZZER "fuzz/fuzz_$t.c" "${objs[@]}" "${libs[@]}" \
    -o "$out/fuzz_$t"
done
echo "built $out/fuzz_{manifest,snapshot,schema,row,index_manifest}"

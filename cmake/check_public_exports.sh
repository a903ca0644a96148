#!/usr/bin/env bash
# libsnapcommit.so must export exactly the functions declared in the public headers
# (native/include/snapcommit/*.h): a public function declared without SC_API is missing
# from the shared library, an internal function that leaks is one too many. Both fail.
#   check_public_exports.sh libsnapcommit.so CC INCLUDE_DIR
set -euo pipefail
lib=${1:?usage: check_public_exports.sh libsnapcommit.so CC INCLUDE_DIR}
cc=${2:?CC}
inc=${3:?INCLUDE_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Declared: preprocess every public header (comments and macros gone), keep only the text that
# comes from those headers (line markers name the file), then take each `sc_name(` — a function
# declaration. Function-pointer typedefs read `(*sc_name)(` and do not match.
for h in "$inc"/snapcommit/*.h; do echo "#include \"snapcommit/$(basename "$h")\""; done >"$tmp/all.c"
"$cc" -E -I"$inc" "$tmp/all.c" \
  | awk -v dir="$inc/snapcommit/" '/^# [0-9]+ "/ { f = $3; gsub(/"/, "", f); keep = index(f, dir) == 1; next }
                                   keep { print }' \
  | tr '\n' ' ' | grep -oE '\bsc_[A-Za-z0-9_]+[[:space:]]*\(' | sed -E 's/[[:space:]]*\($//' \
  | sort -u >"$tmp/declared"
# Exported: every defined dynamic symbol (functions and data alike).
nm -D --defined-only "$lib" | awk 'NF == 3 { print $3 }' | sed 's/@.*//' | sort -u >"$tmp/exported"

n=$(wc -l <"$tmp/declared")
[ "$n" -ge 50 ] || { echo "public_exports: only $n functions found in $inc/snapcommit/*.h: extraction broken"; exit 1; }
missing=$(comm -23 "$tmp/declared" "$tmp/exported")
extra=$(comm -13 "$tmp/declared" "$tmp/exported")
status=0
if [ -n "$missing" ]; then
  echo "public_exports: declared in the public headers but not exported (SC_API missing?):"
  echo "$missing" | sed 's/^/  /'; status=1
fi
if [ -n "$extra" ]; then
  echo "public_exports: exported but not declared in the public headers (internal symbol leaked):"
  echo "$extra" | sed 's/^/  /'; status=1
fi
[ "$status" -ne 0 ] || echo "public_exports: $lib exports exactly the $n public functions: 1 passed, 0 failed"
exit $status

#!/usr/bin/env bash
# The binding's files must call one another one way only (the order is in
# jni_internal.h): no file may use, through any chain of others, a symbol of a
# file that uses one of its own. Reads what the compiled objects define and
# use (so it sees calls and data, not includes: every file includes
# jni_internal.h) and lets tsort find a circle.
#   check_cycles.sh OBJECT.o...
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: check_cycles.sh OBJECT.o..."; exit 2; }
defs=$(mktemp) edges=$(mktemp)
trap 'rm -f "$defs" "$edges"' EXIT
for o in "$@"; do
  f=$(basename "$o" .o); f=${f%.c}
  nm --defined-only "$o" | awk -v f="$f" '$2 ~ /^[TDBRC]$/ {print $3, f}' >>"$defs"
done
for o in "$@"; do
  f=$(basename "$o" .o); f=${f%.c}
  echo "$f $f" >>"$edges" # every file is a node, even one that uses nobody
  nm --undefined-only "$o" | awk '{print $NF}' | sort -u | join - <(sort -u "$defs") |
    awk -v f="$f" '$2 != f {print f, $2}' >>"$edges"
done
if ! out=$(tsort <"$edges" 2>&1 >/dev/null) || [ -n "$out" ]; then
  echo "jni_cycles: files of the binding use each other in a circle; circles found:"
  echo "$out" | sed -n -e 's/^tsort: -: input contains a loop:$/  circle:/p' -e 's/^tsort: \([a-z_]*\)$/    \1/p'
  echo "  what the files in circles use of each other:"
  awk 'NR==FNR {loop[$1]=1; next} loop[$1] && loop[$2] && $1 != $2 {print "    " $1 " uses " $2}' \
    <(echo "$out" | sed -n 's/^tsort: \([a-z_]*\)$/\1/p') "$edges" | sort -u
  exit 1
fi
echo "jni_cycles: $# files, calls one way only: 1 passed, 0 failed"

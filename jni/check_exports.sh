#!/usr/bin/env bash
# libsnapcommit_jni.so must export only Java_* and JNI_OnLoad/JNI_OnUnload, one Java_* for
# every native method of io.snapcommit.jni,
# and must not need libsnapcommit.so at run time (it is linked in statically).
set -euo pipefail
lib=${1:?usage: check_exports.sh libsnapcommit_jni.so}
bad=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TtDdBbRrVvWwiu]$/ {print $3}' \
      | grep -Ev '^(Java_.*|JNI_OnLoad|JNI_OnUnload)$' || true)
if [ -n "$bad" ]; then
  echo "jni_exports: unexpected exported symbols:"; echo "$bad"; exit 1
fi
if readelf -d "$lib" | grep -q 'libsnapcommit\.so'; then
  echo "jni_exports: $lib depends on libsnapcommit.so; it must link libsnapcommit statically"; exit 1
fi
# Every native method the binding's Java classes declare has its entry point (a missing one is an
# UnsatisfiedLinkError only when first called). Plain names only: none needs JNI's _1 escaping.
src=$(cd "$(dirname "$0")/.." && pwd)/java-shim/src/main/java/io/snapcommit/jni
if [ -d "$src" ]; then
  exported=$(nm -D --defined-only "$lib" | awk '{print $3}')
  missing=""
  for f in "$src"/*.java; do
    cls=$(basename "$f" .java)
    for m in $(grep -oE '\bnative [^(=;]* [A-Za-z0-9]+\(' "$f" | sed -E 's/.* ([A-Za-z0-9]+)\($/\1/'); do
      grep -qx "Java_io_snapcommit_jni_${cls}_$m" <<<"$exported" || missing+=" $cls.$m"
    done
  done
  [ -z "$missing" ] || { echo "jni_exports: native methods without an entry point:$missing"; exit 1; }
fi
count=$(nm -D --defined-only "$lib" | grep -c ' Java_' || true)
[ "$count" -ge 20 ] || { echo "jni_exports: only $count Java_ entry points exported"; exit 1; }
echo "jni_exports: $count Java_* entry points + JNI_OnLoad/OnUnload, nothing else: 1 passed, 0 failed"

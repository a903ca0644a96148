#!/usr/bin/env bash
# libsnapcommit_jni.so must export only Java_* and JNI_OnLoad/JNI_OnUnload,
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
count=$(nm -D --defined-only "$lib" | grep -c ' Java_' || true)
[ "$count" -ge 20 ] || { echo "jni_exports: only $count Java_ entry points exported"; exit 1; }
echo "jni_exports: $count Java_* entry points + JNI_OnLoad/OnUnload, nothing else: 1 passed, 0 failed"

#!/usr/bin/env bash
# Set-up for the Flink connector (idempotent): the native build's packages
# (scripts/setup.sh), a JDK 17 with JNI headers, and Maven. Packages already
# present are not fetched again. Maven artifacts go to ~/.m2 on first build.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
missing=()
for p in openjdk-17-jdk-headless maven; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "flink-setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
jdk=/usr/lib/jvm/java-17-openjdk-amd64
[ -f "$jdk/include/jni.h" ] || { echo "flink-setup: $jdk/include/jni.h missing after install" >&2; exit 1; }
command -v mvn >/dev/null || { echo "flink-setup: mvn missing after install" >&2; exit 1; }

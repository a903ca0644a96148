#!/usr/bin/env bash
# Install what building and testing snapcommit needs (Debian packages). Idempotent:
# packages already present are not fetched again.
set -euo pipefail
# clang: the build matrix (scripts/build-matrix.sh) builds with gcc and clang; binutils
# (nm, readelf) checks the exported symbols. libavro-dev decodes Paimon's Avro manifests;
# libzstd-dev and zlib1g-dev decompress their blocks (zstandard is Paimon's default codec).
packages=(build-essential clang binutils cmake ninja-build pkg-config libcriterion-dev libjansson-dev
          libcurl4-openssl-dev libexpat1-dev libssl-dev python3
          libavro-dev libzstd-dev zlib1g-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

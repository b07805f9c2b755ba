#!/usr/bin/env bash
# Installs the Debian packages mbs needs, only those missing (Debian 12; root or sudo).
set -euo pipefail
pkgs=(gcc g++ dpkg-dev cmake pkg-config meson ninja-build libopenblas-dev liblapacke-dev libsundials-dev libcmocka-dev libjs-three libxml2-dev libzip-dev
      python3 python3-numpy python3-pytest python3-venv python3-mesonpy)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "mbs: installing missing Debian packages: ${missing[*]}" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2

#!/usr/bin/env bash
# Installs a headless Chromium (Debian 12: chromium-headless-shell) for the animation page
# test (tests/system/test_anim.py); run by that test when no Chromium is found. Root or sudo.
set -euo pipefail
pkg=chromium-headless-shell
dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' && exit 0
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo -n"; fi
echo "mbs: installing $pkg for the animation test" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$pkg" >&2

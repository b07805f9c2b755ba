#!/usr/bin/env bash
# Installs the Debian packages mbs needs, only those missing (Debian 12; as root, else through
# sudo). apt's output goes to a log file; the terminal gets one progress line.
#   --no-cvode   all but SUNDIALS (libsundials-dev and what it pulls in: about half of the
#                download), for a build configured with -Dcvode=disabled
set -euo pipefail
pkgs=(gcc g++ dpkg-dev cmake pkg-config meson ninja-build libopenblas-dev liblapacke-dev libsundials-dev libcmocka-dev libjs-three libxml2-dev libzip-dev libccd-dev
      libsdformat-dev
      python3 python3-numpy python3-pytest python3-venv python3-mesonpy
      python3-distributed python3-matplotlib)
skip=""
if [ "${1:-}" = "--no-cvode" ]; then skip=libsundials-dev; fi
missing=()
for p in "${pkgs[@]}"; do
  [ "$p" = "$skip" ] && continue
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "mbs: installing packages needs root (or sudo): ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
log=$(mktemp "${TMPDIR:-/tmp}/mbs-install-deps.XXXXXX")
echo "mbs: installing ${#missing[@]} Debian packages and what they need (${missing[*]}); apt's output in $log" >&2
# apt's status lines (APT::Status-Fd) as one line rewritten in place on a terminal
progress() {
  local kind pct what
  while IFS=: read -r kind _ pct _; do
    case $kind in dlstatus) what=downloading ;; pmstatus) what=installing ;; *) continue ;; esac
    [ -t 2 ] && printf '\rmbs: %s %3d%% ' "$what" "${pct%%.*}" >&2
  done
  [ -t 2 ] && printf '\n' >&2
  return 0
}
start=$SECONDS
if ! { "${sudo[@]}" apt-get update -q >>"$log" 2>&1 &&
       "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
         -o APT::Status-Fd=3 "${missing[@]}" 3>&1 >>"$log" 2>&1; } | progress; then
  tail -n 15 "$log" >&2
  echo "mbs: installing the packages failed; apt's whole output is in $log" >&2
  exit 1
fi
echo "mbs: packages installed in $((SECONDS - start)) s" >&2

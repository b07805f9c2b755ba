#!/usr/bin/env bash
# The front door, as a new user meets it (docs/install.md): configure with the defaults,
# `meson install` into a temporary prefix, then
#  * the library directory meson chose is one that Debian's pkg-config and dynamic loader
#    search for /usr/local (so `sudo meson install` + `sudo ldconfig` just work),
#  * libmbs.so is versioned (soname libmbs.so.<soversion>, dev symlink libmbs.so),
#  * the README's example compiles with `pkg-config --cflags --libs mbs` and runs,
#  * a C++ program finds the library with CMake's find_package(mbs) and prints the same,
#  * mbs-sim finds the installed models (share/mbs/models), also after the prefix moved,
#  * Python's `import mbs` works from a plain python3 after installing to /usr/local, and
#    after `pip install .` into a virtual environment.
# Prints "install test: ok" last; exit status 1 on the first problem.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
src=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install test: FAILED: $*" >&2; exit 1; }

meson setup "$tmp/build" --prefix="$tmp/prefix" -Dtests=false -Dbench=false >/dev/null
ninja -C "$tmp/build" >/dev/null
meson install -C "$tmp/build" --quiet >/dev/null
libdir=$(meson introspect "$tmp/build" --buildoptions |
         python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "libdir"))')
echo "install test: libdir $libdir"

# Debian searches /usr/local/<libdir> only for lib/<multiarch> (and lib): not lib64
pcpath=$(pkg-config --variable pc_path pkg-config)
case ":$pcpath:" in
  *":/usr/local/$libdir/pkgconfig:"*) ;;
  *) fail "pkg-config does not search /usr/local/$libdir/pkgconfig ($pcpath); is dpkg-dev installed?" ;;
esac
# (grep reads the files itself: `cat | grep -q` under pipefail fails when grep stops early)
grep -qxs "/usr/local/$libdir" /etc/ld.so.conf /etc/ld.so.conf.d/*.conf ||
  fail "the dynamic loader does not search /usr/local/$libdir"

lib="$tmp/prefix/$libdir"
soname=$(readelf -d "$lib/libmbs.so" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
[ "$soname" = "libmbs.so.0" ] || fail "soname is '$soname', expected libmbs.so.0"
[ -L "$lib/libmbs.so" ] && [ -L "$lib/libmbs.so.0" ] && [ -f "$lib/libmbs.so.0.1.0" ] ||
  fail "versioned library files missing in $lib"

# the README example, verbatim
python3 - "$src/README.md" "$tmp/app.c" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r"## Example\s*```c\n(.*?)```", text, flags=re.S)
if not m:
    sys.exit("README.md: no C code block under '## Example'")
open(sys.argv[2], "w").write(m.group(1))
PY
export PKG_CONFIG_PATH="$lib/pkgconfig"
cc -std=c11 -Wall -Werror "$tmp/app.c" $(pkg-config --cflags --libs mbs) -o "$tmp/app" ||
  fail "the README example does not build with pkg-config"
c_out=$(LD_LIBRARY_PATH="$lib" "$tmp/app") || fail "the README example failed"
echo "install test: README example: $c_out"
case "$c_out" in "t = 1.000  angle = "*) ;; *) fail "unexpected output '$c_out'" ;; esac

# C++ through CMake
cmake -S "$src/tests/install" -B "$tmp/cxx" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null ||
  fail "find_package(mbs) failed"
cmake --build "$tmp/cxx" >/dev/null || fail "the C++ consumer does not build"
cxx_out=$(LD_LIBRARY_PATH="$lib" "$tmp/cxx/consumer") || fail "the C++ consumer failed"
[ "$cxx_out" = "$c_out" ] || fail "C++ consumer printed '$cxx_out', the C example '$c_out'"
echo "install test: C++ find_package(mbs): $cxx_out"
# Python: the same pendulum from the package meson installed, which finds the installed
# library by itself (no MBS_LIBRARY, no LD_LIBRARY_PATH). This prefix of our own is not one
# python3 searches, so here PYTHONPATH names the folder; the default prefix is checked below.
pyprog='
import mbs
b = mbs.Builder()
body = b.add_body(mass=1.0, com=(0.5, 0, 0))
b.add_joint("revolute", mbs.WORLD, body, axis=(0, 1, 0))
d = mbs.Data(b.compile())
s = mbs.Stepper(d, "rk4")
for _ in range(1000):
    s.step(1e-3)
print("t = %.3f  angle = %.6f rad" % (d.time, d.q[0]))'
init=$(find "$tmp/prefix" -path '*/mbs/__init__.py' | head -n 1)
[ -n "$init" ] || fail "meson install did not install the Python package"
py_out=$(cd "$tmp" && env -u MBS_LIBRARY PYTHONPATH="$(dirname "$(dirname "$init")")" /usr/bin/python3 -c "$pyprog") ||
  fail "import mbs after meson install failed"
[ "$py_out" = "$c_out" ] || fail "Python printed '$py_out', the C example '$c_out'"
echo "install test: Python import mbs: $py_out"
# mbs-sim runs the models installed in <prefix>/share/mbs/models, also from an installation
# moved elsewhere (it looks beside the program first)
[ -f "$tmp/prefix/share/mbs/models/engine_v6.xml" ] || fail "models not installed in share/mbs/models"
nmodels=$(env -u MBS_MODELS "$tmp/prefix/bin/mbs-sim" list | grep -c '^[a-z]') ||
  fail "the installed mbs-sim list failed"
[ "$nmodels" -ge 13 ] || fail "the installed mbs-sim lists $nmodels models"
mv "$tmp/prefix" "$tmp/moved"
env -u MBS_MODELS "$tmp/moved/bin/mbs-sim" run engine_v6 --t-end 0.2 --check >/dev/null ||
  fail "a moved installation's mbs-sim does not find its models"
env -u MBS_FMU_RUNTIME "$tmp/moved/bin/mbs-fmu" "$tmp/moved/share/mbs/models/engine_v6.xml" \
  -o "$tmp/engine.fmu" >/dev/null || fail "a moved installation's mbs-fmu does not find its runtime"
mv "$tmp/moved" "$tmp/prefix"
echo "install test: mbs-sim: $nmodels installed models, found from a moved prefix too (mbs-fmu its runtime)"

# Python as the README installs it: prefix /usr/local (staged with DESTDIR), where Debian's
# python3 must find the package with nothing set. As root, a private mount namespace shows
# the staged tree as /usr/local and `python3 -I` (no PYTHON* variables, no user site, no
# script folder on the path) imports it; otherwise only the folder is checked.
meson configure "$tmp/build" -Dprefix=/usr/local >/dev/null
ninja -C "$tmp/build" >/dev/null
DESTDIR="$tmp/dest" meson install -C "$tmp/build" --quiet >/dev/null
init=$(find "$tmp/dest" -path '*/mbs/__init__.py' | head -n 1)
site=$(dirname "$(dirname "${init#"$tmp/dest"}")")
/usr/bin/python3 -I -c 'import sys; sys.exit(sys.argv[1] not in sys.path)' "$site" ||
  fail "meson installs the Python package in $site, which python3 does not search"
if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
  py_out=$(cd / && env -u MBS_LIBRARY unshare -m sh -c \
    'mount --bind "$1/usr/local" /usr/local && exec /usr/bin/python3 -I -c "$2"' \
    sh "$tmp/dest" "$pyprog") || fail "import mbs from /usr/local with a plain python3 failed"
  [ "$py_out" = "$c_out" ] || fail "Python printed '$py_out', the C example '$c_out'"
  echo "install test: plain python3, package in $site: $py_out"
else
  echo "install test: package in $site, on python3's path (not root: import not run)"
fi

# pip install . (pyproject.toml, meson-python): a wheel with libmbs inside the package,
# installed into a virtual environment that sees Debian's numpy
/usr/bin/python3 -m venv --system-site-packages "$tmp/venv"
"$tmp/venv/bin/pip" install --quiet --no-build-isolation --no-index "$src" >"$tmp/pip.log" 2>&1 ||
  { cat "$tmp/pip.log" >&2; fail "pip install . failed"; }
pip_out=$(cd / && env -u MBS_LIBRARY "$tmp/venv/bin/python" -I -c "$pyprog
import os; assert mbs.__file__.startswith(\"$tmp/venv/\"), mbs.__file__") ||
  fail "import mbs after pip install . failed"
[ "$pip_out" = "$c_out" ] || fail "pip's mbs printed '$pip_out', the C example '$c_out'"
echo "install test: pip install . into a venv: $pip_out"
echo "install test: ok"

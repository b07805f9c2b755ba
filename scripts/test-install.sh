#!/usr/bin/env bash
# The front door, as a new user meets it (docs/install.md): configure with the defaults,
# `meson install` into a temporary prefix, then
#  * the library directory meson chose is one that Debian's pkg-config and dynamic loader
#    search for /usr/local (so `sudo meson install` + `sudo ldconfig` just work),
#  * libmbs.so is versioned (soname libmbs.so.<soversion>, dev symlink libmbs.so),
#  * the README's example compiles with `pkg-config --cflags --libs mbs` and runs,
#  * a C++ program finds the library with CMake's find_package(mbs) and prints the same,
#  * mbs-sim finds the installed models (share/mbs/models), also after the prefix moved.
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
# Python: the package meson installed finds the installed library by itself (no
# MBS_LIBRARY, no LD_LIBRARY_PATH) and runs the same pendulum
init=$(find "$tmp/prefix" -path '*/mbs/__init__.py' | head -n 1)
[ -n "$init" ] || fail "meson install did not install the Python package"
py_out=$(cd "$tmp" && env -u MBS_LIBRARY PYTHONPATH="$(dirname "$(dirname "$init")")" /usr/bin/python3 -c '
import mbs
b = mbs.Builder()
body = b.add_body(mass=1.0, com=(0.5, 0, 0))
b.add_joint("revolute", mbs.WORLD, body, axis=(0, 1, 0))
d = mbs.Data(b.compile())
s = mbs.Stepper(d, "rk4")
for _ in range(1000):
    s.step(1e-3)
print("t = %.3f  angle = %.6f rad" % (d.time, d.q[0]))') || fail "import mbs after meson install failed"
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
mv "$tmp/moved" "$tmp/prefix"
echo "install test: mbs-sim: $nmodels installed models, found from a moved prefix too"
echo "install test: ok"

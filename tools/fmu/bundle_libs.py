#!/usr/bin/env python3
"""The shared libraries an FMU runtime carries beside it: each LIBRARY (a path, e.g. the
development symlink libxml2.so) and every library it loads that is not part of the C library
(which every Linux system has), one "SONAME PATH" line each, as the dynamic loader resolves them
on the build machine (ldd). Usage: bundle_libs.py LIBRARY..."""
import re
import subprocess
import sys

# the C library's own objects: present wherever the FMU's binary can run at all
SYSTEM = re.compile(r'^(linux-vdso|linux-gate|ld-linux.*|libc|libm|libpthread|libdl|librt|'
                    r'libresolv|libutil|libmvec)\.so')


def soname(path):
    out = subprocess.run(['readelf', '-d', path], check=True, capture_output=True, text=True).stdout
    m = re.search(r'\(SONAME\)\s+Library soname: \[([^\]]+)\]', out)
    if not m:
        sys.exit(f'bundle_libs.py: {path} has no SONAME')
    return m.group(1)


def closure(lib):
    """lib's line and those of the libraries it loads outside the C library."""
    lines = [f'{soname(lib)} {lib}']
    out = subprocess.run(['ldd', lib], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        m = re.match(r'\s*(\S+) => (\S+) \(0x', line)
        if m and not SYSTEM.match(m.group(1)):
            lines.append(f'{m.group(1)} {m.group(2)}')
        elif '=> not found' in line:
            sys.exit(f'bundle_libs.py: {lib} needs {line.split()[0]}, which is not found')
    return lines


def main():
    seen = {}
    for lib in sys.argv[1:]:
        for line in closure(lib):
            seen.setdefault(line.split(' ')[0], line)
    print('\n'.join(seen.values()))


if __name__ == '__main__':
    main()

#!/usr/bin/env python3
"""An FMU runs on a machine without mbs's libraries: FMUs packed by mbs-fmu are run by a
minimal importer (tests/support/fmu_min_importer.c, C library only) in a root directory that holds
the C library (libc, libm, the loader) and nothing else, entered with chroot (as root) or in
a user namespace (unshare -r). Their outputs there equal, to 17 digits, the same FMU run on
this machine: a tree stepped by CVODE (SUNDIALS) and a closed loop (LAPACK's solves), the
loop also as an FMI 3.0 FMU. The
same FMU without its bundled libxml2 must fail to load in the root, so the root does hide
this machine's libraries.
Usage: fmu_portable.py MBS_FMU RUNTIME IMPORTER MODELS_DIR
Exit 77 (skipped) when the runtime has no bundle (a build without the static archives) or no
chroot can be entered."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

# the C library's files the root holds (the libc6 package): nothing else of this machine
C_LIBRARY = ('libc.so.6', 'libm.so.6', 'libpthread.so.0', 'libdl.so.2', 'librt.so.1')
RUNS = [('double_pendulum.xml', '0.3', '0.01', 'cvode', '2'),
        ('planar_loop_tilted.xml', '0.3', '0.001', 'rk4', '2'),
        ('planar_loop_tilted.xml', '0.3', '0.001', 'rk4', '3')]


def copy_into(root, path):
    """path (a file of this machine) at the same place under root, symlinks resolved."""
    dest = os.path.join(root, path.lstrip('/'))
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    shutil.copy(os.path.realpath(path), dest)


def make_root(root, importer):
    """root holding the importer and the C library it and the FMU load."""
    out = subprocess.run(['ldd', importer], check=True, capture_output=True, text=True).stdout
    libdir = None
    for line in out.splitlines():
        m = re.match(r'\s*(\S+) => (\S+) \(0x', line) or re.match(r'\s*(/\S+) \(0x', line)
        if not m:
            continue
        path = m.group(m.lastindex)
        copy_into(root, path)
        if os.path.basename(path) == 'libc.so.6':
            libdir = os.path.dirname(path)
    for name in C_LIBRARY:
        if os.path.exists(os.path.join(libdir, name)):
            copy_into(root, os.path.join(libdir, name))
    shutil.copy(importer, os.path.join(root, 'importer'))


def enter_command():
    """The prefix that runs a command chrooted, or None."""
    for prefix in (['chroot'], ['unshare', '-r', 'chroot']):
        if shutil.which(prefix[0]) and subprocess.run(prefix + ['/', 'true'],
                                                      capture_output=True).returncode == 0:
            return prefix
    return None


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def check_model(tmp, root, enter, args, mbs_fmu, runtime, models):
    model, t_end, h, stepper, version = args
    name = os.path.splitext(model)[0] + '_fmi' + version
    fmu = os.path.join(tmp, name + '.fmu')
    subprocess.run([mbs_fmu, os.path.join(models, model), '-o', fmu, '--runtime', runtime,
                    '--fmi', version], check=True, stdout=subprocess.DEVNULL)
    with zipfile.ZipFile(fmu) as z:
        z.extractall(os.path.join(root, name))
    platform = 'x86_64-linux' if version == '3' else 'linux64'
    bins = sorted(os.listdir(os.path.join(root, name, 'binaries', platform)))
    here = run([os.path.join(root, 'importer'), os.path.join(root, name), t_end, h, stepper])
    there = run(enter + [root, '/importer', '/' + name, t_end, h, stepper])
    steps = round(float(t_end) / float(h))
    if here[0] != 0 or there[0] != 0:
        sys.exit(f'{model}: the importer failed (here {here[0]}: {here[2]}; in the root '
                 f'{there[0]}: {there[2]})')
    if here[1] != there[1] or len(there[1].splitlines()) != steps:
        sys.exit(f'{model}: {len(there[1].splitlines())} lines in the root, '
                 f'{len(here[1].splitlines())} here, {steps} expected, or they differ')
    last = there[1].splitlines()[-1].split()
    print(f'{model} (FMI {version}, {stepper}): {steps} steps equal in the root and here, '
          f'{len(last) - 1} outputs; binaries/{platform}: {" ".join(bins)}')
    return name


def check_refused(root, enter, name):
    """Without its bundled libxml2 the FMU must not load in the root."""
    bare = name + '_bare'
    shutil.copytree(os.path.join(root, name), os.path.join(root, bare))
    os.remove(os.path.join(root, bare, 'binaries', 'linux64', 'libxml2.so.2'))
    code, _, err = run(enter + [root, '/importer', '/' + bare, '0.01', '0.001', 'rk4'])
    if code == 0 or 'libxml2.so.2' not in err:
        sys.exit(f'the FMU without its libxml2 ran in the root (status {code}): the root does '
                 f'not hide this machine\'s libraries')
    print(f'without its bundled libxml2.so.2 the FMU is refused in the root: {err.strip()}')


def sanitized_proc(root, importer):
    """A sanitizer build's importer needs /proc (LeakSanitizer reads /proc/PID/task): mounted
    in the root (as root; it holds no library), its path; None for a plain build. Exit 77
    when it cannot be mounted."""
    ldd = subprocess.run(['ldd', importer], capture_output=True, text=True).stdout
    if not re.search(r'lib[at]san\.so|libubsan\.so', ldd):
        return None
    proc = os.path.join(root, 'proc')
    os.makedirs(proc, exist_ok=True)
    if subprocess.run(['mount', '-t', 'proc', 'proc', proc], capture_output=True).returncode != 0:
        print('skipped: a sanitizer build needs /proc in the root, which cannot be mounted here')
        sys.exit(77)
    return proc


def main():
    mbs_fmu, runtime, importer, models = sys.argv[1:5]
    if not os.path.isdir(os.path.join(os.path.dirname(runtime), 'bundle')):
        print('skipped: the runtime has no bundle/ (not a portable build)')
        sys.exit(77)
    enter = enter_command()
    if not enter:
        print('skipped: neither chroot nor unshare -r chroot can be entered here')
        sys.exit(77)
    with tempfile.TemporaryDirectory(prefix='mbs_fmu_root_') as tmp:
        root = os.path.join(tmp, 'root')
        make_root(root, importer)
        proc = sanitized_proc(root, importer)
        try:
            names = [check_model(tmp, root, enter, r, mbs_fmu, runtime, models) for r in RUNS]
            check_refused(root, enter, names[0])
        finally:
            if proc:
                subprocess.run(['umount', proc], check=False)
        fmus = tuple(n + '_bare/' for n in names) + tuple(n + '/' for n in names)
        held = sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root)
                      for f in fs)
        print('the root outside the FMUs: ' + ' '.join(h for h in held if not h.startswith(fmus)))

if __name__ == '__main__':
    main()

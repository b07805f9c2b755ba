#!/usr/bin/env python3
"""mbs-sim runs an SDFormat file (read by tools/sdf): the four-bar of tests/data/four_bar.sdf
for 1 s with its loop (one cut joint) closed and the run's checks passing; a file with an
element SDFormat does not define is refused with libsdformat's message, exit status 1.
Usage: sim_sdf.py MBS_SIM DATA_DIR"""
import os
import subprocess
import sys
import tempfile


def main():
    sim, data = sys.argv[1:3]
    p = subprocess.run([sim, 'run', os.path.join(data, 'four_bar.sdf'), '--t-end', '1'],
                       capture_output=True, text=True)
    want = ['loops           1 ', 'steps           1000, to t = 1 s', 'check           ok']
    if p.returncode != 0 or any(w not in p.stdout for w in want):
        sys.exit(f'four_bar.sdf: status {p.returncode}\n{p.stdout}{p.stderr}')
    print(p.stdout)
    with tempfile.NamedTemporaryFile('w', suffix='.sdf', delete=False) as f:
        f.write('<sdf version="1.9"><model name="m"><link name="a"><wobble/></link></model></sdf>')
    p = subprocess.run([sim, 'run', f.name], capture_output=True, text=True)
    os.unlink(f.name)
    if p.returncode != 1 or 'wobble' not in p.stderr:
        sys.exit(f'a file with <wobble>: status {p.returncode}: {p.stderr}')
    print('refused:', p.stderr.strip())


if __name__ == '__main__':
    main()

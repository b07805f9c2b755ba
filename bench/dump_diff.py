#!/usr/bin/env python3
"""dump_diff.py A.txt B.txt: compare two dumps of bench_count (--dump or --dump-derivs), as
written by two builds on the same states. For every output name prints the largest
difference of one state's entries relative to the largest magnitude of that state's output
(max |a - b| / max |b|) and how many entries differ in any bit."""
import sys
from collections import defaultdict


def load(path):
    out = {}
    with open(path) as f:
        for line in f:
            name, k, i, x = line.split()
            out[(name, int(k), int(i))] = float.fromhex(x)
    return out


def main():
    a, b = load(sys.argv[1]), load(sys.argv[2])
    if a.keys() != b.keys():
        sys.exit("the dumps hold different entries")
    diff, scale, nbits = defaultdict(float), defaultdict(float), defaultdict(int)
    for key, y in b.items():
        x = a[key]
        st = key[:2]
        diff[st] = max(diff[st], abs(x - y))
        scale[st] = max(scale[st], abs(y))
        nbits[key[0]] += x != y
    worst = defaultdict(float)
    for (name, k), dv in diff.items():
        worst[name] = max(worst[name], dv / scale[(name, k)] if scale[(name, k)] > 0 else dv)
    for name in sorted(worst):
        print(f"{name:10s} max rel diff {worst[name]:.3g}   entries differing: {nbits[name]}")


main()

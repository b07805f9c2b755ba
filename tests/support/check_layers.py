#!/usr/bin/env python3
"""The layer rule of src/ (docs/architecture.md): a folder includes only folders below it.
Reads the layer order from the first fenced block of docs/architecture.md that starts with
the line "layers (bottom first):", then every #include "folder/file.h" under src/. Fails
naming each upward include, each src/ folder missing from the order, and each file-level
include cycle (a .c with its .h as one unit). Usage: check_layers.py SOURCE_ROOT"""
import os
import re
import sys


def layer_order(root):
    text = open(os.path.join(root, "docs", "architecture.md"), encoding="utf-8").read()
    m = re.search(r"```\s*\nlayers \(bottom first\):\n(.*?)```", text, re.S)
    if not m:
        sys.exit("check_layers: no 'layers (bottom first):' block in docs/architecture.md")
    return [line.split()[0].rstrip("/") for line in m.group(1).splitlines() if line.strip()]


def includes(src):
    pat = re.compile(r'^\s*#\s*include\s+"([a-z_0-9]+)/([^"]+)"')
    for d, _, fs in os.walk(src):
        for f in sorted(fs):
            if not f.endswith((".c", ".h")):
                continue
            rel = os.path.relpath(os.path.join(d, f), src)
            for n, line in enumerate(open(os.path.join(d, f), errors="replace"), 1):
                m = pat.match(line)
                if m and os.path.isdir(os.path.join(src, m.group(1))):
                    yield rel, n, m.group(1), m.group(1) + "/" + m.group(2)


def unit_cycles(edges):
    """Strongly connected components of more than one unit (Tarjan, iterative)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter[0]; counter[0] += 1; stack.append(root); on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]; counter[0] += 1; stack.append(w); on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    x = stack.pop(); on.discard(x); comp.append(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    src = os.path.join(root, "src")
    order = layer_order(root)
    rank = {f: i for i, f in enumerate(order)}
    bad = [f"src/{f}/ is not in the layer order" for f in sorted(os.listdir(src))
           if os.path.isdir(os.path.join(src, f)) and f not in rank]
    units = {}
    for rel, n, folder, target in includes(src):
        own = rel.split(os.sep)[0]
        if own in rank and folder in rank and rank[folder] > rank[own]:
            bad.append(f"src/{rel}:{n}: {own}/ includes {target} from a layer above it")
        a, b = os.path.splitext(rel)[0], os.path.splitext(target)[0]
        if a != b:
            units.setdefault(a, set()).add(b)
    bad += ["file cycle: " + " <-> ".join(c) for c in unit_cycles(units)]
    for line in bad:
        print(line)
    print(f"layers: {len(order)} folders, {len(bad)} violations")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

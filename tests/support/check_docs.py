#!/usr/bin/env python3
"""The documentation covers the public API, and its links resolve.

usage: check_docs.py LIBMBS_SO SOURCE_ROOT

Checks, failing with one line per problem:
  * every function declared in include/mbs/mbs.h is exported by libmbs.so (nm -D) and has
    a "### `name`" entry in docs/api.md; every such entry names a declared function;
  * every public type (typedef) and every MBS_* constant of the header appears in
    docs/api.md; every status code MBS_OK / MBS_ERR_* has a "### `name`" entry in
    docs/errors.md, and mbs_status_name's table in src/core/status.c knows it;
  * every relative link in README.md and docs/*.md points to an existing file and, with a
    #fragment, to an existing heading of that file;
  * the C code blocks of README.md and docs/*.md compile (check_snippets.py says how);
  * the naming rule: every function is named mbs_<object>_<verb> or has a macro of the
    header giving it such a name, and every such macro names a declared function that
    docs/api.md lists with it.
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_snippets import check_snippets  # noqa: E402


def strip_comments(text):
    """C source without /* */ and // comments."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def header_api(path):
    """(functions, types, constants) declared in the public header."""
    raw = open(path, encoding="utf-8").read()
    consts = set(re.findall(r"^#define\s+(MBS_\w+)", raw, flags=re.M))
    consts.discard("MBS_MBS_H")
    code = strip_comments(raw)
    code = re.sub(r"^\s*#.*$", " ", code, flags=re.M)
    code = code.replace('extern "C" {', " ")
    funcs, types = set(), set()
    for stmt in re.split(r"[;{}]", code):
        stmt = " ".join(stmt.split())
        if not stmt:
            continue
        if stmt.startswith("typedef"):
            m = re.search(r"\(\s*\*\s*(mbs_\w+)\s*\)", stmt)
            types.add(m.group(1) if m else stmt.split()[-1])
            continue
        m = re.match(r"^[\w\s\*]*?\b(mbs_\w+)\s*\(", stmt)
        if m:
            funcs.add(m.group(1))
    # struct/enum typedef names appear after the closing brace: "} mbs_body_def"
    types |= set(re.findall(r"}\s*(mbs_\w+)\s*;", code))
    types = {t for t in types if t.startswith("mbs_")}
    return funcs, types, consts


def exported(lib):
    """Defined dynamic symbols of the shared library."""
    nm = shutil.which("nm")
    if not nm:
        sys.exit("check_docs: nm (binutils) not found")
    out = subprocess.run([nm, "-D", "--defined-only", lib], check=True, capture_output=True,
                         text=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def entries(md):
    """Names of the "### `name`" headings of a markdown text."""
    return set(re.findall(r"^###\s+`(\w+)`\s*$", md, flags=re.M))


def slug(heading):
    """GitHub's anchor of a heading."""
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def check_links(root, files):
    """Problems with relative links of the given markdown files."""
    problems = []
    for f in files:
        text = open(f, encoding="utf-8").read()
        text = re.sub(r"```.*?```", "", text, flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"^[a-z]+:", target):
                continue
            path, _, frag = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
            rel = os.path.relpath(f, root)
            if not os.path.exists(dest):
                problems.append(f"{rel}: link to missing file '{target}'")
            elif frag and dest.endswith(".md"):
                heads = re.findall(r"^#+\s+(.*)$", open(dest, encoding="utf-8").read(), re.M)
                if frag not in {slug(h) for h in heads}:
                    problems.append(f"{rel}: link to missing heading '{target}'")
    return problems


RULE = re.compile(r"^mbs_(builder|model|data|stepper|sens|batch|lanes|body|joint|rotation|status|simd|work)_"
                  r"|^mbs_[a-z0-9_]+_(def|options|params)_default$|^mbs_version$")


def naming_problems(header, funcs, api):
    """Functions outside the naming rule without a rule-named macro, and stray macros."""
    aliases = dict(re.findall(r"(?m)^#define\s+(mbs_[a-z0-9_]+)\s+(mbs_[a-z0-9_]+)\s*$", header))
    problems = []
    for new, old in sorted(aliases.items()):
        if not RULE.match(new):
            problems.append(f"mbs.h: macro {new} does not follow mbs_<object>_<verb>")
        if old not in funcs:
            problems.append(f"mbs.h: macro {new} names {old}, not a declared function")
        elif not re.search(r"`%s`" % re.escape(new), api):
            problems.append(f"docs/api.md: the rule's name {new} (for {old}) is not listed")
    for f in sorted(funcs - set(aliases.values())):
        if not RULE.match(f):
            problems.append(f"{f}: not named mbs_<object>_<verb> and no macro gives it such a name")
    return problems


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    lib, root = sys.argv[1], sys.argv[2]
    funcs, types, consts = header_api(os.path.join(root, "include", "mbs", "mbs.h"))
    api = open(os.path.join(root, "docs", "api.md"), encoding="utf-8").read()
    errors = open(os.path.join(root, "docs", "errors.md"), encoding="utf-8").read()
    status_c = open(os.path.join(root, "src", "core", "status.c"), encoding="utf-8").read()
    syms = exported(lib)
    problems = []
    if len(funcs) < 50:
        problems.append(f"mbs.h: only {len(funcs)} functions found (parser broken?)")
    documented = entries(api)
    for f in sorted(funcs - syms):
        problems.append(f"{f}: declared in mbs.h but not exported by {os.path.basename(lib)}")
    for f in sorted(funcs - documented):
        problems.append(f"{f}: no '### `{f}`' entry in docs/api.md")
    for f in sorted(documented - funcs):
        problems.append(f"docs/api.md: entry '{f}' is not a function of mbs.h")
    for t in sorted(types):
        if not re.search(r"\b%s\b" % re.escape(t), api):
            problems.append(f"{t}: public type not described in docs/api.md")
    for c in sorted(consts):
        if not re.search(r"\b%s\b" % re.escape(c), api):
            problems.append(f"{c}: constant not mentioned in docs/api.md")
    for c in sorted(x for x in consts if x == "MBS_OK" or x.startswith("MBS_ERR_")):
        if c not in entries(errors):
            problems.append(f"{c}: no '### `{c}`' entry in docs/errors.md")
        if f'"{c}"' not in status_c:
            problems.append(f"{c}: mbs_status_name does not know it")
    header = open(os.path.join(root, "include", "mbs", "mbs.h"), encoding="utf-8").read()
    problems += naming_problems(header, funcs, api)
    docs = os.path.join(root, "docs")
    mds = [os.path.join(root, "README.md")] + sorted(
        os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))
    problems += check_links(root, mds)
    snippet_problems, nsnippets = check_snippets(root, lib, mds)
    problems += snippet_problems
    for p in problems:
        print("check_docs: " + p)
    print(f"check_docs: {len(funcs)} functions, {len(types)} types, {len(consts)} constants, "
          f"{len(mds)} markdown files and {nsnippets} C blocks checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

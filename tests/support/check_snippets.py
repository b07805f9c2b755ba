"""The C code of README.md and docs/*.md compiles (used by check_docs.py).

Per markdown file, its ```c blocks are compiled against include/mbs/mbs.h:
  * a block right after `<!-- c-context: DECLARATIONS -->` is statements: it is compiled as the
    body of a function that declares DECLARATIONS first (the names the text gives it), after
    the file's other blocks;
  * a block right after `<!-- c-skip: REASON -->` is not compiled (a template of generated
    code); the reason is required;
  * every other block is file scope: the file's blocks form one translation unit in their
    order with the one holding main() last, compiled and, with a main(), linked with libmbs;
  * docs/api.md repeats the header's declarations: its struct and enum definitions are
    compared member by member with the header's, the rest compiled after the header (a
    prototype that differs is a conflicting declaration).
"""
import os
import re
import shlex
import subprocess
import tempfile

FLAGS = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-Wno-unused-function",
         "-Wno-unused-variable", "-Wno-unused-parameter", "-Wno-unused-but-set-variable"]
PRELUDE = "#include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n" \
          "#include <mbs/mbs.h>\n"


def blocks(text):
    """(kind, payload, code, line) of each ```c block: kind '' (file scope), 'context', 'skip'."""
    out = []
    for m in re.finditer(r"(<!--\s*c-(context|skip):(.*?)-->\s*\n)?```c\n(.*?)```", text, flags=re.S):
        out.append((m.group(2) or "", (m.group(3) or "").strip(), m.group(4),
                    text.count("\n", 0, m.start(4)) + 1))
    return out


def compile_tu(cc, root, lib, code, link):
    """Compiler messages of code ('' when it compiles; linked when link)."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "snippet.c")
        open(src, "w").write(code)
        # $MBS_SNIPPET_FLAGS: a sanitizer build's library needs its runtime linked too
        args = shlex.split(cc) + FLAGS + shlex.split(os.environ.get("MBS_SNIPPET_FLAGS", ""))
        args += ["-I", os.path.join(root, "include"), src]
        args += [lib, "-lm", "-o", os.path.join(tmp, "a.out")] if link else ["-c", "-o", os.path.join(tmp, "a.o")]
        r = subprocess.run(args, capture_output=True, text=True)
        if r.returncode == 0:
            return ""
        lines = r.stderr.strip().splitlines() or ["failed"]
        return next((l for l in lines if "error" in l), lines[0])


def members(body):
    """Declared names of a struct or enum body (comments removed)."""
    body = re.sub(r"/\*.*?\*/", " ", body, flags=re.S)
    names = []
    for decl in re.split(r"[;]", body):
        for part in decl.split(","):
            m = re.search(r"(\w+)\s*(\[[^\]]*\])*\s*(=[^,]*)?\s*$", part.strip())
            if m and part.strip():
                names.append(m.group(1))
    return names


def check_api(cc, root, header, text):
    """docs/api.md: definitions against the header's, the rest compiled after it."""
    problems = []
    defs = dict((m.group(2), members(m.group(3))) for m in re.finditer(
        r"typedef\s+(struct|enum)\s+(\w+)\s*\{(.*?)\}\s*\w+\s*;", header, flags=re.S))
    rest = []
    for kind, _, code, line in blocks(text):
        if kind:
            continue
        for m in re.finditer(r"typedef\s+(struct|enum)\s+(\w+)\s*\{(.*?)\}\s*\w+\s*;", code, flags=re.S):
            want = defs.get(m.group(2))
            got = [n for n in members(m.group(3)) if not n.startswith("_")]
            if want is None:
                problems.append(f"docs/api.md:{line}: {m.group(2)} is not defined in mbs.h")
            elif got != [n for n in want if not n.startswith("_")][:len(got)] or not got:
                problems.append(f"docs/api.md:{line}: {m.group(2)}: members {got} differ from mbs.h's {want}")
        rest.append(f"#line {line}\n" + re.sub(
            r"typedef\s+(struct|enum)\s+\w+\s*\{.*?\}\s*\w+\s*;", "", code, flags=re.S))
    msg = compile_tu(cc, root, None, PRELUDE + "\n".join(rest), False)
    if msg:
        problems.append(f"docs/api.md: declarations do not compile after mbs.h: {msg}")
    return problems


def check_file(cc, root, lib, path):
    """Problems of one markdown file's C blocks."""
    rel = os.path.relpath(path, root)
    text = open(path, encoding="utf-8").read()
    problems, scope, main, fragments = [], [], None, []
    for kind, payload, code, line in blocks(text):
        if kind == "skip":
            if not payload:
                problems.append(f"{rel}:{line}: c-skip without a reason")
            continue
        if kind == "context":
            fragments.append((payload, code, line))
        elif re.search(r"\bint\s+main\s*\(", code):
            main = (code, line)
        else:
            scope.append((code, line))
    if main:
        scope.append(main)
    if not scope and not fragments:
        return problems
    tu = PRELUDE + "".join(f"#line {line} \"{rel}\"\n{code}\n" for code, line in scope)
    msg = compile_tu(cc, root, lib, tu, main is not None)
    if msg:
        return problems + [f"{rel}: the file-scope blocks do not compile: {msg}"]
    for k, (decls, code, line) in enumerate(fragments):
        body = f"static void snippet_{k}(void)\n{{\n{decls}\n#line {line} \"{rel}\"\n{code}\n}}\n"
        msg = compile_tu(cc, root, None, tu + body, False)
        if msg:
            problems.append(f"{rel}:{line}: block does not compile: {msg}")
    return problems


def check_snippets(root, lib, mds, cc=None):
    """Problems of every markdown file's C code; the count of blocks checked. The compiler is
    $CC (meson's), else cc."""
    cc = cc or os.environ.get("CC") or "cc"
    header = open(os.path.join(root, "include", "mbs", "mbs.h"), encoding="utf-8").read()
    problems, count = [], 0
    for path in mds:
        text = open(path, encoding="utf-8").read()
        count += len(blocks(text))
        if os.path.basename(path) == "api.md":
            problems += check_api(cc, root, header, text)
        else:
            problems += check_file(cc, root, lib, path)
    return problems, count

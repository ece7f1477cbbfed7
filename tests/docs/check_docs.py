#!/usr/bin/env python3
"""check_docs.py: runs every console example of README.md and docs/*.md and compares its output with the page.

A ```console block holds commands (`$ ` lines, continued by `> ` lines) each followed by the output the page
shows. Every such block is checked unless the line before it is `<!-- not checked: REASON -->`. A fenced block
after `<!-- file: PATH -->` is written to PATH before the commands that follow it on the page run. Commands run
with bash in the repository root, one page at a time in page order, `build/gpmc` being the gpmc under test and
`build/python` the Python package beside it; `python3` is $GPMC_DOCS_PYTHON when set (the interpreter the gpmc
module was built for). A block after `<!-- needs python: MODULE, ... -->` is checked only where that interpreter
imports each MODULE with that package on its path (gpmc._core, built where pybind11 is; matplotlib), else skipped.

  check_docs.py GPMC ROOT [--update]   (--update rewrites the outputs shown on the pages)

Exit status 0 when every checked output matches, 1 otherwise (each mismatch printed as a diff).
"""
import difflib
import os
import re
import subprocess
import sys


def blocks(lines):
    """Yields (kind, start, end, info) for each fenced block: kind is the fence's language, info the marker before."""
    i = 0
    while i < len(lines):
        m = re.match(r"^```(\w*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        marker = lines[i - 1].strip() if i > 0 else ""
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        yield m.group(1), i + 1, j, marker
        i = j + 1


def commands(body):
    """Splits a console block's lines into [(command, expected output lines, first line, last line)]."""
    out = []
    k = 0
    while k < len(body):
        if not body[k].startswith("$ "):
            k += 1
            continue
        cmd = [body[k][2:]]
        k += 1
        while k < len(body) and body[k].startswith("> "):
            cmd.append(body[k][2:])
            k += 1
        start = k
        while k < len(body) and not body[k].startswith("$ "):
            k += 1
        out.append(("\n".join(cmd), start, k))
    return out


PYTHON = os.environ.get("GPMC_DOCS_PYTHON") or "python3"


def python_has(module, gpmc):
    """Whether the docs' python3 imports MODULE with the build's Python package on its path."""
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(gpmc), "python"))
    return subprocess.run([PYTHON, "-c", f"import {module}"], env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


def run(command, gpmc, root):
    shell = command.replace("build/gpmc", gpmc).replace("build/python", os.path.join(os.path.dirname(gpmc), "python"))
    shell = re.sub(r"(?<![\w/.-])python3(?![\w.])", PYTHON, shell)
    env = dict(os.environ, NO_COLOR="1", LC_ALL="C")
    # stdout and stderr together, in the order written, as a terminal shows them.
    p = subprocess.run(["bash", "-c", "{\n" + shell + "\n} 2>&1"], cwd=root, stdout=subprocess.PIPE, text=True,
                       env=env, timeout=300)
    return p.stdout.splitlines()


COMMIT = re.compile(r"\(commit [0-9a-z-]+\)")


def same_but_commit(actual, expected):
    """Whether the lines are equal once `(commit ...)`, which changes with every commit (`gpmc --version`), is
    set aside on both sides."""
    def norm(lines):
        return [COMMIT.sub("(commit COMMIT)", line) for line in lines]
    return norm(actual) == norm(expected)


def check_page(path, gpmc, root, update):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    failures = 0
    edits = []  # (first, last, new lines) of outputs to rewrite
    for kind, start, end, marker in blocks(lines):
        m = re.match(r"^<!-- file: (\S+) -->$", marker)
        if m:
            os.makedirs(os.path.dirname(m.group(1)), exist_ok=True)
            with open(m.group(1), "w", encoding="utf-8") as f:
                f.write("\n".join(lines[start:end]) + "\n")
            continue
        if kind != "console" or marker.startswith("<!-- not checked"):
            continue
        m = re.match(r"^<!-- needs python: (.+) -->$", marker)
        missing = [name for name in m.group(1).split(", ") if not python_has(name, gpmc)] if m else []
        if missing:
            print(f"{path}:{start}: skipped: {PYTHON} cannot import {', '.join(missing)}")
            continue
        body = lines[start:end]
        for command, first, last in commands(body):
            expected = body[first:last]
            while expected and expected[-1] == "":
                expected.pop()
            actual = run(command, gpmc, root)
            if same_but_commit(actual, expected):
                continue
            if actual != expected:
                if update:
                    edits.append((start + first, start + first + len(expected), actual))
                    continue
                failures += 1
                print(f"{path}:{start + first}: the output of `{command.splitlines()[0]}` differs from the page:")
                sys.stdout.writelines(line + "\n" for line in difflib.unified_diff(
                    expected, actual, "page", "gpmc", lineterm="", n=1))
    if update and edits:
        for first, last, new in sorted(edits, reverse=True):
            lines[first:last] = new
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
        print(f"{path}: {len(edits)} outputs rewritten")
    return failures


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    gpmc, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    update = "--update" in sys.argv[3:]
    pages = [os.path.join(root, "README.md")]
    docs = os.path.join(root, "docs")
    pages += [os.path.join(docs, name) for name in sorted(os.listdir(docs)) if name.endswith(".md")]
    failures = sum(check_page(page, gpmc, root, update) for page in pages)
    checked = 0
    for page in pages:
        with open(page, encoding="utf-8") as f:
            lines = f.read().split("\n")
        checked += sum(len(commands(lines[s:e])) for k, s, e, m in blocks(lines)
                       if k == "console" and not m.startswith("<!-- not checked"))
    print(f"{checked} console commands checked in {len(pages)} pages, {failures} differ")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

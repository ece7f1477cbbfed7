#!/usr/bin/env python3
"""permute_links.py: writes a machine file with the link declarations of every block in reverse order.

Usage: permute_links.py IN OUT. A link statement starts at a line whose code begins with `link ` and ends where its
braces balance on a line that does not end with a comma. Statements are reversed among the places they held within
their enclosing block (node, socket), so components and everything else stay where they were.
"""
import sys


def code_of(line):
    i = line.find("//")
    return line if i < 0 else line[:i]


def main():
    src, dst = sys.argv[1], sys.argv[2]
    lines = open(src, encoding="utf-8").read().split("\n")
    stack = []  # line index of each open block
    statements = {}  # block -> list of (first, last) line ranges
    i = 0
    while i < len(lines):
        code = code_of(lines[i]).strip()
        if code.startswith("link ") and stack:
            first, depth = i, 0
            while True:
                c = code_of(lines[i])
                depth += c.count("{") - c.count("}")
                if depth <= 0 and not c.rstrip().endswith(","):
                    break
                i += 1
            statements.setdefault(stack[-1], []).append((first, i))
            i += 1
            continue
        for ch in code_of(lines[i]):
            if ch == "{":
                stack.append(i)
            elif ch == "}" and stack:
                stack.pop()
        i += 1
    replace = {}  # first line of a statement's place -> (its last line, the text that goes there)
    for ranges in statements.values():
        texts = [lines[x:y + 1] for x, y in ranges][::-1]
        for (x, y), text in zip(ranges, texts):
            replace[x] = (y, text)
    flat = []
    i = 0
    while i < len(lines):
        if i in replace:
            last, text = replace[i]
            flat.extend(text)
            i = last + 1
        else:
            flat.append(lines[i])
            i += 1
    open(dst, "w", encoding="utf-8").write("\n".join(flat))
    count = sum(len(r) for r in statements.values())
    print(f"{src}: {count} link statements in {len(statements)} blocks reversed")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""check_editor_grammars.py: checks the editor support in editors/ against the ANTLR grammar of the language.

  check_editor_grammars.py ROOT

ROOT is the repository root. The checks:
  - the JSON files of the VS Code extension parse, and its manifest names the grammar and configuration it ships;
  - every keyword of ROOT/grammar/*.g4 is matched, as a whole word, by a keyword regex of the TextMate grammar (a
    `match` rule whose scope starts with keyword., storage. or constant.language.) and is in a `syn keyword` line
    or the highlighted part of a `syn match` pattern of editors/vim/syntax/gpm.vim;
  - every unit word of the grammar is highlighted as a unit after a number (`1 GB`) by both;
  - every regex of the TextMate grammar compiles, and the grammar tokenises every .gpm file under ROOT/machines,
    ROOT/apps and ROOT/stdlib, ending each file outside any begin/end region;
  - every Vim syntax group is linked to a highlight group, and ftdetect sets the filetype of *.gpm files.

Which grammar literals are keywords: the alphabetic quoted literals of parser rules ('machine', 'for', ...). The
literals of lexer rules are skipped: in Gpm.g4 they are the unit words of the UNIT fragment ('s', 'B', 'GB',
'flop', ...), which are units only inside a quantity token right after a number (`2 s`); elsewhere the same words
are ordinary identifiers (machines/summit.gpm names a socket `s`), so they must not be highlighted as keywords.
They are checked as units instead.

Prints each problem and a one-line summary; exit status 0 when everything passes, 1 otherwise.
"""
import json
import os
import re
import sys

KEYWORD_SCOPES = ("keyword.", "storage.", "constant.language.")
IDENT = re.compile(r"[A-Za-z_][A-Za-z_0-9]*\Z")


# ---- the ANTLR grammar ----

G4_TOKEN = re.compile(r"""
    (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<literal>'(?:\\.|[^'\\])*')
  | (?P<set>\[(?:\\.|[^\]\\])*\])
  | (?P<name>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<end>;)
  | (?P<other>\S)
""", re.VERBOSE | re.DOTALL)


def grammar_words(root):
    """Returns (keywords, unit words): the alphabetic literals of parser rules and of lexer rules."""
    keywords, units = set(), set()
    files = sorted(f for f in os.listdir(os.path.join(root, "grammar")) if f.endswith(".g4"))
    for name in files:
        with open(os.path.join(root, "grammar", name), encoding="utf-8") as f:
            text = f.read()
        rule = None                      # the name of the rule being read; None between rules
        for m in G4_TOKEN.finditer(text):
            kind = m.lastgroup
            if kind == "end":
                rule = None
            elif kind == "name" and rule is None and m.group() != "fragment":
                rule = m.group()
            elif kind == "literal" and rule is not None:
                word = m.group()[1:-1]
                if IDENT.match(word):
                    (keywords if rule[0].islower() else units).add(word)
    return files, keywords, units


# ---- the TextMate grammar ----

# Oniguruma escapes Python lacks; \G (where the last match ended) is dropped.
ONIGURUMA_ESCAPES = {"h": "[0-9A-Fa-f]", "H": "[^0-9A-Fa-f]", "z": r"\Z", "G": ""}


def to_python_regex(pattern):
    """Translates the Oniguruma-only syntax a TextMate grammar may use into Python's `re` syntax: `(?<name>`,
    `\\h`, `\\H`, `\\z` and `\\G` (the grammar in editors/ uses none of them; Python reads the rest alike)."""
    pattern = re.sub(r"\\(.)", lambda m: ONIGURUMA_ESCAPES.get(m.group(1), m.group()), pattern)
    return re.sub(r"\(\?<(?=[A-Za-z_])", "(?P<", pattern)


class TextMate:
    """The rules of a TextMate grammar with compiled regexes, and a small tokeniser in the manner of VS Code's: it
    knows `match`, `begin`/`end`, `patterns` and `include` (`#name`, `$self`), not `while` or other grammars."""

    def __init__(self, grammar, problems):
        self.grammar, self.problems, self.compiled, self.cache = grammar, problems, 0, {}
        self.root = self.cache["$self"] = self.rules(grammar.get("patterns", []), "patterns", ("$self",))

    def regex(self, pattern, where):
        try:
            self.compiled += 1
            return re.compile(to_python_regex(pattern))
        except re.error as e:
            self.problems.append(f"TextMate: regex at {where} does not compile ({e}): {pattern}")
            return None

    def rules(self, patterns, where, seen):
        """Flattens a pattern list (following includes) into rule dicts with their compiled regexes; `seen` holds
        the includes being expanded, so that a rule including one of them (recursion) gets a placeholder."""
        out = []
        for i, p in enumerate(patterns):
            here = f"{where}[{i}]"
            if "include" in p:
                ref = p["include"]
                if ref in ("$self", "$base"):
                    target, key = self.grammar, "$self"
                elif ref.startswith("#") and ref[1:] in self.grammar.get("repository", {}):
                    target, key = self.grammar["repository"][ref[1:]], "repository." + ref[1:]
                else:
                    self.problems.append(f"TextMate: {here} includes {ref}, which the grammar does not define")
                    continue
                if key in seen:
                    out.append({"recurse": key})      # expanded from the cache when tokenising
                elif key in self.cache:
                    out.extend(self.cache[key])
                else:
                    out.extend(self.cache.setdefault(key, self.rules([target], key, seen + (key,))))
            elif "match" in p or "begin" in p:
                out.append(self.rule(p, here, seen))
            elif "patterns" in p:
                out.extend(self.rules(p["patterns"], here + ".patterns", seen))
        return out

    def expand(self, rules, seen=()):
        for r in rules:
            if "recurse" not in r:
                yield r
            elif r["recurse"] not in seen:
                yield from self.expand(self.cache.get(r["recurse"], []), seen + (r["recurse"],))

    def rule(self, p, where, seen):
        r = dict(p)
        for key in ("match", "begin", "end"):
            if key in p:
                r[key + "_re"] = self.regex(p[key], f"{where}.{key}")
        if "begin" in p:
            r["inner"] = self.rules(p.get("patterns", []), where + ".patterns", seen)
        return r

    def keyword_regexes(self, rules=None, out=None):
        """The compiled `match` regexes whose whole match is scoped as a keyword."""
        out = [] if out is None else out
        for r in self.root if rules is None else rules:
            if r.get("match_re") and r.get("name", "").startswith(KEYWORD_SCOPES):
                out.append(r["match_re"])
            self.keyword_regexes(r.get("inner", []), out)
        return out

    def tokenise(self, lines):
        """Yields (line number, start, end, scope) for each scope the grammar gives; raises ValueError when a file
        ends inside a begin/end region or the tokeniser stops advancing."""
        stack = [(None, self.root)]
        for number, line in enumerate(lines, 1):
            text, pos, steps = line.rstrip("\r\n") + "\n", 0, 0
            while pos < len(text):
                steps += 1
                if steps > 4 * len(text) + 16:
                    raise ValueError(f"line {number}: the tokeniser does not advance")
                region, rules = stack[-1]
                best, best_rule = None, None
                if region is not None and region.get("end_re"):
                    best = region["end_re"].search(text, pos)
                for r in self.expand(rules):
                    rx = r.get("match_re") or r.get("begin_re")
                    m = rx.search(text, pos) if rx else None
                    if m and (best is None or m.start() < best.start()):
                        best, best_rule = m, r
                if best is None:
                    break
                if best_rule is None:                          # the region's end
                    yield from self.scopes(number, best, region.get("name"), region.get("endCaptures"))
                    stack.pop()
                elif "begin" in best_rule:
                    yield from self.scopes(number, best, best_rule.get("name"), best_rule.get("beginCaptures"))
                    stack.append((best_rule, best_rule["inner"]))
                else:
                    yield from self.scopes(number, best, best_rule.get("name"), best_rule.get("captures"))
                pos = best.end() if best.end() > pos else pos + 1
        if len(stack) > 1:
            raise ValueError(f"the file ends inside {stack[-1][0].get('name') or stack[-1][0]['begin']}")

    @staticmethod
    def scopes(number, m, name, captures):
        if name:
            yield number, m.start(), m.end(), name
        for group, c in (captures or {}).items():
            if int(group) <= (m.re.groups or 0) and m.group(int(group)) is not None and "name" in c:
                yield number, m.start(int(group)), m.end(int(group)), c["name"]


def whole_word(rx, word):
    """Whether rx highlights `word` standing alone and leaves it alone inside a longer identifier."""
    m = rx.search(f" {word} ")
    return m is not None and m.span() == (1, 1 + len(word)) and rx.search(f"_{word}_") is None


def check_vscode(root, keywords, units, problems):
    base = os.path.join(root, "editors", "vscode")
    docs = {}
    for name in ("package.json", "language-configuration.json", os.path.join("syntaxes", "gpm.tmLanguage.json")):
        try:
            with open(os.path.join(base, name), encoding="utf-8") as f:
                docs[name] = json.load(f)
        except (OSError, ValueError) as e:
            problems.append(f"VS Code: {name} does not load: {e}")
    manifest, grammar = docs.get("package.json"), docs.get(os.path.join("syntaxes", "gpm.tmLanguage.json"))
    if manifest:
        contributes = manifest.get("contributes", {})
        languages = [l for l in contributes.get("languages", []) if l.get("id") == "gpm"]
        grammars = [g for g in contributes.get("grammars", []) if g.get("language") == "gpm"]
        if not languages or ".gpm" not in languages[0].get("extensions", []):
            problems.append("VS Code: package.json declares no language `gpm` for .gpm files")
        if not grammars or grammars[0].get("scopeName") != (grammar or {}).get("scopeName", "source.gpm"):
            problems.append("VS Code: package.json declares no grammar for `gpm` with the grammar's scopeName")
        for ref in [l.get("configuration") for l in languages] + [g.get("path") for g in grammars]:
            if ref and not os.path.isfile(os.path.join(base, ref)):
                problems.append(f"VS Code: package.json names {ref}, which does not exist")
    if not grammar:
        return None
    tm = TextMate(grammar, problems)
    regexes = tm.keyword_regexes()
    for word in sorted(keywords):
        if not any(whole_word(rx, word) for rx in regexes):
            problems.append(f"TextMate: keyword `{word}` is not matched as a whole word by any keyword regex")
    for word in sorted(units):
        line = f"x = 1 {word}"
        start = line.rindex(word)
        try:
            spans = [(s, e, n) for _, s, e, n in tm.tokenise([line])]
        except ValueError as e:
            spans = []
            problems.append(f"TextMate: `{line}`: {e}")
        if not any(s <= start and e >= len(line) and ".unit" in n for s, e, n in spans):
            problems.append(f"TextMate: unit `{word}` is not highlighted as a unit in `{line}`")
    return tm


def check_models(root, tm, problems):
    files, lines = [], 0
    for top in ("machines", "apps", "stdlib"):
        for folder, _, names in os.walk(os.path.join(root, top)):
            files += [os.path.join(folder, n) for n in names if n.endswith(".gpm")]
    if not files:
        problems.append(f"no .gpm files under {root}/machines, apps or stdlib to tokenise")
    for path in sorted(files):
        with open(path, encoding="utf-8") as f:
            text = f.read().splitlines()
        lines += len(text)
        try:
            for _ in tm.tokenise(text):
                pass
        except ValueError as e:
            problems.append(f"TextMate: {os.path.relpath(path, root)}: {e}")
    return len(files), lines


# ---- the Vim syntax file ----

def vim_pattern(rest):
    """The pattern of a `syn match` line's remainder: the text between the first delimiter and its match."""
    m = re.search(r"(?:^|\s)([^\sA-Za-z0-9_=])", rest)
    if not m:
        return ""
    delim, i, out = m.group(1), m.end(), []
    while i < len(rest) and rest[i] != delim:
        out.append(rest[i:i + 2] if rest[i] == "\\" else rest[i])
        i += 2 if rest[i] == "\\" else 1
    return "".join(out)


def vim_highlighted_words(pattern):
    """The words a Vim pattern highlights: those after its last `\\@<=` or `\\zs` and before `\\ze`, its escapes
    (`\\<`, `\\|`, `\\s`...) removed so that they are not read as words."""
    part = re.split(r"\\@<=|\\zs", pattern)[-1].split(r"\ze")[0]
    return set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", re.sub(r"\\.", " ", part)))


def check_vim(root, keywords, units, problems):
    path = os.path.join(root, "editors", "vim", "syntax", "gpm.vim")
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        problems.append(f"Vim: {e}")
        return
    options = {"contained", "transparent", "oneline", "fold", "display", "extend", "skipwhite", "skipnl",
               "skipempty", "keepend", "excludenl", "concealends"}
    keyword_words, match_words, unit_words, groups, linked = set(), set(), set(), set(), set()
    for line in lines:
        m = re.match(r"\s*syn(?:tax)?\s+(keyword|match|region)\s+(\w+)\s*(.*)", line)
        if m:
            kind, group, rest = m.groups()
            groups.add(group)
            if kind == "keyword":
                keyword_words |= {w for w in rest.split() if "=" not in w and w not in options}
            elif kind == "match":
                words = vim_highlighted_words(vim_pattern(rest))
                match_words |= words
                if "unit" in group.lower():
                    unit_words |= words
        m = re.match(r"\s*hi(?:ghlight)?\s+(?:def\s+|default\s+)?link\s+(\w+)", line)
        if m:
            linked.add(m.group(1))
    for word in sorted(keywords - keyword_words - match_words):
        problems.append(f"Vim: keyword `{word}` is in no `syn keyword` line or `syn match` pattern")
    for word in sorted(units - unit_words):
        problems.append(f"Vim: unit `{word}` is not in the pattern of a unit group")
    for group in sorted(groups - linked):
        problems.append(f"Vim: syntax group {group} is linked to no highlight group")
    ftdetect = os.path.join(root, "editors", "vim", "ftdetect", "gpm.vim")
    try:
        with open(ftdetect, encoding="utf-8") as f:
            text = f.read()
        if not re.search(r"\*\.gpm\s.*(setf(?:iletype)?\s+gpm|f(?:ile)?t(?:ype)?=gpm)", text):
            problems.append("Vim: ftdetect/gpm.vim does not set the filetype gpm for *.gpm")
    except OSError as e:
        problems.append(f"Vim: {e}")


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    root, problems = argv[1], []
    try:
        g4_files, keywords, units = grammar_words(root)
    except OSError as e:
        print(f"check_editor_grammars: cannot read the grammar: {e}")
        return 1
    if not keywords:
        problems.append(f"no keywords found in {root}/grammar/*.g4")
    tm = check_vscode(root, keywords, units, problems)
    files, lines = check_models(root, tm, problems) if tm else (0, 0)
    check_vim(root, keywords, units, problems)
    for p in problems:
        print(p)
    what = (f"{len(keywords)} keywords and {len(units)} unit words of {', '.join(g4_files)}; "
            f"{tm.compiled if tm else 0} TextMate regexes; {files} model files ({lines} lines) tokenised")
    if problems:
        print(f"check_editor_grammars: FAILED: {len(problems)} problem(s) ({what})")
        return 1
    print(f"check_editor_grammars: OK: {what}; keywords and units highlighted by TextMate and Vim")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

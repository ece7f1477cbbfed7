#!/usr/bin/env python3
"""check_diagnostic_formats.py: gpmc's machine-readable and coloured diagnostics (docs/diagnostics.md).

  check_diagnostic_formats.py GPMC ROOT

Checks that --diagnostics-format=sarif writes one SARIF 2.1.0 log with the fields code-scanning tools require (on a
failing and on a clean check), that --diagnostics-format=json writes one JSON object per line with its fields, and
that --color=auto colours on a terminal unless NO_COLOR is set and not empty (stderr on a pseudo-terminal).
Exit status 0 when all hold, 1 otherwise (each failure printed).
"""
import json
import os
import pty
import subprocess
import sys
import tempfile

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL: " + what)


BAD_MODEL = """param size = 1 MB
let size = 2 MB
let t = size + 1 s
fn f(x: time) -> time = x + zz
"""


def run(gpmc, root, args, env=None):
    return subprocess.run([gpmc] + args, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          env=env, timeout=120)


def check_sarif(log, success, where):
    check(log.get("version") == "2.1.0", where + ": version is 2.1.0")
    check(isinstance(log.get("$schema"), str) and "sarif" in log["$schema"], where + ": $schema names SARIF")
    runs = log.get("runs")
    check(isinstance(runs, list) and len(runs) == 1, where + ": one run")
    if not runs:
        return []
    run0 = runs[0]
    driver = run0.get("tool", {}).get("driver", {})
    check(driver.get("name") == "gpmc", where + ": tool.driver.name is gpmc")
    check(isinstance(driver.get("version"), str) and driver["version"], where + ": tool.driver.version")
    rules = driver.get("rules")
    check(isinstance(rules, list), where + ": tool.driver.rules is a list")
    ids = [r.get("id") for r in rules or []]
    check(len(ids) == len(set(ids)), where + ": one rule per kind")
    for r in rules or []:
        check(isinstance(r.get("shortDescription", {}).get("text"), str), where + ": rule %s has a description" % r)
    invocations = run0.get("invocations")
    check(isinstance(invocations, list) and invocations and invocations[0].get("executionSuccessful") is success,
          where + ": invocations[0].executionSuccessful is %s" % success)
    results = run0.get("results")
    check(isinstance(results, list), where + ": results is a list")
    for r in results or []:
        check(r.get("ruleId") in ids, where + ": result's ruleId %s is a rule" % r.get("ruleId"))
        check(ids[r.get("ruleIndex", -1)] == r.get("ruleId") if 0 <= r.get("ruleIndex", -1) < len(ids) else False,
              where + ": ruleIndex points at its rule")
        check(r.get("level") in ("error", "warning", "note"), where + ": level")
        check(isinstance(r.get("message", {}).get("text"), str) and r["message"]["text"], where + ": message.text")
        for loc in r.get("locations", []):
            phys = loc.get("physicalLocation", {})
            check(isinstance(phys.get("artifactLocation", {}).get("uri"), str), where + ": artifactLocation.uri")
            region = phys.get("region", {})
            check(region.get("startLine", 0) >= 1 and region.get("startColumn", 0) >= 1, where + ": region start")
        for rel in r.get("relatedLocations", []):
            check(isinstance(rel.get("message", {}).get("text"), str), where + ": relatedLocations[].message.text")
    return results or []


def on_terminal(gpmc, root, args, env):
    """Runs gpmc with stderr on a pseudo-terminal; returns what it wrote there."""
    master, slave = pty.openpty()
    p = subprocess.Popen([gpmc] + args, cwd=root, stdout=subprocess.DEVNULL, stderr=slave, env=env)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    p.wait(timeout=120)
    os.close(master)
    return out.decode("utf-8", "replace")


def main():
    gpmc, root = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        bad = os.path.join(tmp, "bad model.gpm")
        with open(bad, "w") as f:
            f.write(BAD_MODEL)

        p = run(gpmc, root, ["check", "--diagnostics-format=sarif", bad])
        check(p.returncode == 1, "sarif: a failing check exits 1")
        check(p.stdout == b"", "sarif: nothing on stdout")
        try:
            results = check_sarif(json.loads(p.stderr), False, "sarif (errors)")
            check(len(results) >= 3, "sarif: every error is a result")
            kinds = {r["ruleId"] for r in results}
            check({"DuplicateDefinition", "UnitMismatch"} <= kinds, "sarif: the kinds are the rule ids: %s" % kinds)
            dup = [r for r in results if r["ruleId"] == "DuplicateDefinition"][0]
            uri = dup["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            check(uri.startswith("file://") and uri.endswith("bad%20model.gpm"), "sarif: an absolute path is a file URI")
            check(dup["locations"][0]["physicalLocation"]["region"]["startLine"] == 2, "sarif: the error's line")
            check(len(dup.get("relatedLocations", [])) == 1, "sarif: the note is a related location")
        except ValueError as e:
            check(False, "sarif: stderr is one JSON document (%s)" % e)

        p = run(gpmc, root, ["check", "machines/summit.gpm", "--diagnostics-format=sarif"])
        check(p.returncode == 0, "sarif: a clean check exits 0")
        try:
            check(check_sarif(json.loads(p.stderr), True, "sarif (clean)") == [], "sarif: a clean check has no results")
        except ValueError as e:
            check(False, "sarif (clean): stderr is one JSON document (%s)" % e)

        p = run(gpmc, root, ["check", "--diagnostics-format=json", bad])
        lines = p.stderr.decode().splitlines()
        check(p.returncode == 1 and len(lines) >= 3, "json: one line per error")
        for line in lines:
            try:
                d = json.loads(line)
            except ValueError:
                check(False, "json: a line is not JSON: " + line)
                continue
            for key in ("file", "line", "column", "end_line", "end_column", "kind", "severity", "message", "notes"):
                check(key in d, "json: `%s` in %s" % (key, line))
            check(d.get("severity") == "error", "json: severity")
            for n in d.get("notes", []):
                check(all(k in n for k in ("file", "line", "column", "message")), "json: a note's fields")

        env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
        red = "\x1b[1;31merror:"
        out = on_terminal(gpmc, root, ["check", bad], env)
        check(red in out, "tty: --color=auto colours on a terminal")
        out = on_terminal(gpmc, root, ["check", bad], dict(env, NO_COLOR="1"))
        check("\x1b[" not in out and "error:" in out, "tty: NO_COLOR=1 turns colour off")
        out = on_terminal(gpmc, root, ["check", bad], dict(env, NO_COLOR=""))
        check(red in out, "tty: an empty NO_COLOR is unset")
        out = on_terminal(gpmc, root, ["--color=never", "check", bad], env)
        check("\x1b[" not in out and "error:" in out, "tty: --color=never")
        out = on_terminal(gpmc, root, ["check", bad, "--diagnostics-format=json"], env)
        check("\x1b[" not in out, "tty: JSON is never coloured")
    if failures:
        print("%d checks failed" % len(failures))
        return 1
    print("diagnostic formats: SARIF, JSON Lines and colours as documented")
    return 0


if __name__ == "__main__":
    sys.exit(main())

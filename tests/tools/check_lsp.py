#!/usr/bin/env python3
"""check_lsp.py: drives `gpmc lsp` with scripted JSON-RPC messages and checks its answers (docs/lsp.md).

  check_lsp.py GPMC

Covers the lifecycle (requests before initialize, initialize, shutdown, exit status), diagnostics published on
didOpen and didChange (0-based ranges, the kind as the code), hover (value, unit, dimension, comment), definition
across an import, completion (attributes, keywords, names), and bad input: malformed JSON, a missing header, a
message that is not an object, unknown methods, invalid params. Exit status 0 when all hold, 1 otherwise.
"""
import json
import os
import subprocess
import sys
import tempfile
import urllib.parse

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL: " + what)


def frame(obj_or_text):
    body = obj_or_text if isinstance(obj_or_text, bytes) else json.dumps(obj_or_text).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_messages(data):
    out = []
    while data:
        head, _, rest = data.partition(b"\r\n\r\n")
        length = int(head.split(b":")[1])
        out.append(json.loads(rest[:length]))
        data = rest[length:]
    return out


LIB = """// lib.gpm: shared link parameters.
// The bandwidth of one PCIe link.
param link_bw = 16 GB/s
let half_bw = link_bw / 2  // half of it
"""
# The unit error is reported at `1 B`, characters 25 to 28 of line 1 (0-based).
MAIN_BAD = """import "lib"
let t = 1 GB / link_bw + 1 B
"""
MAIN_GOOD = """import "lib"
let t = 1 GB / link_bw
type fast : gpu { mem_bw = half_bw }
"""


def main():
    gpmc = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "lib.gpm"), "w") as f:
            f.write(LIB)
        main_path = os.path.join(tmp, "main model.gpm")
        uri = "file://" + urllib.parse.quote(main_path)
        lib_uri = "file://" + urllib.parse.quote(os.path.join(tmp, "lib.gpm"))
        doc = {"uri": uri}
        messages = [
            {"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover",
             "params": {"textDocument": doc, "position": {"line": 0, "character": 0}}},
            {"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"capabilities": {}}},
            {"jsonrpc": "2.0", "method": "initialized", "params": {}},
            b"{not json",
            b"[1, 2]",
            {"jsonrpc": "2.0", "id": 3, "method": "workspace/noSuchMethod", "params": {}},
            {"jsonrpc": "2.0", "method": "$/noSuchNotification", "params": {}},
            {"jsonrpc": "2.0", "method": "textDocument/didOpen",
             "params": {"textDocument": {"uri": uri, "languageId": "gpm", "version": 1, "text": MAIN_BAD}}},
            {"jsonrpc": "2.0", "method": "textDocument/didChange",
             "params": {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": MAIN_GOOD}]}},
            # line 1 `let t = 1 GB / link_bw`: link_bw at characters 15 to 21
            {"jsonrpc": "2.0", "id": 4, "method": "textDocument/hover",
             "params": {"textDocument": doc, "position": {"line": 1, "character": 17}}},
            {"jsonrpc": "2.0", "id": 5, "method": "textDocument/definition",
             "params": {"textDocument": doc, "position": {"line": 1, "character": 17}}},
            {"jsonrpc": "2.0", "id": 6, "method": "textDocument/completion",
             "params": {"textDocument": doc, "position": {"line": 2, "character": 18}}},
            {"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover", "params": {"textDocument": doc}},
            {"jsonrpc": "2.0", "id": 8, "method": "textDocument/hover",
             "params": {"textDocument": {"uri": "file:///nowhere.gpm"}, "position": {"line": 0, "character": 0}}},
            {"jsonrpc": "2.0", "id": 9, "method": "textDocument/hover",
             "params": {"textDocument": doc, "position": {"line": 2, "character": 29}}},  # half_bw (trailing comment)
            {"jsonrpc": "2.0", "id": 10, "method": "textDocument/definition",
             "params": {"textDocument": doc, "position": {"line": 0, "character": 9}}},  # the import
            {"jsonrpc": "2.0", "id": 11, "method": "textDocument/hover",
             "params": {"textDocument": doc, "position": {"line": 2, "character": 20}}},  # the attribute mem_bw
            {"jsonrpc": "2.0", "method": "textDocument/didChange",
             "params": {"textDocument": {"uri": uri}, "contentChanges": [{"text": "machine {{{ \x00 \xff"}]}},
            {"jsonrpc": "2.0", "id": 12, "method": "textDocument/hover",
             "params": {"textDocument": doc, "position": {"line": 99, "character": 99}}},
            {"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {"textDocument": doc}},
            {"jsonrpc": "2.0", "id": 13, "method": "shutdown"},
            {"jsonrpc": "2.0", "id": 14, "method": "textDocument/hover", "params": {}},
            {"jsonrpc": "2.0", "method": "exit"},
        ]
        data = b"".join(frame(m) for m in messages[:3])
        data += b"X-No-Length: 1\r\n\r\n"  # a header block without Content-Length
        data += b"".join(frame(m) for m in messages[3:])
        p = subprocess.run([gpmc, "lsp"], input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        check(p.returncode == 0, "exit after shutdown: status 0 (got %d; stderr %s)" % (p.returncode, p.stderr[-500:]))
        try:
            replies = read_messages(p.stdout)
        except (ValueError, IndexError) as e:
            check(False, "the output is framed JSON-RPC (%s): %r" % (e, p.stdout[:300]))
            return 1
        by_id = {r["id"]: r for r in replies if "id" in r and r["id"] is not None}
        errors_without_id = [r for r in replies if "id" in r and r["id"] is None]
        published = [r["params"] for r in replies if r.get("method") == "textDocument/publishDiagnostics"]

        check(by_id[1].get("error", {}).get("code") == -32002, "a request before initialize: ServerNotInitialized")
        caps = by_id[2].get("result", {}).get("capabilities", {})
        check(caps.get("hoverProvider") and caps.get("definitionProvider") and "completionProvider" in caps,
              "initialize: hover, definition and completion")
        check(caps.get("textDocumentSync", {}).get("change") == 1, "initialize: full document sync")
        codes = sorted(r["error"]["code"] for r in errors_without_id)
        check(codes == [-32700, -32700, -32600], "bad header, malformed JSON, non-object: errors %s" % codes)
        check(by_id[3].get("error", {}).get("code") == -32601, "an unknown method: MethodNotFound")

        check(len(published) >= 3, "diagnostics published on open, change, change and close")
        first = published[0]
        check(first["uri"] == uri, "publishDiagnostics names the document")
        diags = first["diagnostics"]
        check(len(diags) == 1 and diags[0].get("code") == "UnitMismatch" and diags[0].get("severity") == 1,
              "didOpen: the unit error: %s" % diags)
        if diags:
            r = diags[0]["range"]
            check(r["start"]["line"] == 1 and r["start"]["character"] == 25 and r["end"]["character"] == 28,"the error's range is 0-based: %s" % r)
        check(published[1]["diagnostics"] == [], "didChange: fixed, no diagnostics: %s" % published[1]["diagnostics"])

        hover = (by_id[4].get("result") or {}).get("contents", {}).get("value", "")
        for part in ("link_bw = 16 GB/s", "bytes/time", "The bandwidth of one PCIe link.", "lib.gpm"):
            check(part in hover, "hover shows %r: %r" % (part, hover))
        loc = by_id[5].get("result") or {}
        check(loc.get("uri") == lib_uri and loc.get("range", {}).get("start") == {"line": 2, "character": 6},
              "definition across the import: %s" % loc)
        items = (by_id[6].get("result") or {}).get("items", [])
        labels = {i["label"] for i in items}
        for label in ("mem_bw", "peak_fp64", "machine", "param", "link_bw", "half_bw", "t"):
            check(label in labels, "completion offers %s" % label)
        check(by_id[7].get("error", {}).get("code") == -32602, "hover without a position: InvalidParams")
        check("result" in by_id[8] and by_id[8]["result"] is None, "hover in a document not open: null")
        hover9 = (by_id[9].get("result") or {}).get("contents", {}).get("value", "")
        check("half_bw = 8 GB/s" in hover9 and "half of it" in hover9, "hover of a let with a trailing comment: %r" % hover9)
        check((by_id[10].get("result") or {}).get("uri") == lib_uri, "definition of an import: the file")
        hover11 = (by_id[11].get("result") or {}).get("contents", {}).get("value", "")
        check("device memory bandwidth" in hover11, "hover of an attribute: its meaning: %r" % hover11)
        check(any(d for d in published[2]["diagnostics"]), "garbage text: diagnostics, no crash")
        check("result" in by_id[12], "hover past the end of a broken document: an answer")
        check(published[-1] == {"uri": uri, "diagnostics": []}, "didClose clears the diagnostics")
        check("result" in by_id[13] and by_id[13]["result"] is None, "shutdown: null result")
        check(by_id[14].get("error", {}).get("code") == -32600, "a request after shutdown: InvalidRequest")

        # An import opened and changed in the editor: the importer is checked again with the editor's text.
        open_lib = {"jsonrpc": "2.0", "method": "textDocument/didOpen",
                    "params": {"textDocument": {"uri": lib_uri, "languageId": "gpm", "version": 1,
                                                "text": LIB.replace("16 GB/s", "16 GB")}}}
        open_main = {"jsonrpc": "2.0", "method": "textDocument/didOpen",
                     "params": {"textDocument": {"uri": uri, "languageId": "gpm", "version": 1, "text": MAIN_GOOD}}}
        shutdown, exit_ = messages[-3], messages[-1]
        session = [messages[1], messages[2], open_main, open_lib, shutdown, exit_]
        p = subprocess.run([gpmc, "lsp"], input=b"".join(frame(m) for m in session), stdout=subprocess.PIPE,
                           timeout=120)
        published = [r["params"] for r in read_messages(p.stdout) if r.get("method") == "textDocument/publishDiagnostics"]
        check([d["uri"] for d in published] == [uri, lib_uri, uri], "an import's change checks its importer again")
        check(published and published[0]["diagnostics"] == [], "the importer is clean at first")
        check(published and [d.get("code") for d in published[-1]["diagnostics"]] == ["UnitMismatch"],
              "the importer is checked with the import's new text: %s" % (published[-1:],))

        # A kernel named by `run`: hover shows it (with its comment), definition goes to its declaration.
        app_uri = "file://" + urllib.parse.quote(os.path.join(tmp, "app.gpm"))
        app_text = "app a {\n  kernel k { flops = 1 Gflop; bytes = 1 GB }  // the only kernel\n  run k\n}\n"
        app_doc = {"uri": app_uri}
        session = [messages[1], messages[2],
                   {"jsonrpc": "2.0", "method": "textDocument/didOpen",
                    "params": {"textDocument": {"uri": app_uri, "languageId": "gpm", "version": 1, "text": app_text}}},
                   {"jsonrpc": "2.0", "id": 20, "method": "textDocument/hover",
                    "params": {"textDocument": app_doc, "position": {"line": 2, "character": 6}}},
                   {"jsonrpc": "2.0", "id": 21, "method": "textDocument/definition",
                    "params": {"textDocument": app_doc, "position": {"line": 2, "character": 6}}},
                   shutdown, exit_]
        p = subprocess.run([gpmc, "lsp"], input=b"".join(frame(m) for m in session), stdout=subprocess.PIPE,
                           timeout=120)
        by_id = {r["id"]: r for r in read_messages(p.stdout) if r.get("id") is not None}
        hover = (by_id[20].get("result") or {}).get("contents", {}).get("value", "")
        check("kernel k" in hover and "flops, bytes" in hover and "the only kernel" in hover,
              "hover of a kernel: %r" % hover)
        loc = by_id[21].get("result") or {}
        check(loc.get("uri") == app_uri and loc.get("range", {}).get("start") == {"line": 1, "character": 9},
              "definition of a kernel: %s" % loc)

        # The end of input without `exit`, and `exit` without shutdown: status 1, no crash.
        p = subprocess.run([gpmc, "lsp"], input=frame(messages[1]), stdout=subprocess.PIPE, timeout=60)
        check(p.returncode == 1, "end of input without shutdown: status 1")
        p = subprocess.run([gpmc, "lsp"], input=b"Content-Length: 99999999999\r\n\r\n", stdout=subprocess.PIPE,
                           timeout=60)
        check(p.returncode == 1, "an absurd Content-Length: refused, status 1")
    if failures:
        print("%d checks failed" % len(failures))
        return 1
    print("lsp: lifecycle, diagnostics, hover, definition, completion and bad input as documented")
    return 0


if __name__ == "__main__":
    sys.exit(main())

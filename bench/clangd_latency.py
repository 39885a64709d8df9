#!/usr/bin/env python3
"""torch-clangd's latency as an editor sees it (docs/performance.md, "Editor
latency"). A benchmark, not a test: it asserts nothing about time.

On a copy of examples/buggy (real LibTorch headers), over LSP on stdio
(test/clangd/Inputs/lsp_client.py's Server), each run with a fresh server:

  open     didOpen of model.cpp -> the first publishDiagnostics that carries
           a libtorch diagnostic (clangd builds the preamble, <torch/torch.h>
           and model.h, then the AST, then runs the checks);
  edit     a didChange in a function body that adds one more lookup the
           checks report -> the publishDiagnostics of that version, which
           must have the new finding (the script stops with a message when
           it does not, instead of waiting; the preamble is reused);
  include  a didChange that adds an #include at the top (the preamble
           changes) -> the publishDiagnostics of that version;
and, for scale, `clang++-19 -fsyntax-only model.cpp` with the same flags.
Medians of --runs runs, with the minimum and maximum.

Usage: bench/clangd_latency.py [--build build] [--runs 5] [--json out.json]
(--runs 1 is the smoke run ctest's bench.smoke.clangd_latency makes.)
"""

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "test", "clangd", "Inputs"))
from lsp_client import Server  # noqa: E402

TIMEOUT = 600


def libtorch_diagnostics(message, uri, version=None):
    if message.get("method") != "textDocument/publishDiagnostics":
        return None
    params = message["params"]
    if params["uri"] != uri or (version is not None and params.get("version") != version):
        return None
    found = [d for d in params["diagnostics"]
             if str(d.get("code", "")).startswith("libtorch-")]
    return found or None


def published(message, uri, version):
    """Any publishDiagnostics of `uri` at `version`, libtorch ones or not."""
    if message.get("method") != "textDocument/publishDiagnostics":
        return False
    params = message["params"]
    return params["uri"] == uri and params.get("version") == version


# The body edit: after this line of model.cpp's history() ...
EDIT_ANCHOR = "auto pos = torch::arange(padded.size(1), torch::kLong);"
# ... one more lookup that the checks report.
EDIT_LINE = "  auto again = pos_emb(pos);"


def body_edit(text):
    lines = text.split("\n")
    at = [i for i, line in enumerate(lines) if EDIT_ANCHOR in line]
    if len(at) != 1:
        raise SystemExit("clangd_latency: examples/buggy/model.cpp has %d lines with %r, "
                         "expected one: change EDIT_ANCHOR" % (len(at), EDIT_ANCHOR))
    return "\n".join(lines[:at[0] + 1] + [EDIT_LINE] + lines[at[0] + 1:])


def one_run(clangd, project, text):
    path = os.path.join(project, "model.cpp")
    uri = "file://" + urllib.request.pathname2url(path)
    deadline = time.monotonic() + TIMEOUT
    server = Server([clangd, "--compile-commands-dir=" + os.path.join(project, "build"),
                     "--background-index=false", "--log=error"], subprocess.DEVNULL)
    try:
        server.request("initialize", {
            "processId": os.getpid(),
            "rootUri": "file://" + urllib.request.pathname2url(project),
            "capabilities": {"textDocument": {"publishDiagnostics": {}}},
        }, deadline)
        server.notify("initialized", {})
        start = time.monotonic()
        server.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "cpp", "version": 1, "text": text}})
        first = server.wait(lambda m: libtorch_diagnostics(m, uri), deadline,
                            "the first libtorch diagnostics")
        opened = time.monotonic() - start
        before = len(libtorch_diagnostics(first, uri))

        # A body edit: one more lookup of the position table with the
        # unbounded positions of history(), which the current rules report
        # (a run-time length into a table of fixed rows).
        edited = body_edit(text)
        start = time.monotonic()
        server.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"text": edited}]})
        after = server.wait(lambda m: published(m, uri, 2), deadline,
                            "the diagnostics of the body edit")
        edit = time.monotonic() - start
        got = libtorch_diagnostics(after, uri, 2) or []
        if len(got) != before + 1:
            raise SystemExit(
                "clangd_latency: the body edit gave %d libtorch diagnostics, %d expected "
                "(the edit no longer makes one more finding; change body_edit):\n%s"
                % (len(got), before + 1, "\n".join(
                    "  %d: %s" % (d["range"]["start"]["line"] + 1, d["message"]) for d in got)))

        # An edit of the preamble: one more include at the top.
        included = "#include <vector>\n" + edited
        start = time.monotonic()
        server.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": 3},
            "contentChanges": [{"text": included}]})
        server.wait(lambda m: libtorch_diagnostics(m, uri, 3), deadline,
                    "the diagnostics of the include edit")
        include = time.monotonic() - start
        server.request("shutdown", None, deadline)
        server.notify("exit", None)
        # clangd joins its workers before it exits: the preamble of the
        # include edit may still be building on a loaded machine. What is
        # measured is done; the exit gets what is left of the deadline.
        server.proc.wait(timeout=max(30, deadline - time.monotonic()))
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
    return {"open": opened, "edit": edit, "include": include}


def syntax_only(project):
    db = json.load(open(os.path.join(project, "build", "compile_commands.json")))
    entry = next(e for e in db if e["file"].endswith("model.cpp"))
    args = entry.get("arguments") or shlex.split(entry["command"])
    args = [a for a in args[1:] if a not in ("-c",)]
    if "-o" in args:
        i = args.index("-o")
        del args[i:i + 2]
    start = time.monotonic()
    subprocess.run(["clang++-19", "-fsyntax-only"] + args, cwd=entry["directory"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json")
    args = ap.parse_args()
    clangd = os.path.join(os.path.abspath(args.build), "bin", "torch-clangd")
    if not os.path.exists(clangd):
        sys.exit("no %s: build torch-clangd first" % clangd)

    work = tempfile.mkdtemp(prefix="clangd-latency-")
    try:
        project = os.path.join(work, "ex")
        shutil.copytree(os.path.join(ROOT, "examples", "buggy"), project)
        with open(os.path.join(project, ".clangd"), "w") as f:
            f.write("Diagnostics:\n  ClangTidy:\n    Add: libtorch-*\n")
        subprocess.run(["cmake", "-S", project, "-B", os.path.join(project, "build"),
                        "-G", "Ninja"], check=True, stdout=subprocess.DEVNULL)
        text = open(os.path.join(project, "model.cpp"), encoding="utf-8").read()
        # A user-wide clangd config must not change what is measured.
        os.environ["XDG_CONFIG_HOME"] = os.path.join(work, "xdg")
        runs, parses = [], []
        for i in range(args.runs):
            runs.append(one_run(clangd, project, text))
            parses.append(syntax_only(project))
            print("run %d: open %.2f s, edit %.2f s, include %.2f s; clang++ -fsyntax-only %.2f s"
                  % (i + 1, runs[-1]["open"], runs[-1]["edit"], runs[-1]["include"],
                     parses[-1]), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    def row(name, values):
        return "| %s | %.2f | %.2f | %.2f |" % (name, statistics.median(values),
                                               min(values), max(values))
    print()
    print("| model.cpp of examples/buggy, %d runs | median (s) | min | max |" % args.runs)
    print("|---|---:|---:|---:|")
    print(row("open -> first libtorch diagnostics", [r["open"] for r in runs]))
    print(row("body edit -> updated diagnostics", [r["edit"] for r in runs]))
    print(row("include edit (new preamble) -> updated diagnostics", [r["include"] for r in runs]))
    print(row("`clang++-19 -fsyntax-only model.cpp`", parses))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"runs": runs, "syntax_only": parses}, f, indent=1)


if __name__ == "__main__":
    main()

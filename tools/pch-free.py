#!/usr/bin/env python3
"""Does each linted file compile without the build's precompiled headers?

tools/self-lint.sh lints with the PCH (TORCHTIDY_PCH), which brings in LLVM's,
Clang's and the standard headers whether a file includes them or not. A file
that uses a declaration only the PCH brings in builds with the PCH and fails
without it. include-cleaner, run by the lint, names the header of each
declaration a file uses and does not include directly (its "missing
include" findings, with the header to insert in --export-fixes). A header the
file reaches through its own includes is no problem; this script takes the
headers that the file does not reach (its compile command without the PCH,
run with `-M`, lists what it reaches) and, for a file with any, runs its
compile command without the PCH (`-fsyntax-only`): an error is a finding.

Usage: pch-free.py [-j N] NOPCH_COMPILE_COMMANDS.json OUT_DIR FILE...
  OUT_DIR holds the lint's --export-fixes files, named as self-lint.sh names
  them (the file's path with '/' as '_', .yaml).
Prints one line a file that fails (the file, the header it misses, the
first error) and exits 1 if any does.
"""

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys

# include-cleaner's missing include: its fix inserts the header.
MISSING = re.compile(r"^\s+Message:\s+'no header providing .* is directly included'")
INSERT = re.compile(r"^\s+ReplacementText:\s+[\"']#include ([<\"])([^>\"]+)[>\"]")


def missing_headers(yaml_path):
    """The headers include-cleaner would insert for the file's missing
    includes: (the name, the name as written with its <> or "")."""
    headers, in_missing = set(), False
    if not os.path.exists(yaml_path):
        return headers
    for line in open(yaml_path, encoding="utf-8"):
        if line.lstrip().startswith("- DiagnosticName:"):
            in_missing = "misc-include-cleaner" in line
        elif in_missing and line.lstrip().startswith("Message:"):
            in_missing = bool(MISSING.match(line))
        elif in_missing:
            m = INSERT.match(line)
            if m:
                headers.add((m.group(2), m.group(1) + m.group(2) +
                             (">" if m.group(1) == "<" else '"')))
    return headers


def command(entry, extra):
    args = list(entry["arguments"])
    out = []
    i = 0
    while i < len(args):
        if args[i] in ("-o", "-MF", "-MT", "-MQ"):
            i += 2
            continue
        if args[i] in ("-c", "-MD", "-MMD"):
            i += 1
            continue
        out.append(args[i])
        i += 1
    return out[:1] + extra + out[1:]


def reached(entry):
    """The headers the file reaches through its own includes (absolute paths)."""
    r = subprocess.run(command(entry, ["-M", "-MF", "-"]), cwd=entry["directory"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        return None, r.stderr
    deps = r.stdout.replace("\\\n", " ").split()[1:]
    return [os.path.normpath(os.path.join(entry["directory"], d)) for d in deps], ""


def check(entry, headers):
    deps, err = reached(entry)
    if deps is None:
        return entry["file"], "", first_error(err)
    unreached = sorted(shown for h, shown in headers
                       if not any(d.endswith("/" + h) for d in deps))
    if not unreached:
        return None
    r = subprocess.run(command(entry, ["-fsyntax-only"]), cwd=entry["directory"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode == 0:
        return None
    return entry["file"], ", ".join(unreached), first_error(r.stderr)


def first_error(stderr):
    for line in stderr.splitlines():
        if "error:" in line:
            return line.strip()
    return stderr.strip().splitlines()[0] if stderr.strip() else "failed"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("db")
    ap.add_argument("out")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 1)
    ap.add_argument("files", nargs="*")
    a = ap.parse_intermixed_args()
    entries = {os.path.realpath(e["file"]): e for e in json.load(open(a.db))}
    work = []
    for f in a.files:
        entry = entries.get(os.path.realpath(f))
        headers = missing_headers(os.path.join(a.out, f.replace("/", "_") + ".yaml"))
        # A file outside the build's commands is linted with flags of its own
        # and no PCH: nothing to compare.
        if entry and headers:
            work.append((entry, headers))
    failed = []
    with concurrent.futures.ThreadPoolExecutor(max(1, a.j)) as pool:
        for res in pool.map(lambda w: check(*w), work):
            if res:
                failed.append(res)
    for f, headers, error in sorted(failed):
        print("%s: does not compile without the precompiled headers%s: %s" % (
            os.path.relpath(f), " (uses " + headers + ", which it does not include)"
            if headers else "", error))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

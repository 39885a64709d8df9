#!/usr/bin/env python3
"""Runs torch-tidy on each file in every way it can run, and fails unless all
give the same output and the same exported diagnostics (docs/performance.md):

  full    --full-traversal --no-preamble-cache  (what clang-tidy itself does)
  scope   the checks traverse user declarations only, no preamble cache
  cold    scope and the preamble cache, from an empty cache directory
  warm    the same again, every preamble now served from the cache

The cache must really serve: a file whose preamble is not empty must be a
"hit" in the warm run (or the test fails), and at least --min-warnings
warnings must come out in all, so an empty comparison cannot pass.

Usage: compare_modes.py --torch-tidy BIN --work DIR [--min-warnings N]
                        [-p BUILD | --flags '...'] [--checks GLOB] FILE...
"""

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys

CACHE_LOG = "torch-tidy: preamble cache: "
# --cache-verbose also says what the traversal scope is (not a finding).
VERBOSE_LOGS = (CACHE_LOG, "torch-tidy: traversal scope: ")


def run(tidy, mode, work, args, f):
    fixes = os.path.join(work, "%s-%s.yaml" % (os.path.basename(f), mode))
    cmd = [tidy] + mode_flags(mode, work) + ["--export-fixes=" + fixes] + args[0] + [f] + args[1]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    log = [l for l in r.stderr.splitlines() if l.startswith(CACHE_LOG)]
    err = "\n".join(l for l in r.stderr.splitlines() if not l.startswith(VERBOSE_LOGS))
    yaml = open(fixes).read() if os.path.exists(fixes) else ""
    return {"rc": r.returncode, "out": r.stdout, "err": err, "fixes": yaml, "log": log,
            "cmd": " ".join(shlex.quote(c) for c in cmd)}


def mode_flags(mode, work):
    cache = "--cache-dir=" + os.path.join(work, "cache")
    return {"full": ["--full-traversal", "--no-preamble-cache"],
            "scope": ["--no-preamble-cache"],
            "cold": [cache, "--cache-verbose"],
            "warm": [cache, "--cache-verbose"]}[mode]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--torch-tidy", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--checks", default="-*,libtorch-*")
    ap.add_argument("-p", dest="build")
    ap.add_argument("--flags", default="", help="compiler flags after --")
    ap.add_argument("--header-filter", default="")
    ap.add_argument("--min-warnings", type=int, default=1)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    before = ["--checks=" + a.checks]
    if a.header_filter:
        before.append("--header-filter=" + a.header_filter)
    if a.build:
        before += ["-p", a.build]
    after = ["--"] + shlex.split(a.flags) if not a.build else []
    failures, warnings, hits = [], 0, 0
    for f in a.files:
        results = {m: run(a.torch_tidy, m, a.work, (before, after), f)
                   for m in ("full", "scope", "cold", "warm")}
        ref = results["full"]
        for m in ("scope", "cold", "warm"):
            for what in ("rc", "out", "err", "fixes"):
                if results[m][what] != ref[what]:
                    failures.append("%s: %s differs between full and %s\n  full: %s\n  %s: %s\n"
                                    "--- full\n%s\n--- %s\n%s" % (
                                        f, what, m, ref["cmd"], m, results[m]["cmd"],
                                        ref[what], m, results[m][what]))
        warm = results["warm"]["log"]
        served = [l for l in warm if re.search(r": hit [0-9a-f]{40}", l)]
        skipped = [l for l in warm if "no leading system includes" in l]
        if not served and not skipped:
            failures.append("%s: the warm run did not use the cache: %s" % (f, warm))
        hits += len(served)
        warnings += len(re.findall(r"warning: ", ref["out"]))
    if warnings < a.min_warnings:
        failures.append("only %d warnings in all, expected at least %d" % (warnings, a.min_warnings))
    for fail in failures:
        print("FAIL: " + fail)
    print("compared %d files in 4 modes: %d warnings each, %d served from the cache when warm"
          % (len(a.files), warnings, hits))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

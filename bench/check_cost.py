#!/usr/bin/env python3
"""What the libtorch checks cost next to parsing, on one real translation unit.

For a file listed in a compile_commands.json it runs, several times each and
interleaved (so load on the machine hits every variant alike):
  * clang++ -fsyntax-only with the file's own flags (the parse alone);
  * torch-tidy with a baseline check that matches nothing in the AST
    (portability-restrict-system-includes: preprocessor callbacks only), so
    that clang-tidy's own fixed costs are counted once;
  * torch-tidy with that baseline plus each libtorch check, alone and all
    together;
and reports the median CPU time (user + system) of each, the cost of each
check as the difference to the baseline, as a share of the parse, and the
per-check figures of --enable-check-profile (whose timers add their own
overhead to every matcher call).

Usage: check_cost.py --build BUILD -p COMPILE_DB FILE [--runs N] [--checks a,b]
"""

import argparse
import json
import os
import re
import resource
import shlex
import statistics
import subprocess
import sys

BASELINE = "portability-restrict-system-includes"


def cpu_time_of(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0 and "warning" not in r.stdout:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), r.stdout[-4000:]))
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), r.stdout


def syntax_only_command(entry, clangxx):
    if "arguments" in entry:
        args = list(entry["arguments"])
    else:
        args = shlex.split(entry["command"])
    out, skip = [clangxx, "-fsyntax-only"], False
    for a in args[1:]:
        if skip:
            skip = False
            continue
        if a == "-o":
            skip = True
            continue
        if a == "-c" or os.path.abspath(os.path.join(entry["directory"], a)) == \
                os.path.abspath(os.path.join(entry["directory"], entry["file"])):
            continue
        out.append(a)
    out.append(os.path.join(entry["directory"], entry["file"]))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("-p", dest="db", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--clangxx", default="clang++-19")
    ap.add_argument("--checks", default="")
    ap.add_argument("file")
    args = ap.parse_args()

    tidy = os.path.join(args.build, "bin", "torch-tidy")
    listed = subprocess.run([tidy, "--checks=-*,libtorch-*", "--list-checks"],
                            stdout=subprocess.PIPE, text=True).stdout
    checks = [l.strip() for l in listed.splitlines() if l.strip().startswith("libtorch-")]
    if args.checks:
        checks = [c for c in checks if c in args.checks.split(",")]

    db = json.load(open(os.path.join(args.db, "compile_commands.json")))
    target = os.path.abspath(args.file)
    entry = next((e for e in db if os.path.abspath(
        os.path.join(e["directory"], e["file"])) == target), None)
    if entry is None:
        sys.exit("%s is not in %s/compile_commands.json" % (args.file, args.db))

    variants = {"parse (clang++ -fsyntax-only)": syntax_only_command(entry, args.clangxx)}
    tidy_base = [tidy, "-p", args.db, "--quiet", target]
    variants["torch-tidy baseline"] = tidy_base + ["--checks=-*," + BASELINE]
    for c in checks:
        variants[c] = tidy_base + ["--checks=-*,%s,%s" % (BASELINE, c)]
    variants["all libtorch checks"] = tidy_base + ["--checks=-*,%s,libtorch-*" % BASELINE]

    times = {k: [] for k in variants}
    for _ in range(args.runs):
        for name, cmd in variants.items():
            times[name].append(cpu_time_of(cmd)[0])
    med = {k: statistics.median(v) for k, v in times.items()}

    _, prof = cpu_time_of(tidy_base + ["--checks=-*,%s,libtorch-*" % BASELINE,
                                       "--enable-check-profile"])
    profile = {}
    for line in prof.splitlines():
        m = re.match(r"\s*[\d.]+ \(.*\)\s+[\d.]+ \(.*\)\s+([\d.]+) \(.*\)\s+[\d.]+ \(.*\)\s+(\S+)$", line)
        if m:
            profile[m.group(2)] = float(m.group(1))

    parse = med["parse (clang++ -fsyntax-only)"]
    base = med["torch-tidy baseline"]
    print("file: %s (%d runs each, median CPU seconds)" % (args.file, args.runs))
    print()
    print("| run | CPU s | cost over baseline | share of parse | --enable-check-profile s |")
    print("|---|---:|---:|---:|---:|")
    for name in variants:
        t = med[name]
        if name.startswith("libtorch-") or name == "all libtorch checks":
            d = t - base
            pf = profile.get(name, "")
            if name == "all libtorch checks":
                pf = sum(v for k, v in profile.items() if k.startswith("libtorch-"))
            print("| %s | %.2f | %+.2f | %+.1f%% | %s |" % (
                name, t, d, 100.0 * d / parse, ("%.3f" % pf) if pf != "" else ""))
        else:
            print("| %s | %.2f | | | |" % (name, t))
    if BASELINE in profile:
        print()
        print("--enable-check-profile charges the baseline check %.3f s: the "
              "profiler's own floor." % profile[BASELINE])


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Runs torch-tidy on each file in every way it can run, and fails unless all
give the same output and the same exported diagnostics (docs/performance.md):

  full    --full-traversal, no caches  (what clang-tidy itself does)
  scope   the checks traverse user declarations only, no caches
  cold    scope and the preamble cache, from an empty cache directory
  warm    the same again, every preamble now served from the cache
  rcold   scope, the (now warm) preamble cache and the results cache, which
          stores the file's results
  rwarm   the same again, every file replayed from the results cache

Compared with `full`: the exit status, stdout, stderr (without the caches'
--cache-verbose lines, and with the summary line's time and cache counts
masked) and the --export-fixes file.

With --project, the files are also analysed as one project (-p with a
compile_commands.json of them all, -j2), with --sarif and --export-fixes,
once over all lines and once with --changed-lines (a diff adding the first
half of each file), three ways: no caches and the whole AST (pfull), with
the caches from empty (pcold) and again (pwarm, every file replayed from the
results cache); exit status, stdout, stderr (summary masked), SARIF and the
merged fixes must be the same.

The caches must really serve: a file whose preamble is not empty must be a
preamble "hit" when warm, every file the results cache stored must be a
results "hit" when rwarm (and in pwarm), and at least --min-warnings
warnings must come out in all, so an empty comparison cannot pass.

The files are run -j at a time, sharing the preamble cache directory as a
project's files do: first full, scope and cold of every file, then warm,
rcold and rwarm of every file.

With --std-from-run, each file is compiled in the language standard its
check test runs it in: the -std= of its first %check_clang_tidy RUN line,
else check_clang_tidy.py's default (c++17), before --flags.

Usage: compare_modes.py --torch-tidy BIN --work DIR [--min-warnings N]
                        [-p BUILD | --flags '...' [--std-from-run]]
                        [--checks GLOB] [-j N] [--project] FILE...
"""

import argparse
import collections
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

CACHE_LOGS = ("torch-tidy: preamble cache: ", "torch-tidy: results cache: ",
              "torch-tidy: traversal scope: ", "torch-tidy: project summary: ")
SUMMARY = re.compile(r"^(torch-tidy: \d+ files? analysed.*); \d+\.\d s; "
                     r"(results cache: \d+ hits?, \d+ miss(es)?|no results cache)$")
MODES = ("full", "scope", "cold", "warm", "rcold", "rwarm")
PROJECT_MODES = ("pfull", "pcold", "pwarm")


def masked(stderr):
    """stderr without the cache logs, the summary's varying parts masked."""
    out = []
    for line in stderr.splitlines():
        if line.startswith(CACHE_LOGS):
            continue
        m = SUMMARY.match(line)
        out.append(m.group(1) + "; <time>; <results cache>" if m else line)
    return "\n".join(out)


def read(path):
    return open(path).read() if os.path.exists(path) else ""


def run(cmd, outputs):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    res = {"rc": r.returncode, "out": r.stdout, "err": masked(r.stderr),
           "log": [l for l in r.stderr.splitlines() if l.startswith(CACHE_LOGS)],
           "summary": [l for l in r.stderr.splitlines() if SUMMARY.match(l)],
           "cmd": " ".join(shlex.quote(c) for c in cmd)}
    for what, path in outputs.items():
        res[what] = read(path)
    return res


RUN_STD = re.compile(r"RUN:\s*%check_clang_tidy\b.*?\s-std=(\S+)")


def run_std(path):
    """The -std= flag of the file's first %check_clang_tidy RUN line, or
    check_clang_tidy.py's default."""
    for line in open(path):
        if "RUN:" in line and "%check_clang_tidy" in line:
            m = RUN_STD.search(line)
            return "-std=" + (m.group(1) if m else "c++17")
    return "-std=c++17"


def files_flags(a):
    """Each file's compiler flags (after --), its RUN line read once."""
    return {f: ([run_std(f)] if a.std_from_run else []) + shlex.split(a.flags)
            for f in a.files}


def mode_flags(mode, work):
    pcache = rcache = "--cache-dir=" + os.path.join(work, "cache")
    return {"full": ["--full-traversal", "--no-preamble-cache", "--no-results-cache"],
            "scope": ["--no-preamble-cache", "--no-results-cache"],
            "cold": [pcache, "--cache-verbose", "--no-results-cache"],
            "warm": [pcache, "--cache-verbose", "--no-results-cache"],
            "rcold": [rcache, "--cache-verbose"],
            "rwarm": [rcache, "--cache-verbose"]}[mode]


def compare(name, results, ref_mode, modes, forms, failures):
    ref = results[ref_mode]
    for m in modes:
        for what in forms:
            if results[m][what] != ref[what]:
                failures.append("%s: %s differs between %s and %s\n  %s: %s\n  %s: %s\n"
                                "--- %s\n%s\n--- %s\n%s" % (
                                    name, what, ref_mode, m, ref_mode, ref["cmd"], m,
                                    results[m]["cmd"], ref[what], ref_mode, m,
                                    results[m][what]))


def half_diff(files):
    """A unified diff that adds the first half of each file's lines."""
    out = []
    for f in files:
        n = max(1, len(open(f).read().splitlines()) // 2)
        out += ["--- a/" + f.lstrip("/"), "+++ b/" + f.lstrip("/"), "@@ -0,0 +1,%d @@" % n]
        out += ["+x"] * n
    return "\n".join(out) + "\n"


def compare_project(a, work, files, flags_of, stored, failures):
    """The project forms: terminal output, SARIF, merged fixes, exit status,
    over all lines and over the lines of a diff."""
    proj = os.path.join(work, "project")
    os.makedirs(proj)
    # As the runner names them (and as a diff would): no `..` left.
    paths = [os.path.normpath(os.path.abspath(f)) for f in files]
    entries = [{"directory": proj, "file": p, "arguments": ["clang++"] + flags_of[f] + ["-c", p]}
               for f, p in zip(files, paths)]
    files = paths
    json.dump(entries, open(os.path.join(proj, "compile_commands.json"), "w"), indent=1)
    diff = os.path.join(work, "half.diff")
    open(diff, "w").write(half_diff(files))
    cache = "--cache-dir=" + os.path.join(work, "pcache")
    flags = {"pfull": ["--full-traversal", "--no-preamble-cache", "--no-results-cache"],
             "pcold": [cache], "pwarm": [cache]}
    hits = 0
    for variant, extra in (("all lines", []), ("changed lines", ["--changed-lines=" + diff])):
        results = {}
        for m in PROJECT_MODES:
            sarif = os.path.join(work, "%s-%s.sarif" % (m, len(extra)))
            fixes = os.path.join(work, "%s-%s.yaml" % (m, len(extra)))
            cmd = ([a.torch_tidy, "-p", proj, "--checks=" + a.checks, "-j2", "--no-progress",
                    "--sarif=" + sarif, "--export-fixes=" + fixes] + flags[m] + extra)
            if a.header_filter:
                cmd.append("--header-filter=" + a.header_filter)
            results[m] = run(cmd, {"sarif": sarif, "fixes": fixes})
        compare("project, " + variant, results, "pfull", ("pcold", "pwarm"),
                ("rc", "out", "err", "sarif", "fixes"), failures)
        summary = "".join(results["pwarm"]["summary"])
        m = re.search(r"results cache: (\d+) hits?, (\d+) miss", summary)
        if not m or int(m.group(1)) != stored:
            failures.append("project, %s: the warm run did not replay the %d stored files: %s"
                            % (variant, stored, summary))
        else:
            hits += int(m.group(1))
    return hits


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--torch-tidy", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--checks", default="-*,libtorch-*")
    ap.add_argument("-p", dest="build")
    ap.add_argument("--flags", default="", help="compiler flags after --")
    ap.add_argument("--std-from-run", action="store_true",
                    help="each file's -std= from its %%check_clang_tidy RUN line")
    ap.add_argument("--header-filter", default="")
    ap.add_argument("--min-warnings", type=int, default=1)
    ap.add_argument("--project", action="store_true")
    ap.add_argument("-j", dest="jobs", type=int, default=1)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    before = ["--checks=" + a.checks]
    if a.header_filter:
        before.append("--header-filter=" + a.header_filter)
    if a.build:
        before += ["-p", a.build]
    flags_of = files_flags(a)
    failures, warnings, hits, replayed, stored = [], 0, 0, 0, 0
    def modes_of(numbered, modes):
        i, f = numbered
        results = {}
        for m in modes:
            fixes = os.path.join(a.work, "%d-%s-%s.yaml" % (i, os.path.basename(f), m))
            after = ["--"] + flags_of[f] if not a.build else []
            cmd = ([a.torch_tidy] + mode_flags(m, a.work) + ["--export-fixes=" + fixes]
                   + before + [f] + after)
            results[m] = run(cmd, {"fixes": fixes})
        return results

    # Two phases, so that every preamble one file's cold run began to build
    # (or left to another file's build) is written before any warm run asks.
    numbered = list(enumerate(a.files))
    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as pool:
        all_results = list(pool.map(lambda n: modes_of(n, MODES[:3]), numbered))
        for results, later in zip(all_results,
                                  pool.map(lambda n: modes_of(n, MODES[3:]), numbered)):
            results.update(later)
    for f, results in zip(a.files, all_results):
        compare(f, results, "full", MODES[1:], ("rc", "out", "err", "fixes"), failures)
        warm = results["warm"]["log"]
        served = [l for l in warm if re.search(r": hit [0-9a-f]{40}", l)]
        skipped = [l for l in warm if "no leading system includes" in l]
        if not served and not skipped:
            failures.append("%s: the warm run did not use the preamble cache: %s" % (f, warm))
        hits += len(served)
        not_stored = [l for l in results["rcold"]["log"] if "results cache: not stored" in l]
        if not not_stored:
            stored += 1
            if not [l for l in results["rwarm"]["log"] if "results cache: hit" in l]:
                failures.append("%s: the rwarm run did not replay the results: %s"
                                % (f, results["rwarm"]["log"]))
            else:
                replayed += 1
        warnings += len(re.findall(r"warning: ", results["full"]["out"]))
    if warnings < a.min_warnings:
        failures.append("only %d warnings in all, expected at least %d" % (warnings, a.min_warnings))
    project_hits = (compare_project(a, a.work, a.files, flags_of, stored, failures)
                    if a.project else 0)
    for fail in failures:
        print("FAIL: " + fail)
    standards = ""
    if a.std_from_run:
        counts = collections.Counter(flags[0] for flags in flags_of.values())
        standards = " (%s)" % ", ".join("%s: %d" % kv for kv in sorted(counts.items()))
    print("compared %d files%s in %d modes: %d warnings each, %d served from the preamble "
          "cache when warm, %d replayed from the results cache"
          % (len(a.files), standards, len(MODES), warnings, hits, replayed))
    if a.project:
        print("compared the project's terminal output, SARIF, fixes and exit status over all "
              "and changed lines: %d files replayed" % project_hits)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

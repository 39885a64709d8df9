#!/usr/bin/env python3
"""Runs one check test, in the manner of LLVM's check_clang_tidy.py.

Usage:
  check_clang_tidy.py [--clang-tidy CMD] [--load PLUGIN] [-check-suffix S]
                      <source> <check> <temp-file> [-- <clang-tidy args>
                      [-- <compiler args>]]

The source is copied to the temp file with its CHECK lines blanked (so line
numbers stay), clang-tidy runs on the copy with --fix, and FileCheck then
verifies:
  * CHECK-MESSAGES[-S]: the diagnostics; any other warning or error fails;
  * CHECK-NOTES[-S]: the diagnostics with their notes; any other warning,
    error or note fails (used instead of CHECK-MESSAGES);
  * CHECK-FIXES[-S]: the fixed file.
A test with neither messages nor notes must produce no diagnostic at all.
"""

import argparse
import os
import re
import subprocess
import sys


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, **kw)


def file_check(filecheck, prefixes, input_path, check_file, extra=()):
    cmd = [filecheck, check_file, "-input-file=" + input_path,
           "-check-prefixes=" + ",".join(prefixes), "-strict-whitespace",
           "--dump-input=fail"] + list(extra)
    r = run(cmd)
    if r.returncode != 0:
        sys.stdout.write(r.stdout)
        sys.exit("FileCheck failed for " + ",".join(prefixes))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clang-tidy", default="clang-tidy")
    ap.add_argument("--load", action="append", default=[])
    ap.add_argument("--filecheck", default="FileCheck")
    ap.add_argument("-check-suffix", "-check-suffixes", dest="suffix",
                    default="")
    ap.add_argument("-std", default="c++17")
    ap.add_argument("source")
    ap.add_argument("check")
    ap.add_argument("temp")
    argv = sys.argv[1:]
    rest = []
    if "--" in argv:
        i = argv.index("--")
        argv, rest = argv[:i], argv[i:]
    args = ap.parse_args(argv)

    tidy_args, compiler_args = [], []
    if rest and rest[0] == "--":
        rest = rest[1:]
        if "--" in rest:
            i = rest.index("--")
            tidy_args, compiler_args = rest[:i], rest[i + 1:]
        else:
            tidy_args = rest

    # -check-suffixes=,A: the plain prefixes and those ending in -A, so that
    # one file can hold what two RUN lines (two option settings) share and
    # what only one of them reports.
    suffixes = args.suffix.split(",") if args.suffix else [""]
    def prefixes(base):
        return [base + ("-" + s if s else "") for s in suffixes]
    msg_prefixes = prefixes("CHECK-MESSAGES")
    notes_prefixes = prefixes("CHECK-NOTES")
    fixes_prefixes = prefixes("CHECK-FIXES")

    with open(args.source, encoding="utf-8") as f:
        text = f.read()
    def uses(ps):
        return any(re.search(r"\b" + re.escape(p) + r"(-NEXT|-NOT|-DAG|-SAME)?:",
                             text) for p in ps)
    has_messages = uses(msg_prefixes)
    has_notes = uses(notes_prefixes)
    has_fixes = uses(fixes_prefixes)
    if has_messages and has_notes:
        sys.exit("use either CHECK-MESSAGES or CHECK-NOTES, not both")

    # Blank every CHECK line so the fixed file does not match itself.
    cleaned = re.sub(r"// *CHECK-[A-Z0-9\-]*:[^\r\n]*", "//", text)
    ext = os.path.splitext(args.source)[1] or ".cpp"
    temp = args.temp + ext
    os.makedirs(os.path.dirname(os.path.abspath(temp)), exist_ok=True)
    with open(temp, "w", encoding="utf-8") as f:
        f.write(cleaned)

    cmd = args.clang_tidy.split() + ["--load=" + p for p in args.load]
    cmd += [temp, "--fix", "--checks=-*," + args.check] + tidy_args
    cmd += ["--", "-std=" + args.std] + compiler_args
    r = run(cmd)
    output = r.stdout
    if "Stack dump" in output or r.returncode != 0:
        sys.stdout.write(output)
        sys.exit("clang-tidy failed with exit status %d" % r.returncode)
    # A check test never has compiler errors: one would hide findings.
    if re.search(r"error: .*\[clang-diagnostic-error\]", output):
        sys.stdout.write(output)
        sys.exit("the test input does not compile")

    # clang-tidy --fix adds a note per applied fix-it; like LLVM's runner,
    # leave those out of what CHECK-NOTES must match.
    output = re.sub(r"[^\n]*note: FIX-IT applied suggested code changes\n", "",
                    output)
    out_path = temp + ".msg"
    with open(out_path, "w", encoding="utf-8") as f:
        f.write(output)

    def used(ps):
        return [p for p in ps if uses([p])]
    if has_fixes:
        file_check(args.filecheck, used(fixes_prefixes), temp, args.source)
    if has_notes:
        file_check(args.filecheck, used(notes_prefixes), out_path, args.source,
                   ["-implicit-check-not={{warning|error|note}}:"])
    elif has_messages:
        file_check(args.filecheck, used(msg_prefixes), out_path, args.source,
                   ["-implicit-check-not={{warning|error}}:"])
    else:
        if re.search(r"(warning|error):", output):
            sys.stdout.write(output)
            sys.exit("expected no diagnostics")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A torch-tidy that reports one more warning with --full-traversal than
without: compare_modes.py must catch it (identical-findings.test)."""
import sys

args = sys.argv[1:]
for a in args:
    if a.startswith("--export-fixes="):
        open(a.split("=", 1)[1], "w").write("---\nDiagnostics: []\n...\n")
src = [a for a in args if a.endswith(".cpp")][0]
if "--cache-verbose" in args:
    sys.stderr.write("torch-tidy: preamble cache: hit %s: %s\n" % ("0" * 40, src))
print("%s:1:1: warning: seen in every mode [libtorch-fake]" % src)
if "--full-traversal" in args:
    print("%s:2:1: warning: seen with --full-traversal only [libtorch-fake]" % src)

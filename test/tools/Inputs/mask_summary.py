#!/usr/bin/env python3
"""mask_summary.py FILE: prints FILE with the parts of torch-tidy's summary
line that differ between identical runs masked: its time and its results
cache counts (docs/ci.md). Everything else must stay byte for byte."""
import re
import sys

SUMMARY = re.compile(r"^(torch-tidy: \d+ files? analysed.*); \d+\.\d s; "
                     r"(results cache: \d+ hits?, \d+ miss(es)?|no results cache)$")
for line in open(sys.argv[1]).read().splitlines(True):
    m = SUMMARY.match(line.rstrip("\n"))
    sys.stdout.write(m.group(1) + "; <time>; <results cache>\n" if m else line)

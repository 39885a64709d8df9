#!/usr/bin/env python3
"""backdate.py SECONDS PATH...: sets the modification time of each file (and
of every file below each directory) to SECONDS ago, as if it had last been
used then (results-cache.test: least-recently-used eviction)."""
import os
import sys
import time

when = time.time() - float(sys.argv[1])
for path in sys.argv[2:]:
    for root, _, files in os.walk(path) if os.path.isdir(path) else [("", [], [path])]:
        for f in files:
            os.utime(os.path.join(root, f), (when, when))

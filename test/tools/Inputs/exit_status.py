#!/usr/bin/env python3
"""exit_status.py N CMD...: runs CMD, passes its output through, and fails
unless it exits with status N."""
import subprocess
import sys

want = int(sys.argv[1])
r = subprocess.run(sys.argv[2:])
if r.returncode != want:
    sys.exit("expected exit status %d, got %d" % (want, r.returncode))

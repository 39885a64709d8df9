#!/usr/bin/env python3
"""with_path.py DIR [NAME=VALUE...] CMD...: runs CMD with DIR first on PATH
and the given environment variables (lit's shell expands no $VARIABLES)."""
import os
import subprocess
import sys

env = dict(os.environ)
env["PATH"] = sys.argv[1] + os.pathsep + env.get("PATH", "")
args = sys.argv[2:]
while args and "=" in args[0] and not args[0].startswith("-"):
    k, v = args.pop(0).split("=", 1)
    env[k] = v
sys.exit(subprocess.run(args, env=env).returncode)

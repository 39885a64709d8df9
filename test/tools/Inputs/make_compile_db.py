#!/usr/bin/env python3
"""make_compile_db.py DIR FILE... [-- FLAG...]: writes DIR/compile_commands.json
with one clang++ -std=c++17 command per FILE (relative to DIR) and FLAGs."""
import json
import os
import sys

args = sys.argv[1:]
flags = []
if "--" in args:
    i = args.index("--")
    args, flags = args[:i], args[i + 1:]
directory, files = os.path.abspath(args[0]), args[1:]
entries = [{"directory": directory, "file": f,
            "arguments": ["clang++", "-std=c++17", "-c", f, "-o", f + ".o"] + flags}
           for f in files]
with open(os.path.join(directory, "compile_commands.json"), "w") as out:
    json.dump(entries, out, indent=1)

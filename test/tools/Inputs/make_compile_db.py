#!/usr/bin/env python3
"""make_compile_db.py DIR FILE... [-- FLAG... [--cuda CUDA-FLAG...]]: writes
DIR/compile_commands.json with one clang++ -std=c++17 command per FILE
(relative to DIR) and FLAGs; a FILE ending in .cu also gets `-x cuda` and the
CUDA-FLAGs."""
import json
import os
import sys

args = sys.argv[1:]
flags, cuda_flags = [], []
if "--" in args:
    i = args.index("--")
    args, flags = args[:i], args[i + 1:]
if "--cuda" in flags:
    i = flags.index("--cuda")
    flags, cuda_flags = flags[:i], flags[i + 1:]
directory, files = os.path.abspath(args[0]), args[1:]


def command(f):
    cuda = ["-x", "cuda"] + cuda_flags if f.endswith(".cu") else []
    return ["clang++", "-std=c++17"] + cuda + ["-c", f, "-o", f + ".o"] + flags


entries = [{"directory": directory, "file": f, "arguments": command(f)}
           for f in files]
with open(os.path.join(directory, "compile_commands.json"), "w") as out:
    json.dump(entries, out, indent=1)

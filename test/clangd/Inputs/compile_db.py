#!/usr/bin/env python3
"""Writes DIR/compile_commands.json with one entry: FILE compiled with ARGS.

Usage: compile_db.py DIR FILE [ARGS...]   (ARGS may hold several flags in one
word, as lit substitutions like %mock_torch do; they are split on spaces).
"""

import json
import os
import sys


def main():
    directory, source = (os.path.abspath(p) for p in sys.argv[1:3])
    args = [word for arg in sys.argv[3:] for word in arg.split()]
    entry = {
        "directory": directory,
        "file": source,
        "arguments": ["clang++", "-std=c++17", "-fsyntax-only"] + args + [source],
    }
    with open(os.path.join(directory, "compile_commands.json"), "w") as out:
        json.dump([entry], out, indent=2)


if __name__ == "__main__":
    main()

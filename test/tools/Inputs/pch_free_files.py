#!/usr/bin/env python3
"""Writes three files, their compile commands without a PCH and the
--export-fixes file of each as tools/self-lint.sh names it, each with the
header include-cleaner would insert for a missing include
(test/tools/pch-free.test).

Usage: pch_free_files.py DIR LLVM_VERSION
"""
import json, sys, os
d = sys.argv[1]
cxx = "/usr/bin/clang++-%s" % sys.argv[2]
files = {
    # std::vector through the PCH only: <map> does not bring it in.
    "only-pch.cpp": ("#include <map>\nstd::vector<int> values() { return {}; }\n", "<vector>"),
    # std::pair: include-cleaner would add <utility>, which the file does not
    # reach by that name, but <map> declares std::pair: it compiles.
    "reached.cpp": ("#include <map>\nstd::pair<int, int> one() { return {1, 1}; }\n", "<utility>"),
    # The header it would add is among what <map> includes: not compiled.
    "included.cpp": ("#include <map>\nstd::map<int, int> none() { return {}; }\n", "<map>"),
}
db = []
for name, (text, header) in files.items():
    open(os.path.join(d, name), "w").write(text)
    db.append({"directory": d, "file": os.path.join(d, name),
               "arguments": [cxx, "-std=c++17", "-o", name + ".o", "-c", os.path.join(d, name)]})
    key = os.path.join(d, name).replace("/", "_")
    open(os.path.join(d, "out", key + ".yaml"), "w").write(
        "---\nDiagnostics:\n  - DiagnosticName:  misc-include-cleaner\n"
        "    DiagnosticMessage:\n"
        "      Message:         'no header providing \"std::x\" is directly included'\n"
        "      Replacements:\n"
        "        - FilePath:        '%s'\n"
        "          ReplacementText: \"#include %s\\n\"\n" % (name, header))
json.dump(db, open(os.path.join(d, "compile_commands.json"), "w"))

#!/usr/bin/env python3
"""A torch-tidy whose findings depend on how it runs, which compare_modes.py
must catch (identical-findings.test). FAKE_DIFFERS in the environment says
how:
  full    (the default) with --full-traversal it reports one more warning;
  replay  a run that finds its results cache filled (a marker it leaves in
          --cache-dir) differs from a fresh analysis in every output form:
          stdout, stderr, exit status, --export-fixes and --sarif."""
import json
import os
import sys

args = sys.argv[1:]
replay_differs = os.environ.get("FAKE_DIFFERS") == "replay"
opt = {}
for a in args:
    if a.startswith("--") and "=" in a:
        k, v = a[2:].split("=", 1)
        opt[k] = v
cache = opt.get("cache-dir")
replayed = False
if cache and "--no-results-cache" not in args:
    # The line filter is part of a real key: a changed-lines run is another
    # entry.
    marker = os.path.join(cache, "fake-results" + ("-changed" if "changed-lines" in opt else ""))
    replayed = os.path.exists(marker)
    os.makedirs(cache, exist_ok=True)
    open(marker, "w").write("filled\n")
differs = replay_differs and replayed

if "-p" in args and not [a for a in args if a.endswith(".cpp")]:
    # A project run: every file of the database.
    db = json.load(open(os.path.join(args[args.index("-p") + 1], "compile_commands.json")))
    srcs = sorted(e["file"] for e in db)
else:
    srcs = [a for a in args if a.endswith(".cpp")]
for src in srcs:
    if "--cache-verbose" in args:
        sys.stderr.write("torch-tidy: preamble cache: hit %s: %s\n" % ("0" * 40, src))
        sys.stderr.write("torch-tidy: results cache: %s: %s\n"
                         % ("hit" if replayed else "miss", src))
    print("%s:1:1: warning: seen in every mode [libtorch-fake]" % src)
    if "--full-traversal" in args and not replay_differs:
        print("%s:2:1: warning: seen with --full-traversal only [libtorch-fake]" % src)
    if differs:
        print("%s:3:1: warning: seen in a replay only [libtorch-fake]" % src)
if differs:
    sys.stderr.write("a replay's own line\n")
if "export-fixes" in opt:
    open(opt["export-fixes"], "w").write(
        "---\nDiagnostics: [%s]\n...\n" % ("replayed" if differs else ""))
if "sarif" in opt:
    json.dump({"version": "2.1.0", "runs": [{"results": [1] if differs else []}]},
              open(opt["sarif"], "w"))
sys.stderr.write("torch-tidy: %d file%s analysed; 1 finding; 0.1 s; results cache: %s\n"
                 % (len(srcs), "" if len(srcs) == 1 else "s",
                    "%d hits, 0 misses" % len(srcs) if replayed else "0 hits, %d misses" % len(srcs)))
sys.exit(1 if differs else 0)

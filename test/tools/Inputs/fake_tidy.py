#!/usr/bin/env python3
"""A stand-in for torch-tidy that misbehaves on purpose, to show that
run_stress.py catches each kind of failure. FAKE_TIDY=MODE=NAME picks what
it does when a file whose name contains NAME is among its arguments:
  crash    prints a stack dump and dies of SIGSEGV
  abort    prints an assertion failure and aborts
  hang     sleeps
  outside  reports a libtorch finding in a file it was not given
  badloc   reports a libtorch finding past the end of the file
  badfix   exports a libtorch fix-it past the end of the file
Otherwise (and without FAKE_TIDY) it reports one compiler error per file and
exits with 1, as torch-tidy does on broken code."""
import os
import signal
import sys
import time

mode, _, name = os.environ.get("FAKE_TIDY", "").partition("=")
args = sys.argv[1:]
files = args[:args.index("--")] if "--" in args else args
fixes = [a.split("=", 1)[1] for a in files if a.startswith("--export-fixes=")]
files = [f for f in files if not f.startswith("-")]
hit = [f for f in files if name and name in os.path.basename(f)]
for f in files:
    print("%s:1:1: error: expected unqualified-id [clang-diagnostic-error]" % f)
if hit:
    f = hit[0]
    if mode == "crash":
        print("PLEASE submit a bug report\nStack dump:\n0.  Program arguments: ...")
        sys.stdout.flush()
        os.kill(os.getpid(), signal.SIGSEGV)
    elif mode == "abort":
        print("torch-tidy: Foo.cpp:1: Assertion `false' failed.")
        sys.stdout.flush()
        os.abort()
    elif mode == "hang":
        time.sleep(600)
    elif mode == "outside":
        print("/nonexistent/elsewhere.cpp:3:1: warning: made up "
              "[libtorch-unregistered-buffer]")
    elif mode == "badloc":
        print("%s:99999:1: warning: made up [libtorch-unchecked-index]" % f)
    elif mode == "badfix" and fixes:
        with open(fixes[0], "w") as out:
            out.write("---\nMainSourceFile: '%s'\nDiagnostics:\n"
                      "  - DiagnosticName:  libtorch-unregistered-submodule\n"
                      "    DiagnosticMessage:\n"
                      "      Message:         'made up'\n"
                      "      FilePath:        '%s'\n"
                      "      FileOffset:      0\n"
                      "      Replacements:\n"
                      "        - FilePath:        '%s'\n"
                      "          Offset:          99999999\n"
                      "          Length:          1\n"
                      "          ReplacementText: ')'\n"
                      "    Level:           Warning\n" % (f, f, f))
sys.exit(1)

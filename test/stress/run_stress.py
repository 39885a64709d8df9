#!/usr/bin/env python3
"""Stress suite: mutated lit inputs through all libtorch checks.

Every variant is a lit input of test/checks (the mock LibTorch headers) with
one to three mutations of mutate.py. Variants are analysed in batches, one
torch-tidy process per batch, with `--checks=-*,libtorch-*`, alternately
with the default options and with every option set to a non-default value.
A batch passes when:
  * torch-tidy neither crashes (a signal, an exit status other than 0 or 1,
    "Stack dump", "PLEASE submit a bug report", an assertion or sanitizer
    report) nor runs past the timeout;
  * every libtorch-* warning points into one of the batch's variants, at a
    line and column that exist there, and its notes at places that exist;
  * every libtorch-* fix-it (--export-fixes) edits an existing range of a
    file outside the mock headers.
A failing batch is re-run one variant at a time to name the culprit, which
is kept (--keep) with a command that reproduces it.

A batch that only runs past its own, longer timeout passes when each of its
variants finishes alone within --timeout (the machine was busy).

Variants are numbered from 0, and each one's seed is made of --seed and
its number: --first K starts at variant K, so that two runs can split one
sequence (tools/sanitize.sh runs the first 100 on the instrumented build,
ctest's stress.mutations the 200 after them).

Usage: run_stress.py [--variants N | --full] [--first K] [--seed S] [--jobs J]
                     [--batch N] [--timeout S] [--batch-timeout S]
                     [--torch-tidy PATH] [--keep DIR] [--inputs FILE...]
"""

import argparse
import concurrent.futures
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import mutate  # noqa: E402

DEFAULT_VARIANTS = 300
FULL_VARIANTS = 5000
MOCK = os.path.join(SRC, "test", "checks", "Inputs", "mock-libtorch")
FLAGS = ["-std=c++17", "-isystem", MOCK, "-I", os.path.join(SRC, "test", "checks")]
CHECKS = "--checks=-*,libtorch-*"
# The second configuration turns every option away from its default.
CONFIGS = [
    None,
    "{CheckOptions: {"
    "libtorch-cross-device-index.WarnOnImplicitIndexCopy: true, "
    "libtorch-cuda-in-dataset-get.MaxCallDepth: 1, "
    "libtorch-unchecked-index.CheckLossTargets: false, "
    "libtorch-unchecked-index.GuardFunctions: '::mylib::validate;check_ids', "
    "libtorch-unregistered-buffer.IgnoredMembers: 'tmp_.*|scratch', "
    "libtorch-unregistered-submodule.IncludeStateless: true}}",
]
CRASH_MARKS = ["Stack dump", "PLEASE submit a bug report", "Assertion",
               "UNREACHABLE executed", "LLVM ERROR", "AddressSanitizer",
               "LeakSanitizer", "runtime error:", "terminate called"]
SNIPPET = re.compile(r"^\s*\d*\s*\|")
DIAG = re.compile(r"^(.+?):(\d+):(\d+): (warning|error|note): (.*)$")
BARE_DIAG = re.compile(r"^(warning|error): (.*)$")
LIBTORCH = re.compile(r"\[(libtorch-[a-z-]+)(,[^\]]*)?\]$")


class Variant:
    def __init__(self, index, source, seed, path):
        self.index, self.source, self.seed, self.path = index, source, seed, path
        self.what = []

    def reproduce(self):
        return "python3 %s %s --seed %d > %s" % (
            os.path.relpath(os.path.join(HERE, "mutate.py"), SRC),
            os.path.relpath(self.source, SRC), self.seed,
            os.path.basename(self.path))


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def valid_place(path, line, col):
    """Whether line:col exists in the file (col may be one past the end)."""
    try:
        lines = read(path).split("\n")
    except OSError:
        return False
    return 1 <= line <= len(lines) and 1 <= col <= len(lines[line - 1]) + 1


def check_output(output, files):
    """Problems in the diagnostics of a run over files (absolute paths)."""
    problems = []
    in_libtorch = False
    for raw in output.splitlines():
        m = DIAG.match(raw)
        if m:
            path, line, col, kind, text = m.groups()
            line, col = int(line), int(col)
            if kind in ("warning", "error"):
                in_libtorch = LIBTORCH.search(text) is not None
                if in_libtorch and path not in files:
                    problems.append("diagnostic outside the analysed files: " + raw)
                elif in_libtorch and not valid_place(path, line, col):
                    problems.append("diagnostic at an invalid location: " + raw)
            elif in_libtorch and not valid_place(path, line, col):
                problems.append("note at an invalid location: " + raw)
            continue
        m = BARE_DIAG.match(raw)
        if m:
            in_libtorch = LIBTORCH.search(m.group(2)) is not None
            if in_libtorch:
                problems.append("diagnostic without a location: " + raw)
    return problems


def yaml_scalar(value):
    value = value.strip()
    if value.startswith("'") and value.endswith("'"):
        return value[1:-1].replace("''", "'")
    if value.startswith('"') and value.endswith('"'):
        return value[1:-1]
    return value


def check_fixes(yaml_path, files):
    """Problems in the exported fix-its of libtorch-* diagnostics."""
    if not os.path.exists(yaml_path):
        return []
    problems, name, path, offset = [], "", None, None
    sizes = {}

    def size(p):
        if p not in sizes:
            try:
                sizes[p] = len(open(p, "rb").read())
            except OSError:
                sizes[p] = None
        return sizes[p]

    for raw in read(yaml_path).splitlines():
        key, _, value = raw.strip().lstrip("- ").partition(":")
        if key == "DiagnosticName":
            name = value.strip()
        if not name.startswith("libtorch-"):
            continue
        if key == "FilePath":
            path, offset = yaml_scalar(value), None
        elif key in ("FileOffset", "Offset") and path is not None:
            offset = int(value)
            if key == "FileOffset" and path and (size(path) is None or offset > size(path)):
                problems.append("%s: location %s:%d is not in the file" % (name, path, offset))
        elif key == "Length" and path is not None and offset is not None:
            n = size(path)
            if path.startswith(MOCK) or n is None or offset + int(value) > n:
                problems.append("%s: fix-it edits %s at %d+%s, outside the user's file"
                                % (name, path, offset, value.strip()))
    return problems


def run_tidy(tidy, files, config, timeout, workdir):
    """(problems, stats) of one torch-tidy run over files; stats holds the
    seconds, the libtorch findings and the files with compiler errors."""
    fixes = os.path.join(workdir, "fixes.yaml")
    if os.path.exists(fixes):
        os.remove(fixes)
    cmd = [tidy, CHECKS, "--export-fixes=" + fixes]
    if config:
        cmd.append("--config=" + config)
    cmd += files + ["--"] + FLAGS
    start = time.monotonic()
    stats = {"seconds": 0.0, "findings": 0, "broken": set()}
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout, cwd=workdir)
    except subprocess.TimeoutExpired:
        stats["seconds"] = time.monotonic() - start
        return ["timeout: no answer after %d s" % timeout], stats
    stats["seconds"] = time.monotonic() - start
    output = r.stdout.decode("utf-8", errors="replace")
    for m in map(DIAG.match, output.splitlines()):
        if m and m.group(4) == "error":
            stats["broken"].add(m.group(1))
        if m and m.group(4) == "warning" and LIBTORCH.search(m.group(5)):
            stats["findings"] += 1
    problems = []
    if r.returncode < 0 or r.returncode not in (0, 1):
        problems.append("crash: exit status %d" % r.returncode)
    # Not in the source lines clang quotes under a diagnostic (" 12 | ...").
    own = "\n".join(l for l in output.splitlines() if not SNIPPET.match(l))
    for mark in CRASH_MARKS:
        if mark in own:
            problems.append("crash: output has %r" % mark)
    problems += check_output(output, set(files))
    problems += check_fixes(fixes, set(files))
    if problems:
        problems.append("output (last 40 lines):\n    " +
                        "\n    ".join(output.splitlines()[-40:]))
    return problems, stats


def run_batch(args, batch, config, workdir):
    """[(variants to blame, problems)] of one batch, and its stats."""
    os.makedirs(workdir, exist_ok=True)
    files = [v.path for v in batch]
    timeout = args.batch_timeout or args.timeout + 10 * len(files)
    problems, stats = run_tidy(args.torch_tidy, files, config, timeout, workdir)
    if not problems:
        return [], stats
    # Bisect to the variants that fail on their own.
    blamed = []
    for v in batch:
        alone, _ = run_tidy(args.torch_tidy, [v.path], config, args.timeout, workdir)
        if alone:
            blamed.append(([v], alone))
    timed_out = all(p.startswith("timeout:") for p in problems)
    if not blamed and not timed_out:
        blamed.append((batch, ["fails only together:"] + problems))
    # A batch that is only slow (a loaded machine) passes when each variant
    # finishes within the timeout on its own.
    return blamed, stats


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variants", type=int, default=DEFAULT_VARIANTS)
    ap.add_argument("--full", action="store_true",
                    help="%d variants" % FULL_VARIANTS)
    ap.add_argument("--first", type=int, default=0,
                    help="the number of the first variant (default 0)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--batch", type=int, default=20, help="variants per process")
    ap.add_argument("--timeout", type=int, default=60,
                    help="seconds for one variant on its own")
    ap.add_argument("--batch-timeout", type=int,
                    help="seconds for one batch (default: --timeout + 10 per variant)")
    ap.add_argument("--torch-tidy", default=os.path.join(SRC, "build", "bin", "torch-tidy"))
    ap.add_argument("--inputs", nargs="*",
                    default=sorted(glob.glob(os.path.join(SRC, "test", "checks", "*.cpp"))))
    ap.add_argument("--keep", help="directory for failing variants "
                    "(default: a new temporary one, printed)")
    args = ap.parse_args()
    if args.full:
        args.variants = FULL_VARIANTS
    args.torch_tidy = os.path.abspath(args.torch_tidy)
    if not os.access(args.torch_tidy, os.X_OK):
        sys.exit("run_stress: no torch-tidy at %s (build first, or --torch-tidy)"
                 % args.torch_tidy)
    sources = [os.path.abspath(p) for p in args.inputs]
    texts = {p: mutate.prepare(read(p)) for p in sources}

    tmp = tempfile.mkdtemp(prefix="torchtidy-stress-")
    start = time.monotonic()
    variants = []
    if args.first < 0:
        sys.exit("run_stress: --first %d: a variant's number is 0 or more" % args.first)
    for i in range(args.first, args.first + args.variants):
        source = sources[i % len(sources)]
        seed = args.seed * 1000003 + i
        stem = os.path.splitext(os.path.basename(source))[0]
        v = Variant(i, source, seed, os.path.join(tmp, "v%05d-%s.cpp" % (i, stem)))
        text, v.what = mutate.mutate(texts[source], seed)
        with open(v.path, "w", encoding="utf-8") as f:
            f.write(text)
        variants.append(v)
    batches = [variants[k:k + args.batch] for k in range(0, len(variants), args.batch)]

    failures, slowest, findings, broken = [], (0.0, None), 0, 0
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        futures = {pool.submit(run_batch, args, b, CONFIGS[k % len(CONFIGS)],
                               os.path.join(tmp, "batch%04d" % k)): (k, b)
                   for k, b in enumerate(batches)}
        for fut in concurrent.futures.as_completed(futures):
            k, b = futures[fut]
            blamed, stats = fut.result()
            slowest = max(slowest, (stats["seconds"], k), key=lambda s: s[0])
            findings += stats["findings"]
            broken += len(stats["broken"])
            for vs, problems in blamed:
                failures.append((k, vs, problems))

    elapsed = time.monotonic() - start
    keep = args.keep or (tempfile.mkdtemp(prefix="torchtidy-stress-failures-")
                         if failures else None)
    for k, vs, problems in sorted(failures, key=lambda f: f[1][0].index):
        config = "options" if CONFIGS[k % len(CONFIGS)] else "defaults"
        print("FAIL: batch %d (%s), variant%s %s" % (
            k, config, "s" if len(vs) > 1 else "",
            ", ".join(os.path.basename(v.path) for v in vs)))
        for v in vs:
            os.makedirs(keep, exist_ok=True)
            shutil.copy(v.path, keep)
            print("  %s: %s" % (os.path.basename(v.path), "; ".join(v.what)))
            print("  reproduce: %s" % v.reproduce())
        for p in problems:
            print("  " + p)
    print("stress: %d variants (%d to %d) of %d inputs (seed %d) in %d batches, %.1f s, "
          "slowest batch %.1f s; %d with compiler errors, %d libtorch findings; "
          "%d failing" % (
              len(variants), args.first, args.first + len(variants) - 1, len(sources),
              args.seed, len(batches), elapsed,
              slowest[0], broken, findings, sum(len(vs) for _, vs, _ in failures)))
    if failures:
        print("failing variants kept in " + keep)
    shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

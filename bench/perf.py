#!/usr/bin/env python3
"""torch-tidy's speed next to the compiler and next to run-clang-tidy
(docs/performance.md has the tables this prints and how to read them).

Three measurements, on real LibTorch headers:

1. Ratio. For each TU (the example project's files and a large generated
   LibTorch TU), the wall time of
       torch-tidy --checks=-*,libtorch-* --no-preamble-cache --no-results-cache FILE
   over that of
       clang++-19 -fsyntax-only FILE
   with the file's own flags, run --runs times each, interleaved, medians.
   The caches are off here: this is what the checks add to a parse. A warm
   cache column shows what a second file with the same includes costs
   (preamble cache only).
2. Per-check times from --enable-check-profile (user + system seconds of
   each libtorch check) on the same TUs, as a share of the parse.
3. Project. A generated project of --project-files files, each including its
   own header that includes <torch/torch.h> and a header all files share,
   analysed in every round (--project-runs of them, medians) with
       run-clang-tidy-19 -j2 -load build/lib/TorchTidy.so -checks=-*,libtorch-*
   and with torch-tidy -p build -j2 --checks=-*,libtorch-* in five states:
       cold         both caches empty
       warm         the preamble cached, --no-results-cache
       no change    the results cache full, nothing changed since
       one .cpp     one file's content changed since the last run
       header       the shared header's content changed since the last run
   plus one file alone with the preamble cached (what one file costs). Every
   run must report the findings run-clang-tidy reports. With --summaries,
   each round also runs torch-tidy cold and with no change with
   --no-summaries: what linking the files' summaries (docs/summaries.md)
   costs against a run without them. With --cross-file (implies
   --summaries), each file of the project also calls functions of the next
   file whose summaries answer its checks (CUDA work reached from a
   dataset's get(), ids read from text embedded), so that every file is
   analysed again: the worst case of the summaries' cost. The runs with
   summaries then find one more finding per file and per rule than
   run-clang-tidy (which reads no summaries), the others the same.

Usage: bench/perf.py [--build build] [--runs 5] [--project-files 20]
                     [--project-runs 3] [--large-units 70] [--work DIR]
                     [--json out.json] [--project-only | --no-project]
                     [--example FILE ...] [--summaries] [--cross-file]
"""

import argparse
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHECKS = "-*,libtorch-*"

CMAKE = """cmake_minimum_required(VERSION 3.20)
project(torchtidy-bench LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)
find_package(Torch REQUIRED)
add_library(bench OBJECT {sources})
target_link_libraries(bench PRIVATE ${{TORCH_LIBRARIES}})
"""

UNIT = """
// ---- unit {k} -------------------------------------------------------------
struct Block{k}Impl : torch::nn::Module {{
  Block{k}Impl(int64_t n, int64_t d) {{
    emb = register_module("emb", torch::nn::Embedding(n, d));
    fc = register_module("fc", torch::nn::Linear(d, d));
    scale = register_buffer("scale", torch::ones({{d}}));
    {extra_init}
  }}
  torch::Tensor forward(torch::Tensor ids) {{
    {guard}
    auto x = emb(ids);
    auto y = fc(x) * scale;
    auto order = torch::argsort(ids);
    return y.index_select(0, order);
  }}
  torch::nn::Embedding emb{{nullptr}};
  torch::nn::Linear fc{{nullptr}};
  torch::Tensor scale;
  {extra_member}
}};
TORCH_MODULE(Block{k});

struct Data{k} : torch::data::datasets::Dataset<Data{k}> {{
  torch::data::Example<> get(size_t i) override {{
    auto x = torch::rand({{4}});
    {dataset_work}
    return {{x, torch::tensor(static_cast<int64_t>(i))}};
  }}
  torch::optional<size_t> size() const override {{ return 100; }}
}};

torch::Tensor gather{k}(torch::Tensor src, torch::Device device) {{
  auto idx = torch::randint(0, src.size(0), {{8}}, torch::kLong);
  auto s = src.to(device);
  return s.gather(0, {gather_index});
}}

torch::Tensor run{k}(int64_t n) {{
  Block{k} block(n, 8);
  auto ids = torch::randint(0, n, {{16}}, torch::kLong);
  return block->forward(ids).sum() + gather{k}(torch::rand({{n}}), torch::kCPU).sum();
}}
"""


def unit(k):
    """One module, dataset and helper; every few units one of each mistake."""
    return UNIT.format(
        k=k,
        extra_init="mask = torch::zeros({d});" if k % 5 == 0 else "",
        extra_member="torch::Tensor mask;" if k % 5 == 0 else "",
        guard=("TORCH_CHECK((ids >= 0).all().item<bool>() && "
               "(ids < emb->weight.size(0)).all().item<bool>(), \"id out of range\");"
               if k % 3 else ""),
        dataset_work="x = x.to(torch::kCUDA);" if k % 7 == 0 else "",
        gather_index="idx" if k % 4 == 0 else "idx.to(device)")


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def make_large_tu(root, units):
    path = os.path.join(root, "large.cpp")
    write(path, "// Generated by bench/perf.py: %d units of LibTorch code.\n"
          "#include <torch/torch.h>\n" % units + "".join(unit(k) for k in range(units)))
    write(os.path.join(root, "CMakeLists.txt"), CMAKE.format(sources="large.cpp"))
    return path


COMMON_H = """#pragma once
#include <torch/torch.h>

// Shared by every file of the generated project: changing it changes them all.
inline int64_t net_width() { return 8; }
"""


CROSS_FILE_DECLS = """torch::Tensor to_gpu{k}(torch::Tensor t);
std::vector<int64_t> read_ids{k}(const std::string &line);
"""

# Each file k calls to_gpu and read_ids of file k + 1: every file asks about
# another file's functions, and each answer is a finding.
CROSS_FILE_UNIT = """
torch::Tensor to_gpu{k}(torch::Tensor t) {{ return t.to(torch::kCUDA); }}
std::vector<int64_t> read_ids{k}(const std::string &line) {{
  std::vector<int64_t> ids;
  std::istringstream in(line);
  int64_t id = 0;
  while (in >> id)
    ids.push_back(id);
  return ids;
}}
struct CrossData{k} : torch::data::datasets::Dataset<CrossData{k}> {{
  torch::data::Example<> get(size_t i) override {{
    return {{to_gpu{next}(x_[i]), x_[i]}};
  }}
  c10::optional<size_t> size() const override {{ return 4; }}
  torch::Tensor x_;
}};
torch::Tensor embed_line{k}(torch::nn::Embedding emb, const std::string &line) {{
  return emb(torch::tensor(read_ids{next}(line)));
}}
"""


def make_project(root, files, cross_file=False):
    sources = []
    write(os.path.join(root, "common.h"), COMMON_H)
    for k in range(files):
        write(os.path.join(root, "net%d.h" % k),
              "#pragma once\n#include <torch/torch.h>\n\ntorch::Tensor run%d(int64_t n);\n" % k)
        write(os.path.join(root, "net%d.cpp" % k),
              '#include "net%d.h"\n#include "common.h"\n' % k
              + "".join(unit(k * 10 + j) for j in range(3))
              + "\nint64_t width%d() { return net_width(); }\n" % k)
        sources.append("net%d.cpp" % k)
    if cross_file:
        append_line(os.path.join(root, "common.h"),
                    "#include <sstream>\n#include <string>\n#include <vector>\n"
                    + "".join(CROSS_FILE_DECLS.format(k=k) for k in range(files)))
        for k in range(files):
            append_line(os.path.join(root, "net%d.cpp" % k),
                        CROSS_FILE_UNIT.format(k=k, next=(k + 1) % files))
    write(os.path.join(root, "CMakeLists.txt"), CMAKE.format(sources=" ".join(sources)))


def configure(src, build):
    subprocess.run(["cmake", "-S", src, "-B", build, "-G", "Ninja"], check=True,
                   stdout=subprocess.DEVNULL)
    return json.load(open(os.path.join(build, "compile_commands.json")))


def syntax_only_cmd(entry):
    """The compile command as clang++-19 -fsyntax-only."""
    args = entry.get("arguments") or shlex.split(entry["command"])
    out, skip = ["clang++-19"], False
    for a in args[1:]:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if a in ("-c", "-MD", "-MMD"):
            continue
        out.append(a)
    return out + ["-fsyntax-only"]


def timed(cmd, cwd=None, env=None):
    t = time.monotonic()
    r = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    return time.monotonic() - t, r


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def check_profile(tidy, build, f):
    """Per-check user+system seconds from --enable-check-profile."""
    _, r = timed([tidy, "-p", build, "--checks=" + CHECKS, "--no-preamble-cache",
                  "--no-results-cache", "--enable-check-profile", f])
    times = {}
    for line in r.stderr.splitlines():
        m = re.match(r"\s*([\d.]+)\s*\(.*?\)\s+([\d.]+)\s*\(.*?\)\s+([\d.]+)\s*\(.*?\)\s+([\d.]+)\s*\(.*?\)\s+(\S+)", line)
        if m and m.group(5).startswith("libtorch-"):
            times[m.group(5)] = float(m.group(3))  # user + system
    return times


def measure_tus(tidy, tus, runs):
    rows = []
    for name, build, entry in tus:
        f = entry["file"]
        syntax, fast, warm = [], [], []
        cache = tempfile.mkdtemp(prefix="tt-cache-")
        warm_cmd = [tidy, "-p", build, "--checks=" + CHECKS, "--cache-dir=" + cache,
                    "--no-results-cache", f]
        timed(warm_cmd)  # fills the cache
        for _ in range(runs):
            t, r = timed(syntax_only_cmd(entry), cwd=entry["directory"])
            if r.returncode != 0:
                sys.exit("clang++-19 -fsyntax-only failed on %s:\n%s" % (f, r.stderr[-3000:]))
            syntax.append(t)
            t, r = timed([tidy, "-p", build, "--checks=" + CHECKS, "--no-preamble-cache",
                          "--no-results-cache", f])
            if r.returncode not in (0, 1):
                sys.exit("torch-tidy failed on %s:\n%s" % (f, r.stderr[-3000:]))
            fast.append(t)
            t, _ = timed(warm_cmd)
            warm.append(t)
        shutil.rmtree(cache, ignore_errors=True)
        profile = check_profile(tidy, build, f)
        findings = len(re.findall(r"warning: .*\[libtorch-", r.stdout))
        lines = sum(1 for _ in open(f))
        rows.append({"tu": name, "lines": lines, "findings": findings,
                     "syntax_only_s": median(syntax), "torch_tidy_s": median(fast),
                     "ratio": median(fast) / median(syntax),
                     "warm_cache_s": median(warm), "profile_s": profile})
    return rows


FINDING = re.compile(r"(\S+:\d+:\d+): warning: .*\[(libtorch-[\w-]+)\]")
STATES = ("cold", "warm", "no change", "one .cpp", "header")


def append_line(path, text):
    with open(path, "a") as f:
        f.write(text)


SUMMARY_STATES = ("cold, --no-summaries", "no change, --no-summaries")


def measure_project(tidy, plugin, root, build, runs, summaries=False, cross_file=False):
    """Each round: run-clang-tidy, then torch-tidy in the five STATES, then
    one file alone with the preamble cached; every run's findings must be
    run-clang-tidy's (with cross_file, those with summaries linked must be
    the same as each other and add 2 per file)."""
    files = sorted(e["file"] for e in json.load(open(os.path.join(build, "compile_commands.json"))))
    cache = os.path.join(build, "torch-tidy-cache")
    ours = ["-p", build, "-j2", "--checks=" + CHECKS, "--quiet", "--no-progress"]
    states = STATES + (SUMMARY_STATES if summaries else ())
    times = {s: [] for s in states + ("rct", "one file")}
    findings, hits, reference = {}, {}, None
    for rnd in range(runs):
        t, r = timed(["run-clang-tidy-19", "-j", "2", "-p", build, "-load", plugin,
                      "-clang-tidy-binary", "clang-tidy-19", "-checks=" + CHECKS, "-quiet"]
                     + [re.escape(f) for f in files])
        times["rct"].append(t)
        reference = sorted(set(FINDING.findall(r.stdout)))
        shutil.rmtree(cache, ignore_errors=True)
        for state in states:
            extra = []
            if state == SUMMARY_STATES[0]:
                shutil.rmtree(cache, ignore_errors=True)
            if state in SUMMARY_STATES:
                extra = ["--no-summaries"]
            elif state == "warm":
                extra = ["--no-results-cache"]
            elif state == "one .cpp":
                append_line(files[len(files) // 2], "// round %d\n" % rnd)
            elif state == "header":
                append_line(os.path.join(root, "common.h"), "// round %d\n" % rnd)
            t, r = timed([tidy] + ours + extra)
            if r.returncode not in (0, 1):
                sys.exit("torch-tidy -p failed (%s):\n%s" % (state, r.stderr[-3000:]))
            times[state].append(t)
            findings[state] = sorted(set(FINDING.findall(r.stdout)))
            m = re.search(r"results cache: (\d+) hits?, (\d+) miss", r.stderr)
            hits[state] = (int(m.group(1)), int(m.group(2))) if m else None
        t, r = timed([tidy, "-p", build, "--checks=" + CHECKS, "--quiet", "--no-results-cache",
                      files[0]])
        times["one file"].append(t)
    linked = None
    for state, found in findings.items():
        # The one-file runs read no summaries; the project runs link them.
        if cross_file and state not in SUMMARY_STATES:
            linked = linked or found
            if found != linked or not set(reference) < set(found) \
                    or len(found) != len(reference) + 2 * len(files):
                sys.exit("cross-file findings (%s): %d, run-clang-tidy %d, expected %d more"
                         % (state, len(found), len(reference), 2 * len(files)))
            continue
        if found != reference:
            sys.exit("different findings (%s):\n torch-tidy: %s\n run-clang-tidy: %s"
                     % (state, found, reference))
    med = {k: median(v) for k, v in times.items()}
    return {"files": len(files), "findings": len(reference),
            "cross_file_findings": len(linked) - len(reference) if linked else 0,
            "median_s": med, "runs_s": times,
            "results_cache": hits,
            "speedup": {s: med["rct"] / med[s] for s in states}}


def project_table(p, runs):
    """The project table of docs/performance.md."""
    med, n = p["median_s"], p["files"]
    fmt = lambda xs: ", ".join("%.1f" % x for x in xs)
    rows = [("`run-clang-tidy-19 -j2 -load build/lib/TorchTidy.so`", "rct", "1 (reference)")]
    label = {"cold": "cold: both caches empty", "warm": "warm: preamble cached, `--no-results-cache`",
             "no change": "no change since the last run", "one .cpp": "one `.cpp` changed",
             "header": "the shared header changed",
             SUMMARY_STATES[0]: "cold, `--no-summaries`",
             SUMMARY_STATES[1]: "no change, `--no-summaries`"}
    out = ["| run | wall time (runs) | per file | vs run-clang-tidy | results cache |",
           "|---|---:|---:|---:|---:|"]
    out.append("| %s | %.1f s (%s) | %.2f s | 1 | - |" % (rows[0][0], med["rct"], fmt(p["runs_s"]["rct"]),
                                                      med["rct"] / n))
    plural = lambda k, one, many: "%d %s" % (k, one if k == 1 else many)
    for s in [s for s in STATES + SUMMARY_STATES if s in med]:
        hm = p["results_cache"].get(s)
        cache = "off" if hm is None else "%s, %s" % (plural(hm[0], "hit", "hits"),
                                                   plural(hm[1], "miss", "misses"))
        out.append("| torch-tidy, %s | %.1f s (%s) | %.2f s | %.1fx | %s |" % (
            label[s], med[s], fmt(p["runs_s"][s]), med[s] / n, p["speedup"][s], cache))
    out.append("| torch-tidy, one file alone, preamble cached | %.2f s (%s) | | | off |" % (
        med["one file"], fmt(p["runs_s"]["one file"])))
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(SRC, "build"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--project-files", type=int, default=20)
    ap.add_argument("--project-runs", type=int, default=3)
    ap.add_argument("--large-units", type=int, default=70)
    ap.add_argument("--work", default=None)
    ap.add_argument("--json", default=None)
    ap.add_argument("--project-only", action="store_true",
                    help="only the project measurements (3.)")
    ap.add_argument("--no-project", action="store_true",
                    help="only the measurements of single TUs (1. and 2.)")
    ap.add_argument("--example", action="append", default=None, metavar="FILE",
                    help="this file of examples/buggy only (repeatable; default: all)")
    ap.add_argument("--summaries", action="store_true",
                    help="also run the project cold and unchanged with --no-summaries")
    ap.add_argument("--cross-file", action="store_true",
                    help="every file calls the next one's functions (implies --summaries)")
    a = ap.parse_args()
    a.summaries |= a.cross_file
    if a.project_only and a.no_project:
        ap.error("--project-only and --no-project leave nothing to measure")
    tidy = os.path.join(os.path.abspath(a.build), "bin", "torch-tidy")
    plugin = os.path.join(os.path.abspath(a.build), "lib", "TorchTidy.so")
    work = a.work or tempfile.mkdtemp(prefix="torchtidy-bench-")
    shutil.rmtree(work, ignore_errors=True)

    rows, project = [], None
    if not a.project_only:
        ex_build = os.path.join(work, "example-build")
        tus = [("examples/buggy/" + os.path.basename(e["file"]), ex_build, e)
               for e in sorted(configure(os.path.join(SRC, "examples", "buggy"), ex_build),
                               key=lambda e: e["file"])]
        if a.example:
            unknown = set(a.example) - {os.path.basename(e["file"]) for _, _, e in tus}
            if unknown:
                sys.exit("--example: no %s in examples/buggy" % ", ".join(sorted(unknown)))
            tus = [t for t in tus if os.path.basename(t[2]["file"]) in a.example]
        large_src = os.path.join(work, "large")
        make_large_tu(large_src, a.large_units)
        large_build = os.path.join(work, "large-build")
        tus += [("generated large TU", large_build, e) for e in configure(large_src, large_build)]
        rows = measure_tus(tidy, tus, a.runs)
    if not a.no_project:
        proj_src, proj_build = os.path.join(work, "project"), os.path.join(work, "project-build")
        make_project(proj_src, a.project_files, a.cross_file)
        configure(proj_src, proj_build)
        project = measure_project(tidy, plugin, proj_src, proj_build, a.project_runs,
                                  a.summaries, a.cross_file)

    cmd = "bench/perf.py " + " ".join(shlex.quote(x) for x in sys.argv[1:])
    if rows:
        print("## Checks next to the parse (`%s`, %d runs, medians)\n" % (cmd.strip(), a.runs))
        print("| TU | lines | findings | clang++-19 -fsyntax-only | torch-tidy | ratio | warm cache |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for r in rows:
            print("| %s | %d | %d | %.2f s | %.2f s | %.3f | %.2f s |" % (
                r["tu"], r["lines"], r["findings"], r["syntax_only_s"], r["torch_tidy_s"],
                r["ratio"], r["warm_cache_s"]))
        checks = sorted({c for r in rows for c in r["profile_s"]})
        print("\n## Per check (`--enable-check-profile`, user + system, share of the parse)\n")
        print("| check | " + " | ".join(r["tu"] for r in rows) + " |")
        print("|---|" + "---:|" * len(rows))
        for c in checks:
            cells = []
            for r in rows:
                s = r["profile_s"].get(c)
                cells.append("-" if s is None else "%.3f s (%.2f%%)" % (s, 100 * s / r["syntax_only_s"]))
            print("| %s | %s |" % (c, " | ".join(cells)))
    if project:
        print("\n## Project of %d files (-j2, %d rounds, medians; `%s`)\n" % (
            project["files"], a.project_runs, cmd.strip()))
        print(project_table(project, a.project_runs))
        med = project["median_s"]
        if project["cross_file_findings"]:
            print("\nThe runs with summaries found the %d findings of run-clang-tidy and "
                  "%d cross-file ones; the runs with `--no-summaries` the same as "
                  "run-clang-tidy." % (project["findings"], project["cross_file_findings"]))
        else:
            print("\nAll runs found the same %d findings as run-clang-tidy." % project["findings"])
        print("One .cpp changed: %.2f s over the no-change run (one file alone: %.2f s)." % (
            med["one .cpp"] - med["no change"], med["one file"]))
        if a.summaries:
            print("Summaries linked (the default) against `--no-summaries`: cold %.2fx, "
                  "no change %.2fx." % (med["cold"] / med[SUMMARY_STATES[0]],
                                        med["no change"] / med[SUMMARY_STATES[1]]))
    if a.json:
        json.dump({"tus": rows, "project": project}, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()

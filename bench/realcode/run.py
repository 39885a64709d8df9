#!/usr/bin/env python3
"""Real-code evaluation of torch-tidy's checks (see README.md).

For each project of projects.json: extract its pinned commit from the git
mirror that the search tool's `fetch` made (sources and headers only), write
a compile_commands.json, run torch-tidy on every listed translation unit,
collect every finding with its notes, report the TUs that did not parse,
write the findings to a JSON file and compare them with labels.json.

Nothing fetched is ever written into this repository.
"""

import argparse
import concurrent.futures
import datetime
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

# What is extracted from a snapshot: code and build files, nothing else (data
# files are often missing from snapshots anyway).
SOURCE_EXT = (".c", ".cc", ".cpp", ".cxx", ".cu", ".cuh", ".h", ".hh", ".hpp",
              ".hxx", ".inl", ".ipp", ".tcc", ".def", ".inc")
CUDA_EXT = (".cu",)


class Error(Exception):
    pass


def git(git_dir, *args, **kw):
    return subprocess.run(["git", "--git-dir", git_dir, *args], check=True,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def mirror_of(project, mirror_root):
    owner, name = project["repo"].split("/")
    repo = os.path.join(mirror_root, owner + "+" + name, "repo")
    # A mirror with a work tree keeps its git directory in repo/.git.
    dot_git = os.path.join(repo, ".git")
    return dot_git if os.path.isdir(dot_git) else repo


def extract(project, mirror_root, dest):
    """Writes the pinned commit's sources under dest; returns skipped paths."""
    git_dir = mirror_of(project, mirror_root)
    if not os.path.isdir(git_dir):
        raise Error(
            "no mirror of %s at %s: fetch it first with the search tool, "
            "fetch(source=\"%s\")" % (project["repo"], git_dir, project["fetch"]))
    commit = project["commit"]
    try:
        git(git_dir, "cat-file", "-e", commit + "^{commit}")
    except subprocess.CalledProcessError:
        raise Error("the mirror of %s at %s lacks commit %s: fetch it again "
                    "(fetch(source=\"%s\"))" %
                    (project["repo"], git_dir, commit, project["fetch"]))
    listing = git(git_dir, "ls-tree", "-r", "-z", "--full-tree", commit).stdout
    wanted = []
    for entry in listing.split(b"\0"):
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind != b"blob" or mode == b"120000":
            continue
        if path.decode("utf-8", "replace").lower().endswith(SOURCE_EXT):
            wanted.append((path.decode("utf-8", "replace"), sha.decode()))
    if os.path.exists(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)
    # One cat-file --batch for all blobs; a blob the snapshot lacks (large
    # files are left out of snapshots) answers "missing".
    proc = subprocess.Popen(["git", "--git-dir", git_dir, "cat-file", "--batch"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    missing = []

    def feed():
        for _, sha in wanted:
            proc.stdin.write(sha.encode() + b"\n")
        proc.stdin.close()

    import threading
    feeder = threading.Thread(target=feed)
    feeder.start()
    for path, sha in wanted:
        header = proc.stdout.readline().split()
        if len(header) < 2 or header[1] == b"missing":
            missing.append(path)
            continue
        size = int(header[2])
        data = proc.stdout.read(size)
        proc.stdout.read(1)
        out = os.path.join(dest, path)
        if os.path.normpath(out).startswith(os.path.normpath(dest) + os.sep):
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with open(out, "wb") as f:
                f.write(data)
    feeder.join()
    proc.wait()
    with open(os.path.join(dest, ".realcode-commit"), "w") as f:
        f.write(commit + "\n")
    return missing


STANDINS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "standins")


def expand(flag, root, compat, cuda):
    return (flag.replace("{root}", root).replace("{compat}", compat)
            .replace("{cuda}", cuda).replace("{standins}", STANDINS))


DEBIAN_TORCH_API = "/usr/include/torch/csrc/api/include"


def with_libtorch(flags, prefix):
    """The common flags with another LibTorch's headers (PREFIX/usr/include and
    its API directory) where Debian's are."""
    if not prefix:
        return flags
    out = []
    for flag in flags:
        if flag == DEBIAN_TORCH_API:
            inc = os.path.join(prefix, "usr", "include")
            out[-1:] = ["-isystem", inc, "-isystem"]
            out.append(os.path.join(inc, "torch", "csrc", "api", "include"))
        else:
            out.append(flag)
    return out


def libtorch_release(prefix):
    """"2.6" for a prefix's headers, "1.13" for Debian's."""
    api = os.path.join(prefix, "usr", "include", "torch", "csrc", "api", "include") \
        if prefix else DEBIAN_TORCH_API
    try:
        text = open(os.path.join(api, "torch", "version.h")).read()
    except OSError:
        return ""
    m = [re.search(r"#define TORCH_VERSION_%s (\d+)" % k, text) for k in ("MAJOR", "MINOR")]
    return "%s.%s" % (m[0].group(1), m[1].group(1)) if all(m) else ""


def missing_packages(names):
    """The Debian packages of \p names that dpkg says are not installed;
    None when dpkg cannot be asked (not a Debian system)."""
    if not names:
        return []
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${Status}\\n"] + list(names),
                             capture_output=True, text=True).stdout
    except OSError:
        return None
    installed = {line.split()[0] for line in out.splitlines()
                 if line.endswith("install ok installed")}
    return [n for n in names if n not in installed]


def analysed_tus(project, release):
    """The project's TUs that the LibTorch release under test can parse: a TU
    marked "libtorch": "2" needs a 2.x release."""
    major = release.split(".")[0]
    return [tu for tu in project["tus"] if tu.get("libtorch", major) == major]


def compile_commands(config, project, root, compat, cuda, prefix=None, tus=None):
    common = dict(config["common"])
    common["cxx"] = with_libtorch(common["cxx"], prefix)
    common["cuda"] = with_libtorch(common["cuda"], prefix)
    entries = []
    for tu in project["tus"] if tus is None else tus:
        path = os.path.join(root, tu["file"])
        lang = "cuda" if tu["file"].endswith(CUDA_EXT) else "cxx"
        args = [common["compiler"]]
        for flag in common[lang] + project.get("flags", []) + tu.get("flags", []):
            args.append(expand(flag, root, compat, cuda))
        args += ["-c", path]
        entries.append({"directory": root, "arguments": args, "file": path})
    return entries


def line_col(path, offset, cache):
    if path not in cache:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            data = None
        starts = None
        if data is not None:
            starts = [0] + [m.end() for m in re.finditer(b"\n", data)]
        cache[path] = starts
    starts = cache[path]
    if starts is None:
        return 0, 0
    import bisect
    k = bisect.bisect_right(starts, offset) - 1
    return k + 1, offset - starts[k] + 1


def relpath(path, root):
    path = os.path.normpath(path)
    if path.startswith(root + os.sep):
        return path[len(root) + 1:]
    return path


def run_exported(cmd, timeout):
    """Runs torch-tidy's command cmd with --export-fixes to a temporary file;
    returns its output, exit status (or "timeout"), seconds and diagnostics."""
    import yaml
    fd, fixes = tempfile.mkstemp(prefix="realcode-", suffix=".yaml")
    os.close(fd)
    os.unlink(fixes)
    cmd = cmd + ["--export-fixes=" + fixes]
    start = time.time()
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=timeout)
        out, rc = proc.stdout.decode("utf-8", "replace"), proc.returncode
    except subprocess.TimeoutExpired as e:
        out, rc = (e.stdout or b"").decode("utf-8", "replace"), "timeout"
    seconds = time.time() - start
    diags = []
    if os.path.exists(fixes):
        with open(fixes) as f:
            doc = yaml.safe_load(f) or {}
        os.unlink(fixes)
        diags = doc.get("Diagnostics") or []
    return out, rc, seconds, diags, " ".join(shlex.quote(c) for c in cmd)


def run_tu(tidy, build_dir, root, checks, file, timeout):
    """Runs torch-tidy on one TU; returns its status and raw diagnostics."""
    out, rc, seconds, diags, cmd = run_exported(
        [tidy, "-p", build_dir, "--checks=" + checks,
         "--header-filter=^" + re.escape(root + os.sep), os.path.join(root, file)], timeout)
    errors = [d for d in diags if d.get("DiagnosticName") == "clang-diagnostic-error"]
    crashed = rc == "timeout" or (isinstance(rc, int) and rc < 0) or \
        "Stack dump" in out or "PLEASE submit a bug report" in out or \
        re.search(r"^LLVM ERROR:", out, re.M) is not None
    parse_failed = bool(errors) or "Error while processing" in out or \
        "Found compiler error" in out
    first_errors = [l for l in out.splitlines() if ": error: " in l][:3]
    if not first_errors:
        first_errors = [d["DiagnosticMessage"]["Message"] for d in errors][:3]
    return {"file": file, "rc": rc, "seconds": round(seconds, 1),
            "parse_failed": parse_failed, "crashed": crashed,
            "errors": first_errors, "diagnostics": diags, "command": cmd}


def run_project(tidy, build_dir, root, checks, jobs, timeout, summaries):
    """Runs torch-tidy -p over the whole compile database at once (a project
    run, which links the files' summaries unless summaries is False:
    docs/summaries.md); returns one result in run_tu's form for them all."""
    cmd = [tidy, "-p", build_dir, "-j", str(jobs), "--no-progress", "--checks=" + checks,
           "--header-filter=^" + re.escape(root + os.sep)]
    if not summaries:
        cmd.append("--no-summaries")
    out, rc, seconds, diags, cmd = run_exported(cmd, timeout)
    summary = [l for l in out.splitlines() if l.startswith("torch-tidy: ")]
    return {"file": "(project run)", "rc": rc, "seconds": round(seconds, 1),
            "parse_failed": rc == 2 and "did not finish" not in out,
            "crashed": rc == "timeout" or "Stack dump" in out or "did not finish" in out,
            "errors": summary[-1:], "diagnostics": diags, "command": cmd}


def findings_of(project, root, results):
    """One finding per (file, offset, check, message), with the TUs that saw it."""
    cache = {}
    seen = {}
    for r in results:
        for d in r["diagnostics"]:
            name = d.get("DiagnosticName", "")
            if name == "clang-diagnostic-error":
                continue
            m = d["DiagnosticMessage"]
            key = (m["FilePath"], m["FileOffset"], name, m["Message"])
            if key in seen:
                seen[key]["tus"].append(r["file"])
                continue
            line, col = line_col(m["FilePath"], m["FileOffset"], cache)
            notes = []
            for n in d.get("Notes") or []:
                nl, nc = line_col(n["FilePath"], n["FileOffset"], cache) \
                    if n.get("FilePath") else (0, 0)
                notes.append({"file": relpath(n.get("FilePath", ""), root),
                              "line": nl, "column": nc, "message": n["Message"]})
            seen[key] = {"project": project["name"], "check": name,
                         "file": relpath(m["FilePath"], root), "line": line,
                         "column": col, "message": m["Message"], "notes": notes,
                         "tus": [r["file"]]}
    return sorted(seen.values(), key=lambda f: (f["file"], f["line"], f["column"],
                                                f["check"]))


def load_labels(path):
    if not os.path.exists(path):
        return {"labels": [], "known_bugs": []}
    with open(path) as f:
        return json.load(f)


def key(item):
    return (item["project"], item["file"], int(item["line"]), item["check"])


def enabled_checks(tidy, checks):
    """The checks torch-tidy runs with --checks, so that silent ones get a row."""
    try:
        out = subprocess.run([tidy, "--checks=" + checks, "--list-checks"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             timeout=60).stdout.decode("utf-8", "replace")
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [l.strip() for l in out.splitlines() if l.startswith("    ")]


def compare(findings, labels, projects_run, checks_run=()):
    """Per check: findings, judged true/false, unjudged, known bugs reported."""
    by_key = {}
    for lab in labels.get("labels", []):
        if lab["project"] in projects_run:
            by_key[key(lab)] = lab
    table = {}

    def row(check):
        return table.setdefault(check, {"findings": 0, "true": 0, "false": 0,
                                        "benign": 0, "unjudged": 0,
                                        "bugs_reported": 0, "bugs": 0})
    for check in checks_run:
        row(check)
    unjudged = []
    matched = set()
    for f in findings:
        r = row(f["check"])
        r["findings"] += 1
        lab = by_key.get(key(f))
        if lab is None:
            r["unjudged"] += 1
            unjudged.append(f)
            continue
        matched.add(key(f))
        f["verdict"] = lab["verdict"]
        # "true-benign-here": the rule holds, this program does not reach it;
        # precision counts it as true.
        true = lab["verdict"] in ("true", "true-benign-here")
        r["true" if true else "false"] += 1
        r["benign"] += lab["verdict"] == "true-benign-here"
    stale = [lab for k, lab in by_key.items() if k not in matched]
    # A finding of the bug's check in its file, at its line or within
    # BUG_LINES of it (a reader names the statement, the check the
    # expression: `x = ...;` over two lines). A finding reports one bug:
    # two bugs of one check at one place (a launch on the default stream
    # whose grid can also be empty) need two findings. Bugs with fewer
    # candidates choose first, each the nearest finding left.
    # A reader may name a macro's body where the check reports each
    # expansion of it (the written launch, the diagnostics' location):
    # labels.json's "reported_at" rows give those lines, with the reason.
    listed = [b for b in labels.get("known_bugs", []) if b["project"] in projects_run]
    also = {}
    for a in labels.get("reported_at", []):
        also.setdefault((a["project"], a["file"], int(a["line"]), a["check"]),
                        set()).update(int(l) for l in a["lines"])

    def is_near(f, bug):
        line = int(f["line"])
        return abs(line - int(bug["line"])) <= BUG_LINES or line in also.get(
            (bug["project"], bug["file"], int(bug["line"]), bug["check"]), ())

    # A finding reported in another file, where the evidence is, whose
    # notes lead to the bug's line (a project run's cross-file finding: ids
    # parsed in one file reach an index op in another) reports it too.
    def leads_to(f, bug):
        return any(n.get("file") == bug["file"] and
                   abs(int(n.get("line", 0)) - int(bug["line"])) <= BUG_LINES
                   for n in f.get("notes", []))
    near = [[i for i, f in enumerate(findings)
             if f["project"] == bug["project"] and f["check"] == bug["check"] and
             ((f["file"] == bug["file"] and is_near(f, bug)) or
              (f["file"] != bug["file"] and leads_to(f, bug)))]
            for bug in listed]
    used, chosen = set(), {}
    for b in sorted(range(len(listed)), key=lambda b: (len(near[b]), b)):
        left = [i for i in near[b] if i not in used]
        if left:
            pick = min(left, key=lambda i: abs(int(findings[i]["line"]) -
                                               int(listed[b]["line"])))
            used.add(pick)
            chosen[b] = pick
    bugs = []
    for b, bug in enumerate(listed):
        r = row(bug["check"])
        r["bugs"] += 1
        r["bugs_reported"] += b in chosen
        bugs.append(dict(bug, reported=b in chosen,
                         reported_at=[findings[i]["line"]
                                      if findings[i]["file"] == bug["file"]
                                      else "%s:%s" % (findings[i]["file"],
                                                      findings[i]["line"])
                                      for i in near[b]]))
    return table, unjudged, stale, bugs


def compare_releases(other_path, release, findings, tu_status):
    """Both runs side by side per check, on the TUs both parsed, and each
    finding only one of them has."""
    with open(other_path) as f:
        other = json.load(f)
    ok = lambda tus: {(t["project"], t["file"]) for t in tus
                      if not t["parse_failed"] and not t["crashed"]}
    both = ok(tu_status) & ok(other["tus"])

    def keyed(fs):
        return {(f["project"], f["file"], f["line"], f["column"], f["check"]): f for f in fs
                if any((f["project"], tu) in both for tu in f["tus"])}
    mine, theirs = keyed(findings), keyed(other["findings"])
    checks = sorted({k[4] for k in mine} | {k[4] for k in theirs})
    print("\nLibTorch %s against %s (%s), on the %d TUs both parsed:" %
          (release, other.get("libtorch", "?"), other_path, len(both)))
    print("  %-34s %8s %8s" % ("check", other.get("libtorch", "other"), release))
    for c in checks:
        print("  %-34s %8d %8d" % (c, sum(k[4] == c for k in theirs),
                                   sum(k[4] == c for k in mine)))
    for k in sorted(set(mine) ^ set(theirs)):
        print("  only with %s: %s %s:%d:%d [%s]" % (
            release if k in mine else other.get("libtorch", "other"), *k))


BUG_LINES = 2


def blind_known_bugs(blind_dir, projects_run):
    """The bugs the blind readers listed (bench/realcode/blind/NAME.json),
    as known bugs: recall is measured against them only."""
    bugs = []
    for name in sorted(projects_run):
        path = os.path.join(blind_dir, name + ".json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            blind = json.load(f)
        for b in blind.get("bugs", []):
            bugs.append({"project": name, "file": b["file"], "line": int(b["line"]),
                         "check": b["class"], "description": b.get("description", "")})
    return bugs


def precision(r):
    judged = r["true"] + r["false"]
    return "%.2f" % (r["true"] / judged) if judged else "n/a"


def table_lines(table):
    head = ["check", "findings", "judged true", "of them benign here", "judged false",
            "not yet judged", "judged precision", "known bugs reported / in the set"]
    rows = []
    total = {"findings": 0, "true": 0, "benign": 0, "false": 0, "unjudged": 0,
             "bugs_reported": 0, "bugs": 0}
    for check in sorted(table):
        r = table[check]
        for k in total:
            total[k] += r[k]
        rows.append([check, r["findings"], r["true"], r["benign"], r["false"],
                     r["unjudged"], precision(r),
                     "%d / %d" % (r["bugs_reported"], r["bugs"])])
    rows.append(["all", total["findings"], total["true"], total["benign"], total["false"],
                 total["unjudged"], precision(total),
                 "%d / %d" % (total["bugs_reported"], total["bugs"])])
    return head, rows


def print_table(head, rows):
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    for r in [head] + rows:
        print("  ".join(str(x).ljust(w) if i == 0 else str(x).rjust(w)
                        for i, (x, w) in enumerate(zip(r, widths))))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--projects", default=os.path.join(HERE, "projects.json"))
    ap.add_argument("--labels", default=os.path.join(HERE, "labels.json"))
    ap.add_argument("--root", default="/tmp/realcode",
                    help="where projects are extracted (default %(default)s)")
    ap.add_argument("--mirrors", default=os.environ.get("REALCODE_MIRRORS", "/work/.mirror"),
                    help="where fetch puts its git directories (default %(default)s)")
    ap.add_argument("--torch-tidy", default=os.path.join(REPO, "build", "bin", "torch-tidy"))
    ap.add_argument("--checks", default="-*,libtorch-*")
    ap.add_argument("--cuda-path", default="/usr/local/cuda")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--project", action="append", default=[],
                    help="run only this project (repeatable)")
    ap.add_argument("--timeout", type=int, default=600,
                    help="seconds per translation unit")
    ap.add_argument("--out", default="/tmp/realcode-findings.json",
                    help="findings and per-TU status (default %(default)s)")
    ap.add_argument("--markdown", help="write the table (with command and date) here")
    ap.add_argument("--libtorch-prefix",
                    help="another LibTorch's headers, PREFIX/usr/include (tools/fetch-libtorch.sh), "
                         "instead of Debian's 1.13; TUs marked \"libtorch\": \"2\" run only on 2.x")
    ap.add_argument("--compare-with", metavar="FINDINGS",
                    help="a findings file of another run (another LibTorch): print both side by "
                         "side per check on the TUs both analysed, and each finding only one has")
    ap.add_argument("--blind", default=os.path.join(HERE, "blind"),
                    help="the blind-read bug lists (NAME.json); recall is measured against "
                         "them where a project has one (default %(default)s; '' for labels.json's)")
    ap.add_argument("--project-run", choices=("summaries", "no-summaries"),
                    help="run torch-tidy -p once per project (a project run) instead of once "
                         "per TU: with the files' summaries linked (docs/summaries.md) or "
                         "with --no-summaries")
    ap.add_argument("--list-unjudged", action="store_true",
                    help="print every finding with no label, with its notes")
    args = ap.parse_args()

    with open(args.projects) as f:
        config = json.load(f)
    # The headers the projects include: without them a TU fails to parse,
    # and a run would report compile errors where the set has findings.
    missing = missing_packages(config.get("packages", []))
    if missing is None:
        print("run.py: cannot ask dpkg whether the projects' header packages are installed "
              "(%s); TUs may fail to parse" % " ".join(config["packages"]), file=sys.stderr)
    elif missing:
        sys.exit("run.py: the projects include headers of packages that are not installed: "
                 "%s\n  apt-get install %s\n(bench/realcode/README.md, Running it)"
                 % (" ".join(missing), " ".join(missing)))
    projects = config["projects"]
    names = [p["name"] for p in projects]
    for n in args.project:
        if n not in names:
            sys.exit("run.py: no project '%s' in %s (have: %s)" %
                     (n, args.projects, ", ".join(names)))
    if args.project:
        projects = [p for p in projects if p["name"] in args.project]
    tidy = os.path.abspath(args.torch_tidy)
    if not os.path.isfile(tidy) or not os.access(tidy, os.X_OK):
        sys.exit("run.py: no torch-tidy at %s (build it with tools/build.sh, or "
                 "pass --torch-tidy)" % tidy)
    compat = os.path.join(REPO, "lib", "cuda-compat", "include")
    prefix = os.path.abspath(args.libtorch_prefix) if args.libtorch_prefix else None
    release = libtorch_release(prefix)
    if not release:
        sys.exit("run.py: no LibTorch headers (torch/version.h) %s" %
                 ("under " + prefix if prefix else "from Debian's libtorch-dev"))
    print("== LibTorch %s headers%s" % (release, " from " + prefix if prefix else ""),
          file=sys.stderr)
    root_dir = os.path.abspath(args.root)
    os.makedirs(root_dir, exist_ok=True)

    all_findings, tu_status, problems = [], [], []
    skipped_for_release = 0
    for p in projects:
        root = os.path.join(root_dir, p["name"])
        build = os.path.join(root_dir, "_build", p["name"])
        try:
            missing = extract(p, args.mirrors, root)
        except Error as e:
            problems.append(str(e))
            print("run.py: " + str(e), file=sys.stderr)
            continue
        for tu in p["tus"]:
            if not os.path.exists(os.path.join(root, tu["file"])):
                problems.append("%s: %s is not in commit %s" % (p["name"], tu["file"], p["commit"]))
        os.makedirs(build, exist_ok=True)
        tus = analysed_tus(p, release)
        skipped_for_release += len(p["tus"]) - len(tus)
        with open(os.path.join(build, "compile_commands.json"), "w") as f:
            json.dump(compile_commands(config, p, root, compat, args.cuda_path, prefix, tus),
                      f, indent=1)
        print("== %s (%s @ %s): %d TUs%s" % (p["name"], p["repo"], p["commit"][:12],
                                             len(tus),
                                             ", %d files missing from the snapshot" % len(missing)
                                             if missing else ""), file=sys.stderr, flush=True)
        if args.project_run:
            # The cache of an earlier run would hide the cost.
            shutil.rmtree(os.path.join(build, "torch-tidy-cache"), ignore_errors=True)
            results = [run_project(tidy, build, root, args.checks, args.jobs,
                                   args.timeout * max(1, len(tus)),
                                   args.project_run == "summaries")]
        else:
            with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
                results = list(pool.map(
                    lambda tu: run_tu(tidy, build, root, args.checks, tu["file"],
                                      args.timeout), tus))
        for r in results:
            state = "CRASH" if r["crashed"] else "ERROR" if r["parse_failed"] else "ok"
            n = sum(1 for d in r["diagnostics"] if d.get("DiagnosticName") != "clang-diagnostic-error")
            print("  %-5s %5.1fs %3d  %s" % (state, r["seconds"], n, r["file"]),
                  file=sys.stderr, flush=True)
            for e in r["errors"] if state != "ok" or args.project_run else []:
                print("        " + e, file=sys.stderr)
        all_findings += findings_of(p, root, results)
        for r in results:
            tu_status.append({"project": p["name"], "file": r["file"], "rc": r["rc"],
                              "seconds": r["seconds"], "parse_failed": r["parse_failed"],
                              "crashed": r["crashed"], "errors": r["errors"]})

    labels = load_labels(args.labels)
    ran = {p["name"] for p in projects}
    if args.blind:
        # Recall against the lists read blind, for the projects that have one.
        blind = blind_known_bugs(args.blind, ran)
        listed = {b["project"] for b in blind} | {
            n for n in ran if os.path.exists(os.path.join(args.blind, n + ".json"))}
        labels = dict(labels, known_bugs=blind + [
            b for b in labels.get("known_bugs", []) if b["project"] not in listed])
    table, unjudged, stale, bugs = compare(all_findings, labels, ran,
                                           enabled_checks(tidy, args.checks))
    failed = [t for t in tu_status if t["parse_failed"] or t["crashed"]]
    with open(args.out, "w") as f:
        json.dump({"command": sys.argv, "date": datetime.date.today().isoformat(),
                   "libtorch": release,
                   "findings": all_findings, "tus": tu_status, "known_bugs": bugs,
                   "problems": problems}, f, indent=1)

    ok = len(tu_status) - len(failed)
    print("\n%d projects, %d TUs analysed, %d parsed cleanly, %d with compile errors, "
          "%d crashed; left out by projects.json: %d" %
          (len(ran), len(tu_status), ok, sum(t["parse_failed"] for t in tu_status),
           sum(t["crashed"] for t in tu_status),
           sum(len(p.get("left_out", [])) for p in projects)))
    if skipped_for_release:
        print("  %d TUs need another LibTorch than %s (\"libtorch\" in projects.json)"
              % (skipped_for_release, release))
    for t in failed:
        print("  %s %s: %s" % ("CRASH" if t["crashed"] else "ERROR",
                               t["project"] + "/" + t["file"], "; ".join(t["errors"])))
    for pr in problems:
        print("  PROBLEM " + pr)
    print()
    head, rows = table_lines(table)
    print_table(head, rows)
    print("\nknown bugs (by reading the code):")
    for b in bugs:
        print("  [%s] %s %s:%d (%s)%s" % (
            "reported" if b["reported"] else "missed", b["project"], b["file"], b["line"],
            b["check"], " at %s" % ",".join(map(str, b["reported_at"]))
            if b.get("reported_at") and b["reported_at"] != [b["line"]] else ""))
    if stale:
        print("\n%d labels match no finding of this run (the checks changed, or the TUs that saw them were not analysed):" % len(stale))
        for lab in stale:
            print("  %s %s:%d %s (%s)" % (lab["project"], lab["file"], lab["line"],
                                          lab["check"], lab["verdict"]))
    if unjudged:
        print("\n%d findings have no label%s" %
              (len(unjudged), ":" if args.list_unjudged else " (--list-unjudged lists them)"))
        if args.list_unjudged:
            for f in unjudged:
                print("  %s %s:%d:%d [%s] %s" % (f["project"], f["file"], f["line"],
                                                f["column"], f["check"], f["message"]))
                for n in f["notes"]:
                    print("      note %s:%d:%d %s" % (n["file"], n["line"], n["column"],
                                                      n["message"]))
    if args.compare_with:
        compare_releases(args.compare_with, release, all_findings, tu_status)
    print("\nfindings written to " + args.out)

    if args.markdown:
        cmd = "bench/realcode/run.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
        with open(args.markdown, "w") as f:
            f.write("Real-code evaluation, %s: %d projects, %d TUs parsed cleanly "
                    "(%d with compile errors).\n\n" %
                    (datetime.date.today().isoformat(), len(ran), ok, len(failed)))
            f.write("Command: `%s`\n\n" % cmd.strip())
            f.write("| " + " | ".join(head) + " |\n")
            f.write("|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|\n")
            for r in rows:
                f.write("| " + " | ".join(str(x) for x in r) + " |\n")
        print("table written to " + args.markdown)
    return 1 if failed or problems else 0


if __name__ == "__main__":
    sys.exit(main())

"""Makes a one-project real-code set for bench/realcode/run.py's smoke run:
a git mirror of a tiny repository (the example project's model), in the
layout fetch gives (<mirrors>/<owner>+<name>/repo), and its projects.json
(the real one's common flags) and labels.json: one label and one known bug.

Usage: realcode_fixture.py SRC_ROOT OUT_DIR
"""
import json
import os
import shutil
import subprocess
import sys

src_root, out = sys.argv[1], sys.argv[2]
work = os.path.join(out, "work")
os.makedirs(os.path.join(work, "src"))
for name in ("model.cpp", "model.h"):
    shutil.copy(os.path.join(src_root, "examples", "buggy", name), os.path.join(work, "src", name))
env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid",
           GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid")
git_dir = os.path.join(out, "mirrors", "smoke+tiny", "repo")
subprocess.run(["git", "init", "-q", "--bare", git_dir], check=True)
subprocess.run(["git", "--git-dir", git_dir, "--work-tree", work, "add", "-A"], check=True, env=env)
subprocess.run(["git", "--git-dir", git_dir, "--work-tree", work, "commit", "-q", "-m", "tiny"],
               check=True, env=env)
commit = subprocess.run(["git", "--git-dir", git_dir, "rev-parse", "HEAD"], check=True,
                        stdout=subprocess.PIPE, text=True).stdout.strip()
with open(os.path.join(src_root, "bench", "realcode", "projects.json")) as f:
    common = json.load(f)["common"]
project = {"name": "tiny", "repo": "smoke/tiny", "fetch": "github:smoke/tiny", "commit": commit,
           "kind": "smoke test", "flags": ["-I{root}/src"], "tus": [{"file": "src/model.cpp"}],
           "left_out": []}
with open(os.path.join(out, "projects.json"), "w") as f:
    json.dump({"about": "smoke", "common": common, "projects": [project]}, f)
with open(os.path.join(out, "labels.json"), "w") as f:
    json.dump({"about": "smoke", "labels": [
        {"project": "tiny", "file": "src/model.cpp", "line": 7,
         "check": "libtorch-unregistered-submodule", "verdict": "true", "reason": "smoke"}],
        "known_bugs": [
        {"project": "tiny", "file": "src/model.cpp", "line": 64,
         "check": "libtorch-unchecked-index", "description": "smoke"},
        # Two more at the same place: the two findings there report two of
        # the three, not all three.
        {"project": "tiny", "file": "src/model.cpp", "line": 64,
         "check": "libtorch-unchecked-index", "description": "second hazard"},
        {"project": "tiny", "file": "src/model.cpp", "line": 65,
         "check": "libtorch-unchecked-index", "description": "third hazard"}]}, f)
